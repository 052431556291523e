// Fast-forward: closes many empty ledgers at once (lumen_closeLedgers beyond its first ledger), with
// the state effects closing them one by one would have had, at a few microseconds a ledger.
//
// What an empty ledger changes is known without applying anything: contract entries whose TTL
// ended are evicted (at most maxEntriesToArchive a ledger, in the order the state index gives,
// src/ledger/sorobanState.ts), and every sample period the state-size window takes a sample
// (src/ingest/stateSizeWindow.ts). So each ledger here asks the state index for its eviction
// candidates (O(1) while nothing expires), lists them as closeLedger.ts would (evictedKeyList), and
// keeps the window as the ledger writer will derive it; the headers come from EmptyLedgerChain
// (src/standalone/emptyLedgers.ts: patched templates, unsigned values, see the deviation there).
//
// Ledgers the history retention window would trim at once are not stored as rows: their chain is
// computed, their evictions and window samples are applied (LedgerWriter.writeAfterGap, one store
// transaction with the first stored ledgers), and every ledger stored before them goes, as the
// trim would have removed it. The rest are written through the LedgerWriter in groups, so the feed
// announces them (streaming, metrics, ledger waiters) and requests are answered in between. When
// the network publishes itself (--publish-datastore / --publish-history-archive), every ledger is
// stored and announced, so the publisher gets each one: slower (a row, a trim and a file each).
// When it publishes a history archive, a checkpoint ledger's header commits to the state it
// leaves (src/standalone/checkpointCommitment.ts): the ledgers before it are stored first, so the
// state is there to hash, and its header is made once its evictions are known.
import type { LedgerHeader } from '../xdr/codec.ts';
import { encodeLedgerKey } from '../xdr/codec.ts';
import { isPersistentKey } from '../xdr/ledgerKeys.ts';
import type { IngestBatch } from '../store/types.ts';
import type { GapLedger, LedgerWriter } from '../ingest/ledgerWriter.ts';
import type { SorobanStateIndex } from '../ledger/sorobanState.ts';
import { evictedKeyList } from '../ledger/closeLedger.ts';
import { averageAfterLedger, nextWindow, windowAverage } from '../ingest/stateSizeWindow.ts';
import { ENTRY_SIZE, EmptyLedgerChain } from './emptyLedgers.ts';
import { checkpointContaining, isCheckpointLedger } from '../archive/historyArchiveState.ts';
import { checkpointBucketListHash } from './checkpointCommitment.ts';

/** Ledgers written per store transaction (and feed announcement). */
const GROUP_LEDGERS = 4096;
/** Ledgers computed between two yields to the event loop. */
const YIELD_EVERY = 16384;

export interface FastForwardInput {
  writer: LedgerWriter;
  /** The latest ledger, which the first fast-forwarded one follows. */
  prev: { header: LedgerHeader; hash: Uint8Array };
  /** Absent without the Soroban host: nothing to evict, no window. */
  soroban?: {
    /** Kept current here: each ledger's evictions are applied to it. */
    state: SorobanStateIndex;
    maxEntriesToArchive: number;
    samplePeriod: number;
    /** The state-size window as the latest ledger left it. */
    window: readonly bigint[];
  };
  /** Store (and announce) every ledger, not only those the retention window keeps: a publisher is on. */
  keepEveryLedger?: boolean;
  /** A checkpoint ledger's header carries the published state's bucketListHash (a history archive is published). */
  commitCheckpoints?: boolean;
  /** Checked between groups: the network is stopping, give up. */
  stopped?: () => boolean;
}

export interface FastForwardResult {
  latestLedger: number;
  closeTime: bigint;
  /** Ledgers stored as rows (the rest only had their state effects applied). */
  stored: number;
}

const pause = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Closes `count` empty ledgers after `input.prev`, the k-th at prev's close time + k x
 * `closeTimeStep` seconds. Throws when the network stops meanwhile (ledgers written so far stay:
 * each group is whole); the caller re-reads its in-memory state after a failure.
 */
