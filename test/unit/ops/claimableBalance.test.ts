import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { xdr } from '@stellar/stellar-sdk';
import {
  BASE_RESERVE, MemoryState, NETWORK_ID, XLM, accountEntry, accountId, credit, innerCode, muxed, runOp, trustLineEntry,
  type RunOptions,
} from './support.ts';
import { accountAddress, burnEvent, mintEvent, transferEvent } from '../../../src/ledger/sacEvents.ts';
import { numSponsoring } from '../../../src/ledger/ops/accounts.ts';
import { opHandlers, operationResultOf } from '../../../src/ledger/ops/index.ts';
import { type AccountId, type Asset, type LedgerEntry, type MuxedAccount } from '../../../src/xdr/codec.ts';

const issuer = accountId('issuer');
const alice = accountId('alice');
const bob = accountId('bob');
const carol = accountId('carol');
const USD = credit('USD', issuer);
const NATIVE: Asset = { type: 0 };
const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
const AUTHORIZED = 1, MAINTAIN = 2, TL_CLAWBACK = 4;
const AUTH_CLAWBACK_ENABLED = 8;
const T0 = 1_700_000_000n; // support.ts's default close time

type Pred = xdr.ClaimPredicateWire;
const always: Pred = { type: 0 };
const and = (a: Pred, b: Pred): Pred => ({ type: 1, andPredicates: [a, b] });
const or = (a: Pred, b: Pred): Pred => ({ type: 2, orPredicates: [a, b] });
const not = (a: Pred | null): Pred => ({ type: 3, notPredicate: a });
const before = (t: bigint): Pred => ({ type: 4, absBefore: t });
const within = (seconds: bigint): Pred => ({ type: 5, relBefore: seconds });

type Claimants = Array<[AccountId, Pred]>;
const create = (asset: Asset, amount: bigint, claimants: Claimants): xdr.OperationBodyWire => ({
  type: 14,
  createClaimableBalanceOp: { asset, amount, claimants: claimants.map(([destination, predicate]) => ({ type: 0, v0: { destination, predicate } })) },
});
const claim = (balanceId: xdr.ClaimableBalanceIdWire): xdr.OperationBodyWire => ({ type: 15, claimClaimableBalanceOp: { balanceId } });
const at = (closeTime: bigint): RunOptions => ({ ledger: { closeTime } });

function world(extra: LedgerEntry[] = []) {
  return new MemoryState([
    accountEntry(issuer, 100n * XLM),
    accountEntry(alice, 100n * XLM, { numSubEntries: 1 }),
    accountEntry(bob, 100n * XLM, { numSubEntries: 1 }),
    accountEntry(carol, 100n * XLM),
    trustLineEntry(alice, USD, 500n, 1000n, AUTHORIZED | TL_CLAWBACK),
    trustLineEntry(bob, USD, 0n, 1000n, AUTHORIZED),
    ...extra,
  ]);
}

/** The balance id as the SDK computes it: sha256 of the XDR HashIDPreimage (ENVELOPE_TYPE_OP_ID). */
function expectedBalanceId(txSource: AccountId, seqNum: bigint, opNum: number): Uint8Array {
  const preimage = xdr.HashIdPreimage.envelopeTypeOpId(new xdr.HashIdPreimageOperationId({
    sourceAccount: xdr.PublicKey.publicKeyTypeEd25519(txSource.ed25519), seqNum, opNum,
  }));
  return new Uint8Array(createHash('sha256').update(preimage.toXdr('raw')).digest());
}

function balanceIdOf(r: ReturnType<typeof runOp>): xdr.ClaimableBalanceIdWire {
  const tr = r.outcome.tr;
  if (tr.type !== 14 || tr.createClaimableBalanceResult.code !== 0) assert.fail(`not a created balance: ${JSON.stringify(tr, (_k, v) => typeof v === 'bigint' ? String(v) : v)}`);
  return tr.createClaimableBalanceResult.balanceId;
}

const cbKey = (balanceId: xdr.ClaimableBalanceIdWire): xdr.LedgerKeyWire => ({ type: 4, claimableBalance: { balanceId } });

function storedBalance(state: MemoryState, balanceId: xdr.ClaimableBalanceIdWire): { entry: LedgerEntry; cb: xdr.ClaimableBalanceEntryWire } | undefined {
  const entry = state.get(cbKey(balanceId));
  if (!entry) return undefined;
  if (entry.data.type !== 4) assert.fail('not a claimable balance');
  return { entry, cb: entry.data.claimableBalance };
}

