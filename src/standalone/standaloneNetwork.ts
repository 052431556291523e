// The embedded standalone network: one process that is the whole network. It owns the transaction
// queue and closes ledgers on a cadence (or as soon as something is queued, in instant mode); every
// closed ledger goes through the same ingestion as a real network's, and the RPC methods only ever
// see what ingestion stored.
import { xdr } from '../xdr/xdr.ts';
import type { Logger } from 'pino';
import type { CloseMode, Config } from '../config/config.ts';
import type { IngestBatch, LedgerRow, Store } from '../store/types.ts';
import type { LedgerWriter } from '../ingest/ledgerWriter.ts';
import { SubmitterError, type SubmitResult, type TransactionSubmitter } from '../submit/transactionSubmitter.ts';
import { bytesEqual, decodeLedgerEntry, encodeLedgerKey, networkIdOf, type TransactionEnvelope } from '../xdr/codec.ts';
import { SignatureVerifierPool } from '../ledger/signatureWorkers.ts';
import { EntryType, ledgerKeyType } from '../xdr/ledgerKeys.ts';
import type { EntrySource } from '../ledger/ledgerTxn.ts';
import { frameOf, type TransactionFrame } from '../ledger/transactionFrame.ts';
import { TransactionQueue, type QueueContents } from '../ledger/transactionQueue.ts';
import { admitTransaction, nextLedgerContext, verifySignaturesOffThread } from '../ledger/admission.ts';
import { encodeCloseMetaSteps } from '../ledger/encodeCloseMeta.ts';
import { closedLedgerBatch } from './closedLedgerBatch.ts';
import { closeLedgerSteps, type ClosedLedger, type LedgerUpgradeStep } from '../ledger/closeLedger.ts';
import { isCheckpointLedger } from '../archive/historyArchiveState.ts';
import { checkpointBucketListHash, commitToBucketList } from './checkpointCommitment.ts';
import { DEFAULT_PROTOCOL } from '../ledger/protocols.ts';
import { nextCloseSeconds, nextCloseTime, type CloseTime } from '../ledger/closeTimes.ts';
import { SlicedWork } from '../work/slicedWork.ts';
import { loadSorobanNetworkConfig } from '../ledger/soroban/networkConfig.ts';
import type { SorobanEnv } from '../ledger/soroban/resources.ts';
import { loadNative, nativeAvailable } from '../host/native.ts';
import { SorobanStateIndex } from '../ledger/sorobanState.ts';
import { OrderBook } from '../ledger/orderBook.ts';
import { poolShareTrustLineKeyPrefix } from '../ledger/liquidityPools.ts';
import { WINDOW_KEY, averageAfterLedger } from '../ingest/stateSizeWindow.ts';
import { noteGenesisSettings } from './devGenesis.ts';
import { Impersonation } from './impersonation.ts';
import { OffsetClock, type Clock } from './clock.ts';
import { fastForward, type FastForwardResult } from './fastForward.ts';
import type { LoadedSnapshot } from './ledgerSnapshot.ts';
import { createGenesis } from './networkGenesis.ts';
import { ForkFetchError, type ForkedState } from '../fork/forkedState.ts';
import { MissedKeys } from '../fork/missedKeys.ts';
import type { ForkGenesis } from '../fork/forkStart.ts';
import type { StoredEntry } from '../store/types.ts';

export interface IngestObserver { (type: string, seconds: number): void }

