// Shared by the archive tests: the pubnet fixture archive, temporary folders and stores, a static
// HTTP server, and writers for small synthetic archives.
import { createServer, type Server } from 'node:http';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Keypair, Networks } from '@stellar/stellar-sdk';
import { xdr } from '../../../src/xdr/xdr.ts';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { frameRecord } from '../../../src/io/recordMarked.ts';
import {
  ROOT_STATE_PATH, bucketPath, checkpointFilePath, checkpointStatePath, emptyBucketLevels, firstLedgerOfCheckpoint, serializeHistoryArchiveState,
  type HistoryArchiveState,
} from '../../../src/archive/historyArchiveState.ts';
import { stateHashes } from '../../../src/archive/bucketListHash.ts';
import { sha256, type LedgerEntry } from '../../../src/xdr/codec.ts';

export const FIXTURE_ARCHIVE = fileURLToPath(new URL('../../../test/fixtures/pubnet/history-archive/', import.meta.url));
export const FIXTURE_BUCKET = 'bff0722cb3e89655d3b71c3b517a3bc4b20456298e50073745342f28f6f68b7c';
export const PUBNET_ROOT = Keypair.master(Networks.PUBLIC);

export function tmpDir(prefix = 'lumen-archive-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export const tmpStore = (): SqliteStore => new SqliteStore(join(tmpDir('lumen-archive-store-'), 's.sqlite'));

/** A writable copy of the fixture archive. */
export function fixtureCopy(): string {
  const dir = tmpDir();
  cpSync(FIXTURE_ARCHIVE, dir, { recursive: true });
  return dir;
}

export const readFixture = (name: string): Uint8Array => new Uint8Array(readFileSync(join(FIXTURE_ARCHIVE, name)));

/** Serves a folder read-only over HTTP on 127.0.0.1; `requests` lists the paths asked for. */
export async function serveFolder(root: string): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    requests.push(path);
    const file = normalize(join(root, path));
    if (!file.startsWith(normalize(root))) { res.writeHead(403).end(); return; }
    let body: Buffer;
    try { body = readFileSync(file); } catch { res.writeHead(404).end(); return; }
    res.writeHead(200, { 'content-length': body.length }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---- synthetic archives ---------------------------------------------------------------------

/** Writes a gzipped bucket of record-marked entries under its hash; returns the hash. */
export function writeBucket(root: string, records: Uint8Array[]): string {
  const content = Buffer.concat(records.map(frameRecord));
  const hash = createHash('sha256').update(content).digest('hex');
  const path = join(root, bucketPath(hash));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, gzipSync(content));
  return hash;
}

export const live = (entry: LedgerEntry): Uint8Array => xdr.BucketEntry.schema.encode({ type: 0, liveEntry: entry });
export const init = (entry: LedgerEntry): Uint8Array => xdr.BucketEntry.schema.encode({ type: 2, liveEntry: entry });
export const dead = (key: xdr.LedgerKeyWire): Uint8Array => xdr.BucketEntry.schema.encode({ type: 1, deadEntry: key });
export const liveMeta = (protocol: number): Uint8Array =>
  xdr.BucketEntry.schema.encode({ type: -1, metaEntry: { ledgerVersion: protocol, ext: { v: 1, bucketListType: 0 } } });
export const archived = (entry: LedgerEntry): Uint8Array => xdr.HotArchiveBucketEntry.schema.encode({ type: 0, archivedEntry: entry });
export const restored = (key: xdr.LedgerKeyWire): Uint8Array => xdr.HotArchiveBucketEntry.schema.encode({ type: 1, key });
export const hotMeta = (protocol: number): Uint8Array =>
  xdr.HotArchiveBucketEntry.schema.encode({ type: -1, metaEntry: { ledgerVersion: protocol, ext: { v: 1, bucketListType: 1 } } });

/** Level i as [snap, curr] hashes (undefined = empty); lists shorter than 11 levels are padded. */
export type Levels = Array<[snap?: string, curr?: string]>;

/**
 * Writes a version-2 checkpoint state (and the root state) for the given bucket lists, and the
 * checkpoint's ledger file, whose last header commits to them (protocol 23).
 */
export function writeState(root: string, checkpoint: number, liveLevels: Levels, hotLevels: Levels = [], passphrase = 'Test SDF Network ; September 2015'): HistoryArchiveState {
  const levels = (spec: Levels) => {
    const out = emptyBucketLevels();
    spec.forEach(([snap, curr], i) => {
      if (snap) out[i].snap = snap;
      if (curr) out[i].curr = curr;
    });
    return out;
  };
  const has: HistoryArchiveState = {
    version: 2, server: 'test', currentLedger: checkpoint, networkPassphrase: passphrase,
    currentBuckets: levels(liveLevels), hotArchiveBuckets: levels(hotLevels),
  };
  writeHas(root, has);
  writeLedgerFile(root, checkpoint, Buffer.from(stateHashes(has).bucketListHash, 'hex'), 23);
  return has;
}

/** Writes `has` as its checkpoint's state and as the root state (and nothing else). */
export function writeHas(root: string, has: HistoryArchiveState): void {
  for (const path of [checkpointStatePath(has.currentLedger), ROOT_STATE_PATH]) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), serializeHistoryArchiveState(has));
  }
}

