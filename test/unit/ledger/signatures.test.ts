// Signature checking: the worker pool's verdicts, which pairs are candidates, and that validation
// reads what the pool found.
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { SignatureVerifierPool } from '../../../src/ledger/signatureWorkers.ts';
import { candidateSignatures, rememberVerified, verifyEd25519, SignatureChecker, TX_ED25519_VERIFY_BUDGET } from '../../../src/ledger/signatures.ts';

const account = (kp: Keypair, signers: Keypair[] = []) => ({
  accountId: { type: 0 as const, ed25519: kp.rawPublicKey() }, balance: 0n, seqNum: 0n, numSubEntries: signers.length,
  inflationDest: null, flags: 0, homeDomain: '' as any, thresholds: new Uint8Array([1, 0, 0, 0]),
  signers: signers.map((s) => ({ key: { type: 0 as const, ed25519: s.rawPublicKey() }, weight: 1 })), ext: { v: 0 as const },
});

it('verifies on worker threads and picks only hint-matching pairs', async () => {
  const a = Keypair.random(), cosigner = Keypair.random(), stranger = Keypair.random();
  const msg = new Uint8Array(32).fill(3);
  const sigA = { hint: a.signatureHint(), signature: a.sign(Buffer.from(msg)) };
  const sigCo = { hint: cosigner.signatureHint(), signature: cosigner.sign(Buffer.from(msg)) };
  const forged = { hint: a.signatureHint(), signature: stranger.sign(Buffer.from(msg)) };
  const pairs = candidateSignatures([account(a, [cosigner]) as any], msg, [sigA, sigCo, forged]);
  assert.equal(pairs.length, 3); // a's key for sigA and forged (same hint), cosigner's key for sigCo
  const pool = new SignatureVerifierPool(1);
  try {
    const results = await pool.verify(pairs);
    const forgedIndex = pairs.findIndex((p) => Buffer.from(p.signature).equals(Buffer.from(forged.signature)));
    assert.deepEqual(results, pairs.map((_, i) => i !== forgedIndex));
    pairs.forEach((p, i) => rememberVerified(p.publicKey, p.message, p.signature, results[i]));
    // once known, a pair is no longer a candidate, and the checker uses the verdicts
    assert.equal(candidateSignatures([account(a, [cosigner]) as any], msg, [sigA, sigCo, forged]).length, 0);
    const checker = new SignatureChecker(msg, [sigA, sigCo]);
    assert.ok(checker.check([{ key: { type: 0, ed25519: a.rawPublicKey() }, weight: 1 }, { key: { type: 0, ed25519: cosigner.rawPublicKey() }, weight: 1 }], 2));
    assert.ok(checker.allUsed());
  } finally {
    await pool.close();
  }
});

it('a remembered verdict is what validation sees', () => {
  const kp = Keypair.random();
  const msg = new Uint8Array(32).fill(9);
  const sig = kp.sign(Buffer.from(msg));
  assert.equal(verifyEd25519(kp.rawPublicKey(), msg, sig), true);
  const other = new Uint8Array(32).fill(8);
  rememberVerified(kp.rawPublicKey(), other, sig, true); // as a worker would report
  assert.equal(verifyEd25519(kp.rawPublicKey(), other, sig), true);
  assert.equal(verifyEd25519(kp.rawPublicKey(), msg, new Uint8Array(63)), false);
});

const ed25519Signer = (kp: Keypair, weight = 1) => ({ key: { type: 0 as const, ed25519: kp.rawPublicKey() }, weight });
const signed = (kp: Keypair, msg: Uint8Array) => ({ hint: kp.signatureHint(), signature: kp.sign(Buffer.from(msg)) });

it('checks in core\'s order: each signature in turn against the signers, so an early threshold uses the first signature', () => {
  const a = Keypair.random(), b = Keypair.random();
  const msg = new Uint8Array(32).fill(5);
  // signed by b first, then a; the source (signers a, b) needs 1; an operation's source (signer a) needs 1
  const checker = new SignatureChecker(msg, [signed(b, msg), signed(a, msg)]);
  assert.ok(checker.check([ed25519Signer(a), ed25519Signer(b)], 1), 'b\'s signature reaches the threshold first');
  assert.ok(checker.check([ed25519Signer(a)], 1));
  // core's SignatureChecker marks b's signature for the first check and a's for the second: all used
  assert.ok(checker.allUsed());
  assert.equal(checker.verifications, 2);
});

it('protocol 28: at most 1,000 ed25519 verifications per transaction, remembered verdicts included (core\'s TX_ED25519_VERIFY_BUDGET)', () => {
  const kp = Keypair.random(), other = Keypair.random();
  const msg = new Uint8Array(32).fill(6);
  // 19 signatures with the key's hint that do not verify, then a good one: 20 verifications a check
  const forged = Array.from({ length: 19 }, () => ({ hint: kp.signatureHint(), signature: other.sign(Buffer.from(msg.map((x, i) => x + i))) }));
  const signatures = [...forged, signed(kp, msg)];
  const p28 = new SignatureChecker(msg, signatures, 28);
  for (let i = 0; i < TX_ED25519_VERIFY_BUDGET / 20; i++) assert.ok(p28.check([ed25519Signer(kp)], 1), `check ${i + 1}`);
  assert.equal(p28.verifications, TX_ED25519_VERIFY_BUDGET);
  assert.equal(p28.check([ed25519Signer(kp)], 1), false, 'the budget is spent: the signer cannot be checked');
  assert.equal(p28.verifications, TX_ED25519_VERIFY_BUDGET);
  // a pre-authorized transaction or a sha256(x) signer needs no verification and still counts
  const x = new Uint8Array(32).fill(1);
  const hashX = sha256Of(x);
  const withHashX = new SignatureChecker(msg, [...signatures, { hint: hashX.subarray(28), signature: x }], 28);
  for (let i = 0; i < TX_ED25519_VERIFY_BUDGET / 20; i++) withHashX.check([ed25519Signer(kp)], 1);
  assert.ok(withHashX.check([{ key: { type: 2 as const, hashX }, weight: 1 }], 1));
  assert.ok(withHashX.check([{ key: { type: 1 as const, preAuthTx: msg }, weight: 1 }], 1));
  // before protocol 28 there is no budget
  const p27 = new SignatureChecker(msg, signatures, 27);
  for (let i = 0; i <= TX_ED25519_VERIFY_BUDGET / 20; i++) assert.ok(p27.check([ed25519Signer(kp)], 1));
  // malformed signatures (not 64 bytes) are not verified, so they spend nothing
  const short = new SignatureChecker(msg, [{ hint: kp.signatureHint(), signature: new Uint8Array(10) }], 28);
  assert.equal(short.check([ed25519Signer(kp)], 1), false);
  assert.equal(short.verifications, 0);
});

function sha256Of(b: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(b).digest());
}
