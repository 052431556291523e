// The Soroban host's simulation API for the RPC layer: typed requests, results normalized to the
// shapes simulateTransaction answers with (strings for 64-bit numbers, no nulls), and a bound on
// how many simulations run at once.
//
// Each simulation runs in the addon off the event loop (on one of the addon's big-stack host
// threads, which settles the promise itself) and reads ledger state from the node's SQLite file in
// one read transaction, against the latest stored ledger unless `ledger` says otherwise, on the host
// line of that ledger's protocol (the addon carries the current and the previous one; hostInfo()
// lists them; another protocol is an `error` result). At most `maxConcurrent` run at once (a host
// thread and a read connection each); beyond them, at most `maxWaiting` wait in line; one more is
// refused with PreflightQueueFullError (the reference's "preflight queue full"). A waiting call
// whose AbortSignal fires leaves the line.
import { availableParallelism } from 'node:os';
import {
  loadNative, type AuthMode, type NativeAddon, type NativeLedgerInput, type NativeSimulationResult,
} from './native.ts';

export type { AuthMode } from './native.ts';

/** The operation to simulate: a whole envelope, or an Operation (and its source when it has none). */
export type InvokeInput =
  | { transactionXdr: string }
  | { operationXdr: string; sourceAccount?: string };

/** ExtendFootprintTTL / RestoreFootprint: the envelope carries the footprint in its SorobanTransactionData. */
export type FootprintInput =
  | { transactionXdr: string }
  | { operationXdr: string; footprintXdr: string };

export interface InvokeOptions {
  /** Default: enforce when the operation carries auth entries, record otherwise. */
  authMode?: AuthMode;
  /** Record AddressV2 credentials (CAP-71). */
  useUpgradedAuth?: boolean;
  instructionLeeway?: number;
  /** Diagnostic events (default true). */
  enableDebug?: boolean;
  ledger?: NativeLedgerInput;
  /** 32 bytes, for reproducible results; random when omitted. */
  prngSeed?: Uint8Array;
  /** The developer network's impersonation (src/standalone/impersonation.ts): both or neither. */
  impersonationSigner?: Buffer;
  impersonatedAccounts?: Buffer[];
  /** Gives up waiting for a free slot (a running simulation is not interrupted). */
  signal?: AbortSignal;
}

export interface FootprintOptions {
  ledger?: NativeLedgerInput;
  signal?: AbortSignal;
}

/** Every slot is busy and the waiting line is full. */
export class PreflightQueueFullError extends Error {
  override readonly name = 'PreflightQueueFullError';
  constructor() { super('preflight queue full'); }
}

export interface StateChange {
  type: 'created' | 'updated' | 'deleted';
  /** LedgerKey XDR, base64. */
  key: string;
  /** LedgerEntry XDR, base64. */
  before?: string;
  after?: string;
}

export interface Simulation {
  /** The host's text on failure (e.g. `HostError: Error(Contract, #1)\n\nEvent log ...`). */
  error?: string;
  /** The invocation's return value (ScVal XDR) and its auth entries; successful invocations only. */
  result?: { xdr: string; auth: string[] };
  /** SorobanTransactionData XDR, base64. */
  transactionData?: string;
  /** Stroops, decimal; equals transactionData's resourceFee ("0" on failure). */
  minResourceFee: string;
  /** DiagnosticEvent XDR, base64, each. */
  events: string[];
  /** ContractEvent XDR, base64, each. */
  contractEvents: string[];
  stateChanges: StateChange[];
  cost: { cpuInsns: string; memBytes: string };
  restorePreamble?: { transactionData: string; minResourceFee: string };
  latestLedger: number;
  /**
   * The protocol of the host line that ran the simulation (the ledger's: the previous line serves
   * networks not yet upgraded); absent when none did. For logs and metrics, not the RPC answer.
   */
  hostProtocol?: number;
  /**
   * LedgerKey XDR (base64) of every key the host asked the database for, found or not, failures
   * included (a fork resolves them: src/fork/simulationDiscovery.ts). Not part of the RPC answer.
   */
  readKeys?: string[];
}

