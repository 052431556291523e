// Liquidity pools (CAP-38) as a user meets them, over HTTP with the official JS SDK: a pool-share
// trustline (the pool created with it), deposits (the first at the depositor's price, later ones
// proportional), path payments whose hop goes through the pool (strict send and strict receive, the
// book taken instead when it is better), withdrawals, the pool gone with its last share line, and
// revocation redeeming a holder's shares into claimable balances. Amounts are derived from CAP-38's
// formulas and the reserves the node reports; every step is checked through the pool entry, share
// and asset trustlines, sub-entries, the liquidity claim atoms and the CAP-67 events to and from the
// pool's address.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  Asset, AuthClawbackEnabledFlag, AuthRequiredFlag, AuthRevocableFlag, LiquidityPoolAsset, Operation, getLiquidityPoolId, xdr,
  type Keypair, type rpc,
} from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import {
  accountIdWire, accountView, addressTopic, applied, symbolTopic, assetEvent, assetWire, decimal, feeCharged, fundedAccount, issueAssets, manageOfferSuccess,
  movement, offerIdOf, opCodes, pathPaymentSuccess, poolView, send, stroops, tradeEvents, tradeOf, transactionEvents,
  transactionResult, trustLineView, type Trade, readBackEverything, startClassicNode,
} from './support/classic.ts';

const INT64_MAX = 2n ** 63n - 1n;
const FEE_BPS = 30n;
const CLAIMABLE_BALANCE_CLAWBACK_ENABLED_FLAG = 1;
/** A pool-share trustline takes two base reserves (CAP-38). */
const SHARE_LINE_RESERVES = 2;

const isqrt = (n: bigint): bigint => {
  if (n < 2n) return n;
  let x = n;
  let y = (x + 1n) / 2n;
  while (y < x) { x = y; y = (x + n / x) / 2n; }
  return x;
};
const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;
/** CAP-38 strict send: what `send` into the pool takes out, the fee kept in the pool, rounded down. */
const poolOut = (reserveIn: bigint, reserveOut: bigint, send: bigint): bigint =>
  ((10_000n - FEE_BPS) * reserveOut * send) / (10_000n * reserveIn + (10_000n - FEE_BPS) * send);
/** CAP-38 strict receive: what must go in to take `receive` out, rounded up. */
const poolIn = (reserveIn: bigint, reserveOut: bigint, receive: bigint): bigint =>
  ceilDiv(10_000n * reserveIn * receive, (reserveOut - receive) * (10_000n - FEE_BPS));

const sha256 = (b: Uint8Array): Buffer => createHash('sha256').update(b).digest();

