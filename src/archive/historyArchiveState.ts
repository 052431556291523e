// A history archive's state files (HAS, the JSON stellar-core writes at every checkpoint), the
// checkpoint arithmetic, and where each file lives in an archive. Layout facts follow stellar-core
// (src/history/HistoryArchive.*, src/util/Fs.cpp, src/bucket/FutureBucket.h).

/** Ledgers per checkpoint: a checkpoint closes at every ledger whose (seq + 1) is a multiple of it. */
export const CHECKPOINT_FREQUENCY = 64;
/** Levels of the live and of the hot-archive bucket lists (stellar-core's kNumLevels). */
export const BUCKET_LIST_LEVELS = 11;
/** The hash standing for an empty bucket: no file exists for it. */
export const ZERO_HASH = '0'.repeat(64);

export const HAS_VERSION_BEFORE_HOT_ARCHIVE = 1;
export const HAS_VERSION_WITH_HOT_ARCHIVE = 2;

/** A level's merge in progress, as core saves it: clear, a finished output, or its input hashes. */
export type FutureBucketState =
  | { state: 0 }
  | { state: 1; output: string }
  | { state: 2; curr: string; snap: string; shadow: string[] };

export interface BucketLevel {
  curr: string;
  next: FutureBucketState;
  snap: string;
}

export interface HistoryArchiveState {
  version: number;
  server: string;
  currentLedger: number;
  /** Always present from version 2 on; older archives do not name their network. */
  networkPassphrase?: string;
  currentBuckets: BucketLevel[];
  /** Version 2 (protocol 23 on): the bucket list of archived persistent contract entries. */
  hotArchiveBuckets?: BucketLevel[];
}

export class HistoryArchiveStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HistoryArchiveStateError';
  }
}

// ---- checkpoints ----------------------------------------------------------------------------

export const isCheckpointLedger = (seq: number): boolean => seq > 0 && (seq + 1) % CHECKPOINT_FREQUENCY === 0;

/** The checkpoint whose files hold ledger `seq` (ledgers 1..63 are in 63, 64..127 in 127, ...). */
export function checkpointContaining(seq: number): number {
  assertLedger(seq);
  return (Math.floor(seq / CHECKPOINT_FREQUENCY) + 1) * CHECKPOINT_FREQUENCY - 1;
}

/** The newest checkpoint at or before `seq`, or undefined before the first one (63). */
export function latestCheckpointAtOrBefore(seq: number): number | undefined {
  assertLedger(seq);
  const c = checkpointContaining(seq);
  return c === seq ? c : c - CHECKPOINT_FREQUENCY >= CHECKPOINT_FREQUENCY - 1 ? c - CHECKPOINT_FREQUENCY : undefined;
}

/** The first ledger a checkpoint's files cover: the first checkpoint starts at ledger 1 (genesis), not 0. */
export function firstLedgerOfCheckpoint(checkpoint: number): number {
  assertCheckpoint(checkpoint);
  return Math.max(1, checkpoint + 1 - CHECKPOINT_FREQUENCY);
}

export function assertCheckpoint(ledger: number): void {
  if (!Number.isSafeInteger(ledger) || !isCheckpointLedger(ledger)) {
    const hint = Number.isSafeInteger(ledger) && ledger > 0 ? ` (the checkpoint containing it is ${checkpointContaining(ledger)})` : '';
    throw new RangeError(`${ledger} is not a checkpoint ledger: checkpoints are the ledgers where (seq + 1) % ${CHECKPOINT_FREQUENCY} == 0${hint}`);
  }
}

function assertLedger(seq: number): void {
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > 0xffff_ffff) throw new RangeError(`${seq} is not a ledger sequence`);
}

// ---- archive paths --------------------------------------------------------------------------

export const ROOT_STATE_PATH = '.well-known/stellar-history.json';

/** The checkpoint as core names it in file names: 8 lowercase hex digits. */
export const checkpointHex = (checkpoint: number): string => checkpoint.toString(16).padStart(8, '0');

