// One transaction whose apply throws fails alone, as stellar-core fails it (txINTERNAL_ERROR, fee
// charged, sequence number used, its operations' changes dropped), and the other transactions of its
// ledger apply. The trigger is real state a developer can set: an account whose sponsorship counts
// make its reserve negative (lumen_setLedgerEntry), so the reserve check of a payment it makes
// throws. It pays as an operation's source in a transaction of a healthy account: admission checks
// the transaction's source (its fee), not the operation's, so the throw comes at apply.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Operation, xdr, type rpc } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { accountEntry, builder, funded, resultCode, server } from './support/sdk.ts';

const TX_INTERNAL_ERROR = -11;

describe('a transaction whose apply throws', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  before(async () => {
    node = await startNodeProcess({ args: ['--close-mode', 'manual', '--log-level', 'warn'] });
    s = server(node.url);
  });
  after(async () => { await node?.stop(); });

  it('fails alone with txINTERNAL_ERROR; the rest of its ledger applies and the node logs the cause', async () => {
    const [alice, bob, carol, dave] = [await funded(s), await funded(s), await funded(s), await funded(s)];
    const bobBefore = await accountEntry(s, bob.publicKey());
    const aliceBefore = await accountEntry(s, alice.publicKey());
    const broken = xdr.LedgerEntryData.schema.encode({
      type: 0,
      account: {
        ...aliceBefore,
        ext: { v: 1, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2, v2: { numSponsored: 5, numSponsoring: 0, signerSponsoringIDs: [], ext: { v: 0 } } } } },
      },
    });
    const set = await node.rpc('lumen_setLedgerEntry', { entry: Buffer.from(broken).toString('base64') });
    assert.ok(set.result, JSON.stringify(set.error));
    const payment = (source?: string) => Operation.payment({ destination: carol.publicKey(), asset: Asset.native(), amount: '1', ...(source ? { source } : {}) });
    // bob's transaction, whose one operation alice pays (both sign); then dave's own payment
    const throwing = (await builder(s, bob)).addOperation(payment(alice.publicKey())).build();
    throwing.sign(bob, alice);
    const plain = (await builder(s, dave)).addOperation(payment()).build();
    plain.sign(dave);
    const txs = [throwing, plain];
    for (const tx of txs) {
      const sent = await s.sendTransaction(tx);
      assert.equal(sent.status, 'PENDING', JSON.stringify(sent));
    }
    const closed = await node.rpc('lumen_closeLedgers', { count: 1 });
    assert.ok(closed.result, JSON.stringify(closed.error));

    const [a, b] = await Promise.all(txs.map((tx) => s.getTransaction(Buffer.from(tx.hash()).toString('hex'))));
    assert.equal(b.status, 'SUCCESS', 'the other transaction of the ledger applied');
    assert.equal(a.status, 'FAILED');
    if (a.status !== 'FAILED' || b.status !== 'SUCCESS') return;
    assert.equal(a.ledger, b.ledger, 'both in the same ledger');
    const result = a.resultXdr.toXDR();
    assert.equal(resultCode(result), TX_INTERNAL_ERROR);
    const fee = xdr.TransactionResult.schema.decode(result).feeCharged;
    assert.ok(fee > 0n, 'its fee is charged');

    const bobAfter = await accountEntry(s, bob.publicKey());
    assert.equal(bobAfter.balance, bobBefore.balance - fee, 'bob paid the fee and nothing else');
    assert.equal(bobAfter.seqNum, bobBefore.seqNum + 1n, 'his sequence number is used');
    const aliceAfter = await accountEntry(s, alice.publicKey());
    assert.equal(aliceAfter.balance, aliceBefore.balance, 'alice paid nothing: the operation was dropped');
    await node.outputMatching(/failed alone \(txINTERNAL_ERROR\)/);
    await node.outputMatching(/negative reserve count/);

    // the node goes on: alice's state is set right again and her next payment applies
    const repaired = xdr.LedgerEntryData.schema.encode({ type: 0, account: { ...aliceAfter, ext: { v: 0 } } });
    assert.ok((await node.rpc('lumen_setLedgerEntry', { entry: Buffer.from(repaired).toString('base64') })).result);
    const again = (await builder(s, bob)).addOperation(payment(alice.publicKey())).build();
    again.sign(bob, alice);
    assert.equal((await s.sendTransaction(again)).status, 'PENDING');
    await node.rpc('lumen_closeLedgers', { count: 1 });
    assert.equal((await s.getTransaction(Buffer.from(again.hash()).toString('hex'))).status, 'SUCCESS');
  });
});
