// Revoking authorization redeems pool shares (CAP-38): SetTrustLineFlags and AllowTrust delete the
// holder's share lines in pools holding the asset and turn the shares into claimable balances (or
// burn the holder's own asset), sponsored by whoever backed the share line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '@stellar/stellar-sdk';
import { BASE_RESERVE, MemoryState, NETWORK_ID, XLM, accountEntry, accountId, credit, innerCode, ledgerContext, muxed, runOp, trustLineEntry } from './support.ts';
import { LedgerTxn } from '../../../src/ledger/ledgerTxn.ts';
import { closeSponsorship, openSponsorship } from '../../../src/ledger/futureReserves.ts';
import { opHandlers } from '../../../src/ledger/ops/index.ts';
import { constantProductParams, liquidityPoolKey, liquidityPoolUseCount, poolIdForAssets, poolShareTrustLineKey, type PoolId } from '../../../src/ledger/liquidityPools.ts';
import { claimableBalanceKey } from '../../../src/ledger/claimableBalances.ts';
import { burnEvent, claimableBalanceAddress, liquidityPoolAddress, setAuthorizedEvent, transferEvent } from '../../../src/ledger/sacEvents.ts';
import { sha256, type AccountId, type Asset, type LedgerEntry } from '../../../src/xdr/codec.ts';

const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
const AUTH_REVOCABLE = 0x2, AUTH_CLAWBACK = 0x8;
const AUTHORIZED = 0x1, CLAWBACK_LINE = 0x4;

const issuer = accountId('issuer');
const alice = accountId('alice');
const bob = accountId('bob');
const sponsor = accountId('sponsor');
const EUR = credit('EUR', issuer);
const USD = credit('USD', issuer);
const NATIVE: Asset = { type: 0 };
const EUR_USD = poolIdForAssets(EUR, USD);
const NATIVE_EUR = poolIdForAssets(NATIVE, EUR);
const NATIVE_USD = poolIdForAssets(NATIVE, USD);

const trustPool = (x: Asset, y: Asset): xdr.OperationBodyWire =>
  ({ type: 6, changeTrustOp: { line: { type: 3, liquidityPool: { type: 0, constantProduct: constantProductParams(x, y) } }, limit: INT64_MAX } });
const deposit = (id: PoolId, a: bigint, b: bigint): xdr.OperationBodyWire =>
  ({ type: 22, liquidityPoolDepositOp: { liquidityPoolId: id, maxAmountA: a, maxAmountB: b, minPrice: { n: 1, d: 1_000_000 }, maxPrice: { n: 1_000_000, d: 1 } } });
const revoke = (trustor: AccountId, asset: Asset, setFlags = 0): xdr.OperationBodyWire =>
  ({ type: 21, setTrustLineFlagsOp: { trustor, asset, clearFlags: AUTHORIZED, setFlags } });

function ok(state: MemoryState, body: xdr.OperationBodyWire, source: AccountId) {
  const r = runOp(state, body, source);
  assert.equal(r.outcome.success, true, `operation ${body.type} failed with ${innerCode(r.outcome)}`);
  return r;
}

/** The revoke id computed with the SDK's classes: sha256 of HashIDPreimage ENVELOPE_TYPE_POOL_REVOKE_OP_ID. */
function revokeIdOf(txSource: AccountId, seqNum: bigint, opNum: number, poolId: PoolId, asset: Asset): xdr.ClaimableBalanceIdWire {
  const preimage = xdr.HashIdPreimage.envelopeTypePoolRevokeOpId(new xdr.HashIdPreimageRevokeId({
    sourceAccount: xdr.PublicKey.fromXdrObject(txSource), seqNum, opNum, liquidityPoolId: xdr.PoolId.fromXdrObject(poolId), asset: xdr.Asset.fromXdrObject(asset),
  }));
  return { type: 0, v0: sha256(preimage.toXdr()) };
}

const pool = (state: MemoryState, id: PoolId) => {
  const e = state.get(liquidityPoolKey(id));
  return e?.data.type === 5 ? e.data.liquidityPool.body.constantProduct : undefined;
};
const balance = (state: MemoryState, id: xdr.ClaimableBalanceIdWire) => {
  const e = state.get(claimableBalanceKey(id));
  return e?.data.type === 4 ? { entry: e, cb: e.data.claimableBalance } : undefined;
};
const sponsoring = (state: MemoryState, id: AccountId) => {
  const a = state.account(id)!;
  return a.ext.v === 1 && a.ext.v1.ext.v === 2 ? [a.ext.v1.ext.v2.numSponsoring, a.ext.v1.ext.v2.numSponsored] : [0, 0];
};

/**
 * Alice and bob in the EUR/USD pool (1007 EUR / 3022 USD, 1744 shares: alice 1732, bob 12); alice
 * also trusts the native/EUR and native/USD pools without depositing. USD lines may be clawed back.
 */
