// The accounts the developer network impersonates now (lumen_impersonateAccount): held by the
// StandaloneNetwork, read by admission, ledger closes and simulation. What impersonation does to
// validation and to the Soroban host: src/ledger/impersonation.ts. Not part of the ledger state:
// it is not in snapshots or dumps, and a restart forgets it.
import { StrKey } from '@stellar/stellar-sdk';
import { xdr } from '../xdr/xdr.ts';
import { impersonationSigner, signForImpersonated, type Impersonated } from '../ledger/impersonation.ts';

export class Impersonation implements Impersonated {
  /** By hex public key, in the order they were added. */
  private readonly accounts = new Map<string, Uint8Array>();

  get size(): number { return this.accounts.size; }

  has(accountId: Uint8Array): boolean {
    return this.accounts.size > 0 && this.accounts.has(Buffer.from(accountId).toString('hex'));
  }

  /** Starts impersonating; false when the account already was. */
  add(accountId: Uint8Array): boolean {
    const id = Buffer.from(accountId).toString('hex');
    if (this.accounts.has(id)) return false;
    this.accounts.set(id, new Uint8Array(accountId));
    return true;
  }

  /** Stops impersonating; false when the account was not. */
  remove(accountId: Uint8Array): boolean {
    return this.accounts.delete(Buffer.from(accountId).toString('hex'));
  }

  /** The impersonated accounts' public keys. */
  keys(): Uint8Array[] { return [...this.accounts.values()]; }

  /** The impersonated accounts as G... strkeys. */
  list(): string[] { return this.keys().map((k) => StrKey.encodeEd25519PublicKey(Buffer.from(k))); }
}

/** What simulateTransaction hands the host while accounts are impersonated (see forSimulation). */
export interface ImpersonatedSimulation {
  /** The envelope with the impersonated accounts' auth entries signed by the engine. */
  transactionXdr: string;
  /** For the addon: the engine's signer and the impersonated accounts. */
  options: { impersonationSigner: Buffer; impersonatedAccounts: Buffer[] };
  /** The simulation's auth entries with the engine's signatures taken out again (as they were sent). */
  shownAuth(auth: string[]): string[];
}

/**
 * The simulation of `transactionXdr` (base64) against the ledger after `latestLedger` while
 * accounts are impersonated: its impersonated auth entries signed as apply signs them, so enforce
 * mode accepts them; undefined when no account is impersonated.
 */
export function impersonatedSimulation(impersonation: Impersonation, transactionXdr: string, networkId: Uint8Array,
  latestLedger: number): ImpersonatedSimulation | undefined {
  if (impersonation.size === 0) return undefined;
  const options = {
    impersonationSigner: Buffer.from(impersonationSigner()),
    impersonatedAccounts: impersonation.keys().map((k) => Buffer.from(k)),
  };
  const original = new Map<string, string>(); // signed entry -> the entry as sent
  let signedXdr = transactionXdr;
  try {
    const envelope = xdr.TransactionEnvelope.schema.decode(Buffer.from(transactionXdr, 'base64'));
    const tx = envelope.type === 2 ? envelope.v1.tx : envelope.type === 5 ? envelope.feeBump.tx.innerTx.v1.tx : undefined;
    for (const op of tx?.operations ?? []) {
      if (op.body.type !== 24) continue;
      const fn = op.body.invokeHostFunctionOp;
      fn.auth = fn.auth.map((entry) => {
        const signed = signForImpersonated(entry, networkId, impersonation, latestLedger + 1);
        if (signed !== entry) {
          original.set(encodeAuth(signed), encodeAuth(entry));
        }
        return signed;
      });
    }
    if (original.size > 0) signedXdr = Buffer.from(xdr.TransactionEnvelope.schema.encode(envelope)).toString('base64');
  } catch {
    // an envelope that does not decode: the host reports it as it would otherwise
  }
  return {
    transactionXdr: signedXdr, options,
    shownAuth: (auth) => auth.map((a) => original.get(a) ?? a),
  };
}

const encodeAuth = (e: xdr.SorobanAuthorizationEntryWire): string =>
  Buffer.from(xdr.SorobanAuthorizationEntry.schema.encode(e)).toString('base64');
