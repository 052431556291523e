// Signature checking: the worker pool's verdicts, which pairs are candidates, and that validation
// reads what the pool found.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { SignatureVerifierPool } from '../../../src/ledger/signatureWorkers.ts';
import { candidateSignatures, rememberVerified, verifyEd25519, SignatureChecker } from '../../../src/ledger/signatures.ts';

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
