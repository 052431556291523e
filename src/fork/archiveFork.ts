// A fork from a history archive (--fork-archive URL --fork-ledger N): no remote RPC. On an empty
// database the state is the archive's checkpoint C at or before N, filled by the follower's
// bootstrap (src/archive/stateBootstrap.ts), then the ledgers C+1..N (or N itself when N = C) are
// taken from --datastore by the follower's ingester (src/ingest/ledgerIngester.ts) over a source that
// ends at N. The stored ledgers are the network's own (their hashes), so the standalone network's
// next ledger chains onto N's hash. The state is complete: nothing is fetched later (no ForkedState).
// The local root account's lumens for the faucet are a developer edit (lumen_setBalance's edit)
// in the first ledger the fork closes, N + 1, not part of a genesis: there is no genesis here.
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { LedgerWriter } from '../ingest/ledgerWriter.ts';
import { LedgerIngester } from '../ingest/ledgerIngester.ts';
import { HistoryArchive } from '../archive/historyArchive.ts';
import { bootstrapState } from '../archive/stateBootstrap.ts';
import { latestCheckpointAtOrBefore } from '../archive/historyArchiveState.ts';
import { openDatastoreSource } from '../sources/datastore/datastoreSource.ts';
import type { LedgerSource } from '../sources/ledgerSource.ts';
import { networkIdOf } from '../xdr/codec.ts';
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
  const n = config.forkLedger;
  if (!n) throw new ForkStartError(`--fork-archive ${url} needs --fork-ledger N: the ledger the fork starts after`);
  if (config.forkUrl) throw new ForkStartError('--fork-archive and --fork-url are two ways to fork: give one of them');
  if (config.loadState) throw new ForkStartError('--fork-archive and --load-state both make the state: give one of them');
  if (!config.networkPassphrase) throw new ForkStartError(`--fork-archive ${url} needs --network-passphrase (the forked network's)`);
  if (store.latestLedger()) {
    if (stored !== url || Number(store.metadata(FORK_LEDGER)) !== n) {
      throw new ForkStartError(`--fork-archive ${url} --fork-ledger ${n}: the database ${config.dbPath} holds `
        + (stored === undefined ? 'a network that is not an archive fork' : `a fork of ${stored} at ledger ${store.metadata(FORK_LEDGER)}`)
        + '; use an empty database');
    }
    const pending = store.metadata(FORK_ARCHIVE_ROOT_PENDING);
    // ledgers stored but not up to N: the build stopped part way (a failed first start)
    if (pending === undefined) throw new ForkStartError(`--fork-archive ${url}: the database ${config.dbPath} holds an unfinished fork (the ledgers up to ${n} were not all applied); use an empty database`);
    return pending === 'true';
  }
  if (store.metadata(FORK_URL) !== undefined) throw new ForkStartError(`--fork-archive: the database ${config.dbPath} was claimed by --fork-url ${store.metadata(FORK_URL)}; use an empty database`);

  const archive = HistoryArchive.open(url);
  const root = await archive.rootState().catch((e: unknown) => {
    throw new ForkStartError(`--fork-archive ${url}: the history archive cannot be read: ${(e as Error).message}`);
  });
  if (root.networkPassphrase !== undefined && root.networkPassphrase !== config.networkPassphrase) {
    throw new ForkStartError(`--fork-archive ${url} is an archive of "${root.networkPassphrase}", not of "${config.networkPassphrase}" (--network-passphrase)`);
  }
  const checkpoint = latestCheckpointAtOrBefore(n);
  if (checkpoint === undefined) throw new ForkStartError(`--fork-ledger ${n}: no checkpoint at or before it (the first is ledger 63)`);
  if (checkpoint > root.currentLedger) {
    throw new ForkStartError(`--fork-ledger ${n}: the history archive ${url} has checkpoints up to ledger ${root.currentLedger} only (ledger ${n} needs checkpoint ${checkpoint})`);
  }
  if (!config.datastore) {
    throw new ForkStartError(n === checkpoint
      ? `--fork-archive without --datastore is not built yet: give --datastore (the ledger ${n} itself is read from it)`
      : `--fork-ledger ${n} is not a checkpoint ledger: without --datastore the fork must start at a checkpoint (the nearest at or before it is ${checkpoint}), or give --datastore for ledgers ${checkpoint + 1}..${n}`);
  }
  const datastore = openDatastoreSource(config.datastore, { networkPassphrase: config.networkPassphrase, pollIntervalMs: config.datastorePollInterval });
  const [tip, earliest] = await Promise.all([datastore.latest(), datastore.earliest()]).catch((e: unknown) => {
    throw new ForkStartError(`--datastore ${config.datastore}: cannot be read: ${(e as Error).message}`);
  });
  const first = n === checkpoint ? n : checkpoint + 1;
  if (tip === undefined || tip < n || (earliest !== undefined && earliest > first)) {
    throw new ForkStartError(`--fork-ledger ${n}: ${datastore.description} holds ledgers ${earliest ?? '?'}..${tip ?? '?'}; the fork needs ${first}..${n}`);
  }

  // claimed from here: a failure below leaves a database to delete (it has no ledger, so a retry starts over)
  store.setMetadata(FORK_ARCHIVE, url);
  store.setMetadata(FORK_LEDGER, String(n));
  logger.info({ archive: archive.description, checkpoint, forkLedger: n }, 'fork: bootstrapping the state from the history archive');
  await bootstrapState(store, archive, checkpoint, undefined, { networkPassphrase: config.networkPassphrase })
    .catch((e: unknown) => { throw new ForkStartError(`--fork-archive ${url}: checkpoint ${checkpoint} cannot be read: ${(e as Error).message}`); });

  // the follower's ingestion over a source that ends at N (retention 1: from C + 1, or N when N = C)
  const ingester = new LedgerIngester({
    writer, source: endingAt(datastore, n), logger, networkId: networkIdOf(config.networkPassphrase),
    retentionWindow: 1, attempts: 2,
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
  const latest = store.latestLedger()?.sequence;
  if (latest !== n) {
    throw new ForkStartError(`--fork-ledger ${n}: the ledgers ${first}..${n} could not be applied from ${datastore.description}`
      + ` (stored up to ${latest ?? 'none'}): ${ingester.failure?.message ?? 'the source ended early'}`);
  }
  store.setMetadata(FORK_ARCHIVE_ROOT_PENDING, 'true');
  logger.info({ forkLedger: n, checkpoint }, 'fork: state as of the fork ledger built from the archive and the datastore');
  return true;
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
