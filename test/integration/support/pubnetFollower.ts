// A node following the ten consecutive pubnet fixture ledgers (63092982..63092991, over a megabyte
// of meta each), framed as stellar-core's meta stream: the heaviest real data the tests and the
// benchmarks have.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { frameRecord } from '../../../src/io/recordMarked.ts';
import { joinChunks } from '../../../src/io/inputCaps.ts';
import { startNodeProcess, type NodeProcess } from './nodeProcess.ts';

export const PUBNET_PASSPHRASE = 'Public Global Stellar Network ; September 2015';
export const PUBNET_FIRST = 63092982;
export const PUBNET_LAST = 63092991;
const LEDGERS = new URL('../../../test/fixtures/pubnet/ledgers/', import.meta.url).pathname;

/** The fixture ledgers' LedgerCloseMeta bytes, in order. */
export const pubnetMetas = (): Uint8Array[] => Array.from({ length: PUBNET_LAST - PUBNET_FIRST + 1 },
  (_, i) => new Uint8Array(gunzipSync(readFileSync(join(LEDGERS, `ledger-${PUBNET_FIRST + i}.xdr.gz`)))));

/** Starts a follower of the fixture ledgers and waits until it has ingested the last one. */
export async function startPubnetFollower(extraArgs: string[] = []): Promise<NodeProcess> {
  const stream = join(mkdtempSync(join(tmpdir(), 'lumen-pubnet-')), 'stream.xdr');
  writeFileSync(stream, joinChunks(pubnetMetas().map(frameRecord)));
  const node = await startNodeProcess({
    args: ['--meta-stream', stream, '--network-passphrase', PUBNET_PASSPHRASE, '--log-level', 'warn', ...extraArgs],
    readyWhenListening: true,
  });
  const deadline = Date.now() + 60_000;
  while ((await node.rpc('getLatestLedger')).result?.sequence !== PUBNET_LAST) {
    if (Date.now() > deadline) {
      await node.stop();
      throw new Error(`the pubnet fixture ledgers were not ingested:\n${node.output()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return node;
}
