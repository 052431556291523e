// The standalone network publishing itself the way public networks are published: every ledger as
// a SEP-54 datastore file, and a history-archive checkpoint every 64 ledgers, so a second node can
// follow it as it would follow testnet. A publishing failure is logged and never fails a close.
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/types.ts';
import type { RawLedger } from '../sources/ledgerSource.ts';
import { DatastoreWriter } from '../sources/datastore/datastoreWriter.ts';
import { HistoryArchivePublisher } from '../archive/archivePublisher.ts';

export function createPublisher(store: Store, config: Config, logger: Logger): ((ledger: RawLedger) => void) | undefined {
  const datastore = config.publishDatastore
    ? new DatastoreWriter(config.publishDatastore, { networkPassphrase: config.networkPassphrase })
    : undefined;
  const archive = config.publishHistoryArchive
    ? new HistoryArchivePublisher({ folder: config.publishHistoryArchive, networkPassphrase: config.networkPassphrase })
    : undefined;
  if (!datastore && !archive) return undefined;
  return (ledger) => {
    try {
      datastore?.write(ledger);
      const published = archive?.afterLedger(store, ledger.sequence);
      if (published) logger.debug({ ...published }, 'published a history archive checkpoint');
    } catch (e) {
      logger.error({ err: e, ledger: ledger.sequence }, 'publishing failed');
    }
  };
}
