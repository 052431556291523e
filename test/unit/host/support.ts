// Test scaffolding for the native host: a hand-assembled Soroban contract and a real node database
// (SqliteStore) holding the genesis network configuration, a root account and that contract.
import { xdr } from '../../../src/xdr/xdr.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { ledgerKeyOf, ttlKeyFor } from '../../../src/xdr/ledgerKeys.ts';
import {
  encodeLedgerEntry, encodeLedgerKey, sha256, toBase64, type AccountId, type LedgerEntry, type LedgerKey, type ScVal,
} from '../../../src/xdr/codec.ts';
import { genesisConfigSettingEntries, hostInfo } from '../../../src/host/index.ts';
import { DEFAULT_PROTOCOL } from '../../../src/ledger/protocols.ts';

export const PASSPHRASE = 'Standalone Network ; February 2017';
export const PROTOCOL = 28;
export const CLOSE_TIME = 1_750_000_000n;

// ------------------------------------------------------------------------------------------------
// A tiny Soroban contract, assembled by hand. Values cross the host boundary as 64-bit `Val`s:
// tag in the low 8 bits (U32Val = 4, Error = 3), payload in the high 32 bits.

const u32Val = (n: number): bigint => (BigInt(n) << 32n) | 4n;
const contractErrorVal = (code: number): bigint => (BigInt(code) << 32n) | 3n; // Error(Contract, #code)

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(v: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(v & 0x7fn);
    v >>= 7n;
    const done = (v === 0n && (b & 0x40) === 0) || (v === -1n && (b & 0x40) !== 0);
    out.push(done ? b : b | 0x80);
    if (done) return out;
  }
}

const name = (s: string): number[] => [...uleb(s.length), ...Buffer.from(s, 'utf8')];
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];

const I64 = 0x7e;
const OP = {
  unreachable: 0x00, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, br: 0x0c, call: 0x10, drop: 0x1a,
  localGet: 0x20, localSet: 0x21, i64Load: 0x29, i64Store: 0x37, memoryGrow: 0x40, i32Const: 0x41, i64Const: 0x42,
  i64Eq: 0x51, i64Add: 0x7c, i64Sub: 0x7d, i64Or: 0x84, i64Shl: 0x86,
};
const i64Const = (v: bigint): number[] => [OP.i64Const, ...sleb(v)];
const i32Const = (v: number): number[] => [OP.i32Const, ...sleb(BigInt(v))];
/** i64.load / i64.store at a constant address (alignment 8, offset 0). */
const load64 = (address: number): number[] => [...i32Const(address), OP.i64Load, 3, 0];
const store64 = (address: number, value: bigint): number[] => [...i32Const(address), ...i64Const(value), OP.i64Store, 3, 0];
/** Linear memory at instantiation, in 64 KiB pages: as large as a Soroban SDK contract's. */
export const MEMORY_PAGES = 17;
const GROW_PAGES = 16;

/**
 * A module for hosts of `protocol` (its interface version; a host refuses newer ones).
 * Exports: `hello() -> 42u32`, `add(a: u32, b: u32) -> u32`, `fail()` (returns Error(Contract, #1)),
 * `trap()` (wasm unreachable), `spin()` (loops until the budget runs out),
 * `incr(by: u32) -> u32` (adds to a persistent counter stored under the key 0u32) and `grow() -> u32`
 * (grows the linear memory; 0x1239 when the new pages read zero and the old ones kept their data).
 */