export class StandaloneNetwork implements TransactionSubmitter {
  readonly networkId: Uint8Array;
  private readonly store: Store;
  private readonly config: Config;
  private readonly log: Logger;
  private readonly queue: TransactionQueue;
  private readonly state: EntrySource;
  private timer: NodeJS.Timeout | undefined;
  private eagerClose: NodeJS.Immediate | undefined;
  /** The close under way, if any (one at a time). */
  private inFlightClose: Promise<number> | undefined;
  private readonly closeSliceMs: number | undefined;
  /** A close was asked for (a tick, or a transaction in instant mode) while one was under way. */
  private closeAgain = false;
  private stopped = false;
  private readonly ledgerWaiters: Array<{ seq: number; resolve: () => void }> = [];
  private readonly observeIngestion: IngestObserver;
  private readonly verifier = new SignatureVerifierPool();
  private decodedHeader: { row: LedgerRow; header: xdr.LedgerHeaderHistoryEntryWire } | undefined;
  private readonly writer: LedgerWriter;
  /** The host and network limits for Soroban transactions; absent when the addon is not built. */
  private soroban: SorobanEnv | undefined;
  /** TTLs and sizes of the contract entries (eviction, the state-size window); with `soroban`. */
  private sorobanState: SorobanStateIndex | undefined;
  /** Every offer, by pair and in crossing order: what offers and path payments cross. */
  private readonly orderBook = new OrderBook();
  /** Where close times come from: an offset clock over the given one, so developers can move time forward. */
  readonly clock: OffsetClock;
  /** The next ledger's close time, when a developer set it (lumen_setNextCloseTime). */
  private pinnedCloseTime: bigint | undefined;
  /** When ledgers close: on the cadence, also as soon as something is queued, or only when asked. */
  private mode: CloseMode;
  /** Upgrades (developer edits, settings) the next close applies after its transactions. */
  private pendingUpgrades: LedgerUpgradeStep[] = [];
  /** A developer operation that must not overlap a close (revert, fast-forward): closes wait for it. */
  private exclusiveOp: Promise<unknown> | undefined;
  /** Settles when the last developer operation asked for is done (exclusive() queues behind it). */
  private exclusiveQueue: Promise<void> = Promise.resolve();
  /** Accounts whose signatures are not needed (lumen_impersonateAccount). */
  readonly impersonation = new Impersonation();
  /** A fork (--fork-url): the reads of entries not held locally, which are fetched and the run repeated. */
  private missed: MissedKeys | undefined;

  constructor(opts: {
    /** Where closed ledgers are committed and announced (its store is the one read here). */
    writer: LedgerWriter; config: Config; logger: Logger; observeIngestion?: IngestObserver;
    /** How long a close works before letting requests in (default SLICE_MS; 0 = after every step). */
    closeSliceMs?: number;
    /** The network's "now" for close times (default: the system clock), moved forward by an OffsetClock over it. */
    clock?: Clock;
  }) {
    this.closeSliceMs = opts.closeSliceMs;
    this.clock = opts.clock instanceof OffsetClock ? opts.clock : new OffsetClock(opts.clock);
    this.writer = opts.writer;
    this.store = opts.writer.store;
    this.writer.feed.listen((ledgers) => this.notifyLedger(ledgers[ledgers.length - 1].ledger.sequence));
    this.config = opts.config;
    this.mode = opts.config.closeMode;
    this.log = opts.logger;
    this.networkId = networkIdOf(opts.config.networkPassphrase);
    this.queue = new TransactionQueue(opts.config.transactionQueueLimit);
    this.observeIngestion = opts.observeIngestion ?? (() => {});
    this.state = {
      getEntry: (key) => {
        const e = this.store.entry(key);
        if (!e) this.missed?.absent(key);
        return e ? decodeLedgerEntry(e.entry) : undefined;
      },
      offers: (selling, buying) => this.orderBook.offers(selling, buying),
      offersBySeller: (seller) => this.orderBook.offersBySeller(seller),
      // few per account, so read from storage as one key range rather than indexed in memory
      poolShareTrustLines: (owner) =>
        Array.from(this.store.entriesWithKeyPrefix(poolShareTrustLineKeyPrefix(owner)), (e) => decodeLedgerEntry(e.entry)),
    };
  }

