// A fork from a history archive (--fork-archive URL [--fork-ledger N]): no remote RPC. On an empty
// database the state is the archive's checkpoint C at or before N (N defaults to the archive's
// latest checkpoint), filled by the follower's bootstrap (src/archive/stateBootstrap.ts). Then the
// follower's ingester (src/ingest/ledgerIngester.ts) stores the ledgers C+1..N from --datastore (or
// N itself when N = C), or, without a datastore (the fork is then C's: N = C), ledger N made from
// the archive's header (src/fork/checkpointLedger.ts). Either way the stored ledger N carries the
// network's hash, so the standalone network's next ledger chains onto it. The state is complete:
// nothing is fetched later (no ForkedState). The local root's lumens for the faucet and the test
// accounts are developer edits in the first ledger the fork closes, N + 1, not part of a genesis:
// there is no genesis here (src/standalone/archiveForkEdits.ts).
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { LedgerWriter } from '../ingest/ledgerWriter.ts';
import { LedgerIngester } from '../ingest/ledgerIngester.ts';
import { ArchiveVerificationError, HistoryArchive, bucketCap } from '../archive/historyArchive.ts';
import { inputCap } from '../io/inputCaps.ts';
import type { KnownLedger } from '../ingest/verifiedLedger.ts';
import { bootstrapState } from '../archive/stateBootstrap.ts';
import { latestCheckpointAtOrBefore } from '../archive/historyArchiveState.ts';
import { openDatastoreSource } from '../sources/datastore/datastoreSource.ts';
import type { LedgerSource } from '../sources/ledgerSource.ts';
import { decodeLedgerEntry, networkIdOf, toHex } from '../xdr/codec.ts';
import { ConfigSettingId } from '../xdr/ledgerKeys.ts';
import { WINDOW_KEY, windowAverage } from '../ingest/stateSizeWindow.ts';
import { checkpointLedgerSource } from './checkpointLedger.ts';
import { FORK_LEDGER, FORK_URL, ForkStartError } from './forkStart.ts';

/** Store metadata: the history archive a fork was made from (its ledger is FORK_LEDGER). */
export const FORK_ARCHIVE = 'forkArchive';
/** Store metadata, "true" until the root's lumens edit is in a closed ledger. */
export const FORK_ARCHIVE_ROOT_PENDING = 'forkArchiveRootPending';
/** The root's native balance after the edit: half of all lumens (stroops), plenty for the faucet. */
export const ARCHIVE_FORK_ROOT_BALANCE = 500_000_000_000_000_000n;

/**
 * Checks --fork-archive against the options and the database; on an empty database builds the
 * state and the ledgers up to N. Returns true when the root's edit is still to be closed.
 */
