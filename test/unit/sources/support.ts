// Shared by the ledger-source tests: the fixture folders, a static HTTP server, and ledgers made to
// order from a real one.
import { createServer, type Server } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zstdDecompressSync } from 'node:zlib';
import { xdr } from '@stellar/stellar-sdk';
import type { RawLedger } from '../../../src/sources/ledgerSource.ts';

export const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/', import.meta.url));
export const P20 = join(FIXTURES, 'testnet/datastore-p20');
export const TESTNET = 'Test SDF Network ; September 2015';

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export function never(): AbortSignal {
  return new AbortController().signal;
}

/** The raw LedgerCloseMeta of a p20 fixture ledger (997..999), sliced from its batch. */
export function p20Ledger(sequence: number): RawLedger {
  const name = `${(0xffffffff - sequence).toString(16).toUpperCase()}--${sequence}.xdr.zst`;
  const batch = zstdDecompressSync(readFileSync(join(P20, name)));
  return { sequence, bytes: new Uint8Array(batch.subarray(12)) };
}

/** A valid LedgerCloseMeta for any sequence: ledger 999 with its header's sequence changed. */
export function ledgerNumbered(sequence: number): RawLedger {
  const lcm = xdr.LedgerCloseMeta.schema.decode(p20Ledger(999).bytes);
  if (lcm.v !== 1) throw new Error('fixture 999 is expected to be LedgerCloseMeta V1');
  lcm.v1.ledgerHeader.header.ledgerSeq = sequence;
  return { sequence, bytes: xdr.LedgerCloseMeta.schema.encode(lcm) };
}

export function headerOf(bytes: Uint8Array): xdr.LedgerHeaderHistoryEntryWire {
  const lcm = xdr.LedgerCloseMeta.schema.decode(bytes);
  return lcm.v === 0 ? lcm.v0.ledgerHeader : lcm.v === 1 ? lcm.v1.ledgerHeader : lcm.v2.ledgerHeader;
}

/** A static file server over `root` (404 for anything absent); counts requests by method. */
export async function serveFolder(root: string): Promise<{ url: string; requests: Record<string, number>; close(): Promise<void> }> {
  const requests: Record<string, number> = {};
  const server: Server = createServer(async (req, res) => {
    requests[req.method!] = (requests[req.method!] ?? 0) + 1;
    const path = normalize(join(root, decodeURIComponent(new URL(req.url!, 'http://x').pathname)));
    try {
      if (!path.startsWith(root) || !(await stat(path)).isFile()) throw new Error('not a file');
      const body = await readFile(path);
      res.writeHead(200, { 'content-length': body.length });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