/** The kinds of per-checkpoint files an archive holds (scp is optional in core archives). */
export type CheckpointFileKind = 'ledger' | 'transactions' | 'results' | 'scp';

/** `history/00/00/00/history-0000003f.json`: the HAS as of that checkpoint. */
export const checkpointStatePath = (checkpoint: number): string => hexTreePath('history', checkpointHex(checkpoint), 'json');

/** `ledger/00/00/00/ledger-0000003f.xdr.gz` and the like: record-marked XDR, gzipped. */
export const checkpointFilePath = (kind: CheckpointFileKind, checkpoint: number): string =>
  hexTreePath(kind, checkpointHex(checkpoint), 'xdr.gz');

/** `bucket/bf/f0/72/bucket-bff0722c...xdr.gz`: the first three bytes of the hash make the folders. */
export function bucketPath(hash: string): string {
  assertHash(hash, 'bucket hash');
  return hexTreePath('bucket', hash.toLowerCase(), 'xdr.gz');
}

/**
 * The same file without its folders (`history-0000003f.json`, `bucket-<hash>.xdr.gz`,
 * `stellar-history.json`): some copies of archives, like the test fixtures, are stored flat.
 */
export const flatPath = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

function hexTreePath(kind: string, hex: string, suffix: string): string {
  return `${kind}/${hex.slice(0, 2)}/${hex.slice(2, 4)}/${hex.slice(4, 6)}/${kind}-${hex}.${suffix}`;
}

// ---- buckets in apply order -----------------------------------------------------------------

export const isZeroHash = (hash: string): boolean => hash === ZERO_HASH;

/**
 * The non-empty buckets of a bucket list from OLDEST to NEWEST content: the deepest level first, and
 * within a level snap before curr. Applying them in this order lets newer entries overwrite older
 * ones (stellar-core's differingBuckets order). Pending merges (`next`) are not state: their inputs
 * are still the levels' curr and snap.
 */
export function bucketsOldestFirst(levels: readonly BucketLevel[]): string[] {
  const out: string[] = [];
  for (let i = levels.length - 1; i >= 0; i--) {
    if (!isZeroHash(levels[i].snap)) out.push(levels[i].snap);
    if (!isZeroHash(levels[i].curr)) out.push(levels[i].curr);
  }
  return out;
}

/** Where a bucket sits in a bucket list, for messages: "level 2 snap" (its first place, newest first). */
export function bucketSlot(levels: readonly BucketLevel[], hash: string): string {
  const level = levels.findIndex((l) => l.curr === hash || l.snap === hash);
  return level < 0 ? 'no level' : `level ${level} ${levels[level].curr === hash ? 'curr' : 'snap'}`;
}

// ---- parsing --------------------------------------------------------------------------------

/** Parses and validates a HAS; `source` names the file in error messages. */
export function parseHistoryArchiveState(json: string | Uint8Array, source = 'history archive state'): HistoryArchiveState {
  const fail = (why: string): never => { throw new HistoryArchiveStateError(`${source}: ${why}`); };
  let raw: unknown;
  try {
    raw = JSON.parse(typeof json === 'string' ? json : new TextDecoder('utf-8', { fatal: true }).decode(json));
  } catch (e) {
    return fail(`not valid JSON (${(e as Error).message})`);
  }
  if (!isObject(raw)) return fail('not a JSON object');

  const version = raw.version;
  if (version !== HAS_VERSION_BEFORE_HOT_ARCHIVE && version !== HAS_VERSION_WITH_HOT_ARCHIVE) {
    fail(`unsupported version ${JSON.stringify(version)} (known: 1, 2)`);
  }
  const server = raw.server ?? '';
  if (typeof server !== 'string') fail('"server" is not a string');
  const currentLedger = raw.currentLedger;
  if (typeof currentLedger !== 'number' || !Number.isSafeInteger(currentLedger) || currentLedger < 0 || currentLedger > 0xffff_ffff) {
    fail(`"currentLedger" ${JSON.stringify(currentLedger)} is not a ledger sequence`);
  }
  const passphrase = raw.networkPassphrase;
  if (passphrase !== undefined && (typeof passphrase !== 'string' || passphrase === '')) fail('"networkPassphrase" is not a non-empty string');
  if (version === HAS_VERSION_WITH_HOT_ARCHIVE && passphrase === undefined) fail('version 2 requires "networkPassphrase"');

  const has: HistoryArchiveState = {
    version: version as number,
    server: server as string,
    currentLedger: currentLedger as number,
    currentBuckets: parseLevels(raw.currentBuckets, 'currentBuckets', fail),
  };
  if (passphrase !== undefined) has.networkPassphrase = passphrase as string;
  if (version === HAS_VERSION_WITH_HOT_ARCHIVE) has.hotArchiveBuckets = parseLevels(raw.hotArchiveBuckets, 'hotArchiveBuckets', fail);
  return has;
}

