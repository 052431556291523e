// Small helpers over the official JS SDK for the integration tests.
import { Keypair, Networks, TransactionBuilder, rpc, xdr, type Transaction, type FeeBumpTransaction } from '@stellar/stellar-sdk';

export const PASSPHRASE = Networks.STANDALONE;

export function server(url: string): rpc.Server {
  return new rpc.Server(url, { allowHttp: true });
}

export async function funded(s: rpc.Server): Promise<Keypair> {
  const kp = Keypair.random();
  await s.fundAddress(kp.publicKey());
  return kp;
}

/**
 * Seconds `builder`'s transactions stay valid, from this machine's clock; 0: no upper time bound (a
 * test that moves the network's clock ahead, see devTime.test.ts).
 */
export const builderTimeout = { seconds: 60 };

export async function builder(s: rpc.Server, source: Keypair, fee = '100'): Promise<TransactionBuilder> {
  const account = await s.getAccount(source.publicKey());
  return new TransactionBuilder(account, { fee, networkPassphrase: PASSPHRASE }).setTimeout(builderTimeout.seconds);
}

/** Sends and polls until the transaction leaves NOT_FOUND. */
export async function submit(s: rpc.Server, tx: Transaction | FeeBumpTransaction) {
  const sent = await s.sendTransaction(tx);
  if (sent.status !== 'PENDING') {
    const code = sent.errorResult ? resultCode(sent.errorResult.toXdr()) : undefined;
    throw new Error(`sendTransaction ${sent.status}${code !== undefined ? ` code ${code}` : ''}`);
  }
  const done = await s.pollTransaction(sent.hash, { attempts: 100, sleepStrategy: () => 50 });
  return { sent, done };
}

/** TransactionResult code (wire number) of an XDR TransactionResult. */
export function resultCode(bytes: Uint8Array): number {
  return xdr.TransactionResult.schema.decode(bytes).result.code;
}

/** The first operation's inner result code of a TransactionResult. */
export function firstOpCode(bytes: Uint8Array): number {
  const r = xdr.TransactionResult.schema.decode(bytes).result;
  if (!('results' in r)) throw new Error(`no operation results (tx code ${r.code})`);
  const op = r.results[0];
  if (op.code !== 0) return op.code;
  const tr = op.tr as unknown as Record<string, { code: number }>;
  const arm = Object.keys(tr).find((k) => k !== 'type')!;
  return tr[arm].code;
}

export async function accountEntry(s: rpc.Server, pub: string): Promise<xdr.AccountEntryWire> {
  const key = xdr.LedgerKey.schema.encode({ type: 0, account: { accountId: { type: 0, ed25519: Keypair.fromPublicKey(pub).rawPublicKey() } } });
  const res = await s.getLedgerEntries(xdr.LedgerKey.fromXdr(key));
  if (res.entries.length !== 1) throw new Error(`account ${pub} not found`);
  const data = xdr.LedgerEntryData.schema.decode(res.entries[0].val.toXdr());
  if (data.type !== 0) throw new Error('not an account');
  return data.account;
}
