// The standalone network's validator: the node whose value every ledger after genesis closes with.
// stellar-core nominates only STELLAR_VALUE_SIGNED values (HerderImpl::makeStellarValue) and, since
// protocol 28 (CAP-83), accepts besides them only STELLAR_VALUE_EMPTY_TX_SET values, which validators
// externalize when a quorum votes to drop a transaction set it could not get or found invalid. A
// network of one validator always has its own transaction set, so its ledgers are all SIGNED; the
// empty-set kind comes only from followed networks (ingestion takes it as any empty ledger).
//
// The validator's key is derived from the network id, as the root account's is: a standalone
// network's keys are public (quickstart's node seed is in its repository too).
import { xdr } from '../xdr/xdr.ts';
import { sha256 } from '../xdr/codec.ts';
import { ed25519Signer, type RootSigner } from './rootAccount.ts';

const ENVELOPE_TYPE_SCPVALUE = 4;

export function validatorSigner(networkId: Uint8Array): RootSigner {
  return ed25519Signer(sha256(networkId, Buffer.from('lumen-rpc validator', 'utf8')));
}

/**
 * What a StellarValue's signature covers: XDR of (network id, ENVELOPE_TYPE_SCPVALUE, txSetHash,
 * closeTime), and from protocol 30 on (a STELLAR_VALUE_SIGNED_MS value, CAP-88) closeTimeMs after
 * them, as the CAP's draft specifies it (core 30's own payload was not available to check; followers
 * verify no signature, so only this network's own checks depend on it).
 */
export function stellarValueSignaturePayload(networkId: Uint8Array, txSetHash: Uint8Array, closeTime: bigint, closeTimeMs?: bigint): Uint8Array {
  const payload = Buffer.alloc(32 + 4 + 32 + 8 + (closeTimeMs === undefined ? 0 : 8));
  payload.set(networkId, 0);
  payload.writeInt32BE(ENVELOPE_TYPE_SCPVALUE, 32);
  payload.set(txSetHash, 36);
  payload.writeBigUInt64BE(closeTime, 68);
  if (closeTimeMs !== undefined) payload.writeBigUInt64BE(closeTimeMs, 76);
  return payload;
}

/**
 * The value the validator nominates for a ledger: its transaction set's hash and close time, signed;
 * with `closeTimeMs` (a ledger closed at protocol 30 or later) a STELLAR_VALUE_SIGNED_MS value that
 * carries the close time in milliseconds too (closeTime == closeTimeMs / 1000).
 */
export function signedStellarValue(networkId: Uint8Array, txSetHash: Uint8Array, closeTime: bigint, closeTimeMs?: bigint): xdr.StellarValueWire {
  const validator = validatorSigner(networkId);
  const lcValueSignature = {
    nodeId: { type: 0 as const, ed25519: validator.publicKey },
    signature: validator.sign(stellarValueSignaturePayload(networkId, txSetHash, closeTime, closeTimeMs)),
  };
  return {
    txSetHash,
    closeTime,
    upgrades: [],
    ext: closeTimeMs === undefined ? { v: 1, lcValueSignature } : { v: 3, signedMsValue: { closeTimeMs, lcValueSignature } },
  };
}
