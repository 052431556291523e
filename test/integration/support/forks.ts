// Shared by the fork tests (fork, forkLedger, forkArchive): a JSON-RPC call that throws on an error,
// an account's LedgerKey, and one entry's XDR as a node serves it.
import { xdr } from '@stellar/stellar-sdk';
import type { NodeProcess } from './nodeProcess.ts';
import { accountKey as accountKeyWire } from './classic.ts';

export async function call(node: NodeProcess, method: string, params?: unknown): Promise<any> {
  const r = await node.rpc(method, params);
  if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r.result;
}

export const accountKey = (g: string): xdr.LedgerKey => xdr.LedgerKey.fromXdrObject(accountKeyWire(g));

/** The entry's XDR (base64) getLedgerEntries answers for `key`; undefined when there is none. */
export async function entryXdr(node: NodeProcess, key: xdr.LedgerKey): Promise<string | undefined> {
  return ((await call(node, 'getLedgerEntries', { keys: [key.toXDR('base64')] })).entries as Array<{ xdr: string }>)[0]?.xdr;
}
