// Follow mode's parts from the configuration: which ledger source (datastore, meta stream, captive
// core), which history archive the ledger state comes from, and the ingester that joins them.
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/types.ts';
import type { LedgerSource } from '../sources/ledgerSource.ts';
import { openDatastoreSource } from '../sources/datastore/datastoreSource.ts';
import { MetaStreamSource } from '../sources/metaStream/metaStreamSource.ts';
import { CaptiveCoreSource } from '../sources/metaStream/captiveCore.ts';
import { ArchiveVerificationError, HistoryArchive, bucketCap } from '../archive/historyArchive.ts';
import { inputCap } from '../io/inputCaps.ts';
import { bootstrapState } from '../archive/stateBootstrap.ts';
import { latestCheckpointAtOrBefore } from '../archive/historyArchiveState.ts';
import type { LedgerWriter } from '../ingest/ledgerWriter.ts';
import { LedgerIngester, type StateBootstrapper } from '../ingest/ledgerIngester.ts';
import { networkIdOf } from '../xdr/codec.ts';

const archiveUrls = (config: Config): string[] => config.historyArchiveUrls.split(',').map((u) => u.trim()).filter(Boolean);

export function createLedgerSource(config: Config, logger?: Logger): LedgerSource {
  const cap = inputCap(config.maxInputBytes);
  if (config.metaStream) return new MetaStreamSource({ path: config.metaStream, cap });
  if (config.stellarCoreBinaryPath) {
    return new CaptiveCoreSource({
      binaryPath: config.stellarCoreBinaryPath, networkPassphrase: config.networkPassphrase,
      configPath: config.captiveCoreConfigPath || undefined, storagePath: config.captiveCoreStoragePath || undefined,
      historyArchiveUrls: archiveUrls(config).filter((u) => /^https?:/i.test(u)),
      log: logger ? (line) => logger.debug({ core: line }, 'stellar-core') : undefined,
      cap,
    });
  }
  if (config.datastore) {
    return openDatastoreSource(config.datastore, { networkPassphrase: config.networkPassphrase, pollIntervalMs: config.datastorePollInterval, cap });
  }
  throw new Error('following a network needs a ledger source: --datastore, --meta-stream or --stellar-core-binary-path');
}

export function createFollowIngester(
  writer: LedgerWriter, config: Config, logger: Logger,
  hooks: { observeIngestion: (type: string, seconds: number) => void },
): LedgerIngester & { sourceDescription: string } {
  const source = createLedgerSource(config, logger);
  const archives = archiveUrls(config);
  const ingester = new LedgerIngester({
    writer, source, logger,
    networkId: networkIdOf(config.networkPassphrase),
    retentionWindow: config.historyRetentionWindow,
    bootstrapState: archives.length ? archiveBootstrapper(writer.store, archives, config, logger) : undefined,
    ...hooks,
  });
  return Object.assign(ingester, { sourceDescription: source.description });
}

/**
 * Bootstraps from the first archive that answers, at its latest checkpoint no newer than the
 * source's tip (the ledgers after it must be there). An archive without a checkpoint yet (a new
 * network) is waited for, as the reference does. An archive whose checkpoint fails verification
 * (stateBootstrap.ts) is not asked again; when every archive has failed it, the bootstrap fails
 * with the last one's error.
 */
function archiveBootstrapper(store: Store, urls: string[], config: Config, logger: Logger): StateBootstrapper {
  const passphrase = config.networkPassphrase;
  const caps = { input: inputCap(config.maxInputBytes), bucket: bucketCap(config.maxBucketBytes) };
  return async (notAfter, signal) => {
    let attempt = 0;
    const refused = new Set<string>();
    for (;;) {
      for (const url of urls) {
        if (refused.has(url)) continue;
        const archive = HistoryArchive.open(url, undefined, caps);
        try {
          const root = await archive.rootState();
          // A checkpoint the source already has the next ledgers of; else the newest (ingestion waits).
          const older = notAfter !== undefined && notAfter > 0 && root.currentLedger > notAfter ? latestCheckpointAtOrBefore(notAfter) : undefined;
          const checkpoint = older ?? root.currentLedger;
          logger.info({ archive: archive.description, checkpoint }, 'bootstrapping the ledger state from a history archive');
          let lastLog = 0;
          const result = await bootstrapState(store, archive, checkpoint, (p) => {
            if (p.done || Date.now() - lastLog > 5000) {
              lastLog = Date.now();
              logger.info({ bucket: `${p.index + 1}/${p.buckets}`, list: p.list, entries: p.entries, bytes: p.bytes }, 'reading buckets');
            }
          }, { networkPassphrase: passphrase });
          logger.info({ archive: archive.description, checkpoint }, 'history archive checkpoint verified (its headers, its bucket lists against its header, every bucket against its hash)');
          return { sequence: result.checkpoint, hash: result.header.hash };
        } catch (e) {
          if (signal.aborted) throw e;
          if (e instanceof ArchiveVerificationError) {
            logger.error({ archive: archive.description }, e.message);
            refused.add(url);
            if (refused.size === urls.length) throw e;
            continue;
          }
          if (attempt++ % 10 === 0) logger.warn({ err: (e as Error).message, archive: archive.description }, 'history archive not usable yet; retrying');
        }
      }
      await new Promise((r) => setTimeout(r, 1000));
      if (signal.aborted) throw signal.reason;
    }
  };
}
