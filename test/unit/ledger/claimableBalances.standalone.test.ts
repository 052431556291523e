// Claimable balances on the standalone network, end to end: SDK-built transactions through
// validation, ledger close and ingestion, and the balance read back with the JS SDK's
// rpc.Server.getClaimableBalance (a getLedgerEntries call for a CLAIMABLE_BALANCE key) over HTTP.
// Also Inflation, which core answers opNOT_SUPPORTED at this protocol before any other check.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import {
  Account, Asset, Claimant, Keypair, Networks, Operation, TransactionBuilder, getClaimableBalanceIdFromResult, rpc, xdr,
} from '@stellar/stellar-sdk';
import { createLogger } from '../../../src/log.ts';
import { createHttpServer } from '../../../src/transport/httpServer.ts';
import { getLedgerEntries } from '../../../src/rpc/methods/getLedgerEntries.ts';
import { contextFor } from '../methods/support/pubnet.ts';
import { rootKeypair, standaloneOnFreshStore } from './standaloneSupport.ts';

const XLM = 10_000_000n;

it('creates a claimable balance, serves it to rpc.Server.getClaimableBalance, and lets the claimant claim it', async () => {
  const { store, net, seq, submit } = standaloneOnFreshStore();
  const ctx = contextFor(store, { config: { networkPassphrase: Networks.STANDALONE, endpoint: '127.0.0.1:0' } });
  const server = createHttpServer({ config: ctx.config, ctx, methods: [getLedgerEntries], logger: createLogger({ logLevel: 'error', logFormat: 'json' }, { write: () => {} }) });
  const { port } = await server.listen();
  try {
    const root = rootKeypair();
    const [creator, claimant] = [Keypair.random(), Keypair.random()];
    const build = (kp: Keypair) => new TransactionBuilder(new Account(kp.publicKey(), seq(kp)), { fee: '100', networkPassphrase: Networks.STANDALONE });
    const fund = build(root)
      .addOperation(Operation.createAccount({ destination: creator.publicKey(), startingBalance: '100' }))
      .addOperation(Operation.createAccount({ destination: claimant.publicKey(), startingBalance: '100' })).setTimeout(0).build();
    fund.sign(root);
    assert.equal((await submit(fund)).status, 'PENDING');
    await net.closeLedgerNow();

    const createTx = build(creator)
      .addOperation(Operation.manageData({ name: 'first', value: 'op' }))
      .addOperation(Operation.createClaimableBalance({
        asset: Asset.native(), amount: '25',
        claimants: [new Claimant(claimant.publicKey(), Claimant.predicateBeforeRelativeTime('86400'))],
      })).setTimeout(0).build();
    createTx.sign(creator);
    assert.equal((await submit(createTx)).status, 'PENDING');
    await net.closeLedgerNow();

    // the id in the result is the one the SDK derives from the transaction (source, sequence, op index 1)
    const row = store.transactionByHash(createTx.hash());
    assert.ok(row?.successful, 'the transaction succeeded');
    const idFromResult = getClaimableBalanceIdFromResult(xdr.TransactionResult.fromXdr(row.result), 1);
    const idHex = createTx.getClaimableBalanceId(1);
    assert.equal(idFromResult, idHex);

    const s = new rpc.Server(`http://127.0.0.1:${port}`, { allowHttp: true });
    const cb = await s.getClaimableBalance(idHex);
    assert.equal(cb.amount, 25n * XLM);
    assert.equal(cb.claimants.length, 1);
    const predicate = cb.claimants[0].toXdrObject().v0.predicate;
    const closeTime = BigInt(store.latestLedger()!.closeTime); // of the ledger that created it
    assert.deepEqual(predicate, { type: 4, absBefore: closeTime + 86400n }, 'stored as an absolute time');

    const claimTx = build(claimant).addOperation(Operation.claimClaimableBalance({ balanceId: idHex })).setTimeout(0).build();
    claimTx.sign(claimant);
    assert.equal((await submit(claimTx)).status, 'PENDING');
    await net.closeLedgerNow();
    assert.ok(store.transactionByHash(claimTx.hash())?.successful, 'claimed');
    await assert.rejects(s.getClaimableBalance(idHex), /not found/);
  } finally {
    await server.close();
    await net.stop();
    store.close();
  }
});

it('Inflation is refused with opNOT_SUPPORTED, before the operation source or signatures are looked at', async () => {
  const { store, net, seq, submit } = standaloneOnFreshStore();
  try {
    const root = rootKeypair();
    const tx = new TransactionBuilder(new Account(root.publicKey(), seq(root)), { fee: '200', networkPassphrase: Networks.STANDALONE })
      .addOperation(Operation.inflation())
      .addOperation(Operation.inflation({ source: Keypair.random().publicKey() })) // no such account, no signature
      .setTimeout(0).build();
    tx.sign(root);
    const res = await submit(tx);
    assert.equal(res.status, 'ERROR');
    const result = xdr.TransactionResult.schema.decode(res.errorResult!);
    assert.deepEqual(result.result, { code: -1, results: [{ code: -3 }, { code: -3 }] }, 'txFAILED, opNOT_SUPPORTED twice');
  } finally {
    await net.stop();
    store.close();
  }
});
