// Test support for getEvents: stores filled through the real ingestion path (ledgerToBatch + the
// SQLite store), fixture readers, and an independent extraction of the events a LedgerCloseMeta
// holds, written from the reference's rules with the SDK alone (not our ingest code).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zstdDecompressSync } from 'node:zlib';
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { defaultConfig } from '../../../src/config/config.ts';
import { ledgerToBatch, type LedgerInput } from '../../../src/ingest/ledgerToBatch.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import type { IngestBatch } from '../../../src/store/types.ts';
import type { EventRow } from '../../../src/events/types.ts';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { networkIdOf } from '../../../src/xdr/codec.ts';
import { rejectingSubmitter, testHeavy, testNode, unavailableSimulator } from '../methods/support/pubnet.ts';

export const TESTNET_PASSPHRASE = 'Test SDF Network ; September 2015';
export const FIXTURES = new URL('../../../test/fixtures/', import.meta.url);

export const readFixture = (path: string): Buffer => readFileSync(new URL(path, FIXTURES));
export const readJsonFixture = (path: string): any => JSON.parse(readFixture(path).toString('utf8'));

/** The LedgerCloseMetas of a SEP-54 batch file (zstd when the name says so). */
export function batchLedgers(path: string): Uint8Array[] {
  let bytes: Uint8Array = readFixture(path);
  if (/\.zstd?$/.test(path)) bytes = zstdDecompressSync(bytes);
  return xdr.LedgerCloseMetaBatch.schema.decode(bytes).ledgerCloseMetas.map((m) => xdr.LedgerCloseMeta.schema.encode(m));
}

export interface EventsStore {
  store: SqliteStore;
  ctx: MethodContext;
  dir: string;
  close(): void;
}

