// Liquidity pools (CAP-38) through the operation handlers: pool ids, pool-share trustlines in
// ChangeTrust, LiquidityPoolDeposit and LiquidityPoolWithdraw, against stellar-core's rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Asset as SdkAsset, StrKey, getLiquidityPoolId, xdr as sdkXdr } from '@stellar/stellar-sdk';
import { xdr } from '../../../src/xdr/xdr.ts';
import { createHash } from 'node:crypto';
import { BASE_RESERVE, MemoryState, XLM, accountEntry, accountId, credit, innerCode, muxed, runOp, trustLineEntry } from './support.ts';
import { operationResultOf } from '../../../src/ledger/ops/index.ts';
import {
  constantProductParams, liquidityPoolKey, liquidityPoolUseCount, poolIdForAssets, poolShareTrustLineKey,
  type ConstantProduct, type ConstantProductParams, type PoolId,
} from '../../../src/ledger/liquidityPools.ts';
import { assetContractId } from '../../../src/ledger/sacEvents.ts';
import type { AccountId, Asset, ContractEvent, LedgerEntry, TrustLineEntry } from '../../../src/xdr/codec.ts';

const INT64_MAX = 0x7fff_ffff_ffff_ffffn;
const reserve = BigInt(BASE_RESERVE);

const issuer = accountId('issuer');
const alice = accountId('alice');
const bob = accountId('bob');
const USD = credit('USD', issuer);
const EUR = credit('EUR', issuer);
const NATIVE: Asset = { type: 0 };
// XDR order: same asset type, then the code bytes ("EUR" < "USD")
const EUR_USD: ConstantProductParams = { assetA: EUR, assetB: USD, fee: 30 };
const EUR_USD_ID = poolIdForAssets(USD, EUR);

// ---------------------------------------------------------------------------------------------
// Builders and readers

const poolShareLine = (params: ConstantProductParams, limit: bigint): xdr.OperationBodyWire =>
  ({ type: 6, changeTrustOp: { line: { type: 3, liquidityPool: { type: 0, constantProduct: params } }, limit } });

const creditLine = (asset: Asset, limit: bigint): xdr.OperationBodyWire => {
  if (asset.type === 0) throw new Error('no native lines');
  return { type: 6, changeTrustOp: { line: asset.type === 1 ? { type: 1, alphaNum4: asset.alphaNum4 } : { type: 2, alphaNum12: asset.alphaNum12 }, limit } };
};

const price = (n: number, d: number) => ({ n, d });

const deposit = (id: PoolId, maxAmountA: bigint, maxAmountB: bigint, minPrice = price(1, 1_000_000), maxPrice = price(1_000_000, 1)): xdr.OperationBodyWire =>
  ({ type: 22, liquidityPoolDepositOp: { liquidityPoolId: id, maxAmountA, maxAmountB, minPrice, maxPrice } });

const withdraw = (id: PoolId, amount: bigint, minAmountA = 0n, minAmountB = 0n): xdr.OperationBodyWire =>
  ({ type: 23, liquidityPoolWithdrawOp: { liquidityPoolId: id, amount, minAmountA, minAmountB } });

function pool(state: MemoryState, id: PoolId): ConstantProduct | undefined {
  const e = state.get(liquidityPoolKey(id));
  return e?.data.type === 5 ? e.data.liquidityPool.body.constantProduct : undefined;
}

function shareLine(state: MemoryState, owner: AccountId, id: PoolId): TrustLineEntry | undefined {
  const e = state.get(poolShareTrustLineKey(owner, id));
  return e?.data.type === 1 ? e.data.trustLine : undefined;
}

const useCount = (state: MemoryState, owner: AccountId, asset: Asset): number => liquidityPoolUseCount(state.trustLine(owner, asset)!);

/** Puts a changed copy of a committed entry back (to arrange states the operations would take long to reach). */
function edit(state: MemoryState, e: LedgerEntry | undefined, change: (e: LedgerEntry) => void): void {
  if (!e) throw new Error('no entry to edit');
  change(e);
  state.put(e);
}

/** Issuer, alice and bob (100,000 XLM each), both holders with authorized EUR and USD lines holding 1,000,000 each. */
function world(): MemoryState {
  const entries = [accountEntry(issuer, 100n * XLM)];
  for (const who of [alice, bob]) {
    entries.push(accountEntry(who, 100_000n * XLM, { numSubEntries: 2 }));
    for (const asset of [EUR, USD]) entries.push(trustLineEntry(who, asset, 1_000_000n, INT64_MAX, 1));
  }
  return new MemoryState(entries);
}