export function testContractWasm(protocol = PROTOCOL): Uint8Array {
  const types = [
    [0x60, 0, 1, I64],                 // 0: () -> i64
    [0x60, 1, I64, 1, I64],            // 1: (i64) -> i64
    [0x60, 2, I64, I64, 1, I64],       // 2: (i64, i64) -> i64
    [0x60, 3, I64, I64, I64, 1, I64],  // 3: (i64, i64, i64) -> i64
  ];
  // Host functions (module "l" = ledger): put_contract_data, has_contract_data, get_contract_data.
  const imports = [
    [...name('l'), ...name('_'), 0x00, 3],
    [...name('l'), ...name('0'), 0x00, 2],
    [...name('l'), ...name('1'), 0x00, 2],
  ];
  const [PUT, HAS, GET] = [0, 1, 2];
  const PERSISTENT = 1n;
  const KEY = u32Val(0);
  const funcs: Array<{ name: string; type: number; locals: number; body: number[] }> = [
    { name: 'hello', type: 0, locals: 0, body: i64Const(u32Val(42)) },
    { name: 'add', type: 2, locals: 0, body: [OP.localGet, 0, OP.localGet, 1, OP.i64Add, ...i64Const(4n), OP.i64Sub] },
    { name: 'fail', type: 0, locals: 0, body: i64Const(contractErrorVal(1)) },
    { name: 'trap', type: 0, locals: 0, body: [OP.unreachable] },
    { name: 'spin', type: 0, locals: 0, body: [OP.loop, 0x40, OP.br, 0, OP.end, ...i64Const(2n)] },
    {
      // Writes 0x1234 low in memory, grows the memory by GROW_PAGES, then adds up: the first word of the
      // new pages (zero), the same word after storing 5 there, and the low word (still 0x1234).
      name: 'grow', type: 0, locals: 0, body: [
        ...store64(1000, 0x1234n),
        ...i32Const(GROW_PAGES), OP.memoryGrow, 0, OP.drop,
        ...load64(MEMORY_PAGES * 65536 + 8),
        ...store64(MEMORY_PAGES * 65536 + 8, 5n),
        ...load64(MEMORY_PAGES * 65536 + 8), OP.i64Add,
        ...load64(1000), OP.i64Add,
        ...i64Const(32n), OP.i64Shl, ...i64Const(4n), OP.i64Or, // as a U32Val
      ],
    },
    {
      name: 'incr', type: 1, locals: 1, body: [
        ...i64Const(KEY), ...i64Const(PERSISTENT), OP.call, HAS, ...i64Const(1n), OP.i64Eq,
        OP.if, I64, ...i64Const(KEY), ...i64Const(PERSISTENT), OP.call, GET, OP.else, ...i64Const(u32Val(0)), OP.end,
        OP.localGet, 0, OP.i64Add, ...i64Const(4n), OP.i64Sub, OP.localSet, 1,
        ...i64Const(KEY), OP.localGet, 1, ...i64Const(PERSISTENT), OP.call, PUT, OP.drop,
        OP.localGet, 1,
      ],
    },
  ];
  const firstLocal = imports.length;
  const codes = funcs.map((f) => {
    const locals = f.locals ? vec([[...uleb(f.locals), I64]]) : [0];
    const body = [...locals, ...f.body, OP.end];
    return [...uleb(body.length), ...body];
  });
  // contractenvmetav0: SCEnvMetaEntry SC_ENV_META_KIND_INTERFACE_VERSION {protocol, preRelease 0}.
  const envMeta = [0, 0, 0, 0, 0, 0, 0, protocol, 0, 0, 0, 0];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types)),
    ...section(2, vec(imports)),
    ...section(3, vec(funcs.map((f) => uleb(f.type)))),
    ...section(5, vec([[0x00, ...uleb(MEMORY_PAGES)]])),
    ...section(7, vec(funcs.map((f, i) => [...name(f.name), 0x00, ...uleb(firstLocal + i)]))),
    ...section(10, vec(codes)),
    ...section(0, [...name('contractenvmetav0'), ...envMeta]),
  ]);
}

// ------------------------------------------------------------------------------------------------
// XDR builders

export const rootAccount: AccountId = { type: 0, ed25519: sha256(Buffer.from('host-test-root')) };
/** The root account as AccountId XDR, base64 (a simulation's `sourceAccount`). */
export const ROOT = toBase64(xdr.AccountId.schema.encode(rootAccount));
export const contractId = sha256(Buffer.from('host-test-contract'));

export const u32 = (n: number): ScVal => ({ type: 3, u32: n });

export function account(id: AccountId, balance = 100_000_000_000n): LedgerEntry {
  return {
    lastModifiedLedgerSeq: 1,
    data: {
      type: 0,
      account: {
        accountId: id, balance, seqNum: 4294967296n, numSubEntries: 0, inflationDest: null, flags: 0,
        homeDomain: new xdr.XdrString(''), thresholds: new Uint8Array([1, 0, 0, 0]), signers: [], ext: { v: 0 },
      },
    },
    ext: { v: 0 },
  };
}

export const codeKey = (hash: Uint8Array): LedgerKey => ({ type: 7, contractCode: { hash } });

export const instanceKey = (id: Uint8Array): LedgerKey =>
  ({ type: 6, contractData: { contract: { type: 1, contractId: id }, key: { type: 20 }, durability: 1 } });

export function instanceEntry(id: Uint8Array, wasmHash: Uint8Array): LedgerEntry {
  return {
    lastModifiedLedgerSeq: 2,
    data: {
      type: 6,
      contractData: {
        ext: { v: 0 }, contract: { type: 1, contractId: id }, key: { type: 20 }, durability: 1,
        val: { type: 19, instance: { executable: { type: 0, wasmHash }, storage: null } },
      },
    },
    ext: { v: 0 },
  };
}

/** The persistent entry `incr` keeps its counter in. */
export const counterKey = (id: Uint8Array): LedgerKey =>
  ({ type: 6, contractData: { contract: { type: 1, contractId: id }, key: u32(0), durability: 1 } });

export function counterEntry(id: Uint8Array, value: number): LedgerEntry {
  return {
    lastModifiedLedgerSeq: 2,
    data: { type: 6, contractData: { ext: { v: 0 }, contract: { type: 1, contractId: id }, key: u32(0), durability: 1, val: u32(value) } },
    ext: { v: 0 },
  };
}

