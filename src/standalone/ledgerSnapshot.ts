// The JSON ledger snapshot contract developers already use: what `stellar snapshot create` writes and
// soroban-sdk's `Env::from_ledger_snapshot_file` reads (the soroban-ledger-snapshot crate's
// LedgerSnapshot, serialized with serde). lumen_dumpState writes the standalone network's whole state
// in it, and --load-state starts a new standalone network from one.
//
// The format, as the crate (28.0.0) reads and writes it:
//   { "protocol_version": u32, "sequence_number": u32, "timestamp": u64 (a JSON number),
//     "network_id": 64 hex digits, "base_reserve": u32, "min_persistent_entry_ttl": u32,
//     "min_temp_entry_ttl": u32, "max_entry_ttl": u32,
//     "ledger_entries": [ { "entry": LedgerEntry, "live_until": u32 | null }, ... ] }
// LedgerEntry in stellar-xdr's serde JSON form (the SDK's toJson/fromJson produce the same form:
// snake_case fields, unions as { "arm": value } or "arm", 64-bit and 128/256-bit integers as decimal
// strings, keys as strkeys, bytes as hex). `live_until` is the TTL's live-until ledger of contract
// data and code (we write null for every other entry; `stellar snapshot create` writes u32::MAX for
// every entry); TTL entries themselves are not listed. The crate also reads an older entry list,
// [[LedgerKey, [LedgerEntry, live_until]], ...], and older stellar-xdr versions wrote 64-bit integers
// as JSON numbers and 128-bit ones as {hi, lo}: parseSnapshot accepts all of these (the SDK's
// fromJson alone would refuse them).
import { InputTooLargeError, inputCap, readFileCappedSync, textOf, type ByteCap } from '../io/inputCaps.ts';
import { xdr } from '../xdr/xdr.ts';
import type { StoreReader as Store } from '../store/types.ts';
import { isFollower, type Config } from '../config/config.ts';
import { decodeLedgerEntry, encodeLedgerEntry, encodeLedgerKey, networkIdOf, sha256, toHex, type LedgerEntry, type LedgerKey } from '../xdr/codec.ts';
import { ConfigSettingId, EntryType, isPersistentKey, isSorobanKey, ledgerKeyOf, ledgerKeyType, keyId, ttlKeyFor } from '../xdr/ledgerKeys.ts';

/** The snapshot's ledger values (every member but ledger_entries). */
export interface SnapshotLedger {
  protocol_version: number;
  sequence_number: number;
  timestamp: number;
  network_id: string;
  base_reserve: number;
  min_persistent_entry_ttl: number;
  min_temp_entry_ttl: number;
  max_entry_ttl: number;
}

/** One entry as decoded from a snapshot. */
export interface SnapshotEntry { entry: LedgerEntry; liveUntil: number | null }

export interface LoadedSnapshot { ledger: SnapshotLedger; entries: SnapshotEntry[] }

/** A snapshot that cannot be read or does not fit the network: the message says which and where. */
export class SnapshotError extends Error {}

// ---- writing ----------------------------------------------------------------------------------

/** The ledger values of the store's latest ledger, with the TTL limits of its state archival setting. */
export function snapshotLedger(store: Store): SnapshotLedger {
  const row = store.latestLedger();
  if (!row) throw new SnapshotError('the network has no ledger yet');
  const { header } = xdr.LedgerHeaderHistoryEntry.schema.decode(row.header);
  const archival = store.entry(encodeLedgerKey({ type: 8, configSetting: { configSettingId: ConfigSettingId.STATE_ARCHIVAL } }));
  let ttl = { min_persistent_entry_ttl: 0, min_temp_entry_ttl: 0, max_entry_ttl: 0 };
  if (archival) {
    const data = decodeLedgerEntry(archival.entry).data;
    if (data.type === 8 && data.configSetting.configSettingID === ConfigSettingId.STATE_ARCHIVAL) {
      const s = data.configSetting.stateArchivalSettings;
      ttl = { min_persistent_entry_ttl: s.minPersistentTtl, min_temp_entry_ttl: s.minTemporaryTtl, max_entry_ttl: s.maxEntryTtl };
    }
  }
  return {
    protocol_version: header.ledgerVersion,
    sequence_number: header.ledgerSeq,
    timestamp: Number(header.scpValue.closeTime),
    network_id: '', // filled by the caller, which knows the network
    base_reserve: header.baseReserve,
    ...ttl,
  };
}

