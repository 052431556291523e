// Snapshots of the developer network (lumen_snapshot, lumen_revert): a snapshot is only a name for a
// stored ledger plus the transaction queue as it was, because the store keeps every ledger and the
// entry history can rebuild the state at the end of any of them (store.revertTo). So taking one costs
// nothing and reverting costs the changes made since, not the size of the state.
//
// Ids are "0x1", "0x2", ... (hex, as Anvil's), counted per node run and never reused. Reverting to a
// snapshot drops it and every snapshot taken after it (as Anvil does: take a new one to come back
// again); reverting to a ledger drops the snapshots of later ledgers. A revert is refused while the
// network publishes itself (--publish-datastore, --publish-history-archive): followers and readers of
// the published ledgers already hold the ones a revert would replace.
//
// What a snapshot holds is its copy of the queue (about 50 bytes per queued transaction or ban), so a
// test suite that snapshots before every test and never reverts would grow without end: at most
// --max-snapshots are kept, holding at most --max-snapshot-queue-entries queue entries together, and
// past either the oldest are dropped first (a suite reverts to recent ones). Reverting to a dropped
// one is refused, saying so.
import type { Config } from '../config/config.ts';
import type { QueueContents } from '../ledger/transactionQueue.ts';
import type { StoreReader } from '../store/types.ts';
import { bytesEqual, toHex } from '../xdr/codec.ts';
import type { StandaloneNetwork } from './standaloneNetwork.ts';

interface Snapshot {
  readonly id: string;
  readonly number: number;
  readonly ledger: number;
  /** The ledger's hash when taken: a snapshot only ever names that very ledger. */
  readonly hash: Uint8Array;
  readonly queue: QueueContents;
}

/** A revert that cannot be done as asked; nothing changed. */
export class RevertRefused extends Error {}

export interface RevertTarget { id?: string; ledger?: number }

export interface RevertResult {
  /** The ledger the network is back at (the latest ledger now). */
  ledger: number;
  /** Its hash (hex): the next ledger chains onto it. */
  hash: string;
  /** Transactions back in the queue (those queued when the snapshot was taken; none for a ledger). */
  queued: number;
  /** Snapshot ids the revert dropped, the reverted one included. */
  dropped: string[];
}

/** Limits on what the kept snapshots hold (config: maxSnapshots, maxSnapshotQueueEntries). */
export interface SnapshotLimits { count: number; queueEntries: number }

const queueEntriesOf = (queue: QueueContents): number => queue.queued.length + queue.banned.length;

export class SnapshotList {
  private readonly taken: Snapshot[] = [];
  private counter = 0;
  private heldEntries = 0;
  /** The highest snapshot number dropped to make room (ids up to it may have been evicted). */
  private evictedUpTo = 0;
  private readonly limits: SnapshotLimits;
  constructor(limits: SnapshotLimits) { this.limits = limits; }

  add(ledger: number, hash: Uint8Array, queue: QueueContents): Snapshot {
    const number = ++this.counter;
    const snapshot = { id: `0x${number.toString(16)}`, number, ledger, hash, queue };
    this.taken.push(snapshot);
    this.heldEntries += queueEntriesOf(queue);
    // the oldest go first; the one just taken always stays
    let evict = 0;
    let held = this.heldEntries;
    while (this.taken.length - evict > 1
      && (this.taken.length - evict > this.limits.count || held > this.limits.queueEntries)) {
      held -= queueEntriesOf(this.taken[evict].queue);
      evict++;
    }
    if (evict > 0) {
      this.evictedUpTo = this.taken[evict - 1].number;
      this.taken.splice(0, evict);
      this.heldEntries = held;
    }
    return snapshot;
  }

  find(id: string): Snapshot | undefined {
    const wanted = id.trim().toLowerCase();
    return this.taken.find((s) => s.id === wanted);
  }

  /** Why `id` is not kept, in words (an unknown id, one dropped to make room, or one a revert dropped). */
  whyMissing(id: string): string {
    const number = /^0x[0-9a-f]+$/i.test(id.trim()) ? parseInt(id.trim().slice(2), 16) : NaN;
    const kept = this.taken.length === 0 ? 'there is no snapshot'
      : this.taken.length === 1 ? `the only snapshot is ${this.taken[0].id}`
      : `the snapshots kept are ${this.taken.length}, from ${this.taken[0].id} to ${this.taken.at(-1)!.id}`;
    if (number >= 1 && number <= this.evictedUpTo && (this.taken.length === 0 || number < this.taken[0].number)) {
      return `snapshot ${id} was dropped to make room (at most ${this.limits.count} snapshots holding `
        + `${this.limits.queueEntries} queued transactions are kept, the oldest dropped first: --max-snapshots, `
        + `--max-snapshot-queue-entries); ${kept}`;
    }
    return `unknown snapshot id ${JSON.stringify(id)}: ${kept} (a revert drops the snapshot it went back to and every later one)`;
  }