  /**
   * Creates ledger 1 on an empty store (the node has checked the store belongs to this network), or
   * with `snapshot` (--load-state, see loadStateSnapshot) the genesis ledger holding its state.
   */
  init(snapshot?: LoadedSnapshot, fork?: ForkGenesis): void {
    if (!this.store.latestLedger()) {
      createGenesis({
        writer: this.writer, config: this.config, networkId: this.networkId, log: this.log,
        nextCloseTime: (prev) => nextCloseSeconds(prev, this.clock.nowMs(), this.pinnedCloseTime), snapshot, fork,
      });
    }
    else noteGenesisSettings(this.store, this.config, this.log);
    this.orderBook.apply(this.store.entriesOfTypes(EntryType.OFFER, EntryType.OFFER));
    this.soroban = this.sorobanEnv();
    if (this.soroban) this.sorobanState = this.loadSorobanState(this.soroban);
  }

  /**
   * One host serves every ledger; the host takes the settings again whenever a ledger changes one
   * (the state-size window every sample period, a developer's configuration upgrade).
   */
  private sorobanEnv(): SorobanEnv | undefined {
    if (!nativeAvailable()) {
      this.log.warn('the Soroban host addon is not built: contract transactions will be refused');
      return undefined;
    }
    const config = this.loadSorobanConfig();
    if (!config) return undefined;
    return { config, host: new (loadNative().SorobanApplier)(config.entries, this.protocolVersion()) };
  }

  /** The protocol the network runs now: its latest ledger's (a new network's genesis sets it). */
  private protocolVersion(): number {
    return this.store.latestLedger()?.protocolVersion ?? DEFAULT_PROTOCOL;
  }

  private loadSorobanConfig() {
    return loadSorobanNetworkConfig((key) => this.state.getEntry(encodeLedgerKey(key)));
  }

  private refreshSorobanConfig(soroban: SorobanEnv): void {
    const config = this.loadSorobanConfig();
    if (!config) return;
    soroban.host.setConfig(config.entries, this.protocolVersion());
    this.soroban = { ...soroban, config };
  }

  /** Reads every contract entry and TTL once, at start. */
  private loadSorobanState(soroban: SorobanEnv): SorobanStateIndex {
    const index = new SorobanStateIndex((bytes, isCode) => (isCode ? soroban.host.entrySizeForRent(bytes) : bytes.length));
    // contract data, contract code, config settings and TTLs are consecutive types
    index.apply(this.store.entriesOfTypes(EntryType.CONTRACT_DATA, EntryType.TTL));
    return index;
  }

  /** Makes this network a fork reading what it lacks from `fork` (after init). */
  attachFork(fork: ForkedState): void { this.missed = new MissedKeys(fork); }

  /** The fork stored entries it fetched: what is kept in memory about the state learns them. */
  forkedEntriesStored(writes: readonly StoredEntry[]): void {
    this.sorobanState?.apply(writes);
    this.orderBook.apply(writes);
  }

  /**
   * Applies `frames` (and the pending upgrades) as the next ledger would, without storing anything:
   * what they read is what a fork fetches before admitting them.
   */
  private dryRun(frames: TransactionFrame[]): void {
    const prev = this.latestHeader();
    const close = this.nextCloseTime(prev.header);
    const steps = closeLedgerSteps({ header: prev.header, hash: prev.hash }, frames, this.state, {
      closeTime: close.seconds, closeTimeMs: close.ms, networkId: this.networkId, soroban: this.soroban,
      upgrades: this.pendingUpgrades, impersonated: this.impersonation,
    });
    while (!steps.next().done) { /* each step */ }
  }

  get closeMode(): CloseMode { return this.mode; }

  /** Switches the close mode at run time; switching to instant closes what is already queued. */
  setCloseMode(mode: CloseMode): void {
    this.mode = mode;
    if (mode === 'instant' && this.queue.size > 0) this.scheduleEagerClose();
  }

  /**
   * Closes on a fixed cadence (a slow close shortens the wait before the next one instead of
   * delaying it); the cadence runs in every mode and closes only in interval and instant mode, so a
   * switch of mode takes effect at the next tick.
   */
  start(): void {
    let due = performance.now() + this.config.ledgerCloseInterval;
    const tick = () => {
      if (this.stopped) return;
      if (this.mode !== 'manual') this.closeInBackground();
      due = Math.max(due + this.config.ledgerCloseInterval, performance.now());
      this.timer = setTimeout(tick, Math.max(0, due - performance.now()));
    };
    this.timer = setTimeout(tick, this.config.ledgerCloseInterval);
  }

