import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import { BASE_RESERVE, MemoryState, XLM, accountEntry, accountId, credit, innerCode, runOp, trustLineEntry } from './support.ts';
import { operationResultOf } from '../../../src/ledger/ops/index.ts';
import type { Asset } from '../../../src/xdr/codec.ts';

const issuer = accountId('issuer');
const alice = accountId('alice');
const sponsor = accountId('sponsor');
const USD = credit('USD', issuer);
const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
const reserve = BigInt(BASE_RESERVE);

const trust = (asset: Asset, limit: bigint): xdr.OperationBodyWire => {
  if (asset.type === 0) return { type: 6, changeTrustOp: { line: { type: 0 }, limit } };
  return { type: 6, changeTrustOp: { line: asset.type === 1 ? { type: 1, alphaNum4: asset.alphaNum4 } : { type: 2, alphaNum12: asset.alphaNum12 }, limit } };
};

test('ChangeTrust creates an authorized trustline and takes a sub-entry', () => {
  const state = new MemoryState([accountEntry(issuer, 100n * XLM), accountEntry(alice, 100n * XLM)]);
  const r = runOp(state, trust(USD, INT64_MAX), alice);
  assert.equal(innerCode(r.outcome), 0);
  const tl = state.trustLine(alice, USD)!;
  assert.equal(tl.balance, 0n);
  assert.equal(tl.limit, INT64_MAX);
  assert.equal(tl.flags, 1, 'AUTHORIZED since the issuer does not require auth');
  assert.equal(state.account(alice)!.numSubEntries, 1);
  assert.equal(r.events.length, 0);
});

test('ChangeTrust: AUTH_REQUIRED issuer gives an unauthorized line; CLAWBACK_ENABLED is inherited', () => {
  const state = new MemoryState([accountEntry(issuer, 100n * XLM, { flags: 0x1 | 0x2 | 0x8 }), accountEntry(alice, 100n * XLM)]);
  assert.equal(innerCode(runOp(state, trust(USD, 1000n), alice).outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.flags, 4);
  const state2 = new MemoryState([accountEntry(issuer, 100n * XLM, { flags: 0x2 | 0x8 }), accountEntry(alice, 100n * XLM)]);
  assert.equal(innerCode(runOp(state2, trust(USD, 1000n), alice).outcome), 0);
  assert.equal(state2.trustLine(alice, USD)!.flags, 1 | 4);
});

test('ChangeTrust LOW_RESERVE: needs one more base reserve available', () => {
  // 2 base reserves + 1 more for the line: exactly 1.5 XLM works, 1 stroop less fails.
  const state = new MemoryState([accountEntry(issuer, 100n * XLM), accountEntry(alice, 3n * reserve - 1n)]);
  assert.equal(innerCode(runOp(state, trust(USD, 1000n), alice).outcome), -4);
  assert.equal(state.trustLine(alice, USD), undefined);
  assert.equal(state.account(alice)!.numSubEntries, 0);
  state.put(accountEntry(alice, 3n * reserve));
  assert.equal(innerCode(runOp(state, trust(USD, 1000n), alice).outcome), 0);
});

test('ChangeTrust NO_ISSUER for a missing issuer; INVALID_LIMIT for a new line with limit 0', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  assert.equal(innerCode(runOp(state, trust(USD, 1000n), alice).outcome), -2);
  state.put(accountEntry(issuer, 100n * XLM));
  assert.equal(innerCode(runOp(state, trust(USD, 0n), alice).outcome), -3);
});