const cbAddress = (balanceId: xdr.ClaimableBalanceIdWire): xdr.ScAddressWire => ({ type: 3, claimableBalanceId: balanceId });

/** Creates a balance as alice (or `creator`) and returns its id. */
function created(state: MemoryState, body: xdr.OperationBodyWire, creator = alice, opts: RunOptions = {}) {
  const r = runOp(state, body, creator, opts);
  assert.equal(innerCode(r.outcome), 0, 'balance created');
  return balanceIdOf(r);
}

// ---------------------------------------------------------------------------------------------
// CreateClaimableBalance

test('native balance: the creator is debited and sponsors one reserve per claimant; the id is sha256 of the OP_ID preimage', () => {
  const state = world();
  const txSource = accountId('tx-source');
  const txSeqNum = (77n << 32n) + 5n;
  const r = runOp(state, create(NATIVE, 10n * XLM, [[bob, always], [carol, always]]), alice, { txSourceId: txSource, txSeqNum, opIndex: 3 });
  assert.equal(innerCode(r.outcome), 0);
  const balanceId = balanceIdOf(r);
  assert.deepEqual(balanceId, { type: 0, v0: expectedBalanceId(txSource, txSeqNum, 3) });
  // the same operation at another index or sequence number names another balance
  assert.notDeepEqual(balanceId.v0, expectedBalanceId(txSource, txSeqNum, 2));
  assert.notDeepEqual(balanceId.v0, expectedBalanceId(alice, txSeqNum, 3));

  const { entry, cb } = storedBalance(state, balanceId)!;
  assert.equal(cb.amount, 10n * XLM);
  assert.deepEqual(cb.asset, NATIVE);
  assert.deepEqual(cb.claimants.map((c) => c.v0.destination), [bob, carol]);
  assert.deepEqual(cb.ext, { v: 0 }, 'native balances cannot be clawed back');
  assert.deepEqual(entry.ext, { v: 1, v1: { sponsoringId: alice, ext: { v: 0 } } }, 'sponsored by its creator');
  assert.equal(entry.lastModifiedLedgerSeq, 100);

  const a = state.account(alice)!;
  assert.equal(a.balance, 90n * XLM);
  assert.equal(numSponsoring(a), 2);
  assert.equal(a.numSubEntries, 1, 'a claimable balance is no sub-entry');
  assert.deepEqual(r.events, [transferEvent(NETWORK_ID, NATIVE, accountAddress(alice), cbAddress(balanceId), 10n * XLM)]);
  // the event's `to` is the balance itself; a memo never rides on it
  const withMemo = runOp(state, create(NATIVE, XLM, [[bob, always]]), alice, { memo: { type: 2, id: 9n }, txSeqNum: 1n });
  assert.deepEqual(withMemo.events, [transferEvent(NETWORK_ID, NATIVE, accountAddress(alice), cbAddress(balanceIdOf(withMemo)), XLM)]);
});

test('credit balance: the trustline is debited; the balance is clawback-enabled exactly when the line is', () => {
  const state = world([trustLineEntry(carol, USD, 300n, 1000n, AUTHORIZED)]);
  state.put(accountEntry(carol, 100n * XLM, { numSubEntries: 1 }));
  const fromAlice = created(state, create(USD, 200n, [[bob, always]]));
  assert.equal(state.trustLine(alice, USD)!.balance, 300n);
  assert.deepEqual(storedBalance(state, fromAlice)!.cb.ext, { v: 1, v1: { ext: { v: 0 }, flags: 1 } });

  const fromCarol = created(state, create(USD, 300n, [[bob, always]]), carol);
  assert.equal(state.trustLine(carol, USD)!.balance, 0n);
  assert.deepEqual(storedBalance(state, fromCarol)!.cb.ext, { v: 0 });
  assert.equal(numSponsoring(state.account(carol)!), 1);
});