function parseLevels(value: unknown, field: string, fail: (why: string) => never): BucketLevel[] {
  if (!Array.isArray(value)) return fail(`"${field}" is missing or not an array`);
  if (value.length !== BUCKET_LIST_LEVELS) fail(`"${field}" has ${value.length} levels, expected ${BUCKET_LIST_LEVELS}`);
  return value.map((level: unknown, i): BucketLevel => {
    const where = `${field}[${i}]`;
    if (!isObject(level)) return fail(`${where} is not an object`);
    const hash = (v: unknown, name: string): string => {
      if (typeof v !== 'string' || !HASH_RE.test(v)) fail(`${where}.${name} ${JSON.stringify(v)} is not a 64-digit hex hash`);
      return (v as string).toLowerCase();
    };
    return { curr: hash(level.curr, 'curr'), next: parseNext(level.next, where, hash, fail), snap: hash(level.snap, 'snap') };
  });
}

function parseNext(
  next: unknown, where: string, hash: (v: unknown, name: string) => string, fail: (why: string) => never,
): FutureBucketState {
  // Very old archives may omit `next`; it carries no state, so a missing one reads as clear.
  if (next === undefined) return { state: 0 };
  if (!isObject(next)) return fail(`${where}.next is not an object`);
  switch (next.state) {
    case 0: return { state: 0 };
    case 1: return { state: 1, output: hash(next.output, 'next.output') };
    case 2: {
      const shadow = next.shadow ?? [];
      if (!Array.isArray(shadow)) return fail(`${where}.next.shadow is not an array`);
      return {
        state: 2, curr: hash(next.curr, 'next.curr'), snap: hash(next.snap, 'next.snap'),
        shadow: shadow.map((s, j) => hash(s, `next.shadow[${j}]`)),
      };
    }
    default: return fail(`${where}.next.state ${JSON.stringify(next.state)} is not 0, 1 or 2`);
  }
}

/** JSON as stellar-core lays it out (4-space indent, fields in core's order). */
export function serializeHistoryArchiveState(has: HistoryArchiveState): string {
  const ordered: Record<string, unknown> = { version: has.version, server: has.server, currentLedger: has.currentLedger };
  if (has.networkPassphrase !== undefined) ordered.networkPassphrase = has.networkPassphrase;
  ordered.currentBuckets = has.currentBuckets;
  if (has.hotArchiveBuckets) ordered.hotArchiveBuckets = has.hotArchiveBuckets;
  return JSON.stringify(ordered, null, 4);
}

/** A bucket list with every level empty (what core starts from). */
export const emptyBucketLevels = (): BucketLevel[] =>
  Array.from({ length: BUCKET_LIST_LEVELS }, () => ({ curr: ZERO_HASH, next: { state: 0 }, snap: ZERO_HASH }));

const HASH_RE = /^[0-9a-fA-F]{64}$/;

function assertHash(hash: string, what: string): void {
  if (!HASH_RE.test(hash)) throw new HistoryArchiveStateError(`${what} ${JSON.stringify(hash)} is not a 64-digit hex hash`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