function ok(r: ReturnType<typeof runOp>, what: string): void {
  assert.equal(r.outcome.success, true, `${what}: ${JSON.stringify(operationResultOf(r.outcome), (_, v) => typeof v === 'bigint' ? `${v}` : v)}`);
}

/** A world where alice already trusts the EUR/USD pool's shares. */
function worldWithAlicePool(): MemoryState {
  const state = world();
  ok(runOp(state, poolShareLine(EUR_USD, INT64_MAX), alice), 'alice trusts the pool');
  return state;
}

// ---------------------------------------------------------------------------------------------
// Pool ids

test('pool id is sha256 of the LiquidityPoolParameters XDR, whatever the order the assets are given in', () => {
  const sdk = (a: Asset) => a.type === 0 ? SdkAsset.native()
    : new SdkAsset(Buffer.from(a.type === 1 ? a.alphaNum4.assetCode : a.alphaNum12.assetCode).toString('latin1').replace(/\0+$/, ''),
      StrKey.encodeEd25519PublicKey(Buffer.from((a.type === 1 ? a.alphaNum4 : a.alphaNum12).issuer.ed25519)));
  const longCode = credit('LONGCODE', alice);
  for (const [x, y] of [[USD, EUR], [NATIVE, USD], [longCode, NATIVE], [longCode, EUR]] as const) {
    const [a, b] = SdkAsset.compare(sdk(x), sdk(y)) < 0 ? [x, y] : [y, x];
    // the SDK's own derivation (it refuses assets out of order)
    const expected = getLiquidityPoolId('constant_product', { assetA: sdk(a), assetB: sdk(b), fee: 30 });
    assert.equal(Buffer.from(poolIdForAssets(x, y)).toString('hex'), Buffer.from(expected).toString('hex'));
    assert.equal(Buffer.from(poolIdForAssets(y, x)).toString('hex'), Buffer.from(expected).toString('hex'));
    // and by hand: hash the XDR the SDK's classes encode
    const params = sdkXdr.LiquidityPoolParameters.liquidityPoolConstantProduct(new sdkXdr.LiquidityPoolConstantProductParameters({
      assetA: sdkXdr.Asset.fromXdrObject(a), assetB: sdkXdr.Asset.fromXdrObject(b), fee: 30,
    }));
    const byHand = createHash('sha256').update(params.toXdr()).digest('hex');
    assert.equal(Buffer.from(poolIdForAssets(x, y)).toString('hex'), byHand);
  }
  assert.deepEqual(constantProductParams(USD, EUR), EUR_USD);
  assert.notEqual(Buffer.from(poolIdForAssets(USD, EUR, 31)).toString('hex'), Buffer.from(EUR_USD_ID).toString('hex'));
});

// ---------------------------------------------------------------------------------------------
// ChangeTrust with pool shares

test('ChangeTrust pool share: creates the line (no flags, two reserves), the pool, and marks both asset lines used', () => {
  const state = world();
  const r = runOp(state, poolShareLine(EUR_USD, 1000n), alice);
  ok(r, 'create');
  const line = shareLine(state, alice, EUR_USD_ID)!;
  assert.deepEqual({ balance: line.balance, limit: line.limit, flags: line.flags }, { balance: 0n, limit: 1000n, flags: 0 });
  assert.equal(state.account(alice)!.numSubEntries, 2 + 2, 'a pool-share line takes two sub-entries');
  assert.equal(useCount(state, alice, EUR), 1);
  assert.equal(useCount(state, alice, USD), 1);
  assert.deepEqual(pool(state, EUR_USD_ID), { params: EUR_USD, reserveA: 0n, reserveB: 0n, totalPoolShares: 0n, poolSharesTrustLineCount: 1n });
  assert.ok(r.changes.some((c) => c.type === 0 && c.created.data.type === 5), 'the pool is a created entry in the meta');
  assert.equal(r.events.length, 0);

  // a second holder joins the pool; re-limiting changes only the limit
  ok(runOp(state, poolShareLine(EUR_USD, INT64_MAX), bob), 'bob joins');
  assert.equal(pool(state, EUR_USD_ID)!.poolSharesTrustLineCount, 2n);
  assert.equal(useCount(state, bob, USD), 1);
  assert.equal(useCount(state, alice, USD), 1, 'use counts are per account');
  ok(runOp(state, poolShareLine(EUR_USD, 5000n), alice), 're-limit');
  assert.equal(shareLine(state, alice, EUR_USD_ID)!.limit, 5000n);
  assert.equal(pool(state, EUR_USD_ID)!.poolSharesTrustLineCount, 2n);
  assert.equal(useCount(state, alice, USD), 1);
});