test('the issuer creates balances of its own asset without a trustline (a mint); clawback follows AUTH_CLAWBACK_ENABLED', () => {
  const state = world();
  const r = runOp(state, create(USD, 1_000_000n, [[bob, always]]), issuer);
  assert.equal(innerCode(r.outcome), 0);
  const plain = balanceIdOf(r);
  assert.deepEqual(storedBalance(state, plain)!.cb.ext, { v: 0 });
  assert.deepEqual(r.events, [mintEvent(NETWORK_ID, USD, cbAddress(plain), 1_000_000n)]);
  assert.equal(state.account(issuer)!.balance, 100n * XLM, 'nothing debited');

  state.put(accountEntry(issuer, 100n * XLM, { flags: AUTH_CLAWBACK_ENABLED, ext: state.account(issuer)!.ext }));
  const clawable = created(state, create(USD, 5n, [[bob, always]]), issuer, { txSeqNum: 1n });
  assert.deepEqual(storedBalance(state, clawable)!.cb.ext, { v: 1, v1: { ext: { v: 0 }, flags: 1 } });
  assert.equal(numSponsoring(state.account(issuer)!), 2);
});

test('relative predicates are stored as absolute times from the close time, inside and/or/not too, saturating at INT64_MAX', () => {
  const state = world();
  const closeTime = 1_800_000_000n;
  const id = created(state, create(NATIVE, XLM, [
    [bob, within(3600n)],
    [carol, and(not(within(60n)), or(before(closeTime + 5n), within(INT64_MAX)))],
    [issuer, within(INT64_MAX - closeTime)],
  ]), alice, at(closeTime));
  const preds = storedBalance(state, id)!.cb.claimants.map((c) => c.v0.predicate);
  assert.deepEqual(preds, [
    before(closeTime + 3600n),
    and(not(before(closeTime + 60n)), or(before(closeTime + 5n), before(INT64_MAX))),
    before(INT64_MAX),
  ]);
  const saturated = created(state, create(NATIVE, XLM, [[bob, within(INT64_MAX - closeTime + 1n)]]), alice, { ...at(closeTime), txSeqNum: 1n });
  assert.deepEqual(storedBalance(state, saturated)!.cb.claimants[0].v0.predicate, before(INT64_MAX));
});

test('MALFORMED: amount, asset, claimant count, duplicate destinations and every kind of bad predicate', () => {
  const state = world();
  const malformed = (body: xdr.OperationBodyWire, why: string) => {
    const r = runOp(state, body, alice);
    assert.equal(r.stage, 'checkValid', why);
    assert.equal(innerCode(r.outcome), -1, why);
  };
  const badCode: Asset = { type: 1, alphaNum4: { assetCode: new Uint8Array([0x55, 0, 0x44, 0]), issuer } };
  malformed(create(NATIVE, 0n, [[bob, always]]), 'zero amount');
  malformed(create(NATIVE, -1n, [[bob, always]]), 'negative amount');
  malformed(create(badCode, 1n, [[bob, always]]), 'invalid asset code');
  malformed(create(NATIVE, 1n, []), 'no claimants');
  const eleven = Array.from({ length: 11 }, (_, i): [AccountId, Pred] => [accountId(`c${i}`), always]);
  malformed(create(NATIVE, 1n, eleven), 'eleven claimants');
  malformed(create(NATIVE, 1n, [[bob, always], [carol, always], [bob, before(5n)]]), 'a destination twice');
  malformed(create(NATIVE, 1n, [[bob, { type: 1, andPredicates: [always] }]]), 'AND of one');
  malformed(create(NATIVE, 1n, [[bob, { type: 2, orPredicates: [always, always, always] }]]), 'OR of three');
  malformed(create(NATIVE, 1n, [[bob, not(null)]]), 'NOT of nothing');
  malformed(create(NATIVE, 1n, [[bob, before(-1n)]]), 'negative absolute time');
  malformed(create(NATIVE, 1n, [[bob, within(-1n)]]), 'negative relative time');
  malformed(create(NATIVE, 1n, [[bob, always], [carol, and(always, within(-5n))]]), 'a bad predicate of a later claimant, nested');
  // depth: the claimant's predicate is level 1, leaves may sit at level 4 but not 5
  malformed(create(NATIVE, 1n, [[bob, not(not(not(not(always))))]]), 'five levels');
  malformed(create(NATIVE, 1n, [[bob, and(always, or(always, not(and(always, always))))]]), 'five levels through and/or');
  assert.equal(innerCode(runOp(state, create(NATIVE, 1n, [[bob, not(not(not(always)))]]), alice).outcome), 0, 'four levels are fine');
  assert.equal(innerCode(runOp(state, create(NATIVE, 1n, [[bob, and(always, or(before(0n), not(within(0n))))]]), alice, { txSeqNum: 1n }).outcome), 0,
    'four levels through and/or, zero times');
  assert.equal(innerCode(runOp(state, create(NATIVE, 1n, eleven.slice(1)), alice, { txSeqNum: 2n }).outcome), 0, 'ten claimants');
});

