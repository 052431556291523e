// Test support for the RPC method tests: a real SqliteStore filled with ten consecutive pubnet
// ledgers (protocol 26, LedgerCloseMeta V2), a MethodContext around it, and JSON-shape assertions.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { xdr } from '@stellar/stellar-sdk';
import { defaultConfig, type Config } from '../../../../src/config/config.ts';
import { ledgerToBatch } from '../../../../src/ingest/ledgerToBatch.ts';
import { RpcError } from '../../../../src/rpc/errors.ts';
import { AnswerBudget } from '../../../../src/rpc/answerBudget.ts';
import { HeavyWork } from '../../../../src/rpc/heavyWork.ts';
import { methodCall } from '../../../../src/rpc/callScope.ts';
import { resultText } from '../../../../src/rpc/rawJson.ts';
import type { MethodCall } from '../../../../src/rpc/methods/types.ts';
import type { Method, MethodContext, NodeInfo, TransactionSimulator } from '../../../../src/rpc/methods/types.ts';
import type { SubmitResult, TransactionSubmitter } from '../../../../src/submit/transactionSubmitter.ts';
import type { Simulation } from '../../../../src/host/simulator.ts';
import { SqliteStore } from '../../../../src/store/sqlite/sqliteStore.ts';
import { networkIdOf } from '../../../../src/xdr/codec.ts';

export const PUBNET_PASSPHRASE = 'Public Global Stellar Network ; September 2015';
export const FIRST_LEDGER = 63092982;
export const LAST_LEDGER = 63092991;
const FIXTURES = new URL('../../../../test/fixtures/pubnet/ledgers/', import.meta.url);

const rawLedgers = new Map<number, Uint8Array>();
/** The raw LedgerCloseMeta bytes of one fixture ledger. */
export function ledgerBytes(seq: number): Uint8Array {
  let bytes = rawLedgers.get(seq);
  if (!bytes) {
    bytes = new Uint8Array(gunzipSync(readFileSync(new URL(`ledger-${seq}.xdr.gz`, FIXTURES))));
    rawLedgers.set(seq, bytes);
  }
  return bytes;
}

/** The fixture ledger decoded by the SDK alone (independent of our ingestion code). */
const decodedLedgers = new Map<number, xdr.LedgerCloseMetaV2Wire>();
export function ledgerMeta(seq: number): xdr.LedgerCloseMetaV2Wire {
  let meta = decodedLedgers.get(seq);
  if (!meta) {
    const lcm = xdr.LedgerCloseMeta.schema.decode(ledgerBytes(seq));
    assert.equal(lcm.v, 2);
    meta = lcm.v2;
    decodedLedgers.set(seq, meta);
  }
  return meta;
}

export interface TestStore {
  store: SqliteStore;
  close(): void;
}