  /** Stops closing ledgers; resolves once a close under way has given up (it stores nothing). */
  async stop(): Promise<void> {
    this.stopped = true;
    void this.verifier.close();
    clearTimeout(this.timer);
    if (this.eagerClose) clearImmediate(this.eagerClose);
    await this.inFlightClose?.catch(() => {});
  }

  /** The latest stored header, decoded once per ledger: every submission validates against it. */
  private latestHeader(): xdr.LedgerHeaderHistoryEntryWire {
    const row = this.store.latestLedger();
    if (!row) throw new Error('the standalone network has no ledger yet');
    if (this.decodedHeader?.row !== row) this.decodedHeader = { row, header: xdr.LedgerHeaderHistoryEntry.schema.decode(row.header) };
    return this.decodedHeader.header;
  }

  /**
   * The clock's time, but never before the previous close (before protocol 30 several ledgers may share
   * a second in instant mode; from 30 on each is a millisecond later at least: src/ledger/closeTimes.ts).
   */
  private nextCloseTime(prev: Pick<xdr.LedgerHeaderWire, 'ledgerVersion' | 'scpValue'>): CloseTime {
    return nextCloseTime(prev, this.clock.nowMs(), this.pinnedCloseTime);
  }

  async submit(envelopeXdr: Uint8Array, envelope: TransactionEnvelope): Promise<SubmitResult> {
    const frame: TransactionFrame = { ...frameOf(envelope, this.networkId), envelopeXdr };
    // a fork: what validating and applying it reads is fetched first (a remote failure rejects: nothing queued)
    if (this.missed) {
      await this.missed.discover(() => this.dryRun([frame]))
        .catch((e: unknown) => { throw e instanceof ForkFetchError ? new SubmitterError(e.message, e.message) : e; });
    }
    await verifySignaturesOffThread(frame, this.state, this.verifier);
    return this.submitFrame(frame);
  }

  /** Queues the transaction if it is valid for the next ledger (and, in instant mode, closes one soon). */
  submitFrame(frame: TransactionFrame): SubmitResult {
    const latest = this.latestHeader();
    const ledger = nextLedgerContext(latest, this.nextCloseTime(latest.header).seconds, this.networkId, this.impersonation);
    const result = admitTransaction(frame, { queue: this.queue, state: this.state, ledger, soroban: this.soroban });
    if (result.status === 'PENDING' && this.mode === 'instant') this.scheduleEagerClose();
    return result;
  }

  /**
   * Closes one ledger with what is queued and stores it; resolves to the latest ledger's sequence.
   * One close runs at a time. Applying and encoding give the event loop back every SLICE_MS, so requests
   * keep being answered during a long close (against the previous ledger, until this one is
   * stored); a ledger of a thousand contract calls takes over a second to apply here.
   */
  async closeLedgerNow(): Promise<number> {
    if (this.stopped) return this.latestHeader().header.ledgerSeq;
    if (this.inFlightClose || this.exclusiveOp) {
      // a tick or a transaction during a close: the next close starts as soon as this one is done
      this.closeAgain = true;
      return this.latestHeader().header.ledgerSeq;
    }
    const close = this.closeOnce();
    this.inFlightClose = close;
    try {
      return await close;
    } finally {
      this.inFlightClose = undefined;
      if (this.closeAgain) {
        this.closeAgain = false;
        this.scheduleEagerClose();
      }
    }
  }