test('native UNDERFUNDED counts the reserve and selling liabilities; LOW_RESERVE when what is left cannot back the new reserves', () => {
  const liabilities = { v: 1 as const, v1: { liabilities: { buying: 0n, selling: 2n * XLM }, ext: { v: 0 as const } } };
  const state = new MemoryState([accountEntry(alice, 100n * XLM, { numSubEntries: 1, ext: liabilities })]);
  // reserve 1.5 XLM, 2 XLM committed to offers: 96.5 XLM available
  const available = 100n * XLM - 15n * XLM / 10n - 2n * XLM;
  assert.equal(innerCode(runOp(state, create(NATIVE, available + 1n, [[bob, always]]), alice).outcome), -5);
  // the whole available amount leaves nothing for the balance's own reserve
  assert.equal(innerCode(runOp(state, create(NATIVE, available, [[bob, always]]), alice).outcome), -2);
  // two claimants need two base reserves
  assert.equal(innerCode(runOp(state, create(NATIVE, available - BigInt(BASE_RESERVE), [[bob, always], [carol, always]]), alice).outcome), -2);
  assert.equal(state.account(alice)!.balance, 100n * XLM, 'failures change nothing');
  const ok = runOp(state, create(NATIVE, available - BigInt(BASE_RESERVE), [[bob, always]]), alice);
  assert.equal(innerCode(ok.outcome), 0);
  assert.equal(state.account(alice)!.balance, 100n * XLM - available + BigInt(BASE_RESERVE));
});

test('credit failures: NO_TRUST, NOT_AUTHORIZED (maintain-liabilities is not enough), UNDERFUNDED past selling liabilities', () => {
  const liab = { v: 1 as const, v1: { liabilities: { buying: 0n, selling: 100n }, ext: { v: 0 as const } } };
  const state = world([trustLineEntry(bob, USD, 50n, 1000n, MAINTAIN)]);
  state.put(trustLineEntry(alice, USD, 500n, 1000n, AUTHORIZED, { ext: liab }));
  assert.equal(innerCode(runOp(state, create(USD, 1n, [[bob, always]]), carol).outcome), -3);
  assert.equal(innerCode(runOp(state, create(USD, 1n, [[alice, always]]), bob).outcome), -4);
  assert.equal(innerCode(runOp(state, create(USD, 401n, [[bob, always]]), alice).outcome), -5);
  assert.equal(innerCode(runOp(state, create(USD, 400n, [[bob, always]]), alice).outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.balance, 100n);
});

test('LOW_RESERVE for a credit balance: the creator must still back the reserve in lumens', () => {
  const state = world();
  state.put(accountEntry(alice, 3n * XLM / 2n, { numSubEntries: 1 })); // exactly its own reserve
  assert.equal(innerCode(runOp(state, create(USD, 1n, [[bob, always]]), alice).outcome), -2);
  assert.equal(state.trustLine(alice, USD)!.balance, 500n);
});

test('a creator already sponsoring UINT32_MAX reserves gets the top-level opTOO_MANY_SPONSORING', () => {
  const state = world();
  const UINT32_MAX = 0xffff_ffff;
  // numSponsored as high, so that the reserve itself stays small
  const v2 = { numSponsored: UINT32_MAX, numSponsoring: UINT32_MAX, signerSponsoringIDs: [], ext: { v: 0 as const } };
  state.put(accountEntry(alice, 100n * XLM, { numSubEntries: 1, ext: { v: 1, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2, v2 } } } }));
  const r = runOp(state, create(USD, 1n, [[bob, always]]), alice);
  assert.equal(r.outcome.success, false);
  assert.deepEqual(operationResultOf(r.outcome), { code: -6 });
  assert.equal(state.trustLine(alice, USD)!.balance, 500n);
});

// ---------------------------------------------------------------------------------------------
// ClaimClaimableBalance