/**
 * Every current entry but the TTLs, each as the JSON text of one `ledger_entries` element, in key
 * order; contract data and code carry their TTL's live-until ledger.
 */
export function* snapshotEntryTexts(store: Store): Generator<string> {
  const liveUntil = new Map<string, number>();
  for (const e of store.entriesOfTypes(EntryType.TTL, EntryType.TTL)) {
    const data = decodeLedgerEntry(e.entry).data;
    if (data.type === EntryType.TTL) liveUntil.set(toHex(data.ttl.keyHash), data.ttl.liveUntilLedgerSeq);
  }
  for (const e of store.allEntries()) {
    const type = ledgerKeyType(e.key);
    if (type === EntryType.TTL) continue;
    // an archived persistent entry (kept without its TTL, see docs/layout.md's design notes) is listed
    // with live_until 0: expired, which is how the format (and soroban-sdk's Env) says archived
    const live = type === EntryType.CONTRACT_DATA || type === EntryType.CONTRACT_CODE ? liveUntil.get(toHex(sha256(e.key))) ?? 0 : null;
    yield `{"entry":${JSON.stringify(xdr.LedgerEntry.fromXdr(e.entry).toJson())},"live_until":${live === null ? 'null' : live}}`;
  }
}

function headerText(ledger: SnapshotLedger): string {
  return `{\n${Object.entries(ledger).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`).join('')}  "ledger_entries": [`;
}

/** Between two entries: lets other work run (a call's checkpoint); throws to give up. */
export type Checkpoint = () => Promise<void>;
const noPause: Checkpoint = () => Promise.resolve();

/** Where a snapshot's text goes, a piece at a time (a file in the state folder: stateDir.ts). */
export interface TextSink { write(text: string): void }

/**
 * Writes the store's whole state as snapshot text into `sink`, one entry per line, in pieces of about
 * a MiB (a state of any size: nothing but a piece is held).
 */
export async function writeSnapshot(store: Store, networkId: Uint8Array, sink: TextSink, checkpoint: Checkpoint = noPause): Promise<{ entries: number; ledger: number }> {
  const ledger = { ...snapshotLedger(store), network_id: toHex(networkId) };
  let count = 0;
  const chunks: string[] = [headerText(ledger)];
  let pending = chunks[0].length;
  const flush = () => { sink.write(chunks.join('')); chunks.length = 0; pending = 0; };
  for (const text of snapshotEntryTexts(store)) {
    chunks.push(`${count === 0 ? '' : ','}\n    ${text}`);
    pending += text.length;
    count++;
    if (pending > 1 << 20) flush();
    await checkpoint();
  }
  chunks.push('\n  ]\n}\n');
  flush();
  return { entries: count, ledger: ledger.sequence_number };
}

/**
 * The snapshot as one JSON value, or `over` as soon as its text would exceed `maxBytes` (the
 * caller answers that it does not fit).
 */
export async function snapshotObject(store: Store, networkId: Uint8Array, maxBytes: number, checkpoint: Checkpoint = noPause): Promise<{ snapshot: unknown; bytes: number } | { bytes: number; over: true }> {
  const ledger = { ...snapshotLedger(store), network_id: toHex(networkId) };
  let bytes = headerText(ledger).length + 8;
  const texts: string[] = [];
  for (const text of snapshotEntryTexts(store)) {
    bytes += text.length + 1;
    if (bytes > maxBytes) return { bytes, over: true };
    texts.push(text);
    await checkpoint();
  }
  return { snapshot: { ...ledger, ledger_entries: JSON.parse(`[${texts.join(',')}]`) as unknown }, bytes };
}

// ---- reading ----------------------------------------------------------------------------------

const U32 = 0xffffffff;

/**
 * Reads and checks a snapshot file (either entry list form); errors name the file and the entry. A
 * file past the cap (--max-input-bytes) is refused while it is read.
 */
export function readSnapshotFile(path: string, cap: ByteCap = inputCap()): LoadedSnapshot {
  let text: string;
  try {
    text = textOf(readFileCappedSync(path, cap, `the ledger snapshot ${path}`));
  } catch (e) {
    if (e instanceof InputTooLargeError) throw new SnapshotError(e.message);
    throw new SnapshotError(`cannot read the ledger snapshot ${path}: ${(e as Error).message}`);
  }
  try {
    return parseSnapshot(text);
  } catch (e) {
    throw new SnapshotError(`${path} is not a ledger snapshot: ${(e as Error).message}`);
  }
}

/**
 * Integers beyond 2^53 stay exact: kept as their decimal text (64-bit fields accept text). The
 * reviver slows parsing several times over, so it only runs when the text has such a long number.
 */
function parseJson(text: string): unknown {
  if (!/[[:,]\s*-?\d{16}/.test(text)) return JSON.parse(text);
  return JSON.parse(text, (_key, value: unknown, context?: { source?: string }) =>
    typeof value === 'number' && !Number.isSafeInteger(value) && context?.source !== undefined && /^-?\d+$/.test(context.source)
      ? context.source : value);
}

export function parseSnapshot(text: string): LoadedSnapshot {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (e) {
    throw new SnapshotError(`malformed JSON (${(e as Error).message})`);
  }
  if (!isObject(json)) throw new SnapshotError('expected a JSON object');
  const u32 = (name: string): number => {
    const v = json[name];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > U32) throw new SnapshotError(`"${name}" must be a 32-bit unsigned integer`);
    return v;
  };
  const timestamp = json.timestamp;
  const time = typeof timestamp === 'string' && /^\d+$/.test(timestamp) ? Number(timestamp) : timestamp;
  if (typeof time !== 'number' || !Number.isInteger(time) || time < 0) throw new SnapshotError('"timestamp" must be an unsigned integer (seconds)');
  const networkId = json.network_id;
  if (typeof networkId !== 'string' || !/^[0-9a-fA-F]{64}$/.test(networkId)) throw new SnapshotError('"network_id" must be 64 hex digits (the SHA-256 of the network passphrase)');
  const ledger: SnapshotLedger = {
    protocol_version: u32('protocol_version'),
    sequence_number: u32('sequence_number'),
    timestamp: time,
    network_id: networkId.toLowerCase(),
    base_reserve: u32('base_reserve'),
    min_persistent_entry_ttl: u32('min_persistent_entry_ttl'),
    min_temp_entry_ttl: u32('min_temp_entry_ttl'),
    max_entry_ttl: u32('max_entry_ttl'),
  };
  const list = json.ledger_entries;
  if (!Array.isArray(list)) throw new SnapshotError('"ledger_entries" must be an array');
  const entries = list.map((item: unknown, i): SnapshotEntry => {
    try {
      return snapshotEntry(item);
    } catch (e) {
      throw new SnapshotError(`ledger_entries[${i}]: ${(e as Error).message}`);
    }
  });
  return { ledger, entries };
}

/** {entry, live_until} (the crate's current form) or [key, [entry, live_until]] (its first). */
function snapshotEntry(item: unknown): SnapshotEntry {
  let entryJson: unknown;
  let live: unknown;
  let keyJson: unknown;
  if (isObject(item) && 'entry' in item) {
    entryJson = item.entry;
    live = item.live_until ?? null;
  } else if (Array.isArray(item) && item.length === 2 && Array.isArray(item[1]) && item[1].length === 2) {
    keyJson = item[0];
    [entryJson, live] = item[1] as unknown[];
  } else {
    throw new SnapshotError('expected {"entry": LedgerEntry, "live_until": number | null}');
  }
  if (live !== null && (typeof live !== 'number' || !Number.isInteger(live) || live < 0 || live > U32)) {
    throw new SnapshotError('"live_until" must be a 32-bit unsigned integer or null');
  }
  const entry = fromJson<LedgerEntry>(xdr.LedgerEntry, entryJson);
  if (keyJson !== undefined) {
    const key = fromJson<LedgerKey>(xdr.LedgerKey, keyJson);
    if (keyId(key) !== keyId(ledgerKeyOf(entry.data))) throw new SnapshotError('the key is not the entry\'s key');
  }
  return { entry, liveUntil: live as number | null };
}

interface XdrJsonType { schema: unknown; fromJson(json: never): { toXdrObject(): unknown } }

/**
 * The SDK's fromJson; what it refuses is tried again after bringing the older JSON forms the Rust
 * crate still reads to the current one (the current form, what the node and the crate write, takes
 * the fast path).
 */
function fromJson<W>(type: XdrJsonType, json: unknown): W {
  try {
    return type.fromJson(json as never).toXdrObject() as W;
  } catch (e) {
    const normalized = normalize(json, type.schema as Schema);
    try {
      return type.fromJson(normalized as never).toXdrObject() as W;
    } catch {
      throw e;
    }
  }
}

// The SDK's XDR schemas as far as the normalization needs them.
interface Schema {
  kind: string; name?: string;
  element?: Schema; entries?: Array<[string, Schema]>;
  switchOn?: { kind: string; memberPrefix?: string; nameByValue?: Map<number, string> };
  cases?: Array<{ discriminant: number; name: string; arm: { kind: string; name?: string; schema?: Schema } }>;
  getSchema?(): Schema;
}

const BIG_PARTS: Record<string, { signed: boolean; parts: string[] }> = {
  Int128Parts: { signed: true, parts: ['hi', 'lo'] },
  Uint128Parts: { signed: false, parts: ['hi', 'lo'] },
  Int256Parts: { signed: true, parts: ['hi_hi', 'hi_lo', 'lo_hi', 'lo_lo'] },
  Uint256Parts: { signed: false, parts: ['hi_hi', 'hi_lo', 'lo_hi', 'lo_lo'] },
};

function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z])([A-Z][a-z])/g, '$1_$2').toLowerCase();
}

/**
 * Walks `json` along the schema and rewrites what the Rust crate accepts but the SDK does not:
 * 64-bit integers given as JSON numbers (-> decimal text) and 128/256-bit integers given as their
 * parts (-> decimal text). Anything else is left for fromJson to accept or refuse.
 */
function normalize(json: unknown, schema: Schema): unknown {
  let s = schema;
  while (s.kind === 'lazy' && s.getSchema) s = s.getSchema();
  const big = s.name ? BIG_PARTS[s.name] : undefined;
  if (big) {
    if (typeof json === 'number' && Number.isInteger(json)) return String(json);
    if (isObject(json) && big.parts.every((p) => p in json)) {
      let v = 0n;
      big.parts.forEach((p, i) => {
        const part = BigInt(json[p] as string | number);
        v = (v << 64n) | (i === 0 ? part : BigInt.asUintN(64, part));
      });
      if (big.signed) v = BigInt.asIntN(64 * big.parts.length, v);
      return v.toString();
    }
    return json;
  }
  switch (s.kind) {
    case 'int64': case 'uint64':
      return typeof json === 'number' && Number.isInteger(json) ? String(json) : json;
    case 'option':
      return json === null ? null : normalize(json, s.element!);
    case 'array': case 'fixedArray':
      return Array.isArray(json) ? json.map((v) => normalize(v, s.element!)) : json;
    case 'struct': {
      if (!isObject(json) || !s.entries) return json;
      const out: Record<string, unknown> = { ...json };
      for (const [field, fieldSchema] of s.entries) {
        for (const k of [snake(field), `${snake(field)}_`]) if (k in out) out[k] = normalize(out[k], fieldSchema);
      }
      return out;
    }
    case 'union': {
      if (!isObject(json) || !s.cases) return json;
      const keys = Object.keys(json);
      if (keys.length !== 1) return json;
      const [k] = keys;
      const arm = s.cases.find((c) => unionCaseJsonName(s, c) === k)?.arm;
      return arm?.kind === 'field' && arm.schema ? { [k]: normalize(json[k], arm.schema) } : json;
    }
    default:
      return json;
  }
}

function unionCaseJsonName(s: Schema, c: { discriminant: number; name: string }): string {
  const on = s.switchOn;
  if (on?.kind === 'enum' && on.nameByValue) {
    const member = on.nameByValue.get(c.discriminant);
    if (member) return snake(on.memberPrefix && member.startsWith(on.memberPrefix) ? member.slice(on.memberPrefix.length) : member);
  }
  if (on?.kind === 'int32' || on?.kind === 'uint32') return `v${c.discriminant}`;
  return snake(c.name);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

// ---- a genesis ledger from a snapshot ------------------------------------------------------------

/** What ledger 1's creation takes from a snapshot (src/ledger/genesis.ts). */
export interface GenesisFromSnapshot {
  ledgerSeq: number;
  ledgerVersion: number;
  baseReserve: number;
  /** The highest offer id in the snapshot: new offers take ids after it (the header's idPool). */
  idPool: bigint;
  /** The snapshot's close time (the genesis closes at the later of it and the clock's now). */
  closeTime: bigint;
  /** The genesis entries: the snapshot's, then the defaults it lacks, then a TTL for every contract entry. */
  entries(defaults: LedgerEntry[]): LedgerEntry[];
}

/**
 * Checks a snapshot against the network that starts from it and says how the genesis is made:
 * - the network id must be the passphrase's;
 * - the genesis ledger IS the snapshot's ledger (same sequence, entries keep their
 *   lastModifiedLedgerSeq), so TTLs and the next ledger's number continue from where it was cut;
 *   new offers are numbered after the snapshot's highest offer id;
 * - a protocol above ours is refused; a lower one starts at ours (the host runs one protocol);
 * - config settings (and the root account the faucet pays from) missing from the snapshot come from
 *   the defaults; the snapshot's TTL limits go into the state archival setting, then the node's
 *   --min-persistent-ttl / --min-temporary-ttl when set;
 * - a contract entry without live_until lives for its durability's minimum TTL from the genesis.
 */
/**
 * --load-state at start, before the database is claimed for the passphrase: refused while following
 * a network or on a database that already holds one; the file read and its network id checked
 * (so a wrong passphrase changes nothing). Undefined without --load-state.
 */
export function loadStateSnapshot(store: Store, config: Config): LoadedSnapshot | undefined {
  if (!config.loadState) return undefined;
  if (isFollower(config)) throw new SnapshotError('--load-state starts a standalone network; it cannot be used while following a network');
  if (store.latestLedger()) {
    throw new SnapshotError(`--load-state ${config.loadState}: the database ${config.dbPath} already holds a network; `
      + 'a snapshot only starts a new one (use an empty database, or drop --load-state)');
  }
  const snapshot = readSnapshotFile(config.loadState, inputCap(config.maxInputBytes));
  checkSnapshotNetwork(snapshot, networkIdOf(config.networkPassphrase), config.networkPassphrase);
  return snapshot;
}

function checkSnapshotNetwork(snapshot: LoadedSnapshot, networkId: Uint8Array, passphrase: string): void {
  if (snapshot.ledger.network_id !== toHex(networkId)) {
    throw new SnapshotError(`the snapshot is of network id ${snapshot.ledger.network_id}, not of this network's passphrase "${passphrase}" `
      + `(id ${toHex(networkId)}): start with --network-passphrase set to the passphrase of the network it was cut from`);
  }
}