test('ChangeTrust pool share: native needs no line, nor does the asset the source issues', () => {
  const state = world();
  const nativeUsd = constantProductParams(USD, NATIVE);
  ok(runOp(state, poolShareLine(nativeUsd, 10n), alice), 'native/USD');
  assert.equal(useCount(state, alice, USD), 1);
  assert.equal(useCount(state, alice, EUR), 0);
  // the issuer holds EUR and USD without trustlines
  ok(runOp(state, poolShareLine(EUR_USD, 10n), issuer), 'issuer');
  assert.equal(state.account(issuer)!.numSubEntries, 2);
  assert.equal(pool(state, EUR_USD_ID)!.poolSharesTrustLineCount, 1n);
});

test('ChangeTrust pool share: TRUST_LINE_MISSING, NOT_AUTH_MAINTAIN_LIABILITIES, and maintain-liabilities is enough', () => {
  const state = new MemoryState([
    accountEntry(issuer, 100n * XLM), accountEntry(alice, 100n * XLM, { numSubEntries: 1 }), trustLineEntry(alice, EUR, 0n, 100n, 1),
  ]);
  assert.equal(innerCode(runOp(state, poolShareLine(EUR_USD, 10n), alice).outcome), -6);
  assert.equal(useCount(state, alice, EUR), 0, 'the failed attempt left no use count behind');
  assert.equal(pool(state, EUR_USD_ID), undefined);

  state.put(trustLineEntry(alice, USD, 0n, 100n, 0));
  assert.equal(innerCode(runOp(state, poolShareLine(EUR_USD, 10n), alice).outcome), -8);
  state.put(trustLineEntry(alice, USD, 0n, 100n, 2)); // AUTHORIZED_TO_MAINTAIN_LIABILITIES
  ok(runOp(state, poolShareLine(EUR_USD, 10n), alice), 'maintain liabilities suffices');
});

test('ChangeTrust pool share: LOW_RESERVE needs two base reserves available; opTOO_MANY_SUBENTRIES near the limit', () => {
  // 2 base reserves + 2 asset lines + 2 for the share line
  const need = (2n + 2n + 2n) * reserve;
  const state = world();
  state.put(accountEntry(alice, need - 1n, { numSubEntries: 2 }));
  assert.equal(innerCode(runOp(state, poolShareLine(EUR_USD, 10n), alice).outcome), -4);
  assert.equal(pool(state, EUR_USD_ID), undefined);
  state.put(accountEntry(alice, need, { numSubEntries: 2 }));
  ok(runOp(state, poolShareLine(EUR_USD, 10n), alice), 'exact reserve');

  state.put(accountEntry(bob, 100_000n * XLM, { numSubEntries: 999 }));
  assert.deepEqual(operationResultOf(runOp(state, poolShareLine(EUR_USD, 10n), bob).outcome), { code: -4 });
});

test('ChangeTrust pool share: INVALID_LIMIT for a new line at 0 and below the shares held; MALFORMED pools', () => {
  const state = worldWithAlicePool();
  assert.equal(innerCode(runOp(state, poolShareLine(EUR_USD, 0n), bob).outcome), -3);
  ok(runOp(state, deposit(EUR_USD_ID, 100n, 100n), alice), 'deposit');
  assert.equal(shareLine(state, alice, EUR_USD_ID)!.balance, 100n);
  assert.equal(innerCode(runOp(state, poolShareLine(EUR_USD, 99n), alice).outcome), -3);
  assert.equal(innerCode(runOp(state, poolShareLine(EUR_USD, 0n), alice).outcome), -3, 'shares still held block deletion');
  ok(runOp(state, poolShareLine(EUR_USD, 100n), alice), 'limit down to the balance');

  for (const params of [{ assetA: USD, assetB: EUR, fee: 30 }, { ...EUR_USD, fee: 31 }, { assetA: USD, assetB: USD, fee: 30 }]) {
    const r = runOp(state, poolShareLine(params, 10n), alice);
    assert.equal(r.stage, 'checkValid');
    assert.equal(innerCode(r.outcome), -1);
  }
});

