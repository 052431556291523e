// Loads the native addon (native/lumen_native.node, built by `npm ci` / `npm run build:native`) and
// describes what it exports. The types here mirror native/src/lib.rs by hand (no generated .d.ts):
// change both together.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';

export interface NativeLedgerInput {
  sequence: number;
  /** Close time, unix seconds. */
  timestamp: number;
  protocolVersion: number;
  /** Stroops. */
  baseReserve: number;
}

export interface NativeSimulateInvokeRequest {
  dbPath: string;
  networkPassphrase: string;
  /** Omit to run against the latest ledger stored in the database. */
  ledger?: NativeLedgerInput;
  /** TransactionEnvelope XDR, base64 (exactly one operation; fee bumps accepted). */
  transactionXdr?: string;
  /** Operation XDR, base64 (instead of transactionXdr). */
  operationXdr?: string;
  /** G... strkey or AccountId XDR base64; for operationXdr without its own source. */
  sourceAccount?: string;
  authMode?: AuthMode;
  useUpgradedAuth?: boolean;
  instructionLeeway?: number;
  enableDebug?: boolean;
  /** 32 bytes; random when omitted. */
  prngSeed?: Uint8Array;
  /** The developer network's impersonation (both or neither): the engine's signer and the accounts (32 bytes each). */
  impersonationSigner?: Buffer;
  impersonatedAccounts?: Buffer[];
}

export interface NativeSimulateFootprintRequest {
  dbPath: string;
  networkPassphrase: string;
  ledger?: NativeLedgerInput;
  transactionXdr?: string;
  operationXdr?: string;
  /** LedgerFootprint XDR, base64 (with operationXdr). */
  footprintXdr?: string;
}

export type AuthMode = 'enforce' | 'record' | 'record_allow_nonroot';

export interface NativeStateChange {
  key: string;
  before?: string | null;
  after?: string | null;
}

export interface NativeSimulationResult {
  error?: string | null;
  result?: string | null;
  auth: string[];
  transactionData?: string | null;
  minResourceFee: number;
  events: string[];
  contractEvents: string[];
  stateChanges: NativeStateChange[];
  cpuInstructions: number;
  memoryBytes: number;
  restorePreamble?: { transactionData: string; minResourceFee: number } | null;
  latestLedger: number;
  /** The protocol of the host line that ran the simulation; 0 when none did (optional for test doubles). */
  hostProtocol?: number;
  /** LedgerKey XDR, base64, each: every key the host asked the database for (optional for test doubles). */
  readKeys?: string[];
}

export interface NativeHostInfo {
  /** The newest protocol this build runs. */
  protocolVersion: number;
  /** The protocols apply and simulation run, oldest first: one host line each (native/src/protocols.rs). */
  protocols: number[];
  /** The same: simulation runs every line apply does. */
  simulationProtocols: number[];
  sorobanEnvHostVersion: string;
  stellarXdrVersion: string;
  addonVersion: string;
}

/** Ledger values of the ledger being closed (apply). */
export interface ApplyLedgerInput {
  sequence: number;
  /** Close time, unix seconds. */
  timestamp: number;
  protocolVersion: number;
  baseReserve: number;
  /** sha256 of the network passphrase. */
  networkId: Uint8Array;
}

export interface InvokeApplyRequest {
  /** HostFunction XDR. */
  hostFunction: Uint8Array;
  /** SorobanResources XDR (declared resources and footprint). */
  resources: Uint8Array;
  restoredRwEntryIndices: number[];
  /** AccountId XDR of the operation's source. */
  sourceAccount: Uint8Array;
  /** SorobanAuthorizationEntry XDR each. */
  authEntries: Uint8Array[];
  ledger: ApplyLedgerInput;
  /** One per footprint key, read-only keys first: the live entry (XDR) and, for contract entries, its live-until ledger. */
  entries: Array<{ entry?: Uint8Array; liveUntil?: number }>;
  /** 32 bytes. */
  prngSeed: Uint8Array;
  enableDiagnostics: boolean;
  /** Records the host's frames, budget readings and storage calls (InvokeApplyResult.trace). */
  trace?: boolean;
}

/**
 * One thing the host reported to the trace hook (native/src/apply/trace.rs): a frame pushed, a frame
 * about to pop (ok: it returned; else it failed and is rolled back), or a storage call of the top frame.
 */