describe('liquidity pools over JSON-RPC (JS SDK)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let firstLedger: number;

  before(async () => { ({ node, s, firstLedger } = await startClassicNode()); });
  after(async () => { await node?.stop(); });

  const xlmOf = async (kp: Keypair) => (await accountView(s, kp.publicKey())).balance;
  const heldOf = async (kp: Keypair, asset: Asset | string) => (await trustLineView(s, kp.publicKey(), asset))!.balance;
  const poolOf = (a: Asset, b: Asset) => {
    const asset = new LiquidityPoolAsset(a, b, Number(FEE_BPS));
    return { asset, id: Buffer.from(getLiquidityPoolId('constant_product', asset.getLiquidityPoolParameters())).toString('hex') };
  };

  it('share trustline, deposits, path payments through the pool (and the book when better), withdrawals, the pool gone with its last line', async () => {
    const [first, second, sender, receiver, bookSeller] = [await fundedAccount(s), await fundedAccount(s), await fundedAccount(s), await fundedAccount(s), await fundedAccount(s)];
    const { assets: { USD } } = await issueAssets(s, ['USD'], [first, second, receiver, bookSeller], [
      { to: first, code: 'USD', amount: '1000' }, { to: second, code: 'USD', amount: '1000' }, { to: bookSeller, code: 'USD', amount: '10' },
    ]);
    const pool = poolOf(Asset.native(), USD); // XLM is asset A: native sorts first

    // the share line creates the pool; it counts two sub-entries and marks the USD line as in use
    const subEntriesBefore = (await accountView(s, first.publicKey())).numSubEntries;
    await applied(s, first, [Operation.changeTrust({ asset: pool.asset })]);
    assert.equal((await accountView(s, first.publicKey())).numSubEntries, subEntriesBefore + SHARE_LINE_RESERVES);
    assert.equal((await trustLineView(s, first.publicKey(), USD))!.poolUseCount, 1);
    assert.deepEqual(await trustLineView(s, first.publicKey(), pool.id), { balance: 0n, limit: INT64_MAX, flags: 0, buying: 0n, selling: 0n, poolUseCount: 0 }, 'a share line has no flags (core sets none)');
    assert.deepEqual(await poolView(s, pool.id), {
      params: { assetA: assetWire(Asset.native()), assetB: assetWire(USD), fee: Number(FEE_BPS) },
      reserveA: 0n, reserveB: 0n, totalPoolShares: 0n, poolSharesTrustLineCount: 1n,
    });

    // the first deposit sets the price (1 XLM = 4 USD) and gets sqrt(a * b) shares
    const [a1, b1] = [stroops('100'), stroops('400')];
    const xlm0 = await xlmOf(first);
    const deposit1 = await applied(s, first, [Operation.liquidityPoolDeposit({
      liquidityPoolId: pool.id, maxAmountA: decimal(a1), maxAmountB: decimal(b1), minPrice: '0.25', maxPrice: '0.25' })]);
    const shares1 = isqrt(a1 * b1);
    assert.equal(await heldOf(first, pool.id), shares1);
    assert.equal(await xlmOf(first), xlm0 - a1 - feeCharged(deposit1.done));
    assert.equal(await heldOf(first, USD), stroops('1000') - b1);
    let cp = (await poolView(s, pool.id))!;
    assert.deepEqual([cp.reserveA, cp.reserveB, cp.totalPoolShares], [a1, b1, shares1]);
    assert.deepEqual(await transactionEvents(s, deposit1), [
      assetEvent('transfer', [first.publicKey(), pool.id], Asset.native(), a1),
      assetEvent('transfer', [first.publicKey(), pool.id], USD, b1),
    ]);

    // a second depositor: refused outside its price bounds, then proportional (each side rounded in the pool's favour)
    await applied(s, second, [Operation.changeTrust({ asset: pool.asset })]);
    const badPrice = await send(s, second, [Operation.liquidityPoolDeposit({ liquidityPoolId: pool.id, maxAmountA: '10', maxAmountB: '50', minPrice: '0.3', maxPrice: '0.4' })]);
    assert.deepEqual(opCodes(transactionResult(badPrice.done)), [-6 /* LIQUIDITY_POOL_DEPOSIT_BAD_PRICE */]);
    const [maxA2, maxB2] = [stroops('10'), stroops('50')];
    const shares2 = [cp.totalPoolShares * maxA2 / cp.reserveA, cp.totalPoolShares * maxB2 / cp.reserveB].reduce((x, y) => (x < y ? x : y));
    const [a2, b2] = [ceilDiv(shares2 * cp.reserveA, cp.totalPoolShares), ceilDiv(shares2 * cp.reserveB, cp.totalPoolShares)];
    const deposit2 = await applied(s, second, [Operation.liquidityPoolDeposit({
      liquidityPoolId: pool.id, maxAmountA: decimal(maxA2), maxAmountB: decimal(maxB2), minPrice: '0.2', maxPrice: '0.3' })]);
    assert.equal(await heldOf(second, pool.id), shares2);
    assert.equal(await heldOf(second, USD), stroops('1000') - b2);
    assert.deepEqual(await transactionEvents(s, deposit2), [
      assetEvent('transfer', [second.publicKey(), pool.id], Asset.native(), a2),
      assetEvent('transfer', [second.publicKey(), pool.id], USD, b2),
    ]);
    cp = (await poolView(s, pool.id))!;
    assert.deepEqual([cp.reserveA, cp.reserveB, cp.totalPoolShares, cp.poolSharesTrustLineCount], [a1 + a2, b1 + b2, shares1 + shares2, 2n]);

    // strict send through the pool: the hop takes what CAP-38's formula gives for the reserves now
    const sendXlm = stroops('10');
    const outUsd = poolOut(cp.reserveA, cp.reserveB, sendXlm);
    const viaPool = await applied(s, sender, [Operation.pathPaymentStrictSend({
      sendAsset: Asset.native(), sendAmount: decimal(sendXlm), destination: receiver.publicKey(), destAsset: USD, destMin: decimal(outUsd), path: [] })]);
    const poolTrade: Trade = { seller: 'pool', pool: pool.id, sold: USD.toString(), amountSold: outUsd, bought: 'native', amountBought: sendXlm };
    let ok = pathPaymentSuccess(viaPool.done);
    assert.deepEqual(ok.offers.map(tradeOf), [poolTrade]);
    assert.equal(ok.last.amount, outUsd);
    assert.deepEqual(await transactionEvents(s, viaPool), [
      ...tradeEvents(sender.publicKey(), poolTrade),
      movement(USD.toString(), sender.publicKey(), receiver.publicKey(), outUsd),
    ]);
    const cpAfterSend = (await poolView(s, pool.id))!;
    assert.deepEqual([cpAfterSend.reserveA, cpAfterSend.reserveB, cpAfterSend.totalPoolShares], [cp.reserveA + sendXlm, cp.reserveB - outUsd, cp.totalPoolShares]);
    cp = cpAfterSend;

    // strict receive through the pool: one stroop under the price it costs is OVER_SENDMAX, the price itself pays
    const wantUsd = stroops('5');
    const costXlm = poolIn(cp.reserveA, cp.reserveB, wantUsd);
    const short = await send(s, sender, [Operation.pathPaymentStrictReceive({
      sendAsset: Asset.native(), sendMax: decimal(costXlm - 1n), destination: receiver.publicKey(), destAsset: USD, destAmount: decimal(wantUsd), path: [] })]);
    assert.deepEqual(opCodes(transactionResult(short.done)), [-12 /* PATH_PAYMENT_STRICT_RECEIVE_OVER_SENDMAX */]);
    assert.deepEqual(await poolView(s, pool.id), cp, 'a failed payment leaves the pool as it was');
    const senderXlm = await xlmOf(sender);
    const bought = await applied(s, sender, [Operation.pathPaymentStrictReceive({
      sendAsset: Asset.native(), sendMax: decimal(costXlm), destination: receiver.publicKey(), destAsset: USD, destAmount: decimal(wantUsd), path: [] })]);
    ok = pathPaymentSuccess(bought.done);
    assert.deepEqual(ok.offers.map(tradeOf), [{ ...poolTrade, amountSold: wantUsd, amountBought: costXlm }]);
    assert.equal(await xlmOf(sender), senderXlm - costXlm - feeCharged(bought.done));
    assert.equal(await heldOf(receiver, USD), outUsd + wantUsd);
    cp = (await poolView(s, pool.id))!;

    // an offer far better than the pool that fills the hop completely takes it instead
    const cheap = offerIdOf(manageOfferSuccess((await applied(s, bookSeller, [Operation.manageSellOffer({
      selling: USD, buying: Asset.native(), amount: '1', price: '0.01' })])).done));
    const viaBook = await applied(s, sender, [Operation.pathPaymentStrictSend({
      sendAsset: Asset.native(), sendAmount: '0.01', destination: receiver.publicKey(), destAsset: USD, destMin: '1', path: [] })]);
    assert.deepEqual(pathPaymentSuccess(viaBook.done).offers.map(tradeOf), [
      { seller: bookSeller.publicKey(), offerId: cheap, sold: USD.toString(), amountSold: stroops('1'), bought: 'native', amountBought: stroops('0.01') },
    ]);
    assert.deepEqual(await poolView(s, pool.id), cp, 'the pool was not touched');

    // withdrawals: one stroop over what the shares are worth is UNDER_MINIMUM; the rest is rounded down
    const half = shares1 / 2n;
    const [outA, outB] = [half * cp.reserveA / cp.totalPoolShares, half * cp.reserveB / cp.totalPoolShares];
    const greedy = await send(s, first, [Operation.liquidityPoolWithdraw({ liquidityPoolId: pool.id, amount: decimal(half), minAmountA: decimal(outA + 1n), minAmountB: '0' })]);
    assert.deepEqual(opCodes(transactionResult(greedy.done)), [-5 /* LIQUIDITY_POOL_WITHDRAW_UNDER_MINIMUM */]);
    const usdBefore = await heldOf(first, USD);
    const withdrawn = await applied(s, first, [Operation.liquidityPoolWithdraw({ liquidityPoolId: pool.id, amount: decimal(half), minAmountA: decimal(outA), minAmountB: decimal(outB) })]);
    assert.deepEqual(await transactionEvents(s, withdrawn), [
      assetEvent('transfer', [pool.id, first.publicKey()], Asset.native(), outA),
      assetEvent('transfer', [pool.id, first.publicKey()], USD, outB),
    ]);
    assert.equal(await heldOf(first, USD), usdBefore + outB);
    assert.equal(await heldOf(first, pool.id), shares1 - half);
    // a watcher of the pool's address sees every movement into and out of it since the first deposit
    const poolEvents = await s.getEvents({ startLedger: deposit1.done.ledger, limit: 50, filters: [
      { type: 'contract', topics: [[symbolTopic('transfer'), '*', addressTopic(pool.id, 'liquidityPool'), '**']] },
      { type: 'contract', topics: [[symbolTopic('transfer'), addressTopic(pool.id, 'liquidityPool'), '*', '**']] },
    ] });
    assert.deepEqual(poolEvents.events.map((e) => e.txHash), [deposit1, deposit1, deposit2, deposit2, viaPool, viaPool, bought, bought, withdrawn, withdrawn].map((r) => r.hash));
    const cpAfterWithdraw = (await poolView(s, pool.id))!;
    assert.deepEqual([cpAfterWithdraw.reserveA, cpAfterWithdraw.reserveB, cpAfterWithdraw.totalPoolShares], [cp.reserveA - outA, cp.reserveB - outB, cp.totalPoolShares - half]);

    // everyone leaves: all shares back, the lines deleted, and with the last line the pool itself
    for (const provider of [second, first]) {
      const held = await heldOf(provider, pool.id);
      await applied(s, provider, [
        Operation.liquidityPoolWithdraw({ liquidityPoolId: pool.id, amount: decimal(held), minAmountA: '0', minAmountB: '0' }),
        Operation.changeTrust({ asset: pool.asset, limit: '0' }),
      ]);
      assert.equal(await trustLineView(s, provider.publicKey(), pool.id), undefined);
      assert.equal((await trustLineView(s, provider.publicKey(), USD))!.poolUseCount, 0);
      assert.equal((await accountView(s, provider.publicKey())).numSubEntries, subEntriesBefore);
    }
    assert.equal(await poolView(s, pool.id), undefined, 'the pool left with its last share line');
  });

  it('revoking authorization redeems the holder\'s pool shares into claimable balances it can claim (the asset once authorized again)', async () => {
    const [regulator, holder, other] = [await fundedAccount(s), await fundedAccount(s), await fundedAccount(s)];
    const RVK = new Asset('RVK', regulator.publicKey());
    const pool = poolOf(Asset.native(), RVK);
    await applied(s, regulator, [Operation.setOptions({ setFlags: (AuthRequiredFlag | AuthRevocableFlag | AuthClawbackEnabledFlag) as 11 })]);
    for (const kp of [holder, other]) {
      await applied(s, regulator, [
        Operation.changeTrust({ asset: RVK, source: kp.publicKey() }),
        Operation.setTrustLineFlags({ trustor: kp.publicKey(), asset: RVK, flags: { authorized: true } }),
        Operation.payment({ destination: kp.publicKey(), asset: RVK, amount: '100' }),
        Operation.changeTrust({ asset: pool.asset, source: kp.publicKey() }),
        Operation.liquidityPoolDeposit({ source: kp.publicKey(), liquidityPoolId: pool.id, maxAmountA: '40', maxAmountB: '10', minPrice: '4', maxPrice: '4' }),
      ], [kp]);
    }
    const cp = (await poolView(s, pool.id))!;
    const shares = await heldOf(holder, pool.id);
    assert.ok(shares > 0n && cp.totalPoolShares === 2n * shares);
    const before = await accountView(s, holder.publicKey());

    const revoke = await applied(s, regulator, [Operation.setTrustLineFlags({ trustor: holder.publicKey(), asset: RVK, flags: { authorized: false } })]);
    // one balance per side, its id from the revoking operation (POOL_REVOKE_OP_ID), its amount what a withdrawal would give
    const balanceId = (asset: Asset) => '00000000' + sha256(xdr.HashIdPreimage.schema.encode({
      type: 7,
      revokeId: { sourceAccount: accountIdWire(regulator.publicKey()), seqNum: BigInt(revoke.tx.sequence), opNum: 0, liquidityPoolId: Buffer.from(pool.id, 'hex'), asset: assetWire(asset) },
    })).toString('hex');
    const xlmBalance = balanceId(Asset.native());
    const rvkBalance = balanceId(RVK);
    const [xlmAmount, rvkAmount] = [shares * cp.reserveA / cp.totalPoolShares, shares * cp.reserveB / cp.totalPoolShares];
    assert.deepEqual(await transactionEvents(s, revoke), [
      assetEvent('transfer', [pool.id, xlmBalance], Asset.native(), xlmAmount),
      assetEvent('transfer', [pool.id, rvkBalance], RVK, rvkAmount),
      assetEvent('set_authorized', [holder.publicKey()], RVK, false),
    ]);
    assert.equal(await trustLineView(s, holder.publicKey(), pool.id), undefined, 'the share line is gone');
    assert.equal((await trustLineView(s, holder.publicKey(), RVK))!.poolUseCount, 0);
    const after = await accountView(s, holder.publicKey());
    assert.equal(after.numSubEntries, before.numSubEntries - SHARE_LINE_RESERVES);
    assert.equal(after.numSponsoring, before.numSponsoring + 2, 'the holder backs the two balances as it backed the line');
    const cpAfter = (await poolView(s, pool.id))!;
    assert.deepEqual([cpAfter.reserveA, cpAfter.reserveB, cpAfter.totalPoolShares, cpAfter.poolSharesTrustLineCount],
      [cp.reserveA - xlmAmount, cp.reserveB - rvkAmount, cp.totalPoolShares - shares, cp.poolSharesTrustLineCount - 1n]);
    for (const [id, asset, amount, flags] of [[xlmBalance, Asset.native(), xlmAmount, 0], [rvkBalance, RVK, rvkAmount, CLAIMABLE_BALANCE_CLAWBACK_ENABLED_FLAG]] as const) {
      const entry = (await s.getClaimableBalance(id)).toXdrObject();
      assert.deepEqual([entry.asset, entry.amount], [assetWire(asset), amount]);
      assert.deepEqual(entry.claimants.map((c) => [Buffer.from(c.v0.destination.ed25519).equals(holder.rawPublicKey()), c.v0.predicate]), [[true, { type: 0 }]]);
      assert.equal(entry.ext.v === 1 ? entry.ext.v1.flags : 0, flags, 'clawback-enabled as the holder\'s line was');
    }

    // the XLM is the holder's to claim now; the RVK once the regulator authorizes it again
    const xlmBefore = await xlmOf(holder);
    const claimXlm = await applied(s, holder, [Operation.claimClaimableBalance({ balanceId: xlmBalance })]);
    assert.equal(await xlmOf(holder), xlmBefore + xlmAmount - feeCharged(claimXlm.done));
    const notYet = await send(s, holder, [Operation.claimClaimableBalance({ balanceId: rvkBalance })]);
    assert.deepEqual(opCodes(transactionResult(notYet.done)), [-5 /* CLAIM_CLAIMABLE_BALANCE_NOT_AUTHORIZED */]);
    await applied(s, regulator, [Operation.setTrustLineFlags({ trustor: holder.publicKey(), asset: RVK, flags: { authorized: true } })]);
    const rvkBefore = await heldOf(holder, RVK);
    const claimRvk = await applied(s, holder, [Operation.claimClaimableBalance({ balanceId: rvkBalance })]);
    assert.deepEqual(await transactionEvents(s, claimRvk), [assetEvent('transfer', [rvkBalance, holder.publicKey()], RVK, rvkAmount)]);
    assert.equal(await heldOf(holder, RVK), rvkBefore + rvkAmount);
    assert.equal((await accountView(s, holder.publicKey())).numSponsoring, before.numSponsoring);
    assert.equal(await heldOf(other, pool.id), shares, 'the other holder keeps its shares');
  });

  it('every ledger and transaction of these flows decodes with the SDK and renders as JSON', async () => {
    const transactions = await readBackEverything(s, node.rpc, firstLedger);
    assert.ok(transactions >= 10, `${transactions} transactions`);
  });
});