test('ChangeTrust: a trustline a pool-share line builds on cannot be deleted (CANNOT_DELETE) until the share line goes', () => {
  const state = world();
  state.put(trustLineEntry(alice, EUR, 0n, INT64_MAX, 1));
  state.put(trustLineEntry(alice, USD, 0n, INT64_MAX, 1));
  ok(runOp(state, poolShareLine(EUR_USD, 10n), alice), 'share line');
  assert.equal(innerCode(runOp(state, creditLine(USD, 0n), alice).outcome), -7);
  assert.ok(state.trustLine(alice, USD));

  const r = runOp(state, poolShareLine(EUR_USD, 0n), alice);
  ok(r, 'delete the share line');
  assert.equal(shareLine(state, alice, EUR_USD_ID), undefined);
  assert.equal(useCount(state, alice, USD), 0);
  assert.equal(useCount(state, alice, EUR), 0);
  assert.equal(state.account(alice)!.numSubEntries, 2);
  assert.equal(pool(state, EUR_USD_ID), undefined, 'the last share line takes the pool with it');
  assert.ok(r.changes.some((c) => c.type === 2 && c.removed.type === 5), 'the pool is a removed entry in the meta');
  ok(runOp(state, creditLine(USD, 0n), alice), 'now the USD line goes');
});

test('ChangeTrust: deleting one of two share lines keeps the pool, with its count down by one', () => {
  const state = world();
  ok(runOp(state, poolShareLine(EUR_USD, 10n), alice), 'alice');
  ok(runOp(state, poolShareLine(EUR_USD, 10n), bob), 'bob');
  ok(runOp(state, poolShareLine(EUR_USD, 0n), bob), 'bob leaves');
  assert.equal(pool(state, EUR_USD_ID)!.poolSharesTrustLineCount, 1n);
  assert.equal(useCount(state, bob, EUR), 0);
  assert.equal(useCount(state, alice, EUR), 1);
});

// ---------------------------------------------------------------------------------------------
// LiquidityPoolDeposit

/** The event's topics as [name, ...addresses as hex/strings] and its amount, for comparison. */
function describe(ev: ContractEvent): { name: string; contract: string; topics: string[]; data: unknown } {
  if (ev.body.v !== 0) throw new Error('unexpected event body');
  const { topics, data } = ev.body.v0;
  const show = (v: xdr.ScValWire): string => {
    if (v.type === 15) return v.sym.toString();
    if (v.type === 14) return v.str.toString();
    if (v.type === 18) {
      const a = v.address;
      if (a.type === 0) return `account:${Buffer.from(a.accountId.ed25519).toString('hex')}`;
      if (a.type === 4) return `pool:${Buffer.from(a.liquidityPoolId).toString('hex')}`;
      return `address-type-${a.type}`;
    }
    return `scval-type-${v.type}`;
  };
  const amount = (v: xdr.ScValWire): unknown => {
    if (v.type === 10) return (v.i128.hi << 64n) | v.i128.lo;
    if (v.type === 17) return Object.fromEntries(v.map!.map((e) => [show(e.key), e.val.type === 10 ? amount(e.val) : e.val.type === 5 ? e.val.u64 : e.val]));
    return v;
  };
  return { name: show(topics[0]), contract: Buffer.from(ev.contractId!).toString('hex'), topics: topics.slice(1).map(show), data: amount(data) };
}

const acct = (id: AccountId) => `account:${Buffer.from(id.ed25519).toString('hex')}`;
const poolAddr = (id: PoolId) => `pool:${Buffer.from(id).toString('hex')}`;
const sacOf = (a: Asset) => Buffer.from(assetContractId(accountNetwork(), a)).toString('hex');
function accountNetwork(): Uint8Array {
  return createHash('sha256').update('Standalone Network ; February 2017').digest();
}
const assetString = (a: Asset) => a.type === 0 ? 'native'
  : `${Buffer.from(a.type === 1 ? a.alphaNum4.assetCode : a.alphaNum12.assetCode).toString('latin1').replace(/\0+$/, '')}:${StrKey.encodeEd25519PublicKey(Buffer.from((a.type === 1 ? a.alphaNum4 : a.alphaNum12).issuer.ed25519))}`;

test('first deposit takes both maxima and mints floor(sqrt(a*b)) shares; events move both assets into the pool', () => {
  const state = worldWithAlicePool();
  // price a/b = 1000/4000 = 1/4, inside [1/5, 1/3]
  const r = runOp(state, deposit(EUR_USD_ID, 1000n, 4000n, price(1, 5), price(1, 3)), alice);
  ok(r, 'deposit');
  // shares = floor(sqrt(1000 * 4000)) = floor(sqrt(4,000,000)) = 2000
  assert.deepEqual(pool(state, EUR_USD_ID), { params: EUR_USD, reserveA: 1000n, reserveB: 4000n, totalPoolShares: 2000n, poolSharesTrustLineCount: 1n });
  assert.equal(shareLine(state, alice, EUR_USD_ID)!.balance, 2000n);
  assert.equal(state.trustLine(alice, EUR)!.balance, 1_000_000n - 1000n);
  assert.equal(state.trustLine(alice, USD)!.balance, 1_000_000n - 4000n);
  assert.deepEqual(r.events.map(describe), [
    { name: 'transfer', contract: sacOf(EUR), topics: [acct(alice), poolAddr(EUR_USD_ID), assetString(EUR)], data: 1000n },
    { name: 'transfer', contract: sacOf(USD), topics: [acct(alice), poolAddr(EUR_USD_ID), assetString(USD)], data: 4000n },
  ]);

  // not a perfect square: floor(sqrt(10 * 3)) = floor(5.477) = 5
  const s2 = world();
  ok(runOp(s2, poolShareLine(EUR_USD, INT64_MAX), alice), 'trust');
  ok(runOp(s2, deposit(EUR_USD_ID, 10n, 3n), alice), 'deposit');
  assert.equal(pool(s2, EUR_USD_ID)!.totalPoolShares, 5n);
});

