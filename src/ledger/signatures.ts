// Signature checking as stellar-core's SignatureChecker: each decorated signature may satisfy one
// signer; signer weights add up (capped at 255 each) until the needed threshold is met; at the end
// every signature must have been used, or the transaction is txBAD_AUTH_EXTRA.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { xdr } from '@stellar/stellar-sdk';
import { bytesEqual, sha256 } from '../xdr/codec.ts';
import type { SignatureToCheck } from './signatureWorkers.ts';

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const keyCache = new Map<string, KeyObject>();

function publicKeyObject(raw: Uint8Array): KeyObject {
  const id = Buffer.from(raw).toString('hex');
  let k = keyCache.get(id);
  if (!k) {
    k = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    if (keyCache.size > 100_000) keyCache.clear();
    keyCache.set(id, k);
  }
  return k;
}

// A transaction's signatures are checked when it is submitted and again when it is applied, for the
// transaction and for each operation; like stellar-core, remember what was verified.
const verified = new Map<string, boolean>();
const VERIFIED_CACHE_SIZE = 250_000;

const verificationId = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): string =>
  Buffer.from(publicKey).toString('base64') + Buffer.from(signature).toString('base64') + Buffer.from(message).toString('base64');

/** Records a verification done elsewhere (on a worker thread). */
export function rememberVerified(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array, ok: boolean): void {
  if (verified.size >= VERIFIED_CACHE_SIZE) verified.clear();
  verified.set(verificationId(publicKey, message, signature), ok);
}

export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64) return false;
  const id = verificationId(publicKey, message, signature);
  const known = verified.get(id);
  if (known !== undefined) return known;
  let ok: boolean;
  try {
    ok = verify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    ok = false;
  }
  rememberVerified(publicKey, message, signature, ok);
  return ok;
}

const hintOf = (b: Uint8Array): Uint8Array => b.subarray(b.length - 4);

/** The signers of an account that can sign: the master key (if its weight is not 0) and the others. */
export function accountSigners(account: xdr.AccountEntryWire): xdr.SignerWire[] {
  const signers: xdr.SignerWire[] = [];
  const master = account.thresholds[0];
  if (master > 0) signers.push({ key: { type: 0, ed25519: account.accountId.ed25519 }, weight: master });
  signers.push(...account.signers);
  return signers;
}

export class SignatureChecker {
  private readonly used: boolean[];
  private readonly txHash: Uint8Array;
  private readonly signatures: xdr.DecoratedSignatureWire[];

  constructor(txHash: Uint8Array, signatures: xdr.DecoratedSignatureWire[]) {
    this.txHash = txHash;
    this.signatures = signatures;
    this.used = signatures.map(() => false);
  }

  /** True when the signatures reach `needed` weight among `signers`. A needed weight of 0 still requires one signer. */
  check(signers: xdr.SignerWire[], needed: number): boolean {
    let total = 0;
    // pre-authorized transaction signers need no signature: the hash is the proof
    for (const s of signers) {
      if (s.key.type === 1 && bytesEqual(s.key.preAuthTx, this.txHash)) {
        total += Math.min(s.weight, 255);
        if (total >= needed) return true;
      }
    }
    for (const s of signers) {
      if (s.key.type === 1) continue;
      const i = this.findSignature(s.key);
      if (i < 0) continue;
      this.used[i] = true;
      total += Math.min(s.weight, 255);
      if (total >= needed) return true;
    }
    return false;
  }

  allUsed(): boolean { return this.used.every(Boolean); }

  private findSignature(key: xdr.SignerKeyWire): number {
    for (let i = 0; i < this.signatures.length; i++) {
      const sig = this.signatures[i];
      const hint = sig.hint as Uint8Array;
      const signature = sig.signature as Uint8Array;
      switch (key.type) {
        case 0: // ed25519
          if (bytesEqual(hint, hintOf(key.ed25519)) && verifyEd25519(key.ed25519, this.txHash, signature)) return i;
          break;
        case 2: // sha256(x): the signature is x
          if (bytesEqual(hint, hintOf(key.hashX)) && bytesEqual(sha256(signature), key.hashX)) return i;
          break;
        case 3: { // ed25519 signed payload: the hint mixes the key's and the payload's
          const { ed25519, payload } = key.ed25519SignedPayload;
          const keyHint = hintOf(ed25519);
          const padded = new Uint8Array(4);
          const tail = payload.length >= 4 ? payload.subarray(payload.length - 4) : payload;
          padded.set(tail);
          const expected = keyHint.map((b, j) => b ^ padded[j]);
          if (bytesEqual(hint, expected) && verifyEd25519(ed25519, payload, signature)) return i;
          break;
        }
      }
    }
    return -1;
  }
}

/**
 * The (key, signature) pairs validation may check for a transaction: every signature against every
 * ed25519 signer, of the given accounts, whose hint it carries.
 */
export function candidateSignatures(
  accounts: xdr.AccountEntryWire[], message: Uint8Array, signatures: xdr.DecoratedSignatureWire[],
): SignatureToCheck[] {
  const out: SignatureToCheck[] = [];
  const seen = new Set<string>();
  for (const account of accounts) {
    for (const signer of accountSigners(account)) {
      if (signer.key.type !== 0) continue;
      const pub = signer.key.ed25519;
      for (const sig of signatures) {
        const signature = sig.signature as Uint8Array;
        if (signature.length !== 64 || !bytesEqual(sig.hint as Uint8Array, hintOf(pub))) continue;
        const id = verificationId(pub, message, signature);
        if (seen.has(id) || verified.has(id)) continue;
        seen.add(id);
        out.push({ publicKey: pub, message, signature });
      }
    }
  }
  return out;
}
