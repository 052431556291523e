// ledgerToBatch through the native addon (native/src/ingest.rs): the same IngestBatch, about ten
// times faster on busy pubnet ledgers. The addon hands the rows over packed, since every value
// crossing Node-API costs a call: one buffer with all byte fields, and u32 words saying where each
// row's fields are in it. Byte fields become views into that buffer (no copies).
import { loadNative, type NativeLedgerRows } from '../host/native.ts';
import type { EntryWrite, FeeSample, IngestBatch, TransactionRow } from '../store/types.ts';
import type { TransactionEvents } from '../events/types.ts';
import { ledgerEventRowSteps } from '../events/eventRows.ts';
import { runSteps } from '../work/slicedWork.ts';

/** Marks an absent field (no inner hash, a deleted entry). */
const NONE = 0xffffffff;
const TX_WORDS = 9;
const ENTRY_WORDS = 8;
/** With an offset of NONE, the length word of a write's replaced version: the key did not exist. */
const BEFORE_ABSENT = 0;
const TX_SUCCESSFUL = 1;
const TX_FEE_BUMP = 2;
const HASH_BYTES = 32;

export function nativeLedgerToBatch(bytes: Uint8Array, networkId: Uint8Array): IngestBatch {
  return batchFromNativeRows(loadNative().ledgerToRows(bytes, networkId), bytes);
}

/** Unpacks the addon's rows (made here or on a worker thread) into the batch of `bytes`. */
export function batchFromNativeRows(rows: NativeLedgerRows, bytes: Uint8Array): IngestBatch {
  return runSteps(batchStepsFromNativeRows(rows, bytes));
}

/**
 * batchFromNativeRows as steps (src/work/slicedWork.ts): a 6,000-transaction ledger takes 30-90 ms
 * to unpack, most of it its events, which the follower spreads over turns of the event loop.
 */
export function* batchStepsFromNativeRows(rows: NativeLedgerRows, bytes: Uint8Array): Generator<void, IngestBatch, void> {
  const view = viewsOf(rows.bytes);
  const sequence = rows.sequence;
  const transactions = transactionRows(rows, view);
  yield;
  const entries = entryWrites(rows, view);
  yield;
  const events = yield* ledgerEventRowSteps(transactions);
  return {
    ledger: {
      sequence,
      hash: view(rows.ledger[0], rows.ledger[1]),
      closeTime: rows.closeTime,
      protocolVersion: rows.protocolVersion,
      header: view(rows.ledger[2], rows.ledger[3]),
      meta: bytes,
    },
    transactions,
    entryWrites: entries,
    feeSamples: feeSamples(rows),
    ...(rows.liveSorobanStateSize != null ? { liveSorobanStateSize: BigInt(rows.liveSorobanStateSize) } : {}),
    events,
  };
}

type View = (offset: number, length: number) => Uint8Array;

/** Plain Uint8Array views (what the JS path produces, so batches compare equal). */
function viewsOf(buf: Uint8Array): View {
  const { buffer, byteOffset } = buf;
  return (offset, length) => new Uint8Array(buffer, byteOffset + offset, length);
}

function transactionRows(rows: NativeLedgerRows, view: View): TransactionRow[] {
  const words = rows.transactions;
  const events = new EventLists(rows);
  const out: TransactionRow[] = [];
  for (let i = 0, w = 0; w < words.length; i++, w += TX_WORDS) {
    const flags = words[w + 2];
    out.push({
      ledgerSequence: rows.sequence,
      applicationOrder: i + 1,
      hash: view(words[w], HASH_BYTES),
      innerHash: words[w + 1] === NONE ? null : view(words[w + 1], HASH_BYTES),
      successful: (flags & TX_SUCCESSFUL) !== 0,
      feeBump: (flags & TX_FEE_BUMP) !== 0,
      envelope: view(words[w + 3], words[w + 4]),
      result: view(words[w + 5], words[w + 6]),
      meta: view(words[w + 7], words[w + 8]),
      events: events.next(),
    });
  }
  return out;
}

/** Walks eventCounts and events together, one transaction at a time. */
class EventLists {
  private readonly counts: Uint32Array;
  private readonly events: string[];
  private c = 0;
  private e = 0;

  constructor(rows: NativeLedgerRows) {
    this.counts = rows.eventCounts;
    this.events = rows.events;
  }

  next(): TransactionEvents {
    const transactionEventsXdr = this.list();
    const ops = this.counts[this.c++];
    const contractEventsXdr: string[][] = [];
    for (let i = 0; i < ops; i++) contractEventsXdr.push(this.list());
    return { transactionEventsXdr, contractEventsXdr, diagnosticEventsXdr: this.list() };
  }

  private list(): string[] {
    const n = this.counts[this.c++];
    const out = this.events.slice(this.e, this.e + n);
    this.e += n;
    return out;
  }
}

function entryWrites(rows: NativeLedgerRows, view: View): IngestBatch['entryWrites'] {
  const words = rows.entryWrites;
  const out: IngestBatch['entryWrites'] = [];
  for (let w = 0; w < words.length; w += ENTRY_WORDS) {
    const write: EntryWrite = {
      key: view(words[w], words[w + 1]),
      entry: words[w + 2] === NONE ? null : view(words[w + 2], words[w + 3]),
      lastModified: words[w + 4],
    };
    if (words[w + 5] !== NONE) write.before = { entry: view(words[w + 5], words[w + 6]), lastModified: words[w + 7] };
    else if (words[w + 6] === BEFORE_ABSENT) write.before = null;
    out.push(write);
  }
  return out;
}

function feeSamples(rows: NativeLedgerRows): FeeSample[] {
  const out: FeeSample[] = [];
  for (let i = 0; i < rows.fees.length; i++) out.push({ soroban: rows.feeSoroban[i] === 1, fee: rows.fees[i] });
  return out;
}
