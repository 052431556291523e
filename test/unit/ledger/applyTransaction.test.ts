// The per-transaction applier closeLedger uses (and the replay drives): the meta around the operations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '../../../src/xdr/xdr.ts';
import { applyTransaction, maxSeqNumsToApply } from '../../../src/ledger/closeLedger.ts';
import { LedgerTxn } from '../../../src/ledger/ledgerTxn.ts';
import { frameOf } from '../../../src/ledger/transactionFrame.ts';
import { accountKey, type AccountId, type TransactionEnvelope } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';
import { MemoryState, NETWORK_ID, XLM, accountEntry, accountId, ledgerContext, muxed } from '../ops/support.ts';

const alice = accountId('alice');
const sponsor = accountId('fee sponsor');
const bob = accountId('bob');
const LEDGER = 100;

function paymentTx(source: AccountId, seqNum: bigint): xdr.TransactionWire {
  return {
    sourceAccount: muxed(source), fee: 100, seqNum, cond: { type: 0 }, memo: { type: 0 },
    operations: [{ sourceAccount: null, body: { type: 1, paymentOp: { destination: muxed(bob), asset: { type: 0 }, amount: XLM } } }],
    ext: { v: 0 },
  };
}

const feeBump = (feeSource: AccountId, inner: xdr.TransactionWire): TransactionEnvelope => ({
  type: 5,
  feeBump: { tx: { feeSource: muxed(feeSource), fee: 1000n, innerTx: { type: 2, v1: { tx: inner, signatures: [] } }, ext: { v: 0 } }, signatures: [] },
});

function apply(state: MemoryState, envelope: TransactionEnvelope, over: { protocolVersion?: number; txSetBaseFee?: bigint | null } = {}) {
  const frame = frameOf(envelope, NETWORK_ID);
  const root = new LedgerTxn(state, LEDGER, { idPool: 0n });
  const ledger = ledgerContext({ ledgerSeq: LEDGER, protocolVersion: over.protocolVersion ?? 23 });
  return applyTransaction(frame, root, ledger, 200n, maxSeqNumsToApply([frame]), undefined, new Uint8Array(32),
    { skipSignatureVerification: true, txSetBaseFee: over.txSetBaseFee });
}

const changedAccounts = (changes: xdr.LedgerEntryChangeWire[]) => changes.map((c) => {
  const entry = c.type === 3 ? c.state : c.type === 1 ? c.updated : undefined;
  const key = entry ? ledgerKeyOf(entry.data) : undefined;
  return `${c.type}:${key?.type === 0 ? Buffer.from(key.account.accountId.ed25519).toString('hex').slice(0, 8) : '?'}`;
});

const hex8 = (id: AccountId) => Buffer.from(id.ed25519).toString('hex').slice(0, 8);

test('a fee bump shows its fee source in txChangesBefore, unchanged but stamped, ahead of the sequence bump (core FeeBumpTransactionFrame::apply)', () => {
  const state = new MemoryState([accountEntry(alice, 10n * XLM), accountEntry(sponsor, 10n * XLM), accountEntry(bob, 10n * XLM)]);
  const { result, meta } = apply(state, feeBump(sponsor, paymentTx(alice, (4n << 32n) + 1n)));
  assert.equal(result.result.code, 1, 'fee bump inner success');
  if (meta.v !== 4) throw new Error('V4 expected');
  const before = meta.v4.txChangesBefore;
  assert.deepEqual(changedAccounts(before), [`3:${hex8(sponsor)}`, `1:${hex8(sponsor)}`, `3:${hex8(alice)}`, `1:${hex8(alice)}`]);
  const [state0, updated] = before;
  if (state0.type !== 3 || updated.type !== 1) throw new Error('STATE then UPDATED expected');
  assert.equal(state0.state.lastModifiedLedgerSeq, 1);
  assert.equal(updated.updated.lastModifiedLedgerSeq, LEDGER, 'the load alone stamps the entry with this ledger');
  assert.deepEqual({ ...updated.updated, lastModifiedLedgerSeq: 1 }, state0.state, 'nothing else about the fee source changes');
});

test('the fee source is shown even when the inner transaction is refused before its sequence number is used', () => {
  const state = new MemoryState([accountEntry(alice, 10n * XLM), accountEntry(sponsor, 10n * XLM), accountEntry(bob, 10n * XLM)]);
  const { result, meta } = apply(state, feeBump(sponsor, paymentTx(alice, 99n)));
  assert.equal(result.result.code, -13, 'fee bump inner failed');
  if (result.result.code !== -13) return;
  assert.equal(result.result.innerResultPair.result.result.code, -5, 'txBAD_SEQ');
  if (meta.v !== 4) throw new Error('V4 expected');
  assert.deepEqual(changedAccounts(meta.v4.txChangesBefore), [`3:${hex8(sponsor)}`, `1:${hex8(sponsor)}`]);
});