export interface SimulatorOptions {
  dbPath: string;
  networkPassphrase: string;
  /** Simulations running at once; more wait in line. Default: the number of cores, at least 1, at most 3. */
  maxConcurrent?: number;
  /** Simulations waiting for a slot; one more is refused (PreflightQueueFullError). Default: no limit. */
  maxWaiting?: number;
  /** For tests: another addon implementation. */
  addon?: NativeAddon;
}

const orUndefined = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

function normalize(r: NativeSimulationResult): Simulation {
  const error = orUndefined(r.error);
  const resultXdr = orUndefined(r.result);
  const preamble = orUndefined(r.restorePreamble);
  return {
    ...(error !== undefined ? { error } : {}),
    ...(resultXdr !== undefined ? { result: { xdr: resultXdr, auth: r.auth } } : {}),
    ...(r.transactionData ? { transactionData: r.transactionData } : {}),
    minResourceFee: String(r.minResourceFee),
    events: r.events,
    contractEvents: r.contractEvents,
    stateChanges: r.stateChanges.map((c) => {
      const before = orUndefined(c.before);
      const after = orUndefined(c.after);
      return {
        type: before === undefined ? 'created' : after === undefined ? 'deleted' : 'updated',
        key: c.key,
        ...(before !== undefined ? { before } : {}),
        ...(after !== undefined ? { after } : {}),
      };
    }),
    cost: { cpuInsns: String(r.cpuInstructions), memBytes: String(r.memoryBytes) },
    ...(preamble ? { restorePreamble: { transactionData: preamble.transactionData, minResourceFee: String(preamble.minResourceFee) } } : {}),
    latestLedger: r.latestLedger,
    ...(r.hostProtocol ? { hostProtocol: r.hostProtocol } : {}),
    ...(r.readKeys ? { readKeys: r.readKeys } : {}),
  };
}

export class Simulator {
  private readonly addon: NativeAddon;
  private readonly dbPath: string;
  private readonly networkPassphrase: string;
  private readonly maxConcurrent: number;
  private readonly maxWaiting: number;
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** Calls refused with PreflightQueueFullError so far (for metrics). */
  queueFullErrors = 0;

  constructor(opts: SimulatorOptions) {
    this.addon = opts.addon ?? loadNative();
    this.dbPath = opts.dbPath;
    this.networkPassphrase = opts.networkPassphrase;
    this.maxConcurrent = Math.max(1, opts.maxConcurrent ?? Math.min(3, availableParallelism()));
    this.maxWaiting = Math.max(0, opts.maxWaiting ?? Infinity);
  }

  /** Simulations in flight and waiting (for metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /** Simulates an InvokeHostFunction operation. Failures come back in `error`, never as a rejection. */
  invoke(input: InvokeInput, opts: InvokeOptions = {}): Promise<Simulation> {
    const { signal, ...rest } = opts;
    return this.limited(async () => normalize(await this.addon.simulateInvoke({
      dbPath: this.dbPath,
      networkPassphrase: this.networkPassphrase,
      ...input,
      ...rest,
    })), signal);
  }

  /** Simulates ExtendFootprintTTL (with restorePreamble when archived entries need a restore first) or RestoreFootprint. */
  footprint(input: FootprintInput, opts: FootprintOptions = {}): Promise<Simulation> {
    const { signal, ...rest } = opts;
    return this.limited(async () => normalize(await this.addon.simulateFootprint({
      dbPath: this.dbPath,
      networkPassphrase: this.networkPassphrase,
      ...input,
      ...rest,
    })), signal);
  }

  /** Releases the addon's idle read connections to the database. */
  close(): void {
    this.addon.closeDatabase(this.dbPath);
  }

  private async limited<T>(run: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running >= this.maxConcurrent) {
      if (this.waiting.length >= this.maxWaiting) {
        this.queueFullErrors++;
        throw new PreflightQueueFullError();
      }
      await new Promise<void>((resolve, reject) => {
        if (signal === undefined) {
          this.waiting.push(resolve);
          return;
        }
        const onAbort = (): void => {
          const i = this.waiting.indexOf(wake);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal.reason);
        };
        const wake = (): void => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        this.waiting.push(wake);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    } else {
      this.running++;
    }
    try {
      return await run();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); // hand the slot over; `running` stays the same
      else this.running--;
    }
  }
}