export async function prepareArchiveFork(writer: LedgerWriter, config: Config, logger: Logger): Promise<boolean> {
  const { store } = writer;
  const stored = store.metadata(FORK_ARCHIVE);
  const url = config.forkArchive;
  if (!url) {
    if (stored !== undefined && store.latestLedger()) {
      throw new ForkStartError(`the database ${config.dbPath} holds a fork of the history archive ${stored}: start it with --fork-archive ${stored} --fork-ledger ${store.metadata(FORK_LEDGER)}`);
    }
    return false;
  }
  if (config.forkUrl) throw new ForkStartError('--fork-archive and --fork-url are two ways to fork: give one of them');
  if (config.loadState) throw new ForkStartError('--fork-archive and --load-state both make the state: give one of them');
  if (!config.networkPassphrase) throw new ForkStartError(`--fork-archive ${url} needs --network-passphrase (the forked network's)`);
  if (store.latestLedger()) return restartedArchiveFork(store, config, stored);
  if (store.metadata(FORK_URL) !== undefined) throw new ForkStartError(`--fork-archive: the database ${config.dbPath} was claimed by --fork-url ${store.metadata(FORK_URL)}; use an empty database`);

  const archive = HistoryArchive.open(url, undefined, { input: inputCap(config.maxInputBytes), bucket: bucketCap(config.maxBucketBytes) });
  const root = await archive.rootState().catch((e: unknown) => {
    throw new ForkStartError(`--fork-archive ${url}: the history archive cannot be read: ${(e as Error).message}`);
  });
  if (root.networkPassphrase !== undefined && root.networkPassphrase !== config.networkPassphrase) {
    throw new ForkStartError(`--fork-archive ${url} is an archive of "${root.networkPassphrase}", not of "${config.networkPassphrase}" (--network-passphrase)`);
  }
  // without --fork-ledger: the archive's latest checkpoint
  const asked = config.forkLedger || root.currentLedger;
  const checkpoint = latestCheckpointAtOrBefore(asked);
  if (checkpoint === undefined) throw new ForkStartError(`--fork-ledger ${asked}: no checkpoint at or before it (the first is ledger 63)`);
  if (checkpoint > root.currentLedger) {
    throw new ForkStartError(`--fork-ledger ${asked}: the history archive ${url} has checkpoints up to ledger ${root.currentLedger} only (ledger ${asked} needs checkpoint ${checkpoint})`);
  }
  // without a datastore nothing holds the ledgers after the checkpoint: the fork is the checkpoint's
  const n = config.datastore ? asked : checkpoint;
  if (n !== asked) {
    logger.warn({ forkLedger: asked, checkpoint }, `--fork-ledger ${asked} is not a checkpoint ledger and there is no --datastore for ledgers `
      + `${checkpoint + 1}..${asked}: the fork starts after checkpoint ${checkpoint}, with the state as of that ledger`);
  }
  const datastore = config.datastore ? await checkedDatastore(config, n, checkpoint) : undefined;

  // claimed from here: a failure below leaves a database to delete (it has no ledger, so a retry starts over)
  store.setMetadata(FORK_ARCHIVE, url);
  store.setMetadata(FORK_LEDGER, String(n));
  logger.info({ archive: archive.description, checkpoint, forkLedger: n }, 'fork: bootstrapping the state from the history archive');
  const { header } = await bootstrapState(store, archive, checkpoint, undefined, { networkPassphrase: config.networkPassphrase })
    .catch((e: unknown) => {
      // a verification error names the archive, the checkpoint and what does not match
      if (e instanceof ArchiveVerificationError) throw new ForkStartError(`--fork-archive: the history archive fails verification: ${e.message}`);
      throw new ForkStartError(`--fork-archive ${url}: checkpoint ${checkpoint} cannot be read: ${(e as Error).message}`);
    });
  logger.info({ checkpoint, ledgerHash: toHex(header.hash), bucketListHash: toHex(header.header.bucketListHash) },
    'fork: checkpoint verified (its headers, its bucket lists against its header, every bucket against its hash)');

  // the ledgers C + 1..N from the datastore (N itself when N = C), or without one ledger N made
  // from the archive's (verified) header; either goes through the follower's ingestion, which
  // checks that they chain through that header
  const source = datastore ? endingAt(datastore, n) : checkpointLedgerSource(archive.description, header, storedWindowAverage(store));
  const failure = await ingestUpTo(writer, source, config, logger, { sequence: checkpoint, hash: header.hash });
  const latest = store.latestLedger()?.sequence;
  if (latest !== n) {
    throw new ForkStartError(`--fork-ledger ${n}: the ledgers ${datastore ? checkpoint + 1 : n}..${n} could not be applied from ${source.description}`
      + ` (stored up to ${latest ?? 'none'}): ${failure ?? 'the source ended early'}`);
  }
  store.setMetadata(FORK_ARCHIVE_ROOT_PENDING, 'true');
  logger.info({ forkLedger: n, checkpoint, ledgersFrom: source.description }, 'fork: state as of the fork ledger built from the history archive');
  return true;
}

/**
 * A restart on a database holding ledgers: it must be this archive's fork, at N when --fork-ledger
 * is given (or at the checkpoint a fork without a datastore took for it).
 */
