// What a new developer network starts with beyond the root account (--limits, --accounts), and what
// a restart says about them: both only matter at genesis, a restarted network keeps its stored
// accounts and settings (lumen_upgradeConfig changes the settings at run time).
import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/types.ts';
import type { GenesisAccount } from '../ledger/genesis.ts';
import { MAX_TEST_ACCOUNTS, testAccounts, TEST_ACCOUNT_BALANCE } from './testAccounts.ts';

/** Store metadata: the --limits the network was created with. */
const GENESIS_LIMITS = 'genesisLimits';

/** The test accounts genesis funds (--accounts). */
export function genesisTestAccounts(config: Config): GenesisAccount[] {
  if (config.accounts > MAX_TEST_ACCOUNTS) throw new Error(`--accounts ${config.accounts}: at most ${MAX_TEST_ACCOUNTS} test accounts`);
  return testAccounts(config.accounts).map((a) => ({ publicKey: a.rawPublicKey, balance: TEST_ACCOUNT_BALANCE }));
}

/** Remembers the limits a new network was created with. */
export function recordGenesisSettings(store: Store, config: Config): void {
  store.setMetadata(GENESIS_LIMITS, config.limits);
}

/**
 * A restart with another --limits than genesis had: said, not refused (the default "testnet" would
 * otherwise refuse every restart of an unlimited network started without the flag).
 */
export function noteGenesisSettings(store: Store, config: Config, log: Logger): void {
  const created = store.metadata(GENESIS_LIMITS);
  if (created !== undefined && created !== config.limits) {
    log.warn({ created, asked: config.limits }, `--limits ${config.limits} is ignored: this network was created with "${created}" limits and keeps its stored settings (change them with lumen_upgradeConfig)`);
  }
  const runs = store.latestLedger()?.protocolVersion;
  if (config.protocol && runs !== undefined && runs !== config.protocol) {
    log.warn({ runs, asked: config.protocol }, `--protocol ${config.protocol} is ignored: this network runs protocol ${runs} (a network's protocol changes only by an upgrade: lumen_upgradeProtocol)`);
  }
}
