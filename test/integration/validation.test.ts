// sendTransaction's answers for invalid transactions, and the queue's admission rules, as
// stellar-core gives them; driven by the JS SDK over HTTP.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, MuxedAccount, Operation, TransactionBuilder, Memo } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, accountEntry, builder, funded, resultCode, server, submit } from './support/sdk.ts';

describe('validation and queue rules', () => {
  let node: NodeProcess;
  let s: ReturnType<typeof server>;
  let a: Keypair;
  let b: Keypair;

  before(async () => {
    // a slow cadence keeps transactions in the queue long enough to observe it
    node = await startNodeProcess({ args: ['--ledger-close-interval', '700ms', '--log-level', 'warn'] });
    s = server(node.url);
    [a, b] = await Promise.all([funded(s), funded(s)]);
  });
  after(async () => { await node?.stop(); });

  const payment = (to: string, amount = '1') => Operation.payment({ destination: to, asset: Asset.native(), amount });
  const errorCode = async (tx: Parameters<typeof s.sendTransaction>[0]) => {
    const r = await s.sendTransaction(tx);
    assert.equal(r.status, 'ERROR', `expected ERROR, got ${r.status}`);
    return resultCode(r.errorResult!.toXdr());
  };

  it('txINSUFFICIENT_FEE below the base fee', async () => {
    const tx = (await builder(s, a, '99')).addOperation(payment(b.publicKey())).build();
    tx.sign(a);
    assert.equal(await errorCode(tx), -9);
  });

  it('txTOO_LATE and txTOO_EARLY from time bounds; txTOO_LATE from ledger bounds', async () => {
    const now = Math.floor(Date.now() / 1000);
    const acc = await s.getAccount(a.publicKey());
    const late = new TransactionBuilder(acc, { fee: '100', networkPassphrase: PASSPHRASE, timebounds: { minTime: 0, maxTime: now - 100 } })
      .addOperation(payment(b.publicKey())).build();
    late.sign(a);
    assert.equal(await errorCode(late), -3);
    const early = new TransactionBuilder(await s.getAccount(a.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE, timebounds: { minTime: now + 1000, maxTime: 0 } })
      .addOperation(payment(b.publicKey())).build();
    early.sign(a);
    assert.equal(await errorCode(early), -2);
    const latest = (await s.getLatestLedger()).sequence;
    const pastLedgers = new TransactionBuilder(await s.getAccount(a.publicKey()), {
      fee: '100', networkPassphrase: PASSPHRASE, ledgerbounds: { minLedger: 0, maxLedger: latest },
    }).addOperation(payment(b.publicKey())).setTimeout(60).build();
    pastLedgers.sign(a);
    assert.equal(await errorCode(pastLedgers), -3);
  });

  it('txNO_ACCOUNT, txBAD_AUTH, txBAD_AUTH_EXTRA, txMISSING_OPERATION', async () => {
    const ghost = Keypair.random();
    const noAccount = new TransactionBuilder(new Account(ghost.publicKey(), '1'), { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(payment(b.publicKey())).setTimeout(60).build();
    noAccount.sign(ghost);
    assert.equal(await errorCode(noAccount), -8);
    const wrongSigner = (await builder(s, a)).addOperation(payment(b.publicKey())).build();
    wrongSigner.sign(b);
    assert.equal(await errorCode(wrongSigner), -6);
    const extra = (await builder(s, a)).addOperation(payment(b.publicKey())).build();
    extra.sign(a, b);
    assert.equal(await errorCode(extra), -10);
    const none = (await builder(s, a)).build();
    none.sign(a);
    assert.equal(await errorCode(none), -4);
  });

  it('V2 preconditions: minSeqNum lets a transaction skip ahead; extra signers are required', async () => {
    const entry = await accountEntry(s, a.publicKey());
    const skip = new TransactionBuilder(new Account(a.publicKey(), (entry.seqNum + 5n).toString()), {
      fee: '100', networkPassphrase: PASSPHRASE, minAccountSequence: entry.seqNum.toString(),
    }).addOperation(payment(b.publicKey())).setTimeout(60).build();
    skip.sign(a);
    assert.equal((await submit(s, skip)).done.status, 'SUCCESS');
    assert.equal((await accountEntry(s, a.publicKey())).seqNum, entry.seqNum + 6n);
    const needsB = new TransactionBuilder(await s.getAccount(a.publicKey()), {
      fee: '100', networkPassphrase: PASSPHRASE, extraSigners: [b.publicKey()],
    }).addOperation(payment(b.publicKey())).setTimeout(60).build();
    needsB.sign(a);
    assert.equal(await errorCode(needsB), -6);
    needsB.sign(b);
    assert.equal((await submit(s, needsB)).done.status, 'SUCCESS');
  });

  it('muxed source and destination: balances move on the underlying accounts', async () => {
    const before = (await accountEntry(s, b.publicKey())).balance;
    const muxedA = new MuxedAccount(await s.getAccount(a.publicKey()), '42');
    const muxedB = new MuxedAccount(new Account(b.publicKey(), '0'), '7');
    const tx = new TransactionBuilder(muxedA, { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(Operation.payment({ destination: muxedB.accountId(), asset: Asset.native(), amount: '3' }))
      .addMemo(Memo.text('hi')).setTimeout(60).build();
    tx.sign(a);
    const { done } = await submit(s, tx);
    assert.equal(done.status, 'SUCCESS');
    assert.equal((await accountEntry(s, b.publicKey())).balance, before + 30_000_000n);
  });

  it('one pending transaction per account: TRY_AGAIN_LATER, unless a fee bump pays ten times more', async () => {
    const src = await funded(s);
    const acc = await s.getAccount(src.publicKey());
    const first = new TransactionBuilder(acc, { fee: '100', networkPassphrase: PASSPHRASE }).addOperation(payment(b.publicKey())).setTimeout(60).build();
    first.sign(src);
    const second = new TransactionBuilder(acc, { fee: '100', networkPassphrase: PASSPHRASE }).addOperation(payment(b.publicKey())).setTimeout(60).build();
    second.sign(src);
    const r1 = await s.sendTransaction(first);
    assert.equal(r1.status, 'PENDING');
    assert.equal((await s.sendTransaction(first)).status, 'DUPLICATE');
    assert.equal((await s.sendTransaction(second)).status, 'TRY_AGAIN_LATER');
    const cheapBump = TransactionBuilder.buildFeeBumpTransaction(b, '200', first, PASSPHRASE);
    cheapBump.sign(b);
    assert.equal((await s.sendTransaction(cheapBump)).status, 'TRY_AGAIN_LATER');
    const bump = TransactionBuilder.buildFeeBumpTransaction(b, '2000', first, PASSPHRASE);
    bump.sign(b);
    const rb = await s.sendTransaction(bump);
    assert.equal(rb.status, 'PENDING');
    const done = await s.pollTransaction(rb.hash, { attempts: 60, sleepStrategy: () => 100 });
    assert.equal(done.status, 'SUCCESS');
    // the replaced transaction never made it on its own hash... but its inner hash resolves to the bump
    const byInner = await s.getTransaction(r1.hash);
    assert.equal(byInner.status, 'SUCCESS');
    if (byInner.status === 'SUCCESS') assert.equal(byInner.feeBump, true);
  });

  it('a pre-authorized transaction needs no signature, and its signer is removed once used', async () => {
    const owner = await funded(s);
    const seq = (await accountEntry(s, owner.publicKey())).seqNum;
    // the transaction to pre-authorize comes after the one that adds its signer
    const preAuthorized = new TransactionBuilder(new Account(owner.publicKey(), (seq + 1n).toString()), { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(payment(b.publicKey(), '2')).setTimeout(0).build();
    const add = new TransactionBuilder(new Account(owner.publicKey(), seq.toString()), { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(Operation.setOptions({ signer: { preAuthTx: Buffer.from(preAuthorized.hash()), weight: 1 } })).setTimeout(60).build();
    add.sign(owner);
    assert.equal((await submit(s, add)).done.status, 'SUCCESS');
    assert.equal((await accountEntry(s, owner.publicKey())).signers.length, 1);
    const { done } = await submit(s, preAuthorized); // carries no signature at all
    assert.equal(done.status, 'SUCCESS');
    const after = await accountEntry(s, owner.publicKey());
    assert.equal(after.signers.length, 0);
    assert.equal(after.numSubEntries, 0);
  });

  it('protocol 28: a transaction may spend 1,000 ed25519 verifications; operations checked after that are opBAD_AUTH', async () => {
    // an account that needs 20 signatures at every threshold: each check verifies 20 of them
    const owner = await funded(s);
    const cosigners = Array.from({ length: 19 }, () => Keypair.random());
    const setup = (await builder(s, owner)).addOperation(Operation.setOptions({ masterWeight: 1, lowThreshold: 20, medThreshold: 20, highThreshold: 20 }));
    for (const k of cosigners) setup.addOperation(Operation.setOptions({ signer: { ed25519PublicKey: k.publicKey(), weight: 1 } }));
    const setupTx = setup.build();
    setupTx.sign(owner);
    assert.equal((await submit(s, setupTx)).done.status, 'SUCCESS');

    const build = async (ops: number) => {
      const b2 = await builder(s, owner);
      for (let i = 0; i < ops; i++) b2.addOperation(payment(b.publicKey(), '0.0000001'));
      const tx = b2.build();
      tx.sign(owner, ...cosigners);
      return tx;
    };
    // the source's check and 49 operations' take 1,000 verifications: the 50th and later cannot be checked
    const r = await s.sendTransaction(await build(100));
    assert.equal(r.status, 'ERROR');
    const result = r.errorResult!.toXdrObject() as any;
    assert.equal(result.result.code, -1 /* txFAILED */);
    const codes = result.result.results.map((op: { code: number }) => op.code);
    assert.deepEqual(codes, [...Array(49).fill(0), ...Array(51).fill(-1 /* opBAD_AUTH */)]);
    // within the budget the same signatures are fine
    const { done } = await submit(s, await build(49));
    assert.equal(done.status, 'SUCCESS');
  });
});