  /** Drops the snapshots `drop` picks; returns their ids. */
  dropWhere(drop: (s: Snapshot) => boolean): string[] {
    const gone = this.taken.filter(drop);
    for (const s of gone) {
      this.taken.splice(this.taken.indexOf(s), 1);
      this.heldEntries -= queueEntriesOf(s.queue);
    }
    return gone.map((s) => s.id);
  }

  get size(): number { return this.taken.length; }
  get queueEntries(): number { return this.heldEntries; }
}

const lists = new WeakMap<StandaloneNetwork, SnapshotList>();

function listOf(network: StandaloneNetwork, config: Config): SnapshotList {
  let list = lists.get(network);
  if (!list) {
    list = new SnapshotList({ count: config.maxSnapshots, queueEntries: config.maxSnapshotQueueEntries });
    lists.set(network, list);
  }
  return list;
}

/** Takes a snapshot of the latest ledger and the queue, between closes. */
export function takeSnapshot(network: StandaloneNetwork, store: StoreReader, config: Config): Promise<{ id: string; ledger: number }> {
  return network.exclusive(() => {
    const latest = store.latestLedger();
    if (!latest) throw new RevertRefused('the network has no ledger yet');
    const snapshot = listOf(network, config).add(latest.sequence, latest.hash, network.queueContents());
    return { id: snapshot.id, ledger: snapshot.ledger };
  });
}

/**
 * Takes the network back to a snapshot (`id`) or to the end of a stored ledger (`ledger`), between
 * closes; RevertRefused, changing nothing, when it cannot.
 */
export function revert(network: StandaloneNetwork, store: StoreReader, config: Config, target: RevertTarget): Promise<RevertResult> {
  return network.exclusive(() => {
    const list = listOf(network, config);
    const snapshot = target.id !== undefined ? list.find(target.id) : undefined;
    if (target.id !== undefined && !snapshot) throw new RevertRefused(list.whyMissing(target.id));
    const ledger = snapshot ? snapshot.ledger : target.ledger;
    if (ledger === undefined) throw new RevertRefused('give either id (a snapshot) or ledger');
    const what = snapshot ? `snapshot ${snapshot.id} (ledger ${ledger})` : `ledger ${ledger}`;
    checkRevertable(store, config, ledger, what);
    if (snapshot && !bytesEqual(store.ledger(ledger)?.hash ?? new Uint8Array(), snapshot.hash)) {
      throw new RevertRefused(`cannot revert to ${what}: the stored ledger ${ledger} is no longer the one snapshotted`);
    }
    network.revertTo(ledger, snapshot?.queue);
    const dropped = list.dropWhere((s) => s.ledger > ledger || (snapshot !== undefined && s.number >= snapshot.number));
    const latest = store.latestLedger()!;
    return { ledger: latest.sequence, hash: toHex(latest.hash), queued: snapshot?.queue.queued.length ?? 0, dropped };
  });
}

/** The store's own refusals, said in the developer's terms before anything is touched. */
function checkRevertable(store: StoreReader, config: Config, ledger: number, what: string): void {
  const publishing = [config.publishDatastore && '--publish-datastore', config.publishHistoryArchive && '--publish-history-archive'].filter(Boolean);
  if (publishing.length > 0) {
    throw new RevertRefused(`cannot revert to ${what}: the network publishes its ledgers (${publishing.join(', ')}), `
      + 'and what followers already read cannot be taken back; start the node without publishing to use reverts');
  }
  if (!config.ledgerEntryHistory) {
    throw new RevertRefused(`cannot revert to ${what}: the ledger entry history is off (--ledger-entry-history=false), so no earlier state can be rebuilt`);
  }
  const latest = store.latestLedger()?.sequence;
  const oldest = store.entryHistoryOldest();
  if (latest === undefined || oldest === undefined) throw new RevertRefused(`cannot revert to ${what}: the network holds no ledger whose state can be rebuilt`);
  if (ledger > latest) throw new RevertRefused(`cannot revert to ${what}: it is after the latest ledger ${latest}`);
  if (ledger < oldest) {
    throw new RevertRefused(`cannot revert to ${what}: the oldest ledger whose state can be rebuilt is ${oldest} `
      + '(older ledgers left the retention window)');
  }
}

/** The ledger a kept snapshot names; undefined when no snapshot by that id is kept. */
export function snapshotLedgerOf(network: StandaloneNetwork, config: Config, id: string): number | undefined {
  return listOf(network, config).find(id)?.ledger;
}