test("a fee bump removes the fee source's pre-authorized signer for the fee bump itself", () => {
  const envelope = feeBump(sponsor, paymentTx(alice, (4n << 32n) + 1n));
  const preAuth = { key: { type: 1 as const, preAuthTx: frameOf(envelope, NETWORK_ID).hash }, weight: 1 };
  const state = new MemoryState([
    accountEntry(alice, 10n * XLM), accountEntry(sponsor, 10n * XLM, { signers: [preAuth], numSubEntries: 1 }), accountEntry(bob, 10n * XLM),
  ]);
  const { meta } = apply(state, envelope);
  if (meta.v !== 4) throw new Error('V4 expected');
  const updated = meta.v4.txChangesBefore.find((c) => c.type === 1 && ledgerKeyOf(c.updated.data).type === 0
    && Buffer.from((ledgerKeyOf(c.updated.data) as Extract<xdr.LedgerKeyWire, { type: 0 }>).account.accountId.ed25519).equals(Buffer.from(sponsor.ed25519)));
  if (!updated || updated.type !== 1 || updated.updated.data.type !== 0) throw new Error('the fee source is updated');
  assert.deepEqual(updated.updated.data.account.signers, []);
  assert.equal(updated.updated.data.account.numSubEntries, 0);
});

test('a plain transaction shows only its own source in txChangesBefore', () => {
  const state = new MemoryState([accountEntry(alice, 10n * XLM), accountEntry(bob, 10n * XLM)]);
  const envelope: TransactionEnvelope = { type: 2, v1: { tx: paymentTx(alice, (4n << 32n) + 1n), signatures: [] } };
  const { meta } = apply(state, envelope);
  if (meta.v !== 4) throw new Error('V4 expected');
  assert.deepEqual(changedAccounts(meta.v4.txChangesBefore), [`3:${hex8(alice)}`, `1:${hex8(alice)}`]);
  assert.ok(state.get(accountKey(alice)));
});

test("a fee bump's result reports the inner transaction's own fee before protocol 25, 0 since (core FeeBumpTransactionFrame::processFeeSeqNum)", () => {
  const state = () => new MemoryState([accountEntry(alice, 10n * XLM), accountEntry(sponsor, 10n * XLM), accountEntry(bob, 10n * XLM)]);
  const envelope = () => feeBump(sponsor, paymentTx(alice, (4n << 32n) + 1n)); // inner: 1 operation, fee 100
  const innerFee = (r: xdr.TransactionResultWire) => {
    if (r.result.code !== 1) throw new Error(`fee bump inner success expected, got ${r.result.code}`);
    return r.result.innerResultPair.result.feeCharged;
  };
  assert.equal(innerFee(apply(state(), envelope(), { protocolVersion: 24, txSetBaseFee: 50n }).result), 50n, 'the set\'s base fee x 1 operation');
  assert.equal(innerFee(apply(state(), envelope(), { protocolVersion: 24, txSetBaseFee: 500n }).result), 100n, 'never more than the inner fee');
  assert.equal(innerFee(apply(state(), envelope(), { protocolVersion: 24, txSetBaseFee: null }).result), 100n, 'no set base fee: the whole bid');
  assert.equal(innerFee(apply(state(), envelope(), { protocolVersion: 24 }).result), 100n, 'by default the ledger\'s base fee (100)');
  assert.equal(innerFee(apply(state(), envelope(), { protocolVersion: 25, txSetBaseFee: 50n }).result), 0n);
});

/** An account whose sponsorship counts make its reserve negative: any reserve check on it throws. */
const brokenAccount = (id: AccountId, balance: bigint) => accountEntry(id, balance, {
  ext: { v: 1, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2, v2: { numSponsored: 5, numSponsoring: 0, signerSponsoringIDs: [], ext: { v: 0 } } } } },
});

test('an exception in an operation fails that transaction alone: txINTERNAL_ERROR, fee and sequence kept, operations dropped (core applyOperations)', () => {
  const state = new MemoryState([brokenAccount(alice, 10n * XLM), accountEntry(bob, 10n * XLM)]);
  const applied = apply(state, { type: 2, v1: { tx: paymentTx(alice, (4n << 32n) + 1n), signatures: [] } });
  assert.equal(applied.result.result.code, -11, 'txINTERNAL_ERROR');
  assert.equal(applied.result.feeCharged, 200n);
  assert.match(String((applied.internalError as Error)?.message), /negative reserve count/);
  if (applied.meta.v !== 4) throw new Error('V4 expected');
  assert.deepEqual(changedAccounts(applied.meta.v4.txChangesBefore), [`3:${hex8(alice)}`, `1:${hex8(alice)}`], 'the sequence number is used');
  assert.deepEqual(applied.meta.v4.operations, [], 'no operation changes');
  assert.equal(applied.meta.v4.events.length, 1, 'the fee event');
});
