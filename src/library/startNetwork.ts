// lumen-rpc as a library, the package's entry (`import { startNetwork } from 'lumen-rpc'`): a
// standalone network inside a test process, that code starts and stops, as test suites
// start Hardhat's in-process network or Anvil. It is the node the CLI runs (startNode), set for
// tests: a database in a temporary folder (removed at stop), an ephemeral loopback port, ledgers
// closed as soon as a transaction is queued, the developer methods served (loopback only), no
// banner, and only warnings and errors logged, on stderr (the test runner's output stays its own).
// The process's environment is not read (LUMEN_RPC_* variables configure the CLI's node, not a
// test's), so every test suite gets the same network.
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { createLogger } from '../log.ts';
import { startNode } from '../node.ts';
import { testAccounts } from '../standalone/testAccounts.ts';

export interface NetworkOptions {
  /** Test accounts funded at genesis, 10,000 XLM each (SEP-5 keys of the public test mnemonic). Default 10. */
  accounts?: number;
  /**
   * When ledgers close: 'instant' (the default: as soon as a transaction is queued, and every
   * ledger-close-interval), 'interval' (on the interval only) or 'manual' (only by closeLedgers()).
   */
  closeMode?: 'instant' | 'interval' | 'manual';
  /**
   * The protocol the network starts at: 30 by default, as the public networks run. Clients without
   * protocol-30 XDR (npm's @stellar/stellar-sdk 17.2) cannot read its ledger headers
   * (getLatestLedger, getLedgers): give 28 for them.
   */
  protocol?: 28 | 29 | 30;
  /**
   * Any other `lumen-rpc start` option, by its flag name and as on the command line, e.g.
   * `{ 'ledger-close-interval': '250ms', 'max-snapshots': 100 }` (docs/configuration.md).
   */
  flags?: Record<string, string | number | boolean>;
}

/** A test account: its address and secret seed (for Keypair.fromSecret). */
export interface NetworkAccount {
  publicKey: string;
  secret: string;
}

/** A snapshot of the network: its id (for revert) and the ledger it was taken at. */
export interface NetworkSnapshot {
  id: string;
  ledger: number;
}

export interface Network {
  /** The JSON-RPC URL (for rpc.Server, stellar-cli's --rpc-url, Python's SorobanServer). */
  readonly rpcUrl: string;
  readonly passphrase: string;
  /** The faucet (friendbot): GET ?addr=G... or C... funds an address with 10,000 XLM. */
  readonly friendbotUrl: string;
  readonly accounts: readonly NetworkAccount[];
  /** The network's SQLite database, in a temporary folder that stop() removes. */
  readonly databasePath: string;
  /** One JSON-RPC call to the network: its result, or an Error carrying the JSON-RPC error's code. */
  request<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  /** Names the network's state now (lumen_snapshot). */
  snapshot(): Promise<NetworkSnapshot>;
  /** Brings the network back to a snapshot (lumen_revert); later snapshots are dropped. */
  revert(snapshot: NetworkSnapshot | string): Promise<void>;
  /** Closes `count` ledgers now (lumen_closeLedgers); resolves to the latest ledger. */
  closeLedgers(count?: number): Promise<number>;
  /** Runs `fn` between a snapshot and a revert to it: whatever it changes is undone, however it ends. */
  isolated<T>(fn: () => Promise<T>): Promise<T>;
  /** Stops the network and removes its database. */
  stop(): Promise<void>;
}

/**
 * A test runner's hooks: vitest's and jest's by these names; node:test's as
 * `{ beforeAll: before, afterAll: after, beforeEach, afterEach }`.
 */
export interface SuiteHooks {
  beforeAll(fn: () => Promise<void>): unknown;
  afterAll(fn: () => Promise<void>): unknown;
  beforeEach(fn: () => Promise<void>): unknown;
  afterEach(fn: () => Promise<void>): unknown;
}

/** A JSON-RPC error answered by the network. */
export class NetworkRequestError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(method: string, error: { code: number; message: string; data?: unknown }) {
    super(`${method}: ${error.message} (${error.code})`);
    this.name = 'NetworkRequestError';
    this.code = error.code;
    this.data = error.data;
  }
}