export interface NativeTraceStep {
  step: 'push' | 'pop' | 'storage';
  /** push: VM, SAC or the host function's type (InvokeContract, CreateContract, …). */
  kind?: string | null;
  /** push: the function symbol as the host shows it (long symbols by handle). */
  function?: string | null;
  /** push: how many arguments the frame was called with. */
  argCount?: number | null;
  ok?: boolean | null;
  /** pop: the host's rendering of the return value or the error. */
  result?: string | null;
  call?: string | null;
  args?: string[] | null;
  /** push / pop: what the budget had metered. */
  cpu?: number | null;
  mem?: number | null;
}

export interface InvokeApplyResult {
  failure?: 'trapped' | 'resource_limit_exceeded' | 'internal' | null;
  error?: string | null;
  /** ScVal XDR. */
  returnValue?: Buffer | null;
  /** ContractEvent XDR each. */
  contractEvents: Buffer[];
  /** DiagnosticEvent XDR each. */
  diagnosticEvents: Buffer[];
  /** LedgerEntry XDR each: read-write entries kept, and TTL entries that grew. */
  modifiedEntries: Buffer[];
  rentFee: number;
  cpuInsns: number;
  memBytes: number;
  /** The host's trace, when the request asked for it. */
  trace?: NativeTraceStep[] | null;
}

export interface RentChange {
  isPersistent: boolean;
  isCodeEntry: boolean;
  oldSizeBytes: number;
  newSizeBytes: number;
  oldLiveUntilLedger: number;
  newLiveUntilLedger: number;
}

export interface ResourceUse {
  instructions: number;
  diskReadEntries: number;
  writeEntries: number;
  diskReadBytes: number;
  writeBytes: number;
  contractEventsSizeBytes: number;
  transactionSizeBytes: number;
}

/** The host for the standalone network's ledger engine (native/src/apply.rs). */
export interface NativeSorobanApplier {
  invoke(request: InvokeApplyRequest): InvokeApplyResult;
  /** Takes the network's ConfigSetting entries as they are now (the module cache stays). */
  setConfig(configEntries: Uint8Array[], protocol: number): void;
  entrySizeForRent(entry: Uint8Array): number;
  rentFee(changes: RentChange[], ledgerSeq: number): number;
  resourceFee(use: ResourceUse): { nonRefundable: number; refundable: number };
}

/**
 * One LedgerCloseMeta's rows for storage, packed (native/src/ingest.rs; unpacked by
 * src/ingest/nativeLedgerToBatch.ts): byte fields are [offset, length] pairs into `bytes`.
 */
export interface NativeLedgerRows {
  sequence: number;
  closeTime: number;
  protocolVersion: number;
  /** Every byte field, back to back (a Buffer from the addon; a Uint8Array after a worker hop). */
  bytes: Uint8Array;
  /** Ledger hash, then LedgerHeaderHistoryEntry XDR, as offset and length each. */
  ledger: Uint32Array;
  /** 9 words per transaction: hash offset, inner hash offset or 0xffffffff, flags (1 successful, 2 fee bump), envelope/result/meta offset and length. */
  transactions: Uint32Array;
  /** Per transaction: #transaction events, #operation lists, each list's length, #diagnostic events. */
  eventCounts: Uint32Array;
  /** The events those counts describe, base64 XDR, in that order. */
  events: string[];
  /** 5 words per entry write: key offset, key length, entry offset or 0xffffffff (deleted), entry length, lastModified. */
  entryWrites: Uint32Array;
  /** LedgerCloseMetaV2.totalByteSizeOfLiveSorobanState; absent (null/undefined) before V2. */
  liveSorobanStateSize?: number | null;
  fees: BigInt64Array;
  /** 1 where the fee sample at the same index is a Soroban one. */
  feeSoroban: Uint32Array;
}