test('later deposit: shares are the smaller of floor(total*max/reserve) per side; amounts ceil(shares*reserve/total)', () => {
  const state = worldWithAlicePool();
  // first: 1000 EUR and 3001 USD give floor(sqrt(3,001,000)) = 1732 shares (1732^2 = 2,999,824; 1733^2 = 3,003,289)
  ok(runOp(state, deposit(EUR_USD_ID, 1000n, 3001n), alice), 'first');
  assert.equal(pool(state, EUR_USD_ID)!.totalPoolShares, 1732n);

  ok(runOp(state, poolShareLine(EUR_USD, INT64_MAX), bob), 'bob trusts');
  // bob offers at most 7 EUR and 1000 USD:
  //   by EUR: floor(1732 * 7 / 1000)    = floor(12.124) = 12
  //   by USD: floor(1732 * 1000 / 3001) = floor(577.14) = 577
  //   shares = 12; he pays ceil(12 * 1000 / 1732) = ceil(6.928) = 7 EUR and ceil(12 * 3001 / 1732) = ceil(20.79) = 21 USD
  const r = runOp(state, deposit(EUR_USD_ID, 7n, 1000n), bob);
  ok(r, 'second');
  assert.deepEqual(pool(state, EUR_USD_ID), { params: EUR_USD, reserveA: 1007n, reserveB: 3022n, totalPoolShares: 1744n, poolSharesTrustLineCount: 2n });
  assert.equal(shareLine(state, bob, EUR_USD_ID)!.balance, 12n);
  assert.equal(state.trustLine(bob, EUR)!.balance, 1_000_000n - 7n);
  assert.equal(state.trustLine(bob, USD)!.balance, 1_000_000n - 21n);
  assert.deepEqual(r.events.map((e) => describe(e).data), [7n, 21n]);

  // BAD_PRICE applies to the amounts actually taken: 7/21 = 1/3 is above a maximum of 32/100
  ok(runOp(state, poolShareLine(EUR_USD, INT64_MAX), bob), 'relimit');
  assert.equal(innerCode(runOp(state, deposit(EUR_USD_ID, 7n, 1000n, price(1, 5), price(32, 100)), bob).outcome), -6);
  // and a deposit too small to buy a share prices as zero amounts: BAD_PRICE
  assert.equal(innerCode(runOp(state, deposit(EUR_USD_ID, 1n, 1n), bob).outcome), -6);
});

test('deposit with native: the reserve and selling liabilities limit what is available (UNDERFUNDED)', () => {
  const state = world();
  const nativeUsd = constantProductParams(NATIVE, USD);
  const id = poolIdForAssets(NATIVE, USD);
  ok(runOp(state, poolShareLine(nativeUsd, INT64_MAX), alice), 'trust');
  // alice: 4 sub-entries → reserve (2 + 4) * 0.5 XLM; everything above is available
  const minimum = 6n * reserve;
  state.put({ ...state.get({ type: 0, account: { accountId: alice } })!, data: { type: 0, account: { ...state.account(alice)!, balance: minimum + 500n } } });
  assert.equal(innerCode(runOp(state, deposit(id, 501n, 10n), alice).outcome), -4);
  ok(runOp(state, deposit(id, 500n, 10n), alice), 'exactly what is available');
  assert.equal(state.account(alice)!.balance, minimum);

  // selling liabilities on the USD line count against it
  const s2 = world();
  ok(runOp(s2, poolShareLine(EUR_USD, INT64_MAX), alice), 'trust');
  s2.put(trustLineEntry(alice, USD, 1000n, INT64_MAX, 1, { ext: { v: 1, v1: { liabilities: { buying: 0n, selling: 600n }, ext: { v: 2, v2: { liquidityPoolUseCount: 1, ext: { v: 0 } } } } } }));
  assert.equal(innerCode(runOp(s2, deposit(EUR_USD_ID, 10n, 401n), alice).outcome), -4);
  ok(runOp(s2, deposit(EUR_USD_ID, 10n, 400n), alice), 'within the available 400');
});

