// The subscription hub on a real SQLite store fed through the real commit point (LedgerWriter and
// LedgerFeed), with a sink that records what it is given: replay then live with no gap and no
// duplicate, starts and their errors, limits, unsubscribe, the slow-connection rule, shutdown.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../../../src/config/config.ts';
import { LedgerFeed } from '../../../src/ingest/ledgerFeed.ts';
import { LedgerWriter } from '../../../src/ingest/ledgerWriter.ts';
import { RpcError } from '../../../src/rpc/errors.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import type { IngestBatch } from '../../../src/store/types.ts';
import { jsonRpcNotification, type DroppedSubscription, type StreamNotification, type StreamSink } from '../../../src/stream/streamSink.ts';
import { SubscriptionHub } from '../../../src/stream/subscriptionHub.ts';
import { LedgersKind } from '../../../src/stream/kinds/ledgers.ts';
import type { Kind } from '../../../src/stream/kinds/kind.ts';
import { rejectingSubmitter, testHeavy, testNode, unavailableSimulator } from '../methods/support/pubnet.ts';

function batch(seq: number, variant = 0, metaBytes = 2): IngestBatch {
  return {
    ledger: { sequence: seq, hash: new Uint8Array(32).fill((seq + variant) & 0xff), closeTime: 1_700_000_000 + seq, protocolVersion: 28, header: new Uint8Array([1, 2, seq & 0xff]), meta: new Uint8Array(metaBytes).fill(3) },
    transactions: [], entryWrites: [], feeSamples: [],
  };
}

class RecordingSink implements StreamSink {
  readonly transport = 'ws' as const;
  notes: StreamNotification[] = [];
  closed: { code: number; reason: string; dropped?: readonly DroppedSubscription[] } | undefined;
  terminated = false;
  bufferedBytes = 0;
  /** When set, delivered bytes stay "unsent". */
  stalled = false;
  send(note: StreamNotification): number {
    this.notes.push(note);
    const bytes = Buffer.byteLength(jsonRpcNotification(note));
    if (this.stalled) this.bufferedBytes += bytes;
    return bytes;
  }
  close(code: number, reason: string, dropped?: readonly DroppedSubscription[]): void { this.closed ??= { code, reason, dropped }; }
  terminate(): void { this.terminated = true; }
  ids(sub?: string): string[] { return this.notes.filter((n) => sub === undefined || n.subscription === sub).map((n) => n.id); }
  /** A client that takes what it was sent `ms` milliseconds later (stop it with clearInterval). */
  takeEvery(ms: number): NodeJS.Timeout { return setInterval(() => { this.bufferedBytes = 0; }, ms); }
}

/** A sink whose client takes nothing until told. */
const stalledSink = (): RecordingSink => Object.assign(new RecordingSink(), { stalled: true });

/** The ledgers kind, whose live reading of a ledger waits while `held` (a slow store or renderer). */
class HeldLedgers extends LedgersKind {
  held: Promise<void> | undefined;
  override async *ledger(sequence: number) {
    await this.held;
    yield* super.ledger(sequence);
  }
}

interface SetupOptions {
  maxSubscriptions?: number; maxBuffered?: number; maxLagMs?: number; maxConnectionBytes?: number; maxTotalBytes?: number;
  kinds?: (ctx: MethodContext) => Kind[]; metaBytes?: number;
}

