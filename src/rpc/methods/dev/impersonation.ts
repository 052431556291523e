// What the impersonation methods share: the account parameter, read as a G... address (contract
// addresses are refused with the reason).
import { StrKey } from '@stellar/stellar-sdk';
import { devRefused } from './types.ts';

export const accountParamsSchema = {
  type: 'object',
  properties: { account: { type: 'string', description: 'G... account address' } },
  required: ['account'],
  additionalProperties: false,
} as const;

/** The account's raw public key; a clear refusal for anything that is not a G... address. */
export function impersonationTarget(account: string): Uint8Array {
  const a = account.trim();
  if (StrKey.isValidEd25519PublicKey(a)) return StrKey.decodeEd25519PublicKey(a);
  if (StrKey.isValidContract(a)) {
    throw devRefused(`${a} is a contract address: only accounts (G...) can be impersonated; the host authenticates a contract address by running its own __check_auth`);
  }
  if (StrKey.isValidMed25519PublicKey(a)) throw devRefused(`${a} is a muxed address: impersonate its account (G...) instead`);
  throw devRefused(`'${account}' is not a valid account address (G..., 56 characters)`);
}