test('deposit failures: NO_TRUST, NOT_AUTHORIZED, LINE_FULL, BAD_PRICE on a first deposit, MALFORMED', () => {
  const state = worldWithAlicePool();
  assert.equal(innerCode(runOp(state, deposit(EUR_USD_ID, 10n, 10n), bob).outcome), -2);
  assert.equal(innerCode(runOp(state, deposit(poolIdForAssets(NATIVE, EUR), 10n, 10n), alice).outcome), -2);

  // a constituent line authorized only to maintain liabilities cannot deposit
  const usd = state.get({ type: 1, trustLine: { accountId: alice, asset: USD as xdr.TrustLineAssetWire } });
  edit(state, usd, (e) => { if (e.data.type === 1) e.data.trustLine.flags = 2; });
  assert.equal(innerCode(runOp(state, deposit(EUR_USD_ID, 10n, 10n), alice).outcome), -3);
  edit(state, state.get({ type: 1, trustLine: { accountId: alice, asset: USD as xdr.TrustLineAssetWire } }), (e) => { if (e.data.type === 1) e.data.trustLine.flags = 1; });

  // LINE_FULL: floor(sqrt(100 * 100)) = 100 shares against a limit of 99
  ok(runOp(state, poolShareLine(EUR_USD, 99n), alice), 'limit 99');
  assert.equal(innerCode(runOp(state, deposit(EUR_USD_ID, 100n, 100n), alice).outcome), -5);
  ok(runOp(state, deposit(EUR_USD_ID, 99n, 99n), alice), '99 shares fit');

  // BAD_PRICE on an empty pool: 100/50 = 2 is above 3/2
  const s2 = worldWithAlicePool();
  assert.equal(innerCode(runOp(s2, deposit(EUR_USD_ID, 100n, 50n, price(1, 1), price(3, 2)), alice).outcome), -6);
  // ... and below a minimum of 5/2
  assert.equal(innerCode(runOp(s2, deposit(EUR_USD_ID, 100n, 50n, price(5, 2), price(3, 1)), alice).outcome), -6);
  ok(runOp(s2, deposit(EUR_USD_ID, 100n, 50n, price(2, 1), price(2, 1)), alice), 'exactly at the bounds');

  // UNDERFUNDED on an empty pool needs both maxima
  const s3 = worldWithAlicePool();
  assert.equal(innerCode(runOp(s3, deposit(EUR_USD_ID, 1n, 1_000_001n), alice).outcome), -4);

  for (const body of [deposit(EUR_USD_ID, 0n, 1n), deposit(EUR_USD_ID, 1n, -1n), deposit(EUR_USD_ID, 1n, 1n, price(0, 1)),
    deposit(EUR_USD_ID, 1n, 1n, price(1, 1), price(1, -1)), deposit(EUR_USD_ID, 1n, 1n, price(2, 1), price(1, 1))]) {
    const r = runOp(state, body, alice);
    assert.equal(r.stage, 'checkValid');
    assert.equal(innerCode(r.outcome), -1);
  }
});

test('deposit POOL_FULL when a reserve would pass INT64_MAX', () => {
  const state = worldWithAlicePool();
  const used = { v: 1 as const, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2 as const, v2: { liquidityPoolUseCount: 1, ext: { v: 0 as const } } } } };
  for (const asset of [EUR, USD]) state.put(trustLineEntry(alice, asset, INT64_MAX, INT64_MAX, 1, { ext: used }));
  const full = INT64_MAX - 10n;
  edit(state, state.get(liquidityPoolKey(EUR_USD_ID)), (e) => {
    if (e.data.type !== 5) return;
    Object.assign(e.data.liquidityPool.body.constantProduct, { reserveA: full, reserveB: full, totalPoolShares: 1000n });
  });
  // per side floor(1000 * (INT64_MAX / 100) / (INT64_MAX - 10)) = floor(9.99...) = 9 shares, costing
  // ceil(9 * (INT64_MAX - 10) / 1000) of each asset (price 1), far past the 10 either reserve has room for
  const max = INT64_MAX / 100n;
  assert.equal(innerCode(runOp(state, deposit(EUR_USD_ID, max, max), alice).outcome), -7);
  assert.equal(pool(state, EUR_USD_ID)!.reserveA, full);
  // a total share count at the edge is full too: 1000 EUR and 1000 USD into reserves of 1000 each
  edit(state, state.get(liquidityPoolKey(EUR_USD_ID)), (e) => {
    if (e.data.type !== 5) return;
    Object.assign(e.data.liquidityPool.body.constantProduct, { reserveA: 1000n, reserveB: 1000n, totalPoolShares: INT64_MAX - 5n });
  });
  assert.equal(innerCode(runOp(state, deposit(EUR_USD_ID, 1000n, 1000n), alice).outcome), -7);
});