function restartedArchiveFork(store: LedgerWriter['store'], config: Config, stored: string | undefined): boolean {
  const url = config.forkArchive;
  const storedLedger = Number(store.metadata(FORK_LEDGER));
  const sameLedger = !config.forkLedger || config.forkLedger === storedLedger
    || (!config.datastore && latestCheckpointAtOrBefore(config.forkLedger) === storedLedger);
  if (stored !== url || !sameLedger) {
    throw new ForkStartError(`--fork-archive ${url}${config.forkLedger ? ` --fork-ledger ${config.forkLedger}` : ''}: the database ${config.dbPath} holds `
      + (stored === undefined ? 'a network that is not an archive fork' : `a fork of ${stored} at ledger ${storedLedger}`)
      + '; use an empty database');
  }
  const pending = store.metadata(FORK_ARCHIVE_ROOT_PENDING);
  // ledgers stored but not up to N: the build stopped part way (a failed first start)
  if (pending === undefined) throw new ForkStartError(`--fork-archive ${url}: the database ${config.dbPath} holds an unfinished fork (the ledgers up to ${storedLedger} were not all applied); use an empty database`);
  return pending === 'true';
}

/** --datastore, checked to hold the ledgers the fork needs: C + 1..N, or N itself when N = C. */
async function checkedDatastore(config: Config, n: number, checkpoint: number): Promise<LedgerSource> {
  const datastore = openDatastoreSource(config.datastore, {
    networkPassphrase: config.networkPassphrase, pollIntervalMs: config.datastorePollInterval, cap: inputCap(config.maxInputBytes),
  });
  const [tip, earliest] = await Promise.all([datastore.latest(), datastore.earliest()]).catch((e: unknown) => {
    throw new ForkStartError(`--datastore ${config.datastore}: cannot be read: ${(e as Error).message}`);
  });
  const first = n === checkpoint ? n : checkpoint + 1;
  if (tip === undefined || tip < n || (earliest !== undefined && earliest > first)) {
    throw new ForkStartError(`--fork-ledger ${n}: ${datastore.description} holds ledgers ${earliest ?? '?'}..${tip ?? '?'}; the fork needs ${first}..${n}`);
  }
  return datastore;
}

/**
 * Runs the follower's ingester over `source` to its end (retention 1), the ledgers chained through
 * the checkpoint the state came from; returns why it failed, if it did.
 */
async function ingestUpTo(writer: LedgerWriter, source: LedgerSource, config: Config, logger: Logger, stateCheckpoint: KnownLedger): Promise<string | undefined> {
  const ingester = new LedgerIngester({
    writer, source, logger, networkId: networkIdOf(config.networkPassphrase), retentionWindow: 1, attempts: 2, stateCheckpoint,
  });
  // its converter thread is unref'd (the server keeps a node alive): nothing else holds the process yet
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    ingester.start();
    await ingester.finished();
    await ingester.stop();
  } finally {
    clearInterval(keepAlive);
  }
  return ingester.failure?.message;
}

/** The average of the bootstrapped state-size window: what the network published for the checkpoint ledger. */
function storedWindowAverage(store: LedgerWriter['store']): bigint {
  const stored = store.entry(WINDOW_KEY);
  if (!stored) return 0n;
  const data = decodeLedgerEntry(stored.entry).data;
  return data.type === 8 && data.configSetting.configSettingID === ConfigSettingId.LIVE_SOROBAN_STATE_SIZE_WINDOW
    ? windowAverage(data.configSetting.liveSorobanStateSizeWindow) : 0n;
}

/** `source`, ending after ledger `last` (and reporting it as its tip). */
function endingAt(source: LedgerSource, last: number): LedgerSource {
  return {
    description: source.description,
    ledgers: (from, opts) => source.ledgers(from, { ...opts, to: Math.min(opts.to ?? last, last) }),
    latest: async () => last,
    earliest: () => source.earliest(),
  };
}