export async function fastForward(input: FastForwardInput, count: number, closeTimeStep: bigint): Promise<FastForwardResult> {
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`cannot fast-forward ${count} ledgers`);
  if (closeTimeStep < 1n) throw new RangeError('the close time step must be at least one second');
  const { writer, soroban } = input;
  const chain = new EmptyLedgerChain(input.prev);
  const prevSeq = input.prev.header.ledgerSeq;
  const prevClose = input.prev.header.scpValue.closeTime;
  const first = prevSeq + 1;
  const last = prevSeq + count;
  const firstStored = input.keepEveryLedger ? first : Math.max(first, last - writer.retentionWindow + 1);

  const period = soroban?.samplePeriod ?? 0;
  let window = soroban ? [...soroban.window] : [];
  let average = windowAverage(window);
  let gap: GapLedger[] | undefined = firstStored > first ? [] : undefined;
  let group: IngestBatch[] = [];
  let stored = 0;
  /** Gap ledgers whose headers are still to make (in bulk: nobody needs their encodings). */
  let unmade = 0;
  /** The header entries of the group of stored ledgers under way, from `groupStart` on. */
  let entries: Buffer = Buffer.alloc(0);
  let groupStart = 0;
  let prevHash: Uint8Array = input.prev.hash;

  const flush = () => {
    if (gap) writer.writeAfterGap(gap, group); else writer.write(group);
    stored += group.length;
    gap = undefined;
    group = [];
  };

  for (let seq = first; seq <= last; seq++) {
    const commits = input.commitCheckpoints === true && isCheckpointLedger(seq);
    if (seq < firstStored) unmade++;
    else if (group.length === 0) {
      chain.skip(unmade, closeTimeStep);
      unmade = 0;
      prevHash = chain.latestHash;
      groupStart = seq;
      // a group stops before a committed checkpoint, whose header is made below, alone
      const groupSize = Math.min(GROUP_LEDGERS, last - seq + 1, input.commitCheckpoints ? checkpointContaining(seq) - seq : Infinity);
      if (!commits) entries = chain.nextMany(groupSize, closeTimeStep);
    }
    let size = average;
    let sampled = false;
    let evicted: Uint8Array[] = [];
    let writes: IngestBatch['entryWrites'] = [];
    if (soroban) {
      // as a close does: the average with the state size before this ledger, then the evictions
      if (period > 0 && seq % period === 0) {
        sampled = true;
        size = averageAfterLedger(window, period, seq, soroban.state.liveStateSize);
        window = nextWindow(window, size, true);
        average = windowAverage(window);
      }
      const candidates = soroban.state.evictionCandidates(seq, soroban.maxEntriesToArchive);
      if (candidates.length > 0) {
        const keys = evictedKeyList(candidates);
        evicted = keys.map(encodeLedgerKey);
        // what ingestion does with them (ledgerToBatch): temporary entries and TTLs go, a persistent
        // entry stays (archived, without its TTL)
        writes = keys.flatMap((k, i) => (isPersistentKey(k) ? [] : [{ key: evicted[i], entry: null, lastModified: seq }]));
        soroban.state.apply(writes);
      }
    }
    if (seq < firstStored) {
      if (sampled || writes.length > 0) gap!.push({ ledger: { sequence: seq }, entryWrites: writes, liveSorobanStateSize: size });
    } else {
      const closeTime = prevClose + BigInt(seq - prevSeq) * closeTimeStep;
      if (commits) {
        chain.next(closeTime, checkpointBucketListHash(writer, { ledger: { sequence: seq }, entryWrites: writes, liveSorobanStateSize: size }, chain.protocolVersion));
        entries = chain.headerEntryXdr();
      }
      const at = (seq - groupStart) * ENTRY_SIZE;
      const header = entries.subarray(at, at + ENTRY_SIZE);
      const hash = header.subarray(0, 32);
      group.push({
        ledger: {
          sequence: seq, hash, closeTime: Number(closeTime), protocolVersion: chain.protocolVersion,
          header, meta: chain.metaXdr(header, prevHash, size, evicted),
        },
        transactions: [], entryWrites: writes, feeSamples: [], liveSorobanStateSize: size, events: [],
      });
      prevHash = hash;
      const groupEnds = input.commitCheckpoints === true && (commits || isCheckpointLedger(seq + 1));
      if (group.length >= GROUP_LEDGERS || seq === last || groupEnds) {
        flush();
        await pause();
        if (input.stopped?.()) throw new Error('the network is stopping');
      }
    }
    if ((seq - prevSeq) % YIELD_EVERY === 0 && seq < firstStored) {
      chain.skip(unmade, closeTimeStep);
      unmade = 0;
      await pause();
      if (input.stopped?.()) throw new Error('the network is stopping');
    }
  }
  return { latestLedger: last, closeTime: chain.latestCloseTime, stored };
}