test('claiming a native balance credits the claimant, erases the entry and releases the creator\'s reserve', () => {
  const state = world();
  const id = created(state, create(NATIVE, 10n * XLM, [[bob, always], [carol, always]]));
  assert.equal(numSponsoring(state.account(alice)!), 2);
  const r = runOp(state, claim(id), bob);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.account(bob)!.balance, 110n * XLM);
  assert.equal(storedBalance(state, id), undefined);
  assert.equal(numSponsoring(state.account(alice)!), 0);
  assert.equal(state.account(alice)!.balance, 90n * XLM);
  assert.deepEqual(r.events, [transferEvent(NETWORK_ID, NATIVE, cbAddress(id), accountAddress(bob), 10n * XLM)]);
  // gone for the other claimant
  assert.equal(innerCode(runOp(state, claim(id), carol).outcome), -1);
});

test('the claim event carries the claimant\'s mux id, or else the transaction memo', () => {
  const state = world();
  const first = created(state, create(NATIVE, XLM, [[bob, always]]));
  const second = created(state, create(NATIVE, XLM, [[bob, always]]), alice, { txSeqNum: 1n });
  const bobMuxed: MuxedAccount = muxed(bob, 42n);
  const viaMux = runOp(state, claim(first), bob, { sourceMuxed: bobMuxed, memo: { type: 2, id: 7n } });
  assert.deepEqual(viaMux.events, [transferEvent(NETWORK_ID, NATIVE, cbAddress(first), { type: 2, muxedAccount: { id: 42n, ed25519: bob.ed25519 } }, XLM, { type: 2, id: 7n })]);
  const data = viaMux.events[0].body.v0.data;
  assert.ok(data.type === 17 && data.map?.[1].val.type === 5 && data.map[1].val.u64 === 42n, 'the mux id wins over the memo');
  const viaMemo = runOp(state, claim(second), bob, { memo: { type: 2, id: 7n } });
  const memoData = viaMemo.events[0].body.v0.data;
  assert.ok(memoData.type === 17 && memoData.map?.[1].val.type === 5 && memoData.map[1].val.u64 === 7n);
});

test('claiming a credit balance: trustline credited; the claimant\'s account is written too (core loads it to release the reserve)', () => {
  const state = world();
  const id = created(state, create(USD, 200n, [[bob, always]]));
  const r = runOp(state, claim(id), bob);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.trustLine(bob, USD)!.balance, 200n);
  assert.equal(state.account(bob)!.balance, 100n * XLM);
  const touched = r.changes.filter((c) => c.type === 1).map((c) => c.type === 1 && c.updated.data.type);
  assert.deepEqual([...touched].sort(), [0, 0, 1], 'bob\'s account, alice\'s (sponsor) and bob\'s trustline');
  assert.ok(r.changes.some((c) => c.type === 2 && c.removed.type === 4), 'the balance is removed');
  assert.deepEqual(r.events, [transferEvent(NETWORK_ID, USD, cbAddress(id), accountAddress(bob), 200n)]);
});

test('the creator may be a claimant and take its balance back, releasing its own reserve', () => {
  const state = world();
  const id = created(state, create(NATIVE, 10n * XLM, [[alice, always], [bob, before(0n)]]));
  assert.equal(innerCode(runOp(state, claim(id), alice).outcome), 0);
  const a = state.account(alice)!;
  assert.equal(a.balance, 100n * XLM);
  assert.equal(numSponsoring(a), 0);
});

test('the issuer claiming its own asset burns it without a trustline', () => {
  const state = world();
  const id = created(state, create(USD, 70n, [[issuer, always]]));
  const r = runOp(state, claim(id), issuer);
  assert.equal(innerCode(r.outcome), 0);
  assert.deepEqual(r.events, [burnEvent(NETWORK_ID, USD, cbAddress(id), 70n)]);
  assert.equal(storedBalance(state, id), undefined);
  assert.equal(state.trustLine(alice, USD)!.balance, 430n);
});

test('absolute time: claimable strictly before it (CANNOT_CLAIM at and after)', () => {
  const state = world();
  const deadline = T0 + 1000n;
  const id = created(state, create(NATIVE, XLM, [[bob, before(deadline)]]));
  assert.equal(innerCode(runOp(state, claim(id), bob, at(deadline)).outcome), -2);
  assert.equal(innerCode(runOp(state, claim(id), bob, at(deadline + 1n)).outcome), -2);
  assert.equal(innerCode(runOp(state, claim(id), bob, at(deadline - 1n)).outcome), 0);
});