test('an issuer deposits its own asset without a trustline: the movement into the pool is a mint', () => {
  const state = world();
  ok(runOp(state, poolShareLine(EUR_USD, INT64_MAX), issuer), 'issuer trusts the pool');
  const r = runOp(state, deposit(EUR_USD_ID, 300n, 300n), issuer);
  ok(r, 'deposit');
  assert.equal(pool(state, EUR_USD_ID)!.totalPoolShares, 300n);
  assert.deepEqual(r.events.map(describe).map((e) => [e.name, e.topics]), [
    ['mint', [poolAddr(EUR_USD_ID), assetString(EUR)]],
    ['mint', [poolAddr(EUR_USD_ID), assetString(USD)]],
  ]);
});

// ---------------------------------------------------------------------------------------------
// LiquidityPoolWithdraw

function twoHolderPool(): MemoryState {
  const state = worldWithAlicePool();
  ok(runOp(state, deposit(EUR_USD_ID, 1000n, 3001n), alice), 'alice deposits');
  ok(runOp(state, poolShareLine(EUR_USD, INT64_MAX), bob), 'bob trusts');
  ok(runOp(state, deposit(EUR_USD_ID, 7n, 1000n), bob), 'bob deposits');
  return state; // reserves 1007 EUR / 3022 USD, 1744 shares: alice 1732, bob 12
}

test('withdraw pays floor(shares * reserve / total) per side; events carry the memo as to_muxed_id', () => {
  const state = twoHolderPool();
  // 500 of 1744 shares: floor(500 * 1007 / 1744) = floor(288.70) = 288 EUR, floor(500 * 3022 / 1744) = floor(866.40) = 866 USD
  const r = runOp(state, withdraw(EUR_USD_ID, 500n, 288n, 866n), alice, { memo: { type: 2, id: 77n } });
  ok(r, 'withdraw');
  assert.deepEqual(pool(state, EUR_USD_ID), { params: EUR_USD, reserveA: 1007n - 288n, reserveB: 3022n - 866n, totalPoolShares: 1244n, poolSharesTrustLineCount: 2n });
  assert.equal(shareLine(state, alice, EUR_USD_ID)!.balance, 1232n);
  assert.equal(state.trustLine(alice, EUR)!.balance, 1_000_000n - 1000n + 288n);
  assert.equal(state.trustLine(alice, USD)!.balance, 1_000_000n - 3001n + 866n);
  const evs = r.events.map(describe);
  assert.deepEqual(evs.map((e) => [e.name, e.contract, e.topics]), [
    ['transfer', sacOf(EUR), [poolAddr(EUR_USD_ID), acct(alice), assetString(EUR)]],
    ['transfer', sacOf(USD), [poolAddr(EUR_USD_ID), acct(alice), assetString(USD)]],
  ]);
  assert.deepEqual(evs.map((e) => e.data), [{ amount: 288n, to_muxed_id: 77n }, { amount: 866n, to_muxed_id: 77n }]);

  // a muxed source gets its id instead
  const m = runOp(state, withdraw(EUR_USD_ID, 1n), alice, { sourceMuxed: muxed(alice, 9n) });
  ok(m, 'muxed');
  assert.deepEqual(m.events.map((e) => describe(e).data), [
    { amount: 1n * 719n / 1244n, to_muxed_id: 9n }, { amount: 1n * 2156n / 1244n, to_muxed_id: 9n },
  ]);
});

test('withdrawing every share empties the pool; then the last share line deletes it', () => {
  const state = worldWithAlicePool();
  ok(runOp(state, deposit(EUR_USD_ID, 1000n, 4000n), alice), 'deposit');
  ok(runOp(state, withdraw(EUR_USD_ID, 2000n, 1000n, 4000n), alice), 'withdraw all');
  assert.deepEqual(pool(state, EUR_USD_ID), { params: EUR_USD, reserveA: 0n, reserveB: 0n, totalPoolShares: 0n, poolSharesTrustLineCount: 1n });
  assert.equal(state.trustLine(alice, EUR)!.balance, 1_000_000n);
  // an emptied pool prices its next deposit afresh
  ok(runOp(state, deposit(EUR_USD_ID, 9n, 4n), alice), 'redeposit');
  assert.equal(pool(state, EUR_USD_ID)!.totalPoolShares, 6n, 'floor(sqrt(36))');
  ok(runOp(state, withdraw(EUR_USD_ID, 6n), alice), 'withdraw again');
  ok(runOp(state, poolShareLine(EUR_USD, 0n), alice), 'delete the line');
  assert.equal(pool(state, EUR_USD_ID), undefined);
});

