// The accounts a transaction involves for the `transactions` account filter: its source, a fee
// bump's fee source, and every operation's source; muxed (M...) accounts count as their G account.
import { StrKey } from '@stellar/stellar-sdk';
import { muxedToAccountId, toHex, type MuxedAccount } from '../../xdr/codec.ts';
import { decodeEnvelope, innerTransaction } from '../../xdr/transactions.ts';
import { invalid } from './kind.ts';

/** The hex ed25519 key of a G... or M... strkey, or -32602. */
export function accountKeyOf(address: string): string {
  if (StrKey.isValidEd25519PublicKey(address)) return toHex(StrKey.decodeEd25519PublicKey(address));
  if (StrKey.isValidMed25519PublicKey(address)) return toHex(StrKey.decodeMed25519PublicKey(address).subarray(0, 32));
  throw invalid(`invalid account ${JSON.stringify(address)}: a G... or M... address`);
}

const keyOf = (m: MuxedAccount): string => toHex(muxedToAccountId(m).ed25519);

/** The hex ed25519 keys of the accounts `envelope` (TransactionEnvelope XDR) involves. */
export function transactionAccounts(envelope: Uint8Array): Set<string> {
  const env = decodeEnvelope(envelope);
  const out = new Set<string>();
  if (env.type === 5) out.add(keyOf(env.feeBump.tx.feeSource));
  const tx = innerTransaction(env);
  out.add(keyOf(tx.sourceAccount));
  for (const op of tx.operations) if (op.sourceAccount) out.add(keyOf(op.sourceAccount));
  return out;
}
