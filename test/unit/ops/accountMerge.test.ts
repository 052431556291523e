import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import {
  MemoryState, NETWORK_ID, XLM, accountEntry, accountId, credit, innerCode, muxed, runOp, trustLineEntry,
} from './support.ts';
import { accountMerge } from '../../../src/ledger/ops/accountMerge.ts';
import { accountAddress, muxedAccountAddress, transferEvent } from '../../../src/ledger/sacEvents.ts';
import type { MuxedAccount } from '../../../src/xdr/codec.ts';

const alice = accountId('alice');
const bob = accountId('bob');
const merge = (destination: MuxedAccount): Extract<xdr.OperationBodyWire, { type: 8 }> => ({ type: 8, destination });
const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
const LEDGER = 100;

test('AccountMerge moves the whole balance, removes the account, and emits a transfer', () => {
  const signer = { key: { type: 2 as const, hashX: new Uint8Array(32).fill(3) }, weight: 1 };
  const state = new MemoryState([
    accountEntry(alice, 12n * XLM + 34n, { signers: [signer], numSubEntries: 1 }),
    accountEntry(bob, 5n * XLM),
  ]);
  const r = runOp(state, merge(muxed(bob, 6n)), alice, { memo: { type: 2, id: 1n } });
  assert.equal(r.outcome.success, true);
  assert.deepEqual(r.outcome.tr, { type: 8, accountMergeResult: { code: 0, sourceAccountBalance: 12n * XLM + 34n } });
  assert.equal(state.account(alice), undefined);
  assert.equal(state.account(bob)!.balance, 17n * XLM + 34n);
  assert.ok(r.changes.some((c) => c.type === 2), 'the source account is removed');
  assert.deepEqual(r.events, [transferEvent(NETWORK_ID, { type: 0 }, accountAddress(alice), muxedAccountAddress(muxed(bob, 6n)), 12n * XLM + 34n, { type: 2, id: 1n })]);
  assert.equal(accountMerge.threshold(merge(muxed(bob))), 'high');
});

test('AccountMerge failures: NO_ACCOUNT, IMMUTABLE_SET, HAS_SUB_ENTRIES, IS_SPONSOR, DEST_FULL', () => {
  const USD = credit('USD', bob);
  assert.equal(innerCode(runOp(new MemoryState([accountEntry(alice, XLM)]), merge(muxed(bob)), alice).outcome), -2);
  assert.equal(innerCode(runOp(new MemoryState([accountEntry(alice, XLM, { flags: 0x4 }), accountEntry(bob, XLM)]), merge(muxed(bob)), alice).outcome), -3);
  const withLine = new MemoryState([accountEntry(alice, XLM, { numSubEntries: 1 }), accountEntry(bob, XLM), trustLineEntry(alice, USD, 0n, 10n, 1)]);
  assert.equal(innerCode(runOp(withLine, merge(muxed(bob)), alice).outcome), -4);
  const sponsoring = new MemoryState([
    accountEntry(alice, XLM, { ext: { v: 1, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2, v2: { numSponsored: 0, numSponsoring: 1, signerSponsoringIDs: [], ext: { v: 0 } } } } } }),
    accountEntry(bob, XLM),
  ]);
  assert.equal(innerCode(runOp(sponsoring, merge(muxed(bob)), alice).outcome), -7);
  const full = new MemoryState([accountEntry(alice, XLM), accountEntry(bob, INT64_MAX - XLM + 1n)]);
  const r = runOp(full, merge(muxed(bob)), alice);
  assert.equal(innerCode(r.outcome), -6);
  assert.ok(full.account(alice), 'nothing changed on failure');
});

test('AccountMerge SEQNUM_TOO_FAR at ledgerSeq << 32, including a later tx of the same ledger', () => {
  const limit = BigInt(LEDGER) << 32n;
  const at = new MemoryState([accountEntry(alice, XLM, { seqNum: limit }), accountEntry(bob, XLM)]);
  assert.equal(innerCode(runOp(at, merge(muxed(bob)), alice, { ledger: { ledgerSeq: LEDGER } }).outcome), -5);
  const below = new MemoryState([accountEntry(alice, XLM, { seqNum: limit - 1n }), accountEntry(bob, XLM)]);
  const pending = runOp(below, merge(muxed(bob)), alice, { ledger: { ledgerSeq: LEDGER }, maxSeqNumToApply: () => limit });
  assert.equal(innerCode(pending.outcome), -5);
  assert.equal(innerCode(runOp(below, merge(muxed(bob)), alice, { ledger: { ledgerSeq: LEDGER } }).outcome), 0);
});

test('AccountMerge checkValid: merging into oneself (even muxed) is MALFORMED', () => {
  const state = new MemoryState([accountEntry(alice, XLM)]);
  const r = runOp(state, merge(muxed(alice, 5n)), alice);
  assert.equal(r.stage, 'checkValid');
  assert.equal(innerCode(r.outcome), -1);
});

test('AccountMerge of a sponsored account with sponsored signers releases every sponsorship', () => {
  const sponsor = accountId('sponsor');
  const ext2 = (numSponsored: number, numSponsoring: number, ids: (xdr.PublicKeyWire | null)[]) =>
    ({ v: 1 as const, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2 as const, v2: { numSponsored, numSponsoring, signerSponsoringIDs: ids, ext: { v: 0 as const } } } } });
  const signer = { key: { type: 2 as const, hashX: new Uint8Array(32).fill(3) }, weight: 1 };
  const aliceEntry = accountEntry(alice, 7n * XLM, { signers: [signer], numSubEntries: 1, ext: ext2(3, 0, [sponsor]) });
  aliceEntry.ext = { v: 1, v1: { sponsoringId: sponsor, ext: { v: 0 } } };
  const state = new MemoryState([aliceEntry, accountEntry(sponsor, 10n * XLM, { ext: ext2(0, 3, []) })]);
  // merge into the sponsor itself
  const r = runOp(state, merge(muxed(sponsor)), alice);
  assert.equal(innerCode(r.outcome), 0);
  const s = state.account(sponsor)!;
  assert.equal(s.balance, 17n * XLM);
  assert.ok(s.ext.v === 1 && s.ext.v1.ext.v === 2);
  assert.equal(s.ext.v1.ext.v2.numSponsoring, 0);
  assert.equal(state.account(alice), undefined);
});