/** A fresh store holding the given consecutive ledgers, ingested with ledgerToBatch. */
export function storeWith(passphrase: string, ledgers: Array<Uint8Array | LedgerInput>, retention = 120960): EventsStore {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-events-'));
  const store = new SqliteStore(join(dir, 'rpc.sqlite'));
  const networkId = networkIdOf(passphrase);
  for (const l of ledgers) store.ingest(ledgerToBatch(l instanceof Uint8Array ? { bytes: l } : l, networkId), retention);
  return {
    store, dir,
    ctx: { store, config: { ...defaultConfig, networkPassphrase: passphrase }, node: testNode, submitter: rejectingSubmitter, simulator: unavailableSimulator, heavy: testHeavy },
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface ExpectedEvent {
  id: string;
  ledger: number;
  type: string;
  contractId: string;
  operationIndex: number;
  transactionIndex: number;
  txHash: string;
  inSuccessfulContractCall: boolean;
  topic: string[];
  value: string;
  closeTime: number;
}

const b64 = (v: xdr.ScValWire): string => Buffer.from(xdr.ScVal.schema.encode(v)).toString('base64');
const pad = (n: bigint | number, w: number) => n.toString().padStart(w, '0');

/**
 * Every contract/system event of a LedgerCloseMeta, as the reference stores it (db/event.go), in
 * the reference's order: its SQL sorts the id strings.
 */
export function expectedEvents(bytes: Uint8Array): ExpectedEvent[] {
  const lcm = xdr.LedgerCloseMeta.schema.decode(bytes);
  const body = lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2;
  const ledger = body.ledgerHeader.header.ledgerSeq;
  const closeTime = Number(body.ledgerHeader.header.scpValue.closeTime);
  const out: ExpectedEvent[] = [];
  let before = 0;
  let after = 0;
  const processing = body.txProcessing as Array<xdr.TransactionResultMetaWire>;
  processing.forEach((p, i) => {
    const txIndex = i + 1;
    const code = p.result.result.result.code;
    const base = {
      ledger, closeTime, txHash: Buffer.from(p.result.transactionHash).toString('hex'),
      inSuccessfulContractCall: code === 0 || code === 1,
    };
    const push = (e: xdr.ContractEventWire, tx: number, op: number, index: number) => {
      const toid = (BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | BigInt(op);
      out.push({
        ...base, id: `${pad(toid, 19)}-${pad(index, 10)}`, type: ['system', 'contract', 'diagnostic'][e.type],
        contractId: e.contractId ? StrKey.encodeContract(Buffer.from(e.contractId)) : '',
        operationIndex: op, transactionIndex: tx,
        topic: e.body.v0.topics.map(b64), value: b64(e.body.v0.data),
      });
    };
    const m = p.txApplyProcessing;
    if (m.v === 4) {
      let afterTx = 0;
      for (const te of m.v4.events) {
        if (te.stage === 0) push(te.event, 0, 0, before++);
        else if (te.stage === 1) push(te.event, txIndex, 4095, afterTx++);
        else if (te.stage === 2) push(te.event, 1048575, 0, after++);
        else assert.fail(`stage ${te.stage}`);
      }
      m.v4.operations.forEach((o, op) => o.events.forEach((e, k) => push(e, txIndex, op, k)));
    } else if (m.v === 3 && m.v3.sorobanMeta) {
      m.v3.sorobanMeta.events.forEach((e, k) => push(e, txIndex, 0, k));
    }
  });
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The fields of a getEvents item that ExpectedEvent covers (closeTime as ledgerClosedAt; pagingToken is the id). */
export function comparable(e: ExpectedEvent): Record<string, unknown> {
  return {
    type: e.type, ledger: e.ledger, ledgerClosedAt: new Date(e.closeTime * 1000).toISOString().replace('.000Z', 'Z'),
    contractId: e.contractId, id: e.id, pagingToken: e.id, operationIndex: e.operationIndex, transactionIndex: e.transactionIndex,
    txHash: e.txHash, topic: e.topic, value: e.value,
  };
}

/** `%019d-%010d` of a cursor, computed here independently of our code. */
export function eventId(ledger: number, tx: number, op: number, index: number): string {
  return `${pad((BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | BigInt(op), 19)}-${pad(index, 10)}`;
}

// ---------------------------------------------------------------------------------------------
// Synthetic ledgers written straight through the store's writer (no LedgerCloseMeta)

export const sym = (s: string): xdr.ScValWire => ({ type: 15, sym: new xdr.XdrString(s) } as xdr.ScValWire);
export const u32 = (n: number): xdr.ScValWire => ({ type: 3, u32: n } as xdr.ScValWire);

export function contractEventXdr(contractId: Uint8Array | null, topics: xdr.ScValWire[], data: xdr.ScValWire, type = 1): Uint8Array {
  return xdr.ContractEvent.schema.encode({ ext: { v: 0 }, contractId, type, body: { v: 0, v0: { topics, data } } });
}

/** One transaction of a synthetic ledger: its operations' events (ContractEvent XDR). */
export interface SyntheticTx { ops: Uint8Array[][]; fee?: Uint8Array; successful?: boolean }

/** An IngestBatch for ledger `seq` whose transactions emit the given events. */
export function syntheticBatch(seq: number, txs: SyntheticTx[], closeTime = 1_700_000_000 + seq * 5): IngestBatch {
  const events: EventRow[] = [];
  let fee = 0;
  txs.forEach((t, i) => { if (t.fee) events.push({ tx: 0, op: 0, index: fee++, applicationOrder: i + 1, event: t.fee }); });
  txs.forEach((t, i) => t.ops.forEach((list, op) => list.forEach((event, index) => events.push({ tx: i + 1, op, index, applicationOrder: i + 1, event }))));
  const hash = (i: number) => createHash('sha256').update(`${seq}/${i}`).digest();
  return {
    ledger: { sequence: seq, hash: hash(-1), closeTime, protocolVersion: 23, header: new Uint8Array(1), meta: new Uint8Array(1) },
    transactions: txs.map((t, i) => ({
      ledgerSequence: seq, applicationOrder: i + 1, hash: hash(i), innerHash: null, successful: t.successful ?? true, feeBump: false,
      envelope: new Uint8Array(1), result: new Uint8Array(1), meta: new Uint8Array(1),
      events: { transactionEventsXdr: [], contractEventsXdr: [], diagnosticEventsXdr: [] },
    })),
    entryWrites: [],
    feeSamples: [],
    events,
  };
}

export const txHashOf = (seq: number, applicationOrder: number): string =>
  createHash('sha256').update(`${seq}/${applicationOrder - 1}`).digest('hex');

/** An empty store to fill with syntheticBatch. */
export function emptyStore(passphrase = 'Standalone Network ; February 2017'): EventsStore {
  return storeWith(passphrase, []);
}
