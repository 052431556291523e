// The standalone network's keys: the root account's seed is the network id (as in stellar-core).
// Node's native ed25519 is used because the faucet signs with it on every funding, genesis derives
// it at start-up and every ledger's value is signed (validator.ts).
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export interface RootSigner {
  publicKey: Uint8Array;
  /** Last four bytes of the public key, as DecoratedSignature.hint. */
  hint: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

const cache = new Map<string, RootSigner>();

/** The ed25519 key of a 32-byte seed, remembered. */
export function ed25519Signer(seed: Uint8Array): RootSigner {
  const id = Buffer.from(seed).toString('hex');
  let signer = cache.get(id);
  if (!signer) {
    const privateKey: KeyObject = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
    const publicKey = new Uint8Array(spki.subarray(spki.length - 32));
    signer = { publicKey, hint: publicKey.subarray(28), sign: (m) => new Uint8Array(sign(null, m, privateKey)) };
    cache.set(id, signer);
  }
  return signer;
}

export const rootSigner = (networkId: Uint8Array): RootSigner => ed25519Signer(networkId);