function world(): MemoryState {
  const state = new MemoryState([accountEntry(issuer, 100n * XLM, { flags: AUTH_REVOCABLE | AUTH_CLAWBACK })]);
  for (const who of [alice, bob]) {
    state.put(accountEntry(who, 1000n * XLM, { numSubEntries: 2 }));
    state.put(trustLineEntry(who, EUR, 1_000_000n, INT64_MAX, AUTHORIZED));
    state.put(trustLineEntry(who, USD, 1_000_000n, INT64_MAX, AUTHORIZED | CLAWBACK_LINE));
    ok(state, trustPool(EUR, USD), who);
  }
  ok(state, deposit(EUR_USD, 1000n, 3001n), alice);
  ok(state, deposit(EUR_USD, 7n, 1000n), bob);
  ok(state, trustPool(NATIVE, EUR), alice);
  ok(state, trustPool(NATIVE, USD), alice);
  return state;
}

test('revoking EUR redeems alice\'s EUR pools into claimable balances she sponsors; other pools stay', () => {
  const state = world();
  assert.equal(state.account(alice)!.numSubEntries, 2 + 3 * 2);
  const r = ok(state, revoke(alice, EUR), issuer);

  // 1732 of 1744 shares: floor(1732 * 1007 / 1744) = floor(1000.07) = 1000 EUR, floor(1732 * 3022 / 1744) = floor(3001.2) = 3001 USD
  const eurId = revokeIdOf(issuer, 0n, 0, EUR_USD, EUR);
  const usdId = revokeIdOf(issuer, 0n, 0, EUR_USD, USD);
  const eur = balance(state, eurId)!, usd = balance(state, usdId)!;
  const claimant = [{ type: 0, v0: { destination: alice, predicate: { type: 0 } } }];
  assert.deepEqual([eur.cb.asset, eur.cb.amount, eur.cb.claimants, eur.cb.ext], [EUR, 1000n, claimant, { v: 0 }]);
  assert.deepEqual([usd.cb.asset, usd.cb.amount, usd.cb.ext], [USD, 3001n, { v: 1, v1: { ext: { v: 0 }, flags: 1 } }], 'clawback follows the USD line');
  for (const { entry } of [eur, usd]) assert.deepEqual(entry.ext, { v: 1, v1: { sponsoringId: alice, ext: { v: 0 } } });

  // the share lines in pools holding EUR are gone (the empty native/EUR pool with its only line), native/USD stays
  assert.equal(state.get(poolShareTrustLineKey(alice, EUR_USD)), undefined);
  assert.equal(state.get(poolShareTrustLineKey(alice, NATIVE_EUR)), undefined);
  assert.equal(pool(state, NATIVE_EUR), undefined);
  assert.ok(state.get(poolShareTrustLineKey(alice, NATIVE_USD)));
  assert.deepEqual(pool(state, EUR_USD), { params: constantProductParams(EUR, USD), reserveA: 7n, reserveB: 21n, totalPoolShares: 12n, poolSharesTrustLineCount: 1n });
  assert.equal(liquidityPoolUseCount(state.trustLine(alice, EUR)!), 0);
  assert.equal(liquidityPoolUseCount(state.trustLine(alice, USD)!), 1);
  assert.equal(state.trustLine(alice, EUR)!.flags, 0);
  // two share lines (4 sub-entries) released; the two balances take 2 reserves as sponsorships
  assert.equal(state.account(alice)!.numSubEntries, 4);
  assert.deepEqual(sponsoring(state, alice), [2, 0]);

  const poolAddr = liquidityPoolAddress(EUR_USD);
  assert.deepEqual(r.events, [
    transferEvent(NETWORK_ID, EUR, poolAddr, claimableBalanceAddress(eurId), 1000n),
    transferEvent(NETWORK_ID, USD, poolAddr, claimableBalanceAddress(usdId), 3001n),
    setAuthorizedEvent(NETWORK_ID, EUR, alice, false),
  ]);

  // the USD balance can be claimed into the still authorized USD line
  ok(state, { type: 15, claimClaimableBalanceOp: { balanceId: usdId } }, alice);
  assert.equal(state.trustLine(alice, USD)!.balance, 1_000_000n - 3001n + 3001n);
  assert.deepEqual(sponsoring(state, alice), [1, 0]);
});

test('a sponsored share line passes its sponsor on to the balances', () => {
  const state = world();
  const v2 = (numSponsored: number, numSponsoring: number) =>
    ({ v: 1 as const, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2 as const, v2: { numSponsored, numSponsoring, signerSponsoringIDs: [], ext: { v: 0 as const } } } } });
  state.put(accountEntry(sponsor, 100n * XLM, { ext: v2(0, 2) }));
  // alice's EUR/USD share line (2 reserves) is sponsored
  const aliceEntry: LedgerEntry = state.get({ type: 0, account: { accountId: alice } })!;
  if (aliceEntry.data.type === 0) aliceEntry.data.account.ext = v2(2, 0);
  state.put(aliceEntry);
  const line = state.get(poolShareTrustLineKey(alice, EUR_USD))!;
  state.put({ ...line, ext: { v: 1, v1: { sponsoringId: sponsor, ext: { v: 0 } } } });

  ok(state, revoke(alice, EUR), issuer);
  for (const asset of [EUR, USD]) {
    assert.deepEqual(balance(state, revokeIdOf(issuer, 0n, 0, EUR_USD, asset))!.entry.ext, { v: 1, v1: { sponsoringId: sponsor, ext: { v: 0 } } });
  }
  // the sponsor dropped the line's 2 and took the balances' 2; alice is no longer sponsored
  assert.deepEqual(sponsoring(state, sponsor), [2, 0]);
  assert.deepEqual(sponsoring(state, alice), [0, 0]);
});

