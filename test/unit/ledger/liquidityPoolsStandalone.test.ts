// Liquidity pools end to end on an in-process standalone network: SDK-built ChangeTrust (pool
// shares), deposit and withdraw transactions close, their meta decodes, and the stored pool entry
// holds the reserves core's formulas give.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import {
  Account, Asset, Keypair, LiquidityPoolAsset, Networks, Operation, TransactionBuilder, getLiquidityPoolId, xdr,
} from '@stellar/stellar-sdk';
import { rootKeypair, standaloneOnFreshStore } from './standaloneSupport.ts';

it('trust, deposit and withdraw a native/USD pool through closed ledgers; revoking USD redeems the rest', async () => {
  const { store, net, seq, submit } = standaloneOnFreshStore();
  const root = rootKeypair();
  const issuer = Keypair.random();
  const alice = Keypair.random();
  const USD = new Asset('USD', issuer.publicKey());
  const poolAsset = new LiquidityPoolAsset(Asset.native(), USD, 30);
  const poolIdHex = Buffer.from(getLiquidityPoolId('constant_product', poolAsset.getLiquidityPoolParameters())).toString('hex');

  const run = async (source: Keypair, signers: Keypair[], ops: xdr.Operation[]) => {
    const b = new TransactionBuilder(new Account(source.publicKey(), seq(source)), { fee: '1000', networkPassphrase: Networks.STANDALONE });
    for (const op of ops) b.addOperation(op);
    const tx = b.setTimeout(0).build();
    tx.sign(...signers);
    const submitted = await submit(tx);
    assert.equal(submitted.status, 'PENDING', JSON.stringify(submitted));
    await net.closeLedgerNow();
    const stored = store.transactionByHash(tx.hash());
    assert.ok(stored, 'stored');
    const result = xdr.TransactionResult.fromXdr(Buffer.from(stored.result));
    assert.equal(stored.successful, true, JSON.stringify(result.toXdrObject(), (_, v) => typeof v === 'bigint' ? `${v}` : v));
    xdr.TransactionMeta.fromXdr(Buffer.from(stored.meta)); // the meta, pool entries included, decodes
    return stored;
  };

  await run(root, [root], [
    Operation.createAccount({ destination: issuer.publicKey(), startingBalance: '100' }),
    Operation.createAccount({ destination: alice.publicKey(), startingBalance: '100' }),
  ]);
  await run(alice, [alice, issuer], [
    Operation.setOptions({ source: issuer.publicKey(), setFlags: 2 /* AUTH_REVOCABLE */ }),
    Operation.changeTrust({ asset: USD }),
    Operation.payment({ source: issuer.publicKey(), destination: alice.publicKey(), asset: USD, amount: '1000' }),
    Operation.changeTrust({ asset: poolAsset }),
  ]);
  // 40 XLM and 10 USD: floor(sqrt(400,000,000 * 100,000,000)) = 200,000,000 shares
  await run(alice, [alice], [Operation.liquidityPoolDeposit({
    liquidityPoolId: poolIdHex, maxAmountA: '40', maxAmountB: '10', minPrice: '3.9', maxPrice: '4.1',
  })]);
  // a quarter of the shares back: 10 XLM and 2.5 USD
  const withdrawal = await run(alice, [alice], [Operation.liquidityPoolWithdraw({
    liquidityPoolId: poolIdHex, amount: '5', minAmountA: '10', minAmountB: '2.5',
  })]);
  // CAP-67: both amounts leave the pool's address for alice's
  const events = withdrawal.events.contractEventsXdr[0].map((b64) => xdr.ContractEvent.fromXdr(b64, 'base64').toXdrObject());
  assert.equal(events.length, 2);
  for (const ev of events) {
    assert.ok(ev.body.v === 0);
    const [name, from, to] = ev.body.v0.topics;
    assert.ok(name.type === 15 && name.sym.toString() === 'transfer');
    assert.ok(from.type === 18 && from.address.type === 4 && Buffer.from(from.address.liquidityPoolId).toString('hex') === poolIdHex);
    assert.ok(to.type === 18 && to.address.type === 0 && Buffer.from(to.address.accountId.ed25519).equals(alice.rawPublicKey()));
  }

  const poolKey = xdr.LedgerKey.schema.encode({ type: 5, liquidityPool: { liquidityPoolId: Buffer.from(poolIdHex, 'hex') } });
  const stored = store.entry(poolKey);
  assert.ok(stored, 'the pool entry is stored');
  const data = xdr.LedgerEntry.schema.decode(stored.entry).data;
  assert.ok(data.type === 5);
  const cp = data.liquidityPool.body.constantProduct;
  assert.deepEqual([cp.reserveA, cp.reserveB, cp.totalPoolShares, cp.poolSharesTrustLineCount], [300_000_000n, 75_000_000n, 150_000_000n, 1n]);

  // the share line is in storage now; revoking alice's USD finds it there and redeems all 150,000,000
  // shares (30 XLM and 7.5 USD) into two claimable balances, taking the pool with its last line
  await run(issuer, [issuer], [Operation.setTrustLineFlags({ trustor: alice.publicKey(), asset: USD, flags: { authorized: false } })]);
  assert.equal(store.entry(poolKey), undefined);
  const shareKey = xdr.LedgerKey.schema.encode({ type: 1, trustLine: { accountId: { type: 0, ed25519: alice.rawPublicKey() }, asset: { type: 3, liquidityPoolId: Buffer.from(poolIdHex, 'hex') } } });
  assert.equal(store.entry(shareKey), undefined);
  const balances = [...store.entriesOfTypes(4, 4)].map((e) => xdr.LedgerEntry.schema.decode(e.entry).data).map((d) => {
    assert.ok(d.type === 4);
    return [d.claimableBalance.asset.type, d.claimableBalance.amount];
  });
  assert.deepEqual(balances.sort((a, b) => Number(a[0]) - Number(b[0])), [[0, 300_000_000n], [1, 75_000_000n]]);
  await net.stop();
  store.close();
});
