// A fork's start (--fork-url): on an empty database, the remote is asked for its network, its latest
// ledger and its network configuration, and the fork's genesis is made from them (the same genesis
// path as --load-state: a GenesisBase for src/ledger/genesis.ts); on a database that is already this
// fork, nothing is asked (the fork continues). Everything that can be wrong is found before the
// database is claimed for a network: a remote that does not answer or answers garbage, a passphrase
// other than the one given, another fork's database.
import { xdr } from '../xdr/xdr.ts';
import { isFollower, type Config } from '../config/config.ts';
import type { Store } from '../store/types.ts';
import { genesisConfigSettings, type GenesisBase } from '../ledger/genesis.ts';
import { ENGINE_PROTOCOLS, protocolProblem } from '../ledger/protocols.ts';
import { nativeAvailable } from '../host/native.ts';
import { encodeLedgerKey, toBase64, type LedgerEntry } from '../xdr/codec.ts';
import { ConfigSettingId, keyId, ledgerKeyOf } from '../xdr/ledgerKeys.ts';
import { ForkRemoteError, RemoteRpc } from './remoteRpc.ts';
import { inputCap } from '../io/inputCaps.ts';

/** Store metadata: the URL a fork was made from, and its first ledger (the remote's latest then). */
export const FORK_URL = 'forkUrl';
export const FORK_LEDGER = 'forkLedger';
/** Store metadata, "true" for a fork pinned at its first ledger (--fork-ledger): every fetch asks for the entries as of it. */
export const FORK_PINNED = 'forkPinned';

export class ForkStartError extends Error {
  constructor(message: string) { super(message); this.name = 'ForkStartError'; }
}

/** A new fork's genesis: the remote's latest ledger and its configuration settings. */
export interface ForkGenesis extends GenesisBase {
  closeTime: bigint;
  forkUrl: string;
  /** --fork-ledger: the remote's entries are read as of ledgerSeq. */
  pinned: boolean;
}

/**
 * Checks --fork-url against the database and the remote. Returns the genesis for an empty database,
 * undefined for a fork that continues (or no --fork-url). Fills config.networkPassphrase when it
 * was left to the remote ("" from loadConfig): the stored one, else the remote's.
 */
export async function prepareFork(store: Store, config: Config, remoteOpts?: ConstructorParameters<typeof RemoteRpc>[1]): Promise<ForkGenesis | undefined> {
  const storedUrl = store.metadata(FORK_URL);
  if (config.forkLedger && !config.forkUrl && !config.forkArchive) throw new ForkStartError(`--fork-ledger ${config.forkLedger} pins a fork: it needs --fork-url or --fork-archive`);
  if (!config.forkUrl) {
    if (storedUrl !== undefined && store.latestLedger()) {
      throw new ForkStartError(`the database ${config.dbPath} holds a fork of ${storedUrl}: start it with --fork-url ${storedUrl}`);
    }
    return undefined;
  }
  if (isFollower(config)) throw new ForkStartError('--fork-url starts a standalone network; it cannot be used while following a network');
  if (config.loadState) throw new ForkStartError('--fork-url and --load-state both make the genesis: give one of them');
  if (store.latestLedger()) {
    if (storedUrl === undefined) {
      throw new ForkStartError(`--fork-url ${config.forkUrl}: the database ${config.dbPath} already holds a network that is not a fork; use an empty database`);
    }
    if (storedUrl !== config.forkUrl) {
      throw new ForkStartError(`--fork-url ${config.forkUrl}: the database ${config.dbPath} is a fork of ${storedUrl}; `
        + 'a fork continues from the network it was made from (use an empty database for another)');
    }
    const storedLedger = Number(store.metadata(FORK_LEDGER));
    const pinned = store.metadata(FORK_PINNED) === 'true';
    if (config.forkLedger && (!pinned || config.forkLedger !== storedLedger)) {
      throw new ForkStartError(`--fork-ledger ${config.forkLedger}: the database ${config.dbPath} is a fork of ${storedUrl} `
        + (pinned ? `at ledger ${storedLedger}` : `that reads the remote's latest state (from ledger ${storedLedger})`)
        + '; a fork continues as it was made (use an empty database for another)');
    }
    if (pinned) config.forkLedger = storedLedger; // a restart without --fork-ledger stays pinned
    if (!config.networkPassphrase) config.networkPassphrase = store.metadata('networkPassphrase') ?? '';
    return undefined;
  }
  const remote = new RemoteRpc(config.forkUrl, { cap: inputCap(config.maxInputBytes), ...remoteOpts });
  try {
    const network = await remote.getNetwork();
    if (!config.networkPassphrase) config.networkPassphrase = network.passphrase;
    else if (network.passphrase !== config.networkPassphrase) {
      throw new ForkStartError(`--fork-url ${config.forkUrl} serves the network "${network.passphrase}", not "${config.networkPassphrase}" `
        + '(--network-passphrase): leave --network-passphrase out to take the remote\'s');
    }
    const latest = await remote.getLatestLedger();
    const at = config.forkLedger || latest.sequence;
    if (at > latest.sequence) {
      throw new ForkStartError(`--fork-ledger ${at}: ${config.forkUrl} has closed ledgers up to ${latest.sequence} only`);
    }
    const ledger = await remote.getLedger(at);
    const header = xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from(ledger.headerXdr, 'base64')).header;
    // the fork runs the remote's protocol; an older network's at the oldest one this node runs
    const problem = header.ledgerVersion > ENGINE_PROTOCOLS[0] ? protocolProblem(header.ledgerVersion) : undefined;
    if (problem) throw new ForkStartError(`--fork-url ${config.forkUrl} runs protocol ${header.ledgerVersion}: ${problem}`);
    const settings = await remoteConfigSettings(remote, config.forkLedger || undefined);
    return forkGenesis(config.forkUrl, header, settings, config.forkLedger > 0);
  } catch (e) {
    if (e instanceof ForkRemoteError) {
      throw new ForkStartError(`--fork-url${config.forkLedger ? ` with --fork-ledger ${config.forkLedger}` : ''}: the forked network cannot be read: ${e.message}`);
    }
    throw e;
  }
}