/**
 * Writes a checkpoint's ledger file: its ledgers' headers, chained, the checkpoint's carrying
 * `bucketListHash` (the others a zero hash). Returns the entries.
 */
export function writeLedgerFile(root: string, checkpoint: number, bucketListHash: Uint8Array, protocol: number): xdr.LedgerHeaderHistoryEntryWire[] {
  const entries = chainedHeaders(checkpoint, bucketListHash, protocol);
  const path = join(root, checkpointFilePath('ledger', checkpoint));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, gzipSync(Buffer.concat(entries.map((e) => frameRecord(xdr.LedgerHeaderHistoryEntry.schema.encode(e))))));
  return entries;
}

/** The header entries of a checkpoint's ledgers, chained from a zero hash; the checkpoint's carries `bucketListHash`. */
export function chainedHeaders(checkpoint: number, bucketListHash: Uint8Array, protocol: number): xdr.LedgerHeaderHistoryEntryWire[] {
  const entries: xdr.LedgerHeaderHistoryEntryWire[] = [];
  let previous: Uint8Array = new Uint8Array(32);
  for (let seq = firstLedgerOfCheckpoint(checkpoint); seq <= checkpoint; seq++) {
    const header = plainHeader(seq, previous, seq === checkpoint ? bucketListHash : new Uint8Array(32), protocol);
    previous = sha256(xdr.LedgerHeader.schema.encode(header));
    entries.push({ hash: previous, header, ext: { v: 0 } });
  }
  return entries;
}

/** A ledger header that is only its place in a chain and its bucketListHash; the rest is fixed. */
export function plainHeader(seq: number, previousLedgerHash: Uint8Array, bucketListHash: Uint8Array, protocol: number): xdr.LedgerHeaderWire {
  const zero = new Uint8Array(32);
  return {
    ledgerVersion: protocol, previousLedgerHash,
    scpValue: { txSetHash: zero, closeTime: BigInt(1_700_000_000 + seq), upgrades: [], ext: { v: 0 } },
    txSetResultHash: zero, bucketListHash, ledgerSeq: seq,
    totalCoins: 1n, feePool: 0n, inflationSeq: 0, idPool: 0n, baseFee: 100, baseReserve: 5_000_000, maxTxSetSize: 100,
    skipList: [zero, zero, zero, zero], ext: { v: 0 },
  };
}

// ---- entries --------------------------------------------------------------------------------

export function account(seed: number, balance: bigint, lastModified = 5): LedgerEntry {
  return {
    lastModifiedLedgerSeq: lastModified,
    data: {
      type: 0,
      account: {
        accountId: { type: 0, ed25519: new Uint8Array(32).fill(seed) },
        balance, seqNum: BigInt(seed) << 32n, numSubEntries: 0, inflationDest: null, flags: 0,
        homeDomain: new xdr.XdrString(''), thresholds: new Uint8Array([1, 0, 0, 0]), signers: [], ext: { v: 0 },
      },
    },
    ext: { v: 0 },
  };
}

export function contractData(keyNumber: number, value: number, lastModified = 7, durability: 0 | 1 = 1): LedgerEntry {
  return {
    lastModifiedLedgerSeq: lastModified,
    data: {
      type: 6,
      contractData: {
        ext: { v: 0 },
        contract: { type: 1, contractId: new Uint8Array(32).fill(0xcc) },
        key: { type: 3, u32: keyNumber },
        durability,
        val: { type: 3, u32: value },
      },
    },
    ext: { v: 0 },
  };
}

export function contractCode(seed: number, code: Uint8Array, lastModified = 7): LedgerEntry {
  return {
    lastModifiedLedgerSeq: lastModified,
    data: { type: 7, contractCode: { ext: { v: 0 }, hash: new Uint8Array(32).fill(seed), code } },
    ext: { v: 0 },
  };
}

export function ttl(keyHash: Uint8Array, liveUntil: number, lastModified = 7): LedgerEntry {
  return { lastModifiedLedgerSeq: lastModified, data: { type: 9, ttl: { keyHash, liveUntilLedgerSeq: liveUntil } }, ext: { v: 0 } };
}
