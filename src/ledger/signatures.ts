// Signature checking as stellar-core's SignatureChecker: each decorated signature may satisfy one
// signer; signer weights add up (capped at 255 each) until the needed threshold is met; at the end
// every signature must have been used, or the transaction is txBAD_AUTH_EXTRA.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { xdr } from '../xdr/xdr.ts';
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

// one char per byte (latin1), read in place: the key and signature have fixed lengths, so the
// concatenation is unambiguous, and shorter keys hash faster than base64 ones
const latin1 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('latin1');
const verificationId = (publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): string =>
  latin1(publicKey) + latin1(signature) + latin1(message);

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

/** Protocol 28's bound on one transaction's ed25519 verifications (core's TX_ED25519_VERIFY_BUDGET). */
export const TX_ED25519_VERIFY_BUDGET = 1000;
const ED25519_VERIFY_BUDGET_PROTOCOL = 28;

/**
 * One transaction's signatures, checked against signer lists as stellar-core's SignatureChecker
 * does, in its order: pre-authorized transactions, then sha256(x) signers, ed25519 signers and
 * signed-payload signers; within a kind, each signature in turn against the signers still unmatched.
 * The order decides which signatures count as used once a threshold is reached early, and how many
 * verifications are spent: from protocol 28 a checker stops after TX_ED25519_VERIFY_BUDGET of them
 * (every ed25519 verification whose hint matches, remembered verdicts included, as core counts
 * cache hits), and the signers it could not check fail the threshold.
 */
export class SignatureChecker {
  private readonly used: boolean[];
  private readonly txHash: Uint8Array;
  private readonly signatures: xdr.DecoratedSignatureWire[];
  private readonly budgeted: boolean;
  /** Ed25519 verifications this checker has done (for every check it served). */
  verifications = 0;

  constructor(txHash: Uint8Array, signatures: xdr.DecoratedSignatureWire[], protocolVersion = ED25519_VERIFY_BUDGET_PROTOCOL) {
    this.txHash = txHash;
    this.signatures = signatures;
    this.used = signatures.map(() => false);
    this.budgeted = protocolVersion >= ED25519_VERIFY_BUDGET_PROTOCOL;
  }

  private get overBudget(): boolean { return this.budgeted && this.verifications >= TX_ED25519_VERIFY_BUDGET; }

  /** True when the signatures reach `needed` weight among `signers`. A needed weight of 0 still requires one signer. */
  check(signers: xdr.SignerWire[], needed: number): boolean {
    let total = 0;
    const add = (weight: number): boolean => { total += Math.min(weight, 255); return total >= needed; };
    const ed25519: xdr.SignerWire[] = [], hashX: xdr.SignerWire[] = [], signedPayload: xdr.SignerWire[] = [];
    for (const s of signers) {
      switch (s.key.type) {
        case 0: ed25519.push(s); break;
        // pre-authorized transaction signers need no signature: the hash is the proof
        case 1: if (bytesEqual(s.key.preAuthTx, this.txHash) && add(s.weight)) return true; break;
        case 2: hashX.push(s); break;
        case 3: signedPayload.push(s); break;
      }
    }
    if (this.matchAll(hashX, add)) return true;
    if (this.matchAll(ed25519, add)) return true;
    if (this.overBudget) return false;
    return this.matchAll(signedPayload, add);
  }

  allUsed(): boolean { return this.used.every(Boolean); }

  /** Each signature against the unmatched signers of one kind; true once `add` reaches the threshold. */
  private matchAll(signers: xdr.SignerWire[], add: (weight: number) => boolean): boolean {
    for (let i = 0; i < this.signatures.length && signers.length > 0; i++) {
      const j = signers.findIndex((s) => this.verifies(this.signatures[i], s.key));
      if (j < 0) continue;
      this.used[i] = true;
      if (add(signers[j].weight)) return true;
      signers.splice(j, 1);
    }
    return false;
  }

  private verifies(sig: xdr.DecoratedSignatureWire, key: xdr.SignerKeyWire): boolean {
    const hint = sig.hint as Uint8Array;
    const signature = sig.signature as Uint8Array;
    switch (key.type) {
      case 0: // ed25519
        return bytesEqual(hint, hintOf(key.ed25519)) && this.verifyCounted(key.ed25519, this.txHash, signature);
      case 2: // sha256(x): the signature is x
        return bytesEqual(hint, hintOf(key.hashX)) && bytesEqual(sha256(signature), key.hashX);
      case 3: { // ed25519 signed payload: the hint mixes the key's and the payload's
        const { ed25519, payload } = key.ed25519SignedPayload;
        const padded = new Uint8Array(4);
        padded.set(payload.length >= 4 ? payload.subarray(payload.length - 4) : payload);
        const expected = hintOf(ed25519).map((b, j) => b ^ padded[j]);
        return bytesEqual(hint, expected) && this.verifyCounted(ed25519, payload, signature);
      }
      default:
        return false;
    }
  }

  /** An ed25519 verification whose hint matched: spent from the budget unless the signature is malformed. */
  private verifyCounted(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
    if (this.overBudget) return false;
    if (signature.length === 64) this.verifications++;
    return verifyEd25519(publicKey, message, signature);
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