test('ChangeTrust updates the limit but not below balance + buying liabilities', () => {
  const state = new MemoryState([
    accountEntry(issuer, 100n * XLM), accountEntry(alice, 100n * XLM, { numSubEntries: 1 }),
    trustLineEntry(alice, USD, 300n, 1000n, 1, { ext: { v: 1, v1: { liabilities: { buying: 50n, selling: 0n }, ext: { v: 0 } } } }),
  ]);
  assert.equal(innerCode(runOp(state, trust(USD, 349n), alice).outcome), -3);
  assert.equal(innerCode(runOp(state, trust(USD, 350n), alice).outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.limit, 350n);
  assert.equal(innerCode(runOp(state, trust(USD, 0n), alice).outcome), -3, 'cannot delete a line with a balance');
});

test('ChangeTrust with limit 0 deletes an empty line and releases the sub-entry', () => {
  const state = new MemoryState([
    accountEntry(issuer, 100n * XLM), accountEntry(alice, 100n * XLM, { numSubEntries: 1 }), trustLineEntry(alice, USD, 0n, 1000n, 1),
  ]);
  const r = runOp(state, trust(USD, 0n), alice);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.trustLine(alice, USD), undefined);
  assert.equal(state.account(alice)!.numSubEntries, 0);
  assert.ok(r.changes.some((c) => c.type === 2), 'a removed change');
});

test('ChangeTrust delete of a sponsored line releases the sponsorship counters', () => {
  const v2 = (numSponsored: number, numSponsoring: number) =>
    ({ v: 1 as const, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2 as const, v2: { numSponsored, numSponsoring, signerSponsoringIDs: [], ext: { v: 0 as const } } } } });
  const line = trustLineEntry(alice, USD, 0n, 1000n, 1);
  line.ext = { v: 1, v1: { sponsoringId: sponsor, ext: { v: 0 } } };
  const state = new MemoryState([
    accountEntry(issuer, 100n * XLM),
    accountEntry(alice, 100n * XLM, { numSubEntries: 1, ext: v2(1, 0) }),
    accountEntry(sponsor, 100n * XLM, { ext: v2(0, 1) }),
    line,
  ]);
  assert.equal(innerCode(runOp(state, trust(USD, 0n), alice).outcome), 0);
  const a = state.account(alice)!;
  const s = state.account(sponsor)!;
  assert.equal(a.numSubEntries, 0);
  assert.ok(a.ext.v === 1 && a.ext.v1.ext.v === 2 && a.ext.v1.ext.v2.numSponsored === 0);
  assert.ok(s.ext.v === 1 && s.ext.v1.ext.v === 2 && s.ext.v1.ext.v2.numSponsoring === 0);
});

test('ChangeTrust checkValid: native, negative limit, issuer trusting itself, bad code → MALFORMED', () => {
  const state = new MemoryState([accountEntry(issuer, 100n * XLM), accountEntry(alice, 100n * XLM)]);
  for (const [body, src] of [[trust({ type: 0 }, 1n), alice], [trust(USD, -1n), alice], [trust(USD, 10n), issuer],
    [trust(credit('A-B', issuer), 10n), alice]] as const) {
    const r = runOp(state, body, src);
    assert.equal(r.stage, 'checkValid');
    assert.equal(innerCode(r.outcome), -1);
  }
});

test('ChangeTrust on a pool share without its asset trustlines is TRUST_LINE_MISSING; too many sub-entries is opTOO_MANY_SUBENTRIES', () => {
  const A = credit('AAA', issuer), B = credit('BBB', issuer);
  if (A.type !== 1 || B.type !== 1) throw new Error('unreachable');
  const state = new MemoryState([accountEntry(issuer, 100n * XLM), accountEntry(alice, 10_000n * XLM, { numSubEntries: 1000 })]);
  const pool: xdr.OperationBodyWire = { type: 6, changeTrustOp: { line: { type: 3, liquidityPool: { type: 0, constantProduct: { assetA: A, assetB: B, fee: 30 } } }, limit: 10n } };
  const r = runOp(state, pool, alice);
  assert.equal(r.stage, 'apply');
  assert.equal(innerCode(r.outcome), -6);
  const unsorted: xdr.OperationBodyWire = { type: 6, changeTrustOp: { line: { type: 3, liquidityPool: { type: 0, constantProduct: { assetA: B, assetB: A, fee: 30 } } }, limit: 10n } };
  assert.equal(runOp(state, unsorted, alice).stage, 'checkValid', 'pool assets must be ordered');
  const tooMany = runOp(state, trust(USD, 10n), alice);
  assert.equal(tooMany.outcome.success, false);
  assert.deepEqual(operationResultOf(tooMany.outcome), { code: -4 });
});