function setup(first: number, last: number, options: SetupOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-hub-'));
  const store = new SqliteStore(join(dir, 'rpc.sqlite'));
  const feed = new LedgerFeed();
  const writer = new LedgerWriter(store, feed, 100_000);
  let next = first;
  /** `variant` changes the ledgers' hashes (ledgers re-closed after a revert). */
  const write = (n: number, variant = 0): void => {
    for (let i = 0; i < n; i++) writer.write([batch(next++, variant, options.metaBytes)], { deriveStateSizeWindow: false });
  };
  write(last - first + 1);
  const ctx: MethodContext = { store, config: defaultConfig, node: testNode, submitter: rejectingSubmitter, simulator: unavailableSimulator, heavy: testHeavy };
  const hub = new SubscriptionHub({
    feed, ctx, maxSubscriptionsPerConnection: options.maxSubscriptions ?? 100, maxStreamBufferBytes: options.maxBuffered ?? 0,
    maxStreamLagMs: options.maxLagMs, maxStreamConnectionBytes: options.maxConnectionBytes, maxStreamTotalBytes: options.maxTotalBytes,
    kinds: options.kinds?.(ctx),
  });
  /** A developer revert through the commit point: the next ledger written is `ledger + 1` again. */
  const revert = (ledger: number): void => {
    writer.revertTo(ledger);
    next = ledger + 1;
  };
  return {
    hub, store, write, revert,
    close() { hub.close(); store.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

const settle = async (rounds = 20): Promise<void> => { for (let i = 0; i < rounds; i++) await new Promise((r) => setImmediate(r)); };
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Looks at `cond` every `every` ms until it holds or 10 s passed (the assertions after it say what is missing). */
async function until(cond: () => boolean, every = 5): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!cond() && Date.now() < deadline) await sleep(every);
}
const range = (a: number, b: number): string[] => Array.from({ length: b - a + 1 }, (_, i) => String(a + i));

describe('SubscriptionHub (ledgers)', () => {
  it('replays from startLedger, then delivers live ledgers, each once and in order', async () => {
    const t = setup(2, 30);
    try {
      const sink = new RecordingSink();
      const id = t.hub.subscribe(sink, { kind: 'ledgers', startLedger: 5 });
      // ledgers committed while the replay runs, between its pages
      for (let i = 0; i < 10; i++) { t.write(1); await settle(2); }
      await settle(50);
      t.write(3);
      await settle(50);
      assert.deepEqual(sink.ids(id), range(5, 43));
      assert.ok(sink.notes.every((n) => n.kind === 'ledgers' && !n.final));
      assert.equal(JSON.parse(sink.notes[0].item.toString()).sequence, 5);
    } finally { t.close(); }
  });

  it('a replay that catches up while the live path is still on a ledger it replayed gets that ledger once', async () => {
    let kind: HeldLedgers | undefined;
    const t = setup(2, 10, {
      kinds: (ctx) => {
        kind = new HeldLedgers(ctx);
        return [kind as unknown as Kind];
      },
    });
    try {
      const early = new RecordingSink();
      const late = new RecordingSink();
      const a = t.hub.subscribe(early, { kind: 'ledgers' });
      await settle();
      let release!: () => void;
      kind!.held = new Promise((r) => { release = r; });
      t.write(1); // ledger 11: the live path now waits
      const b = t.hub.subscribe(late, { kind: 'ledgers', startLedger: 5 });
      await settle(50); // its replay reads 5..11 from the store and goes live
      release();
      await settle();
      t.write(1);
      await settle(50);
      assert.deepEqual(early.ids(a), ['11', '12']);
      assert.deepEqual(late.ids(b), range(5, 12));
    } finally { t.close(); }
  });

  it('a cursor starts strictly after it; no start begins with the next ledger', async () => {
    const t = setup(2, 20);
    try {
      const sink = new RecordingSink();
      const after = t.hub.subscribe(sink, { kind: 'ledgers', cursor: '18' });
      const next = t.hub.subscribe(sink, { kind: 'ledgers' });
      await settle();
      t.write(2);
      await settle(50);
      assert.deepEqual(sink.ids(after), range(19, 22));
      assert.deepEqual(sink.ids(next), range(21, 22));
    } finally { t.close(); }
  });

  it('refuses bad params, unknown kinds, starts outside the store, and too many subscriptions', () => {
    const t = setup(2, 10, { maxSubscriptions: 2 });
    try {
      const sink = new RecordingSink();
      const code = (params: unknown): number => {
        try { t.hub.subscribe(sink, params); } catch (e) { assert.ok(e instanceof RpcError); return e.code; }
        return 0;
      };
      assert.equal(code({ kind: 'blocks' }), -32602);
      assert.equal(code({}), -32602);
      assert.equal(code([]), -32602);
      assert.equal(code({ kind: 'ledgers', startLedger: 'x' }), -32602);
      assert.equal(code({ kind: 'ledgers', startLedger: 3, cursor: '4' }), -32602);
      assert.equal(code({ kind: 'ledgers', startLedger: 11 }), -32602);
      assert.equal(code({ kind: 'ledgers', cursor: 'abc' }), -32602);
      assert.equal(code({ kind: 'ledgers', other: 1 }), -32602);
      assert.equal(code({ kind: 'ledgers' }), 0);
      assert.equal(code({ kind: 'ledgers', startLedger: 2 }), 0);
      assert.equal(code({ kind: 'ledgers' }), -32000);
      assert.equal(code({ kind: 'ledgers' }), -32000, 'a refused subscription does not count');
      assert.equal(t.hub.subscriptionCounts().ledgers, 2);
    } finally { t.close(); }
  });

  it('unsubscribe stops delivery; dropSink forgets a connection', async () => {
    const t = setup(2, 5);
    try {
      const a = new RecordingSink();
      const b = new RecordingSink();
      const ia = t.hub.subscribe(a, { kind: 'ledgers' });
      t.hub.subscribe(b, { kind: 'ledgers' });
      await settle();
      t.write(1);
      await settle();
      assert.equal(t.hub.unsubscribe(a, ia), true);
      assert.equal(t.hub.unsubscribe(a, ia), false);
      assert.equal(t.hub.unsubscribe(b, ia), false, 'ids belong to their connection');
      t.hub.dropSink(b);
      t.write(1);
      await settle();
      assert.deepEqual(a.ids(), ['6']);
      assert.deepEqual(b.ids(), ['6']);
      assert.equal(t.hub.subscriptionCounts().ledgers, 0);
    } finally { t.close(); }
  });

  it('closes a connection over the buffer limit with 4001 and keeps serving the others', async () => {
    const t = setup(2, 5, { maxBuffered: 1000, maxLagMs: 0 });
    try {
      const slow = stalledSink();
      const fine = new RecordingSink();
      t.hub.subscribe(slow, { kind: 'ledgers' });
      t.hub.subscribe(fine, { kind: 'ledgers' });
      await settle();
      for (let i = 0; i < 20 && slow.closed === undefined; i++) { t.write(1); await settle(); await sleep(2); }
      assert.equal(slow.closed?.code, 4001);
      assert.match(slow.closed!.reason, /too slow: over 1000 bytes unsent; resume from your last id/);
      const had = fine.notes.length;
      t.write(2);
      await settle();
      assert.equal(fine.notes.length, had + 2);
      assert.equal(t.hub.subscriptionCounts().ledgers, 1);
    } finally { t.close(); }
  });

  it('items bigger than the buffer limit reach a connection that takes them, replayed or live (issue 27)', async () => {
    const t = setup(2, 4, { maxBuffered: 1000, metaBytes: 6000 });
    const sink = stalledSink();
    const reader = sink.takeEvery(3);
    try {
      const replayed = t.hub.subscribe(sink, { kind: 'ledgers', startLedger: 2 });
      const live = t.hub.subscribe(sink, { kind: 'ledgers' });
      await settle();
      t.write(3); // 5..7 in one go: each ledger's item is 8 times the limit
      await until(() => sink.ids(replayed).length >= 6 && sink.ids(live).length >= 3);
      assert.deepEqual(sink.ids(replayed), range(2, 7), JSON.stringify({ closed: sink.closed, notes: sink.notes.map((n) => [n.subscription, n.id]) }));
      assert.deepEqual(sink.ids(live), range(5, 7));
      assert.equal(sink.closed, undefined, 'not too slow: it took each item');
    } finally { clearInterval(reader); t.close(); }
  });

  it('a replay renders no more than its connection has room for, and goes on as the client takes', async () => {
    const t = setup(2, 21, { maxBuffered: 1000, metaBytes: 6000 });
    const sink = stalledSink();
    try {
      const id = t.hub.subscribe(sink, { kind: 'ledgers', startLedger: 2 });
      await settle(50);
      await sleep(30);
      assert.deepEqual(sink.ids(id), ['2'], 'one item handed; the next waits for room, unrendered');
      assert.ok(t.hub.heldBytes < 2 * 8200, `held ${t.hub.heldBytes}`);
      sink.stalled = false;
      sink.bufferedBytes = 0;
      await until(() => sink.ids(id).length >= 20);
      assert.deepEqual(sink.ids(id), range(2, 21));
      assert.equal(sink.closed, undefined);
    } finally { t.close(); }
  });

  it('a connection that takes nothing while its replay waits is closed once (4001), told where to resume', async () => {
    const t = setup(2, 21, { maxBuffered: 1000, maxLagMs: 50, metaBytes: 6000 });
    const sink = stalledSink();
    try {
      const replaying = t.hub.subscribe(sink, { kind: 'ledgers', startLedger: 2 });
      const idle = t.hub.subscribe(sink, { kind: 'ledgers', cursor: '21' });
      await until(() => sink.closed !== undefined, 20);
      assert.equal(sink.closed?.code, 4001);
      assert.match(sink.closed!.reason, /^too slow: took nothing for 50 ms; resume from your last id$/);
      assert.deepEqual(sink.closed!.dropped, [
        { subscription: replaying, kind: 'ledgers', resume: { cursor: '2' } },
        { subscription: idle, kind: 'ledgers', resume: { cursor: '21' } },
      ]);
      const handed = sink.notes.length;
      t.write(3);
      await settle(50);
      assert.equal(sink.notes.length, handed, 'nothing more after the close');
      assert.equal(t.hub.subscriptionCounts().ledgers, 0);
    } finally { t.close(); }
  });

  it('a connection owed more than its ceiling is closed (4001), its subscriptions told where they resume; the others go on', async () => {
    const t = setup(2, 5, { maxConnectionBytes: 50_000, metaBytes: 6000 });
    const heavy = stalledSink();
    const light = new RecordingSink();
    try {
      const subs = Array.from({ length: 4 }, () => t.hub.subscribe(heavy, { kind: 'ledgers' }));
      const other = t.hub.subscribe(light, { kind: 'ledgers' });
      await settle();
      for (let i = 0; i < 10 && heavy.closed === undefined; i++) { t.write(1); await settle(); }
      assert.equal(heavy.closed?.code, 4001);
      assert.match(heavy.closed!.reason, /^too slow: over 50000 bytes owed to this connection; resume from your last id$/);
      const lastHanded = (sub: string): string | undefined => heavy.ids(sub).at(-1);
      assert.deepEqual(heavy.closed!.dropped, subs.map((sub) => ({
        subscription: sub, kind: 'ledgers', resume: lastHanded(sub) === undefined ? { cursor: '5' } : { cursor: lastHanded(sub) },
      })));
      t.write(2);
      await settle();
      const seqs = light.ids(other).map(Number);
      assert.deepEqual(seqs, seqs.map((_x, i) => 6 + i));
      assert.ok(seqs.length >= 3);
    } finally { t.close(); }
  });

  it('over the total ceiling, the slowest connection goes first', async () => {
    const t = setup(2, 5, { maxTotalBytes: 60_000, metaBytes: 6000 });
    const stuck = stalledSink();
    const reading = stalledSink();
    const reader = reading.takeEvery(3);
    try {
      for (let i = 0; i < 3; i++) t.hub.subscribe(stuck, { kind: 'ledgers' });
      for (let i = 0; i < 3; i++) t.hub.subscribe(reading, { kind: 'ledgers' });
      await settle();
      for (let i = 0; i < 20 && stuck.closed === undefined; i++) {
        t.write(1);
        await sleep(300); // a sweep measures how fast each takes
      }
      assert.equal(stuck.closed?.code, 4001);
      assert.match(stuck.closed!.reason, /^too slow: streams hold over 60000 bytes, the slowest go; resume from your last id$/);
      assert.equal(reading.closed, undefined);
    } finally { clearInterval(reader); t.close(); }
  });

  it('a connection its transport closes is told where each subscription resumes; a transaction subscription, from its own params', async () => {
    const t = setup(2, 10);
    try {
      const sink = new RecordingSink();
      const ledgers = t.hub.subscribe(sink, { kind: 'ledgers' });
      const fresh = t.hub.subscribe(sink, { kind: 'ledgers' });
      const tx = t.hub.subscribe(sink, { kind: 'transaction', hash: 'ab'.repeat(32) });
      await settle();
      t.write(1);
      await settle();
      assert.equal(t.hub.unsubscribe(sink, fresh), true);
      const later = t.hub.subscribe(sink, { kind: 'ledgers' });
      t.hub.disconnect(sink, 1008, 'no pong to the last ping; resume from your last id');
      await settle();
      assert.equal(sink.closed?.code, 1008);
      assert.deepEqual(sink.closed!.dropped, [
        { subscription: ledgers, kind: 'ledgers', resume: { cursor: '11' } },
        { subscription: tx, kind: 'transaction', resume: {} },
        { subscription: later, kind: 'ledgers', resume: { cursor: '11' } },
      ]);
      assert.equal(t.hub.subscriptionCounts().ledgers, 0);
    } finally { t.close(); }
  });

  it('close() ends every connection with 1001', async () => {
    const t = setup(2, 5);
    const sink = new RecordingSink();
    t.hub.subscribe(sink, { kind: 'ledgers', startLedger: 2 });
    t.close();
    assert.equal(sink.closed?.code, 1001);
    assert.throws(() => t.hub.subscribe(new RecordingSink(), { kind: 'ledgers' }));
  });
});

describe('SubscriptionHub across a revert', () => {
  it('a live subscription goes on from the reverted ledger: the re-closed sequences come again, none skipped', async () => {
    const t = setup(2, 10);
    try {
      const sink = new RecordingSink();
      const id = t.hub.subscribe(sink, { kind: 'ledgers' });
      await settle();
      t.write(3); // 11..13
      await settle();
      assert.deepEqual(sink.ids(id), range(11, 13));
      t.revert(10);
      t.write(4); // 11..14 again
      await settle();
      assert.deepEqual(sink.ids(id), [...range(11, 13), ...range(11, 14)]);
      // a subscription opened after the revert starts after the reverted-to chain's tip
      const later = t.hub.subscribe(sink, { kind: 'ledgers' });
      await settle();
      t.write(1);
      await settle();
      assert.deepEqual(sink.ids(later), ['15']);
      assert.equal(sink.closed, undefined);
    } finally {
      t.close();
    }
  });

  it('a ledger read while the store goes back is not delivered; what was re-closed is', async () => {
    /** Reads the ledger, then waits while `held`: the revert comes between the read and the delivery. */
    class ReadThenHeld extends LedgersKind {
      held: Promise<void> | undefined;
      override async *ledger(sequence: number) {
        const read = [];
        for await (const match of super.ledger(sequence)) read.push(match);
        await this.held;
        yield* read;
      }
    }
    let kind: ReadThenHeld | undefined;
    const t = setup(2, 10, { kinds: (ctx) => [kind = new ReadThenHeld(ctx)] });
    try {
      const sink = new RecordingSink();
      const id = t.hub.subscribe(sink, { kind: 'ledgers' });
      await settle();
      let release!: () => void;
      kind!.held = new Promise((r) => { release = r; });
      t.write(2); // 11, 12: the read of 11 waits
      await settle();
      t.revert(10);
      t.write(1, 100); // 11 again, another hash
      kind!.held = undefined;
      release();
      await settle();
      assert.deepEqual(sink.ids(id), ['11']);
      const hashOf = (n: StreamNotification) => JSON.parse(n.item.toString()).hash as string;
      assert.equal(hashOf(sink.notes[0]), Buffer.alloc(32, 111).toString('hex'), 'the re-closed ledger 11, not the dropped one');
      t.write(1, 100);
      await settle();
      assert.deepEqual(sink.ids(id), ['11', '12']);
    } finally {
      t.close();
    }
  });

  it('a subscription still replaying is closed (4002): it cannot know where it stands', async () => {
    const t = setup(2, 30);
    try {
      const live = new RecordingSink();
      const liveId = t.hub.subscribe(live, { kind: 'ledgers' });
      await settle();
      const replaying = new RecordingSink();
      t.hub.subscribe(replaying, { kind: 'ledgers', startLedger: 3 });
      t.revert(20); // before its replay ran
      await settle();
      t.write(1);
      await settle();
      assert.equal(live.closed, undefined);
      assert.deepEqual(live.ids(liveId), ['21']);
      assert.equal(replaying.closed?.code, 4002);
      assert.deepEqual(replaying.ids(), []);
    } finally {
      t.close();
    }
  });
});