export function genesisFromSnapshot(snapshot: LoadedSnapshot, opts: {
  networkId: Uint8Array; passphrase: string; protocolVersion: number;
  archival?: { minPersistentTtl?: number; minTemporaryTtl?: number };
}): GenesisFromSnapshot {
  const { ledger } = snapshot;
  checkSnapshotNetwork(snapshot, opts.networkId, opts.passphrase);
  if (ledger.protocol_version > opts.protocolVersion) {
    throw new SnapshotError(`the snapshot is of protocol ${ledger.protocol_version}; this node runs protocol ${opts.protocolVersion}`);
  }
  const seq = Math.max(1, ledger.sequence_number);
  let idPool = 0n;
  for (const { entry } of snapshot.entries) if (entry.data.type === 2 && entry.data.offer.offerId > idPool) idPool = entry.data.offer.offerId;
  return {
    idPool,
    ledgerSeq: seq,
    ledgerVersion: opts.protocolVersion,
    baseReserve: ledger.base_reserve,
    closeTime: BigInt(ledger.timestamp),
    entries(defaults) {
      const byKey = new Map<string, LedgerEntry>();
      const liveUntil = new Map<string, number | null>();
      for (const { entry, liveUntil: live } of snapshot.entries) {
        const key = ledgerKeyOf(entry.data);
        const id = keyId(key);
        byKey.set(id, entry);
        if (isSorobanKey(key)) liveUntil.set(id, live);
      }
      for (const d of defaults) {
        const id = keyId(ledgerKeyOf(d.data));
        if (!byKey.has(id)) byKey.set(id, { ...d, lastModifiedLedgerSeq: seq });
      }
      const archivalId = keyId({ type: 8, configSetting: { configSettingId: ConfigSettingId.STATE_ARCHIVAL } });
      const archivalEntry = byKey.get(archivalId);
      let minPersistent = ledger.min_persistent_entry_ttl;
      let minTemporary = ledger.min_temp_entry_ttl;
      if (archivalEntry?.data.type === 8 && archivalEntry.data.configSetting.configSettingID === ConfigSettingId.STATE_ARCHIVAL) {
        const copy = decodeLedgerEntry(encodeLedgerEntry(archivalEntry));
        if (copy.data.type === 8 && copy.data.configSetting.configSettingID === ConfigSettingId.STATE_ARCHIVAL) {
          const s = copy.data.configSetting.stateArchivalSettings;
          if (ledger.min_persistent_entry_ttl) s.minPersistentTtl = ledger.min_persistent_entry_ttl;
          if (ledger.min_temp_entry_ttl) s.minTemporaryTtl = ledger.min_temp_entry_ttl;
          if (ledger.max_entry_ttl) s.maxEntryTtl = ledger.max_entry_ttl;
          if (opts.archival?.minPersistentTtl) s.minPersistentTtl = opts.archival.minPersistentTtl;
          if (opts.archival?.minTemporaryTtl) s.minTemporaryTtl = opts.archival.minTemporaryTtl;
          minPersistent = s.minPersistentTtl;
          minTemporary = s.minTemporaryTtl;
          byKey.set(archivalId, copy);
        }
      }
      for (const [id, live] of liveUntil) {
        const entry = byKey.get(id)!;
        const key = ledgerKeyOf(entry.data);
        const ttlKey = ttlKeyFor(key);
        const ttlId = keyId(ttlKey);
        // a TTL entry listed in the snapshot stands when live_until is null; live_until replaces it
        if (live === null && byKey.has(ttlId)) continue;
        if (live !== null && live < seq) {
          // expired when the snapshot was cut: a persistent entry is archived (kept without a TTL), a
          // temporary one is gone, as eviction would have left them
          byKey.delete(ttlId);
          if (!isPersistentKey(key)) byKey.delete(id);
          continue;
        }
        const liveUntilLedgerSeq = live ?? seq + Math.max(1, isPersistentKey(key) ? minPersistent : minTemporary) - 1;
        // (a Map keeps a replaced key's place: a listed TTL is replaced where it stood)
        byKey.set(ttlId, {
          lastModifiedLedgerSeq: entry.lastModifiedLedgerSeq,
          data: { type: 9, ttl: { keyHash: ttlKey.ttl.keyHash, liveUntilLedgerSeq } }, ext: { v: 0 },
        });
      }
      return [...byKey.values()];
    },
  };
}