  /**
   * Closes one ledger now, after any close under way, whatever the mode; resolves to its sequence.
   * With `upgrades`, the ledger applies them after its transactions (and fails, storing nothing and
   * keeping the queue, when one of them throws).
   */
  async closeNextLedger(upgrades: readonly LedgerUpgradeStep[] = []): Promise<number> {
    if (this.stopped) throw new Error('the network is stopping');
    return this.exclusive(async () => {
      this.pendingUpgrades = [...upgrades];
      try {
        const before = this.latestHeader().header.ledgerSeq;
        const closed = await this.closeOnce(upgrades.length > 0);
        if (closed === before) throw new Error('the ledger could not be closed');
        return closed;
      } finally {
        this.pendingUpgrades = [];
      }
    });
  }

  /** Resolves once no close and no developer operation is under way. */
  private async idle(): Promise<void> {
    while (this.inFlightClose || this.exclusiveOp) await (this.inFlightClose ?? this.exclusiveOp)?.catch(() => {});
  }

  /**
   * Runs a developer operation (a revert, a fast-forward, a close with upgrades) with no close
   * overlapping it: closes asked for meanwhile run after it. Operations run one at a time, in the
   * order they were asked for: each waits for the one before it alone (a thousand snapshots in one
   * batch would otherwise all wake at every turn, a quadratic stall).
   */
  async exclusive<T>(op: () => Promise<T> | T): Promise<T> {
    const turn = this.exclusiveQueue;
    let done!: () => void;
    this.exclusiveQueue = new Promise<void>((resolve) => { done = resolve; });
    try {
      await turn;
      return await this.runExclusive(op);
    } finally {
      done();
    }
  }

  private async runExclusive<T>(op: () => Promise<T> | T): Promise<T> {
    while (this.exclusiveOp || this.inFlightClose) await this.idle();
    const running = (async () => op())();
    this.exclusiveOp = running;
    try {
      return await running;
    } finally {
      this.exclusiveOp = undefined;
      if (this.closeAgain) {
        this.closeAgain = false;
        if (this.mode !== 'manual') this.scheduleEagerClose();
      }
    }
  }

  /** The latest ledger's close time (seconds). */
  get latestCloseTime(): bigint { return this.latestHeader().header.scpValue.closeTime; }

  /**
   * The next ledger closes at `closeTime` (later than the latest ledger's), and the clock moves just
   * past it if it is behind, so the ledgers after it close later still.
   */
  setNextCloseTime(closeTime: bigint): void {
    const latest = this.latestCloseTime;
    if (closeTime <= latest) throw new RangeError(`the next close time must be later than the latest ledger's, ${latest}`);
    this.pinnedCloseTime = closeTime;
    this.advanceClockTo(closeTime + 1n);
  }

  /** Moves the clock forward to `time` if it is behind (it never goes back). */
  private advanceClockTo(time: bigint): void {
    const now = this.clock.nowSeconds();
    if (time > now) this.clock.advance(time - now);
  }

  /**
   * Closes `count` empty ledgers at once, `closeTimeStep` seconds apart after the latest one
   * (src/standalone/fastForward.ts); run it inside exclusive(). The clock then runs past the last
   * close time, so the next ledger closes later (not in the same second).
   */
  async fastForward(count: number, closeTimeStep: bigint): Promise<FastForwardResult> {
    const prev = this.latestHeader();
    const soroban = this.soroban;
    try {
      const result = await fastForward({
        writer: this.writer, prev: { header: prev.header, hash: prev.hash },
        soroban: soroban && this.sorobanState ? {
          state: this.sorobanState, maxEntriesToArchive: soroban.config.maxEntriesToArchive,
          samplePeriod: soroban.config.stateSizeWindowSamplePeriod, window: soroban.config.stateSizeWindow,
        } : undefined,
        keepEveryLedger: Boolean(this.config.publishDatastore || this.config.publishHistoryArchive),
        commitCheckpoints: Boolean(this.config.publishHistoryArchive),
        stopped: () => this.stopped,
      }, count, closeTimeStep);
      this.pinnedCloseTime = undefined;
      if (soroban) this.refreshSorobanConfig(soroban);
      this.advanceClockTo(result.closeTime + 1n);
      return result;
    } catch (err) {
      // what was written stays (whole groups of ledgers); the in-memory state follows the store again
      this.reloadState();
      throw err;
    }
  }