const DEFAULT_ACCOUNTS = 10;

export async function startNetwork(options: NetworkOptions = {}): Promise<Network> {
  const folder = mkdtempSync(join(tmpdir(), 'lumen-rpc-'));
  const accounts = options.accounts ?? DEFAULT_ACCOUNTS;
  const removeFolder = (): void => rmSync(folder, { recursive: true, force: true });
  const databasePath = join(folder, 'network.sqlite');
  let node: Awaited<ReturnType<typeof startNode>>;
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({
      env: {},
      flags: {
        'endpoint': '127.0.0.1:0', 'db-path': databasePath, 'log-level': 'warn',
        'close-mode': options.closeMode ?? 'instant', 'accounts': accounts,
        ...(options.protocol === undefined ? {} : { protocol: options.protocol }),
        ...options.flags,
      },
    });
    node = await startNode(config, createLogger(config, process.stderr), { banner: false });
  } catch (e) {
    removeFolder();
    throw e;
  }
  const rpcUrl = node.url;
  // node:http, not fetch: a process's first fetch loads undici, tens of milliseconds of a test's start
  const agent = new Agent({ keepAlive: true });
  let nextId = 1;
  const request = <T>(method: string, params?: Record<string, unknown>): Promise<T> => new Promise((resolve, reject) => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) });
    const req = httpRequest(rpcUrl, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        try {
          const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: T; error?: { code: number; message: string; data?: unknown } };
          if (answer.error !== undefined) reject(new NetworkRequestError(method, answer.error));
          else resolve(answer.result as T);
        } catch (e) {
          reject(new Error(`${method}: the network answered HTTP ${res.statusCode} with no JSON-RPC answer (${(e as Error).message})`));
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
  const passphrase = config.networkPassphrase;
  let stopped: Promise<void> | undefined;
  const snapshot = (): Promise<NetworkSnapshot> => request<NetworkSnapshot>('lumen_snapshot');
  const revert = async (to: NetworkSnapshot | string): Promise<void> => {
    await request('lumen_revert', { id: typeof to === 'string' ? to : to.id });
  };
  return {
    rpcUrl,
    passphrase,
    friendbotUrl: `${rpcUrl}/friendbot`,
    accounts: testAccounts(accounts).map(({ publicKey, secret }) => ({ publicKey, secret })),
    databasePath,
    request,
    snapshot,
    revert,
    async closeLedgers(count = 1) {
      return (await request<{ latestLedger: number }>('lumen_closeLedgers', { count })).latestLedger;
    },
    async isolated(fn) {
      const before = await snapshot();
      try {
        return await fn();
      } finally {
        await revert(before);
      }
    },

    stop() {
      agent.destroy();
      stopped ??= node.close().finally(removeFolder);
      return stopped;
    },
  };
}

/**
 * A network for one test suite, with each test isolated: started before the suite's first test,
 * a snapshot before each test and a revert to it after, stopped after the last. Registered with the
 * runner's own hooks, so a suite writes one line: `const net = useNetwork({ beforeAll, afterAll,
 * beforeEach, afterEach }, { accounts: 3 })`. The network exists once the suite runs: `net` may be
 * used in tests and hooks, not while the suite is being declared.
 */
export function useNetwork(hooks: SuiteHooks, options?: NetworkOptions): Network {
  let net: Network | undefined;
  const started = (): Network => {
    if (net === undefined) throw new Error('useNetwork: the network starts in the suite\'s beforeAll hook; use it in tests and hooks');
    return net;
  };
  hooks.beforeAll(async () => { net = await startNetwork(options); });
  hooks.afterAll(async () => { await net?.stop(); });
  // one snapshot at a time: a suite's tests run one after another
  let before: NetworkSnapshot | undefined;
  hooks.beforeEach(async () => { before = await started().snapshot(); });
  hooks.afterEach(async () => {
    if (before === undefined) return;
    const to = before;
    before = undefined;
    await started().revert(to);
  });
  // the started network's members, looked up at each use (there is none yet when this returns)
  return new Proxy({} as Network, {
    get(_target, key) {
      const value = Reflect.get(started(), key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(net) : value;
    },
  });
}