export function ttlEntry(key: LedgerKey, liveUntilLedgerSeq: number): LedgerEntry {
  const ttl = ttlKeyFor(key);
  if (ttl.type !== 9) throw new Error('not a ttl key');
  return { lastModifiedLedgerSeq: 1, data: { type: 9, ttl: { keyHash: ttl.ttl.keyHash, liveUntilLedgerSeq } }, ext: { v: 0 } };
}

export function invokeOp(id: Uint8Array, fn: string, args: ScVal[]): string {
  const op: xdr.OperationWire = {
    sourceAccount: null,
    body: {
      type: 24,
      invokeHostFunctionOp: {
        hostFunction: { type: 0, invokeContract: { contractAddress: { type: 1, contractId: id }, functionName: new xdr.XdrString(fn), args } },
        auth: [],
      },
    },
  };
  return toBase64(xdr.Operation.schema.encode(op));
}

export function uploadOp(wasm: Uint8Array): string {
  const op: xdr.OperationWire = {
    sourceAccount: null,
    body: { type: 24, invokeHostFunctionOp: { hostFunction: { type: 2, wasm }, auth: [] } },
  };
  return toBase64(xdr.Operation.schema.encode(op));
}

/** A TransactionEnvelope (v1) carrying one operation, with SorobanTransactionData when given. */
export function envelope(opB64: string, source: AccountId, sorobanData?: xdr.SorobanTransactionDataWire): string {
  const env: xdr.TransactionEnvelopeWire = {
    type: 2,
    v1: {
      tx: {
        sourceAccount: { type: 0, ed25519: source.ed25519 },
        fee: 1_000_000, seqNum: 4294967297n, cond: { type: 0 }, memo: { type: 0 },
        operations: [xdr.Operation.schema.decode(Buffer.from(opB64, 'base64'))],
        ext: sorobanData ? { v: 1, sorobanData } : { v: 0 },
      },
      signatures: [],
    },
  } as xdr.TransactionEnvelopeWire;
  return toBase64(xdr.TransactionEnvelope.schema.encode(env));
}

export const decodeScVal = (b64: string): ScVal => xdr.ScVal.schema.decode(Buffer.from(b64, 'base64'));

// ------------------------------------------------------------------------------------------------
// A node database

function headerEntry(sequence: number, closeTime: bigint, protocol: number): Uint8Array {
  const zero = new Uint8Array(32);
  const header: xdr.LedgerHeaderWire = {
    ledgerVersion: protocol, previousLedgerHash: zero,
    scpValue: { txSetHash: zero, closeTime, upgrades: [], ext: { v: 0 } },
    txSetResultHash: zero, bucketListHash: zero, ledgerSeq: sequence, totalCoins: 1_000_000_000_000_000_000n,
    feePool: 0n, inflationSeq: 0, idPool: 0n, baseFee: 100, baseReserve: 5_000_000, maxTxSetSize: 100,
    skipList: [zero, zero, zero, zero], ext: { v: 0 },
  };
  return xdr.LedgerHeaderHistoryEntry.schema.encode({ hash: sha256(Buffer.from(`ledger ${sequence}`)), header, ext: { v: 0 } });
}

export interface TestDb {
  path: string;
  store: SqliteStore;
  /** Closes a ledger that writes these entries (the next sequence). */
  closeLedger(entries: LedgerEntry[], deletes?: LedgerKey[]): number;
  dispose(): void;
}

/**
 * A fresh database holding ledger 1: the genesis config settings and the root account. Its ledgers
 * say `protocol` (the host line a simulation runs on follows it).
 */
export function createTestDb(protocol = PROTOCOL): TestDb {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-host-'));
  const path = join(dir, 'node.sqlite');
  const store = new SqliteStore(path);
  let sequence = 0;
  const db: TestDb = {
    path,
    store,
    closeLedger(entries, deletes = []) {
      sequence++;
      const closeTime = CLOSE_TIME + BigInt(sequence * 5);
      store.ingest({
        ledger: {
          sequence, hash: sha256(Buffer.from(`ledger ${sequence}`)), closeTime: Number(closeTime), protocolVersion: protocol,
          header: headerEntry(sequence, closeTime, protocol), meta: new Uint8Array(0),
        },
        transactions: [],
        entryWrites: [
          ...entries.map((e) => ({ key: encodeLedgerKey(ledgerKeyOf(e.data)), entry: encodeLedgerEntry(e), lastModified: sequence })),
          ...deletes.map((k) => ({ key: encodeLedgerKey(k), entry: null, lastModified: sequence })),
        ],
        feeSamples: [],
      }, 1000);
      return sequence;
    },
    dispose() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // a protocol no line runs (a test of the refusal) gets the default protocol's settings
  const settingsProtocol = hostInfo().protocols.includes(protocol) ? protocol : DEFAULT_PROTOCOL;
  const config = genesisConfigSettingEntries(1, settingsProtocol).map((b) => xdr.LedgerEntry.schema.decode(b));
  db.closeLedger([...config, account(rootAccount)]);
  return db;
}
