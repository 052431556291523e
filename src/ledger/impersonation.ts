// Impersonation (the developer network's lumen_impersonateAccount): the ledger engine's side.
//
// Classic: validation (validation.ts) counts the signature requirement of an impersonated account
// (transaction source, operation source, fee-bump fee source) as met; every other account's
// signatures, and everything else about the transaction, are checked as usual.
//
// Soroban: the host authenticates an account address by verifying ed25519 signatures against the
// account's signers and its medium threshold (soroban-env-host's check_account_authentication), and
// it has no switch to skip that for one address. So the engine makes the check pass honestly: it
// holds a signing key of its own (random, per process, never written anywhere), shows the host
// each impersonated account with that key as an extra signer of weight 255, and signs the
// impersonated address's auth entries with it (whatever signature they carried). The host then
// checks everything else as usual: the nonce (consumed), signatureExpirationLedger, the invocation
// tree the entry authorizes, and every other address's signatures. The account entries the host
// hands back get their real signers again, so the ledger never holds the engine's key. Contract
// (C...) addresses cannot be impersonated this way: the host authenticates them by running the
// contract's own __check_auth.
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { xdr } from '../xdr/xdr.ts';
import { sha256 } from '../xdr/codec.ts';
import { bytesVal, symVal } from '../xdr/scVals.ts';

/** The accounts impersonated now (ed25519 public keys). */
export interface Impersonated {
  has(accountId: Uint8Array): boolean;
  readonly size: number;
}

// made at the first impersonation, not at start: generating it costs a fresh node a few ms
let keys: { publicKey: KeyObject; privateKey: KeyObject } | undefined;
let signerKey: Uint8Array | undefined;
const signerKeys = () => (keys ??= generateKeyPairSync('ed25519'));

/** The raw public key of the engine's impersonation signer. */
export function impersonationSigner(): Uint8Array {
  return (signerKey ??= new Uint8Array(signerKeys().publicKey.export({ format: 'der', type: 'spki' }).subarray(12)));
}

const MAX_SIGNERS = 20;
const SIGNER_WEIGHT = 255; // thresholds are one byte: any threshold is met

/**
 * The account as the host is shown it while impersonated: the engine's key among its signers (in
 * place of the last one when it already has twenty), its sponsoring-ID list kept the same length.
 */
export function withImpersonationSigner(account: xdr.AccountEntryWire): xdr.AccountEntryWire {
  const signer: xdr.SignerWire = { key: { type: 0, ed25519: impersonationSigner() }, weight: SIGNER_WEIGHT };
  const full = account.signers.length >= MAX_SIGNERS;
  const signers = full ? [...account.signers.slice(0, MAX_SIGNERS - 1), signer] : [...account.signers, signer];
  let ext = account.ext;
  if (ext.v === 1 && ext.v1.ext.v === 2) {
    const v2 = ext.v1.ext.v2;
    const ids = full ? [...v2.signerSponsoringIDs.slice(0, MAX_SIGNERS - 1), null] : [...v2.signerSponsoringIDs, null];
    ext = { v: 1, v1: { ...ext.v1, ext: { v: 2, v2: { ...v2, signerSponsoringIDs: ids } } } };
  }
  return { ...account, signers, ext };
}

/** The host's new value of an impersonated account with the real signers (and sponsoring IDs) put back. */
export function withRealSigners(modified: xdr.AccountEntryWire, real: xdr.AccountEntryWire): xdr.AccountEntryWire {
  let ext = modified.ext;
  if (ext.v === 1 && ext.v1.ext.v === 2 && real.ext.v === 1 && real.ext.v1.ext.v === 2) {
    ext = { v: 1, v1: { ...ext.v1, ext: { v: 2, v2: { ...ext.v1.ext.v2, signerSponsoringIDs: real.ext.v1.ext.v2.signerSponsoringIDs } } } };
  }
  return { ...modified, signers: real.signers, ext };
}

/** The impersonated account an address names, if it names one. */
function impersonatedAccount(address: xdr.ScAddressWire, impersonated: Impersonated): boolean {
  return address.type === 0 && impersonated.has(address.accountId.ed25519);
}

/**
 * The auth entry with the engine's signature for an impersonated account address (Address and
 * AddressV2 credentials, and the address of AddressWithDelegates; delegates are left as they are),
 * over the payload the host computes: sha256 of the HashIdPreimage with the network, nonce,
 * expiration (and for the V2 forms the address) and the authorized invocation tree.
 *
 * A signatureExpirationLedger of 0 is what recording simulation leaves for the signer to fill in
 * (no signed entry can carry it: it is always expired); the engine fills it in as a signer would,
 * with `expiration` (the ledger being applied, or the one after the simulated one). The
 * simulation budgeted the nonce's rent for the longest expiration, so any is covered. An
 * expiration the sender set is kept and checked by the host as usual.
 */
export function signForImpersonated(entry: xdr.SorobanAuthorizationEntryWire, networkId: Uint8Array,
  impersonated: Impersonated, expiration: number): xdr.SorobanAuthorizationEntryWire {
  const c = entry.credentials;
  const creds = c.type === 1 ? c.address : c.type === 2 ? c.addressV2 : c.type === 3 ? c.addressWithDelegates.addressCredentials : null;
  if (!creds || !impersonatedAccount(creds.address, impersonated)) return entry;
  const signatureExpirationLedger = creds.signatureExpirationLedger === 0 ? expiration : creds.signatureExpirationLedger;
  const common = { networkId, nonce: creds.nonce, signatureExpirationLedger, invocation: entry.rootInvocation };
  const preimage: xdr.HashIdPreimageWire = c.type === 1
    ? { type: 9, sorobanAuthorization: common }
    : { type: 10, sorobanAuthorizationWithAddress: { ...common, address: creds.address } };
  const payload = sha256(xdr.HashIdPreimage.schema.encode(preimage));
  const signature = new Uint8Array(sign(null, payload, signerKeys().privateKey));
  const signed: xdr.SorobanAddressCredentialsWire = {
    ...creds,
    signatureExpirationLedger,
    signature: { type: 16, vec: [{ type: 17, map: [
      { key: symVal('public_key'), val: bytesVal(impersonationSigner()) },
      { key: symVal('signature'), val: bytesVal(signature) },
    ] }] },
  };
  const credentials: xdr.SorobanCredentialsWire = c.type === 3
    ? { type: 3, addressWithDelegates: { ...c.addressWithDelegates, addressCredentials: signed } }
    : c.type === 2 ? { type: 2, addressV2: signed } : { type: 1, address: signed };
  return { ...entry, credentials };
}

/** Whether an account entry is of an impersonated account (LedgerEntry data of type account). */
export function isImpersonatedAccount(data: xdr.LedgerEntryDataWire, impersonated: Impersonated | undefined): boolean {
  return !!impersonated && impersonated.size > 0 && data.type === 0 && impersonated.has(data.account.accountId.ed25519);
}