/** A fresh store in a temp dir, holding the fixture ledgers first..last. */
export function openStore(first = FIRST_LEDGER, last = LAST_LEDGER): TestStore {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-methods-'));
  const store = new SqliteStore(join(dir, 'rpc.sqlite'));
  const networkId = networkIdOf(PUBNET_PASSPHRASE);
  for (let seq = first; seq <= last; seq++) store.ingest(ledgerToBatch({ bytes: ledgerBytes(seq) }, networkId), 120960);
  return {
    store,
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** An empty store (no ledger ingested). */
export function openEmptyStore(): TestStore {
  return openStore(FIRST_LEDGER, FIRST_LEDGER - 1);
}

export const testNode: NodeInfo = {
  version: '0.1.0-test',
  commitHash: 'abcdef0123456789',
  buildTimestamp: '2026-01-01T00:00:00',
  captiveCoreVersion: 'lumen-rpc standalone',
  friendbotUrl: undefined,
};

/** The heavy-work slots and XDR JSON workers the unit tests share (workers start on first use). */
export const testHeavy = new HeavyWork({ concurrency: 2, jsonThreads: 1 });

/** One call's limits: a signal that never fires (unless given) and a budget of `budgetBytes` (0: none). */
export const testCall = (signal = new AbortController().signal, budgetBytes = 0): MethodCall =>
  methodCall(signal, new AnswerBudget(budgetBytes));


export const rejectingSubmitter: TransactionSubmitter = {
  submit(): Promise<SubmitResult> { throw new Error('no submissions in this test'); },
};

export const unavailableSimulator: TransactionSimulator = {
  invoke(): Promise<Simulation> { throw new Error('no simulations in this test'); },
  footprint(): Promise<Simulation> { throw new Error('no simulations in this test'); },
};

export function contextFor(store: SqliteStore, overrides: {
  config?: Partial<Config>; node?: Partial<NodeInfo>; submitter?: TransactionSubmitter; simulator?: TransactionSimulator;
} = {}): MethodContext {
  return {
    store,
    config: { ...defaultConfig, networkPassphrase: PUBNET_PASSPHRASE, ...overrides.config },
    node: { ...testNode, ...overrides.node },
    submitter: overrides.submitter ?? rejectingSubmitter,
    simulator: overrides.simulator ?? unavailableSimulator,
    heavy: testHeavy,
  };
}

/** Runs a handler and round-trips its result through JSON, as the transport sends it. */
export async function call(method: Method, params: Record<string, unknown>, ctx: MethodContext): Promise<any> {
  const result = await method.handler(params, ctx, testCall());
  return JSON.parse(resultText(result));
}

/** Runs a handler that must fail, and returns its RpcError. */
export async function callError(method: Method, params: Record<string, unknown>, ctx: MethodContext): Promise<RpcError> {
  try {
    await method.handler(params, ctx, testCall());
  } catch (e) {
    assert.ok(e instanceof RpcError, `expected an RpcError, got ${String(e)}`);
    return e;
  }
  assert.fail(`${method.name} succeeded but was expected to fail`);
}

export async function assertRpcError(
  method: Method, params: Record<string, unknown>, ctx: MethodContext, code: number, message: string,
): Promise<void> {
  const e = await callError(method, params, ctx);
  assert.deepEqual({ code: e.code, message: e.message }, { code, message });
}

export type JsonType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'null';
const typeOf = (v: unknown): JsonType =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : (typeof v as JsonType);

/** Asserts the object has exactly these keys, each of the given JSON type. */
export function assertShape(value: unknown, shape: Record<string, JsonType>, what = 'value'): void {
  assert.equal(typeOf(value), 'object', `${what} is not an object`);
  const obj = value as Record<string, unknown>;
  assert.deepEqual(Object.keys(obj).sort(), Object.keys(shape).sort(), `${what}: keys`);
  for (const [k, t] of Object.entries(shape)) assert.equal(typeOf(obj[k]), t, `${what}.${k} should be a ${t}`);
}

/** A string holding a non-negative decimal integer (how the reference encodes int64 as `,string`). */
export const assertDecimalString = (v: unknown, what: string): void =>
  assert.match(String(v), /^(0|[1-9][0-9]*)$/, `${what} should be a decimal string, got ${String(v)}`);

export interface FixtureEnvelope {
  envelope: xdr.TransactionEnvelopeWire;
  envelopeXdr: string;
  innerHash: string | undefined;             // fee bumps only
  operations: xdr.OperationWire[];           // the inner transaction's
}

const networkId = createHash('sha256').update(PUBNET_PASSPHRASE).digest();
const payloadHash = (tagged: xdr.TransactionSignaturePayloadTaggedTransactionWire): string =>
  createHash('sha256').update(xdr.TransactionSignaturePayload.schema.encode({ networkId, taggedTransaction: tagged })).digest('hex');

/**
 * Every envelope of a fixture ledger, keyed by its network hash: sha256 of the
 * TransactionSignaturePayload, built here from the SDK's schemas (not our xdr helpers).
 */
export function envelopesByHash(seq: number): Map<string, FixtureEnvelope> {
  const set = ledgerMeta(seq).txSet;
  const out = new Map<string, FixtureEnvelope>();
  for (const phase of set.v1TxSet.phases) {
    const envs = phase.v === 0
      ? phase.v0Components.flatMap((c) => c.txsMaybeDiscountedFee.txs)
      : phase.parallelTxsComponent.executionStages.flat(2);
    for (const envelope of envs) {
      const envelopeXdr = Buffer.from(xdr.TransactionEnvelope.schema.encode(envelope)).toString('base64');
      if (envelope.type === 5) {
        const inner = envelope.feeBump.tx.innerTx.v1.tx;
        out.set(payloadHash({ type: 5, feeBump: envelope.feeBump.tx }),
          { envelope, envelopeXdr, innerHash: payloadHash({ type: 2, tx: inner }), operations: inner.operations });
      } else {
        assert.equal(envelope.type, 2, 'pubnet protocol 26 ledgers carry V1 envelopes');
        const tx = envelope.type === 2 ? envelope.v1.tx : assert.fail();
        out.set(payloadHash({ type: 2, tx }), { envelope, envelopeXdr, innerHash: undefined, operations: tx.operations });
      }
    }
  }
  return out;
}
