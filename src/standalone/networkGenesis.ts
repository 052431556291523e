// The first ledger of a new standalone network, stored through the writer like every later one: a
// plain genesis (ledger 1), a loaded snapshot's ledger (--load-state), or a lazy fork's (--fork-url:
// the remote's ledger, its settings and the local root). A fork from a history archive has no
// genesis (src/fork/archiveFork.ts).
import { xdr } from '../xdr/xdr.ts';
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { LedgerWriter } from '../ingest/ledgerWriter.ts';
import { ledgerToBatch } from '../ingest/ledgerToBatch.ts';
import { genesisLedger } from '../ledger/genesis.ts';
import { DEFAULT_PROTOCOL, protocolProblem } from '../ledger/protocols.ts';
import { encodeLedgerEntry, encodeLedgerKey } from '../xdr/codec.ts';
import { ledgerKeyOf } from '../xdr/ledgerKeys.ts';
import { markResolved } from '../fork/forkedState.ts';
import { FORK_LEDGER, FORK_PINNED, FORK_URL, type ForkGenesis } from '../fork/forkStart.ts';
import { genesisTestAccounts, recordGenesisSettings } from './devGenesis.ts';
import { genesisFromSnapshot, type LoadedSnapshot } from './ledgerSnapshot.ts';

export interface GenesisInput {
  writer: LedgerWriter;
  config: Config;
  networkId: Uint8Array;
  log: Logger;
  /** The close time a ledger after one closed at `prev` gets (the network's clock). */
  nextCloseTime(prev: bigint): bigint;
  snapshot?: LoadedSnapshot;
  fork?: ForkGenesis;
}

export function createGenesis({ writer, config, networkId, log, nextCloseTime, snapshot, fork }: GenesisInput): void {
  const { store } = writer;
  const archival = { minPersistentTtl: config.minPersistentTtl, minTemporaryTtl: config.minTemporaryTtl };
  const protocol = config.protocol || DEFAULT_PROTOCOL;
  const problem = protocolProblem(protocol);
  if (problem) throw new Error(`--protocol ${protocol}: ${problem}`);
  // --load-state: the genesis is the snapshot's ledger, holding its state (src/standalone/ledgerSnapshot.ts);
  // --fork-url: the remote's latest ledger, holding its settings and the local root (src/fork/forkStart.ts)
  const from = snapshot
    ? genesisFromSnapshot(snapshot, { networkId, passphrase: config.networkPassphrase, protocolVersion: protocol, archival })
    : fork;
  const genesis = genesisLedger(networkId, {
    closeTime: nextCloseTime(from?.closeTime ?? 0n), maxTxSetSize: config.maxTxSetSize, archival, from,
    limits: config.limits, accounts: genesisTestAccounts(config), protocol,
  });
  if (fork) {
    // before the genesis is stored: a database with ledgers and no fork URL is not a fork
    store.setMetadata(FORK_URL, fork.forkUrl);
    store.setMetadata(FORK_LEDGER, String(fork.ledgerSeq));
    if (fork.pinned) store.setMetadata(FORK_PINNED, 'true');
    // what the genesis holds is local (the root, the test accounts, the settings): never fetched
    markResolved(store, genesis.entries.map((e) => encodeLedgerKey(ledgerKeyOf(e.data))));
  }
  const bytes = xdr.LedgerCloseMeta.schema.encode(genesis.meta);
  const batch = ledgerToBatch({ bytes, meta: genesis.meta }, networkId);
  for (const e of genesis.entries) {
    batch.entryWrites.push({ key: encodeLedgerKey(ledgerKeyOf(e.data)), entry: encodeLedgerEntry(e), lastModified: e.lastModifiedLedgerSeq });
  }
  writer.write([batch], { deriveStateSizeWindow: false });
  recordGenesisSettings(store, config);
  log.info({ ledger: from?.ledgerSeq ?? 1, entries: genesis.entries.length, ...(snapshot ? { loadedState: config.loadState || true } : {}),
    ...(fork ? { forkOf: fork.forkUrl } : {}) },
    'created the genesis ledger');
}
