// The manifest a SEP-54 datastore keeps at its root (`.config.json`), as galexie writes it:
//   {"networkPassphrase":"…","version":"1.0","compression":"zstd","ledgersPerBatch":1,"batchesPerPartition":64000}
// The two layout numbers decide every object key, so they are required; the passphrase is required
// so that a datastore of another network is refused before anything is read from it.

export const CONFIG_KEY = '.config.json';

export interface DatastoreConfig {
  networkPassphrase: string;
  version: string;
  /** How ledger files are stored; readers also detect it from each file's first bytes. */
  compression: 'zstd' | 'none';
  ledgersPerBatch: number;
  batchesPerPartition: number;
}

/** The layout galexie uses by default and our writer always uses. */
export const DEFAULT_LAYOUT = { ledgersPerBatch: 1, batchesPerPartition: 64000 } as const;

/** Parses and checks a manifest; errors name `where` (the store) and the field at fault. */
export function parseDatastoreConfig(text: string | Uint8Array, where: string): DatastoreConfig {
  const what = `${where}/${CONFIG_KEY}`;
  let raw: unknown;
  try {
    raw = JSON.parse(typeof text === 'string' ? text : new TextDecoder('utf-8', { fatal: true }).decode(text));
  } catch (e) {
    throw new Error(`${what}: not valid JSON (${(e as Error).message})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${what}: expected a JSON object`);
  const o = raw as Record<string, unknown>;

  const networkPassphrase = o.networkPassphrase;
  if (typeof networkPassphrase !== 'string' || networkPassphrase === '') {
    throw new Error(`${what}: networkPassphrase is ${describe(networkPassphrase)}, expected a non-empty string`);
  }
  const version = o.version ?? '';
  if (typeof version !== 'string') throw new Error(`${what}: version is ${describe(version)}, expected a string`);

  return {
    networkPassphrase,
    version,
    compression: compressionOf(o.compression, what),
    ledgersPerBatch: positiveUint32(o.ledgersPerBatch, 'ledgersPerBatch', what),
    batchesPerPartition: positiveUint32(o.batchesPerPartition, 'batchesPerPartition', what),
  };
}

/** The manifest's text, fields in galexie's order. */
export function serializeDatastoreConfig(config: DatastoreConfig): string {
  return JSON.stringify({
    networkPassphrase: config.networkPassphrase,
    version: config.version,
    compression: config.compression,
    ledgersPerBatch: config.ledgersPerBatch,
    batchesPerPartition: config.batchesPerPartition,
  });
}

/** Throws when a datastore belongs to another network than the one we serve. */
export function checkPassphrase(config: DatastoreConfig, expected: string | undefined, where: string): void {
  if (expected !== undefined && expected !== config.networkPassphrase) {
    throw new Error(`${where}: the datastore is for network "${config.networkPassphrase}", expected "${expected}"`);
  }
}

function compressionOf(value: unknown, what: string): 'zstd' | 'none' {
  // Galexie only writes zstd, and older manifests may leave the field empty or out: both mean zstd.
  if (value === undefined || value === null || value === '' || value === 'zstd' || value === 'zst') return 'zstd';
  if (value === 'none' || value === 'uncompressed') return 'none';
  throw new Error(`${what}: compression is ${describe(value)}, expected "zstd" or "none"`);
}

function positiveUint32(value: unknown, field: string, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 0xffff_ffff) {
    throw new Error(`${what}: ${field} is ${describe(value)}, expected a positive integer`);
  }
  return value;
}

function describe(value: unknown): string {
  return value === undefined ? 'missing' : JSON.stringify(value);
}