test('relative time counts from the creating ledger\'s close time; NOT of it opens the balance only afterwards', () => {
  const state = world();
  const soon = created(state, create(NATIVE, XLM, [[bob, within(100n)]]), alice, at(T0));
  const later = created(state, create(NATIVE, XLM, [[bob, not(within(100n))]]), alice, { ...at(T0), txSeqNum: 1n });
  assert.equal(innerCode(runOp(state, claim(soon), bob, at(T0 + 100n)).outcome), -2, 'too late');
  assert.equal(innerCode(runOp(state, claim(later), bob, at(T0 + 99n)).outcome), -2, 'too early');
  assert.equal(innerCode(runOp(state, claim(soon), bob, at(T0 + 99n)).outcome), 0);
  assert.equal(innerCode(runOp(state, claim(later), bob, at(T0 + 100n)).outcome), 0);
});

test('AND and OR: a window between two times, and its complement', () => {
  const state = world();
  const [open, close] = [T0 + 100n, T0 + 200n];
  const window = and(not(before(open)), before(close));
  const outside = or(before(open), not(before(close)));
  const ids = [0n, 1n, 2n, 3n, 4n].map((seq) => created(state, create(NATIVE, XLM, [[bob, window], [carol, outside]]), alice, { txSeqNum: seq }));
  const code = (id: xdr.ClaimableBalanceIdWire, who: AccountId, t: bigint) => innerCode(runOp(state, claim(id), who, at(t)).outcome);
  assert.equal(code(ids[0], bob, open - 1n), -2);
  assert.equal(code(ids[0], bob, close), -2);
  assert.equal(code(ids[0], bob, open), 0);
  assert.equal(code(ids[1], bob, close - 1n), 0);
  assert.equal(code(ids[2], carol, open), -2);
  assert.equal(code(ids[2], carol, close - 1n), -2);
  assert.equal(code(ids[2], carol, open - 1n), 0);
  assert.equal(code(ids[3], carol, close), 0);
  // unconditional claimants and non-claimants
  assert.equal(code(ids[4], alice, open), -2, 'the creator is not a claimant');
});

test('claim failures: DOES_NOT_EXIST, NO_TRUST, NOT_AUTHORIZED, LINE_FULL for a trustline and for lumens', () => {
  const state = world([accountEntry(accountId('rich'), INT64_MAX - 10n, { ext: { v: 1, v1: { liabilities: { buying: 5n, selling: 0n }, ext: { v: 0 } } } })]);
  const rich = accountId('rich');
  assert.equal(innerCode(runOp(state, claim({ type: 0, v0: new Uint8Array(32).fill(9) }), bob).outcome), -1);

  const usd = created(state, create(USD, 200n, [[carol, always], [bob, always]]));
  assert.equal(innerCode(runOp(state, claim(usd), carol).outcome), -4, 'carol has no USD line');
  state.put(trustLineEntry(bob, USD, 0n, 1000n, MAINTAIN));
  assert.equal(innerCode(runOp(state, claim(usd), bob).outcome), -5);
  state.put(trustLineEntry(bob, USD, 801n, 1000n, AUTHORIZED));
  assert.equal(innerCode(runOp(state, claim(usd), bob).outcome), -3, 'past the limit');
  state.put(trustLineEntry(bob, USD, 800n, 1000n, AUTHORIZED));
  assert.equal(innerCode(runOp(state, claim(usd), bob).outcome), 0, 'exactly to the limit');
  assert.equal(state.trustLine(bob, USD)!.balance, 1000n);

  const lumens = created(state, create(NATIVE, 6n, [[rich, always]]), alice, { txSeqNum: 1n });
  assert.equal(innerCode(runOp(state, claim(lumens), rich).outcome), -3, 'buying liabilities leave room for 5 stroops only');
  assert.ok(storedBalance(state, lumens), 'still there');
  assert.equal(state.account(rich)!.balance, INT64_MAX - 10n);
});

test('thresholds: creating is medium, claiming low; the id names the transaction\'s source, not the operation\'s', () => {
  assert.equal(opHandlers[15]!.threshold(claim({ type: 0, v0: new Uint8Array(32) })), 'low');
  assert.equal(opHandlers[14]!.threshold(create(NATIVE, 1n, [[bob, always]])), 'medium');
  const state = world();
  const id = created(state, create(NATIVE, XLM, [[bob, always]]), alice, { txSourceId: carol, txSeqNum: 12n });
  assert.deepEqual(id.v0, expectedBalanceId(carol, 12n, 0));
  assert.equal(innerCode(runOp(state, claim(id), bob, { txSourceId: carol }).outcome), 0);
});