export interface NativeAddon {
  /** `protocol`: the one the network runs (its latest ledger's); each ledger runs on its own protocol's host line. */
  SorobanApplier: new (configEntries: Uint8Array[], protocol: number) => NativeSorobanApplier;
  simulateInvoke(request: NativeSimulateInvokeRequest): Promise<NativeSimulationResult>;
  simulateFootprint(request: NativeSimulateFootprintRequest): Promise<NativeSimulationResult>;
  benchSimulateInvoke(request: NativeSimulateInvokeRequest, iterations: number): Promise<number[]>;
  /** A fresh network's ConfigSetting entries at `protocol`. */
  genesisConfigSettingEntries(lastModifiedLedgerSeq: number, protocol: number): Buffer[];
  /** The ConfigSetting entries an upgrade to `toProtocol` changes (new cost types' parameters appended). */
  protocolUpgradeConfigEntries(configEntries: Uint8Array[], toProtocol: number): Buffer[];
  closeDatabase(dbPath?: string): void;
  /** glibc malloc_trim(0): the C heap's free pages back to the OS; false elsewhere. */
  trimCHeap(): boolean;
  hostInfo(): NativeHostInfo;
  /** Throws for bytes that are not a LedgerCloseMeta or a result without envelope. */
  ledgerToRows(lcm: Uint8Array, networkId: Uint8Array): NativeLedgerRows;
  /** Benchmarks' floor: milliseconds per decode of `lcm` as a LedgerCloseMeta by the stellar-xdr crate, nothing else. */
  benchDecodeLedgerCloseMeta(lcm: Uint8Array, iterations: number): number[];
  /**
   * A fast-forward's empty ledgers (native/src/chain.rs; src/standalone/emptyLedgers.ts has the
   * layout of `chain`): the chain state after `count` more, then with `withHeaders` each one's
   * LedgerHeaderHistoryEntry XDR. Absent from an addon built before it.
   */
  advanceEmptyLedgers?(chain: Uint8Array, firstSeq: number, count: number, firstCloseTime: number, closeTimeStep: number, withHeaders?: boolean): Buffer;
  /**
   * Each value's JSON (`types[i]` names the XDR type of `values[i]`) as UTF-8, rendered by the
   * stellar-xdr crate on a host thread (native/src/xdr_json.rs); rejects naming a value that does
   * not decode or renders too large.
   */
  xdrToJson(types: string[], values: Uint8Array[]): Promise<Buffer[]>;
  /** One small value's JSON, rendered by the crate on the calling thread; throws like xdrToJson. */
  xdrToJsonSync(type: string, value: Uint8Array): string;
  /** Panics on a host thread; resolves to the caught text ("panic during self-test: <message>"). */
  selfTestPanic(message: string): Promise<string>;
}

/** Thrown when the addon is not built or cannot be loaded. */
export class HostUnavailableError extends Error {
  override readonly name = 'HostUnavailableError';
}

const ADDON_FILE = join('native', 'lumen_native.node');

/**
 * Where the addon is looked for: $LUMEN_NATIVE_ADDON, else native/lumen_native.node in the nearest
 * folder above this module that has one (src/host/ when run from source, dist/ when bundled).
 */
export function addonPath(): string {
  if (process.env.LUMEN_NATIVE_ADDON) return process.env.LUMEN_NATIVE_ADDON;
  const here = dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = dirname(dir)) {
    const candidate = join(dir, ADDON_FILE);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) break;
  }
  return join(dirname(dirname(here)), ADDON_FILE); // what `npm run build:native` would create
}

let loaded: NativeAddon | undefined;

/** The addon, loaded once. Throws HostUnavailableError with what to do when it is missing. */
export function loadNative(): NativeAddon {
  if (loaded) return loaded;
  const path = addonPath();
  if (!existsSync(path)) {
    throw new HostUnavailableError(
      `the Soroban host addon is not built (${path} is missing): run \`npm run build:native\` in a clone, ` +
      '`npm rebuild lumen-rpc` where it is installed as a package (both need a Rust toolchain, rustc >= 1.88); ' +
      'installs build it unless LUMEN_SKIP_NATIVE=1',
    );
  }
  let addon: NativeAddon;
  try {
    addon = createRequire(import.meta.url)(path) as NativeAddon;
  } catch (e) {
    throw new HostUnavailableError(`cannot load the Soroban host addon ${path}: ${(e as Error).message}`);
  }
  attachSqlite(path);
  loaded = addon;
  return loaded;
}

/**
 * Gives the addon node:sqlite's SQLite library. The addon reads the database on its own threads,
 * and it must do so through the same copy of SQLite as the store: two copies in one process cannot
 * see each other's locks (see native/src/store.rs). The addon file is also a SQLite extension;
 * loading it into a throwaway connection hands it the library's API table. The file is the one
 * Node just loaded, so the dynamic loader returns that same instance.
 */
function attachSqlite(path: string): void {
  const db = new DatabaseSync(':memory:', { allowExtension: true });
  try {
    db.loadExtension(path, 'sqlite3_lumennative_init');
  } catch (e) {
    throw new HostUnavailableError(`cannot give the Soroban host addon ${path} node:sqlite's library: ${(e as Error).message}`);
  } finally {
    db.close();
  }
}

/** True when the addon can be loaded (for code paths that can run without the host). */
export function nativeAvailable(): boolean {
  try {
    loadNative();
    return true;
  } catch {
    return false;
  }
}
