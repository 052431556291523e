// The queue's admission rules: duplicates, one pending transaction per source, replace-by-fee, the
// size limit, the ban after four ledgers without inclusion, and the ban of applied transactions.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { TransactionQueue, PENDING_DEPTH, BAN_DEPTH } from '../../../src/ledger/transactionQueue.ts';
import { frameOf } from '../../../src/ledger/transactionFrame.ts';
import { decodeEnvelope } from '../../../src/xdr/transactions.ts';
import { networkIdOf } from '../../../src/xdr/codec.ts';

const NID = networkIdOf(Networks.STANDALONE);
const dest = Keypair.random().publicKey();

function frame(source: Keypair, seq: string, ops = 1, feeBumpBy?: Keypair, bumpFee = '0') {
  let b = new TransactionBuilder(new Account(source.publicKey(), seq), { fee: '100', networkPassphrase: Networks.STANDALONE }).setTimeout(0);
  for (let i = 0; i < ops; i++) b = b.addOperation(Operation.payment({ destination: dest, asset: Asset.native(), amount: '1' }));
  const tx = b.build();
  tx.sign(source);
  const env = feeBumpBy ? TransactionBuilder.buildFeeBumpTransaction(feeBumpBy, bumpFee, tx, Networks.STANDALONE) : tx;
  if (feeBumpBy) env.sign(feeBumpBy);
  return frameOf(decodeEnvelope(Buffer.from(env.toXDR(), 'base64')), NID);
}

describe('TransactionQueue', () => {
  it('admits, detects duplicates, and keeps one pending transaction per source', () => {
    const q = new TransactionQueue(1000);
    const a = Keypair.random();
    const f1 = frame(a, '1');
    assert.equal(q.admit(f1).status, 'PENDING');
    q.add(f1);
    assert.equal(q.admit(f1).status, 'DUPLICATE');
    assert.equal(q.admit(frame(a, '2')).status, 'TRY_AGAIN_LATER');
    assert.equal(q.admit(frame(Keypair.random(), '1')).status, 'PENDING');
  });

  it('lets a fee bump of the same transaction replace it only at ten times the fee rate', () => {
    const q = new TransactionQueue(1000);
    const a = Keypair.random(), sponsor = Keypair.random();
    const f1 = frame(a, '1');
    q.add(f1);
    // f1 offers 100 per operation; the SDK's fee-bump fee is also per operation, so 10x is 1000
    assert.equal(q.admit(frame(a, '1', 1, sponsor, '999')).status, 'TRY_AGAIN_LATER');
    const bump = frame(a, '1', 1, sponsor, '1000');
    const ok = q.admit(bump);
    assert.deepEqual(ok, { status: 'PENDING', replaces: f1.hashHex });
    q.add(bump, ok.replaces);
    assert.equal(q.has(f1.hashHex), false);
    assert.equal(q.size, 1);
  });

  it('refuses when full and takes by operation budget in arrival order', () => {
    const q = new TransactionQueue(5);
    const frames = [frame(Keypair.random(), '1', 2), frame(Keypair.random(), '1', 2)];
    for (const f of frames) q.add(f);
    assert.equal(q.admit(frame(Keypair.random(), '1', 2)).status, 'TRY_AGAIN_LATER');
    assert.deepEqual(q.take(3).map((f) => f.hashHex), [frames[0].hashHex]);
    assert.equal(q.take(4).length, 2);
  });

  it('drops and bans a transaction left out of four ledgers, then forgets the ban', () => {
    const q = new TransactionQueue(1000);
    const f = frame(Keypair.random(), '1');
    q.add(f);
    for (let i = 0; i < PENDING_DEPTH; i++) q.ledgerClosed([]);
    assert.equal(q.has(f.hashHex), false);
    assert.equal(q.admit(f).status, 'TRY_AGAIN_LATER');
    for (let i = 0; i < BAN_DEPTH; i++) q.ledgerClosed([]);
    assert.equal(q.admit(f).status, 'PENDING');
  });

  it('bans an applied transaction for the ban depth, as core does, so a resend is TRY_AGAIN_LATER', () => {
    const q = new TransactionQueue(1000);
    const f = frame(Keypair.random(), '1');
    q.add(f);
    q.ledgerClosed([f]);
    assert.equal(q.has(f.hashHex), false);
    for (let i = 0; i < BAN_DEPTH - 1; i++) {
      assert.equal(q.admit(f).status, 'TRY_AGAIN_LATER', `${i + 1} ledgers after`);
      q.ledgerClosed([]);
    }
    assert.equal(q.admit(f).status, 'TRY_AGAIN_LATER', `${BAN_DEPTH} ledgers after`);
    q.ledgerClosed([]);
    // the queue lets it through; validation then finds its sequence number used (txBAD_SEQ)
    assert.equal(q.admit(f).status, 'PENDING');
  });

  it('counts the fees a fee source has promised', () => {
    const q = new TransactionQueue(1000);
    const a = Keypair.random();
    const f = frame(a, '1', 3);
    q.add(f);
    assert.equal(q.pendingFees(Buffer.from(a.rawPublicKey()).toString('hex')), 300n);
    assert.equal(q.pendingFees(Buffer.from(a.rawPublicKey()).toString('hex'), f.hashHex), 0n);
  });

  it('save/restore: a revert puts back the transactions with their ages, the bans and the fee and size accounting', () => {
    const q = new TransactionQueue(3);
    const a = Keypair.random(), b = Keypair.random(), c = Keypair.random();
    const fa = frame(a, '1'), fb = frame(b, '1'), fc = frame(c, '1'), applied = frame(Keypair.random(), '1');
    q.add(applied);
    q.add(fa);
    q.ledgerClosed([applied]); // fa one ledger old, `applied` banned
    q.add(fb);
    const saved = q.save();
    const feeSource = Buffer.from(fa.feeSourceId.ed25519).toString('hex');
    const feesA = q.pendingFees(feeSource);

    q.add(fc);
    for (let i = 0; i < PENDING_DEPTH; i++) q.ledgerClosed([]); // everything ages out and is banned
    assert.equal(q.size, 0);
    q.restore(saved);

    assert.equal(q.size, 2);
    assert.ok(q.has(fa.hashHex) && q.has(fb.hashHex) && !q.has(fc.hashHex));
    assert.ok(q.isBanned(applied.hashHex) && !q.isBanned(fa.hashHex) && !q.isBanned(fc.hashHex));
    assert.equal(q.pendingFees(feeSource), feesA);
    assert.equal(q.admit(frame(a, '2')).status, 'TRY_AGAIN_LATER', 'one pending transaction per source again');
    assert.equal(q.admit(fc).status, 'PENDING', 'room for one more operation');
    assert.equal(q.admit(frame(Keypair.random(), '1', 2)).status, 'TRY_AGAIN_LATER', 'the size limit counts the restored ones');
    // fa keeps its age: it is dropped one ledger before fb
    for (let i = 0; i < PENDING_DEPTH - 1; i++) q.ledgerClosed([]);
    assert.ok(!q.has(fa.hashHex) && q.has(fb.hashHex));
    q.clear();
    assert.equal(q.size, 0);
    assert.ok(!q.isBanned(applied.hashHex));
  });
});