test('withdraw failures: NO_TRUST, UNDERFUNDED, UNDER_MINIMUM (A first), LINE_FULL, MALFORMED', () => {
  const state = twoHolderPool();
  const carol = accountId('carol');
  state.put(accountEntry(carol, 100n * XLM));
  assert.equal(innerCode(runOp(state, withdraw(EUR_USD_ID, 1n), carol).outcome), -2);
  assert.equal(innerCode(runOp(state, withdraw(EUR_USD_ID, 13n), bob).outcome), -3, 'bob holds 12 shares');
  // bob's 12 shares: floor(12 * 1007 / 1744) = 6 EUR, floor(12 * 3022 / 1744) = 20 USD
  assert.equal(innerCode(runOp(state, withdraw(EUR_USD_ID, 12n, 7n, 0n), bob).outcome), -5);
  assert.equal(innerCode(runOp(state, withdraw(EUR_USD_ID, 12n, 6n, 21n), bob).outcome), -5);
  // LINE_FULL: bob's EUR line is 6 short of its limit... then 5 short
  const bobEur = state.trustLine(bob, EUR)!;
  state.put(trustLineEntry(bob, EUR, bobEur.balance, bobEur.balance + 5n, 1, { ext: bobEur.ext }));
  assert.equal(innerCode(runOp(state, withdraw(EUR_USD_ID, 12n), bob).outcome), -4);
  state.put(trustLineEntry(bob, EUR, bobEur.balance, bobEur.balance + 6n, 1, { ext: bobEur.ext }));
  ok(runOp(state, withdraw(EUR_USD_ID, 12n, 6n, 20n), bob), 'exactly fits');
  assert.equal(state.trustLine(bob, EUR)!.balance, bobEur.balance + 6n);

  for (const body of [withdraw(EUR_USD_ID, 0n), withdraw(EUR_USD_ID, 1n, -1n), withdraw(EUR_USD_ID, 1n, 0n, -1n)]) {
    const r = runOp(state, body, alice);
    assert.equal(r.stage, 'checkValid');
    assert.equal(innerCode(r.outcome), -1);
  }
});

test('withdraw into native respects the account; an issuer withdrawing its own asset burns it', () => {
  const state = world();
  const nativeUsd = constantProductParams(NATIVE, USD);
  const id = poolIdForAssets(NATIVE, USD);
  ok(runOp(state, poolShareLine(nativeUsd, INT64_MAX), alice), 'trust');
  ok(runOp(state, deposit(id, 400n, 100n), alice), 'deposit');
  const before = state.account(alice)!.balance;
  ok(runOp(state, withdraw(id, 100n), alice), 'withdraw'); // 100 of 200 shares: 200 stroops, 50 USD
  assert.equal(state.account(alice)!.balance, before + 200n);

  ok(runOp(state, poolShareLine(nativeUsd, INT64_MAX), issuer), 'issuer trusts');
  ok(runOp(state, deposit(id, 200n, 50n), issuer), 'issuer deposits');
  const r = runOp(state, withdraw(id, 100n), issuer);
  ok(r, 'issuer withdraws');
  assert.deepEqual(r.events.map(describe).map((e) => [e.name, e.topics]), [
    ['transfer', [poolAddr(id), acct(issuer), 'native']],
    ['burn', [poolAddr(id), assetString(USD)]],
  ]);
});

test('withdraw into a fully deauthorized line (a state from before revocation redeemed shares) is LINE_FULL, not a crash', () => {
  const state = twoHolderPool();
  edit(state, state.get({ type: 1, trustLine: { accountId: bob, asset: USD as xdr.TrustLineAssetWire } }), (e) => { if (e.data.type === 1) e.data.trustLine.flags = 0; });
  assert.equal(innerCode(runOp(state, withdraw(EUR_USD_ID, 12n), bob).outcome), -4);
  edit(state, state.get({ type: 1, trustLine: { accountId: bob, asset: USD as xdr.TrustLineAssetWire } }), (e) => { if (e.data.type === 1) e.data.trustLine.flags = 2; });
  ok(runOp(state, withdraw(EUR_USD_ID, 12n), bob), 'maintain-liabilities can still receive');
});