test('AllowTrust revoking does the same; stepping down to maintain-liabilities redeems nothing', () => {
  const allowTrust = (authorize: number): xdr.OperationBodyWire =>
    ({ type: 7, allowTrustOp: { trustor: alice, asset: { type: 1, assetCode4: new Uint8Array([0x45, 0x55, 0x52, 0]) }, authorize } });
  const kept = world();
  ok(kept, allowTrust(2), issuer);
  assert.ok(kept.get(poolShareTrustLineKey(alice, EUR_USD)));
  assert.equal(pool(kept, EUR_USD)!.totalPoolShares, 1744n);

  const state = world();
  ok(state, allowTrust(0), issuer);
  assert.equal(state.get(poolShareTrustLineKey(alice, EUR_USD)), undefined);
  assert.equal(balance(state, revokeIdOf(issuer, 0n, 0, EUR_USD, EUR))!.cb.amount, 1000n);
});

test('the holder\'s own asset in a redeemed pool is burnt, not put in a balance', () => {
  const ALC = credit('ALC', alice);
  const state = world();
  ok(state, trustPool(ALC, EUR), alice);
  // alice issues ALC: 100 ALC and 400 EUR give floor(sqrt(40,000)) = 200 shares, all hers
  const id = poolIdForAssets(ALC, EUR);
  ok(state, deposit(id, 100n, 400n), alice);
  const r = ok(state, revoke(alice, EUR), issuer);
  const address = liquidityPoolAddress(id);
  const eurId = revokeIdOf(issuer, 0n, 0, id, EUR);
  assert.deepEqual(r.events.filter((e) => e.body.v === 0 && e.body.v0.topics[1].type === 18 && e.body.v0.topics[1].address.type === 4
    && Buffer.from(e.body.v0.topics[1].address.liquidityPoolId).equals(Buffer.from(id))), [
    burnEvent(NETWORK_ID, ALC, address, 100n),
    transferEvent(NETWORK_ID, EUR, address, claimableBalanceAddress(eurId), 400n),
  ]);
  assert.equal(balance(state, revokeIdOf(issuer, 0n, 0, id, ALC)), undefined);
  assert.equal(balance(state, eurId)!.cb.amount, 400n);
  assert.equal(pool(state, id), undefined, 'its only share line went, and the pool with it');
});

/** Applies the revocation with `sponsor` paying alice's future reserves (a sponsorship sandwich), committing on success. */
function revokeInSandwich(state: MemoryState, sponsorId: AccountId) {
  const root = new LedgerTxn(state, 100, { idPool: state.idPool });
  const ltx = root.nest();
  openSponsorship(ltx, sponsorId, alice);
  const outcome = opHandlers[21]!.apply(revoke(alice, EUR), {
    ltx, ledger: ledgerContext(), sourceMuxed: muxed(issuer), source: issuer, txMemo: { type: 0 }, events: [], opIndex: 0,
    txSeqNum: 0n, txSourceId: issuer,
  });
  if (!outcome.success) return outcome;
  closeSponsorship(ltx, alice);
  ltx.commit();
  root.commit();
  state.absorb(root);
  return outcome;
}

test('in a sponsorship sandwich the sandwich\'s sponsor pays for the balances, or the revocation fails LOW_RESERVE', () => {
  const state = world();
  state.put(accountEntry(sponsor, 100n * XLM));
  assert.equal(revokeInSandwich(state, sponsor).success, true);
  for (const asset of [EUR, USD]) {
    assert.deepEqual(balance(state, revokeIdOf(issuer, 0n, 0, EUR_USD, asset))!.entry.ext, { v: 1, v1: { sponsoringId: sponsor, ext: { v: 0 } } });
  }
  assert.deepEqual(sponsoring(state, sponsor), [2, 0]);
  assert.deepEqual(sponsoring(state, alice), [0, 0]);

  // a sponsor with the base reserve for itself only cannot take the balances on
  const poor = world();
  poor.put(accountEntry(sponsor, 2n * BigInt(BASE_RESERVE)));
  const failed = revokeInSandwich(poor, sponsor);
  assert.equal(innerCode(failed), -5);
  assert.ok(poor.get(poolShareTrustLineKey(alice, EUR_USD)), 'nothing was redeemed');
});