  /** A developer operation changed what the engine holds in memory about the state: read it again. */
  reloadState(): void {
    this.decodedHeader = undefined;
    this.orderBook.clear();
    this.orderBook.apply(this.store.entriesOfTypes(EntryType.OFFER, EntryType.OFFER));
    if (this.soroban) {
      this.refreshSorobanConfig(this.soroban);
      this.sorobanState = this.loadSorobanState(this.soroban);
    }
  }

  /** What the transaction queue holds now (a snapshot keeps it, to put back on revert). */
  queueContents(): QueueContents { return this.queue.save(); }

  /**
   * Takes the network back to the end of `ledger`; call inside exclusive() (no close overlaps it).
   * The store goes back through the writer (which tells the feed's listeners), then the engine's
   * in-memory state follows the entries put back, as it follows a close's writes (reading the whole
   * state again, reloadState, costs seconds at 100,000 entries); the queue becomes `queue` (empty
   * without it). The next ledger closed is `ledger + 1`, chained on its hash. Refused (changing
   * nothing) as the store refuses.
   */
  revertTo(ledger: number, queue?: QueueContents): void {
    const entries = this.writer.revertTo(ledger);
    this.decodedHeader = undefined;
    this.orderBook.apply(entries);
    this.sorobanState?.apply(entries);
    if (this.soroban) this.refreshSorobanConfig(this.soroban);
    if (queue) this.queue.restore(queue); else this.queue.clear();
    if (this.queue.size > 0 && this.mode === 'instant') this.closeAgain = true;
    // waiters for ledgers that were dropped (or not closed yet) look again at the state now
    for (const waiter of this.ledgerWaiters.splice(0)) waiter.resolve();
  }

  private async closeOnce(strict = false): Promise<number> {
    const prev = this.latestHeader();
    const frames = this.queue.take(this.config.maxTxSetSize);
    try {
      return await this.closeWith(prev, frames);
    } catch (err) {
      // refused upgrades: the transactions stay queued (take() leaves them there) for the next close
      if (strict) throw err;
      this.queue.discard(frames);
      this.log.error({ err, ledger: prev.header.ledgerSeq + 1, discarded: frames.map((f) => f.hashHex) }, 'could not close the ledger; its transactions were dropped');
      return prev.header.ledgerSeq;
    }
  }