/** The remote's CONFIG_SETTING entries: every id this node's protocol has (the genesis defaults' ids). */
async function remoteConfigSettings(remote: RemoteRpc, ledger: number | undefined): Promise<LedgerEntry[]> {
  const ids = nativeAvailable()
    ? genesisConfigSettings().map((e) => (e.data.type === 8 ? e.data.configSetting.configSettingID : -1)).filter((id) => id >= 0)
    : Object.values(ConfigSettingId);
  const keys = ids.map((id) => toBase64(encodeLedgerKey({ type: 8, configSetting: { configSettingId: id } })));
  if (ledger !== undefined) await checkServesLedger(remote, ledger, keys[0]);
  let found;
  try {
    found = (await remote.getLedgerEntries(keys, { ledger })).entries;
  } catch (e) {
    // a remote on an older protocol may refuse a setting id it does not know: then one at a time
    if (!(e instanceof ForkRemoteError) || e.code !== -32602) throw e;
    found = [];
    for (const key of keys) {
      try { found.push(...(await remote.getLedgerEntries([key], { ledger })).entries); } catch (one) {
        if (!(one instanceof ForkRemoteError) || one.code !== -32602) throw one;
      }
    }
  }
  return found.map((e) => ({
    lastModifiedLedgerSeq: e.lastModifiedLedgerSeq,
    data: xdr.LedgerEntryData.schema.decode(Buffer.from(e.xdr, 'base64')),
    ext: e.extXdr ? xdr.LedgerEntryExt.schema.decode(Buffer.from(e.extXdr, 'base64')) : { v: 0 },
  }) as LedgerEntry);
}

/**
 * --fork-ledger: the remote answers getLedgerEntries as of `ledger` (its own error, e.g. a ledger
 * before its entry history, stops the start), and does not ignore the parameter: an entry modified
 * after `ledger` means it answered its latest state. Asked with one setting every protocol has.
 */
async function checkServesLedger(remote: RemoteRpc, ledger: number, key: string): Promise<void> {
  const { entries } = await remote.getLedgerEntries([key], { ledger });
  if (entries.some((e) => e.lastModifiedLedgerSeq > ledger)) {
    throw new ForkRemoteError(remote.url, 'getLedgerEntries', `it does not serve entries at a past ledger (asked for ledger ${ledger}, answered an entry modified at ${entries[0].lastModifiedLedgerSeq})`);
  }
}

/**
 * The genesis is the remote's latest ledger (or --fork-ledger's) (its sequence, base reserve, offer id pool and close
 * time, or now when later) at our protocol, holding the remote's configuration settings (the
 * defaults for the ones it lacks) and the local root account and test accounts (the faucet's; a
 * remote account under the same key is replaced by them).
 */
function forkGenesis(forkUrl: string, header: xdr.LedgerHeaderWire, settings: LedgerEntry[], pinned: boolean): ForkGenesis {
  const seq = header.ledgerSeq;
  return {
    forkUrl,
    pinned,
    ledgerSeq: seq,
    ledgerVersion: Math.max(header.ledgerVersion, ENGINE_PROTOCOLS[0]),
    baseReserve: header.baseReserve,
    idPool: header.idPool,
    closeTime: header.scpValue.closeTime,
    entries(defaults) {
      const remote = new Map(settings.map((e) => [keyId(ledgerKeyOf(e.data)), e]));
      return defaults.map((d) => {
        const fromRemote = d.data.type === 8 ? remote.get(keyId(ledgerKeyOf(d.data))) : undefined;
        return { ...(fromRemote ?? d), lastModifiedLedgerSeq: seq };
      });
    },
  };
}