  private async closeWith(prev: xdr.LedgerHeaderHistoryEntryWire, frames: TransactionFrame[]): Promise<number> {
    const work = new SlicedWork(() => this.stopped, this.closeSliceMs);
    const seq = prev.header.ledgerSeq + 1;
    const soroban = this.soroban;
    const sorobanState = this.sorobanState;
    // a stop meanwhile drops the ledger unstored, as a crash would
    const close = this.nextCloseTime(prev.header);
    const run = () => work.run(closeLedgerSteps({ header: prev.header, hash: prev.hash }, frames, this.state, {
      closeTime: close.seconds, closeTimeMs: close.ms, networkId: this.networkId, soroban,
      ...(soroban && sorobanState ? {
        evictionCandidates: sorobanState.evictionCandidates(seq, soroban.config.maxEntriesToArchive),
        liveSorobanStateSize: averageAfterLedger(soroban.config.stateSizeWindow, soroban.config.stateSizeWindowSamplePeriod, seq, sorobanState.liveStateSize),
      } : {}),
      upgrades: this.pendingUpgrades, impersonated: this.impersonation,
    }));
    // a fork: the ledger's transactions (and upgrades) read each other's writes, so one may read a
    // key nobody has fetched yet (what an earlier transaction's changes lead to; admission fetched
    // what each reads alone): the close is then dropped (nothing is stored yet) and run again
    const closed = this.missed && (frames.length > 0 || this.pendingUpgrades.length > 0)
      ? await this.missed.runFetching(run, () => this.stopped) : await run();
    if (!closed) return prev.header.ledgerSeq;
    for (const { hash, error } of closed.internalErrors) {
      this.log.error({ err: error, ledger: seq, transaction: hash }, 'applying a transaction threw: it failed alone (txINTERNAL_ERROR), the rest of its ledger applied');
    }
    const applyMs = work.busyMs;
    let batch = await this.batchOf(closed, work);
    if (!batch) return prev.header.ledgerSeq;
    if (this.config.publishHistoryArchive && isCheckpointLedger(seq)) {
      // the header commits to the state as the archive will publish it, known once the ledger's writes are
      commitToBucketList(closed, checkpointBucketListHash(this.writer, batch, closed.header.ledgerVersion));
      batch = await this.batchOf(closed, work);
      if (!batch) return prev.header.ledgerSeq;
    }
    const storeStarted = performance.now();
    this.writer.write([batch]);
    this.pinnedCloseTime = undefined;
    sorobanState?.apply(batch.entryWrites);
    this.orderBook.apply(batch.entryWrites);
    // the state-size window moves every sample period; an upgrade may change any setting, or the
    // protocol (whose host line runs the next ledger)
    if (soroban && (closed.header.ledgerVersion !== prev.header.ledgerVersion
      || batch.entryWrites.some((w) => bytesEqual(w.key, WINDOW_KEY) || ledgerKeyType(w.key) === EntryType.CONFIG_SETTING))) this.refreshSorobanConfig(soroban);
    this.queue.ledgerClosed(frames);
    const storeMs = performance.now() - storeStarted;
    const ingestMs = work.busyMs + storeMs - applyMs;
    this.observeIngestion('apply', applyMs / 1000);
    this.observeIngestion('total', ingestMs / 1000);
    this.log.debug({ ledger: seq, transactions: frames.length, applyMs, ingestMs, storeMs }, 'closed ledger');
    return seq;
  }

  /** A closed ledger's meta, encoded and converted to the rows ingestion stores; undefined when the network stops meanwhile. */
  private async batchOf(closed: ClosedLedger, work: SlicedWork): Promise<IngestBatch | undefined> {
    const encoded = await work.run(encodeCloseMetaSteps(closed.meta.v2, closed.txSetXdr));
    if (!encoded || !await work.checkpoint()) return undefined;
    const batch = closedLedgerBatch(closed, encoded, this.networkId);
    return await work.checkpoint() ? batch : undefined;
  }

  private scheduleEagerClose(): void {
    if (this.eagerClose || this.stopped) return;
    this.eagerClose = setImmediate(() => {
      this.eagerClose = undefined;
      this.closeInBackground();
    });
  }

  /** A close nobody waits for (timer, instant mode): its failure can only be logged. */
  private closeInBackground(): void {
    void this.closeLedgerNow().catch((err: unknown) => this.log.error({ err }, 'ledger close failed'));
  }

  /** Resolves once ledger `seq` is stored, or at a revert (the caller looks again: what it waited for may be gone). */
  waitForLedger(seq: number): Promise<void> {
    const latest = this.store.latestLedger()?.sequence ?? 0;
    if (latest >= seq) return Promise.resolve();
    return new Promise((resolve) => this.ledgerWaiters.push({ seq, resolve }));
  }

  /** Resolves once the transaction is stored, or rejects when it left the queue without getting in. */
  async waitForTransaction(hashHex: string, maxLedgers = 10): Promise<void> {
    const hash = Buffer.from(hashHex, 'hex');
    for (let i = 0; i < maxLedgers; i++) {
      if (this.store.transactionByHash(hash)) return;
      if (!this.queue.has(hashHex)) break;
      await this.waitForLedger((this.store.latestLedger()?.sequence ?? 0) + 1);
    }
    if (!this.store.transactionByHash(hash)) throw new Error(`transaction ${hashHex} was not included`);
  }

  private notifyLedger(seq: number): void {
    for (let i = this.ledgerWaiters.length - 1; i >= 0; i--) {
      if (this.ledgerWaiters[i].seq <= seq) { this.ledgerWaiters[i].resolve(); this.ledgerWaiters.splice(i, 1); }
    }
  }
}
