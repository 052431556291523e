// Ledger 1 of a standalone network, as stellar-core creates it for a passphrase: the root account,
// whose key is derived from the network id, holds all 100 billion lumens (less what the developer
// network's test accounts start with, so the total stays the same).
import { xdr } from '../xdr/xdr.ts';
import { rootSigner } from './rootAccount.ts';
import { raiseToUnlimited, type LimitsPreset } from './soroban/limitsPresets.ts';
import { accountKey, encodeLedgerEntry, encodeLedgerKey, sha256, type LedgerEntry } from '../xdr/codec.ts';
import { headerHash } from './header.ts';
import { emptyTxSet } from './txSet.ts';
import { DEFAULT_PROTOCOL } from './protocols.ts';
import { loadNative, nativeAvailable } from '../host/native.ts';

export const TOTAL_COINS = 1_000_000_000_000_000_000n; // stroops
export const BASE_FEE = 100;
export const BASE_RESERVE = 5_000_000;                    // 0.5 XLM, what quickstart and the public networks use

export interface Genesis {
  meta: xdr.LedgerCloseMetaWire;
  /** The state ledger 1 starts with; ingested together with its meta. */
  entries: LedgerEntry[];
}

/**
 * The Soroban network configuration (ConfigSetting entries) a fresh network at `protocol` starts
 * with: the public testnet's values, built by the host addon from the host's own XDR types.
 */
export function genesisConfigSettings(archival: ArchivalOverrides = {}, limits: LimitsPreset = 'testnet', protocol = DEFAULT_PROTOCOL): LedgerEntry[] {
  return loadNative().genesisConfigSettingEntries(1, protocol).map((bytes) => {
    const entry = xdr.LedgerEntry.schema.decode(bytes);
    if (entry.data.type === 8 && limits === 'unlimited') raiseToUnlimited(entry.data.configSetting);
    if (entry.data.type === 8 && entry.data.configSetting.configSettingID === 10) {
      const settings = entry.data.configSetting.stateArchivalSettings;
      if (archival.minPersistentTtl) settings.minPersistentTtl = archival.minPersistentTtl;
      if (archival.minTemporaryTtl) settings.minTemporaryTtl = archival.minTemporaryTtl;
    }
    return entry;
  });
}

/** Shorter minimum TTLs for a development network, where waiting 120,960 ledgers to see archival is not practical. */
export interface ArchivalOverrides { minPersistentTtl?: number; minTemporaryTtl?: number }

/** An account that exists from ledger 1 on (a developer network's test account). */
export interface GenesisAccount { publicKey: Uint8Array; balance: bigint }

export interface GenesisOptions {
  closeTime: bigint;
  maxTxSetSize: number;
  archival?: ArchivalOverrides;
  /** The Soroban limits (default: testnet's). */
  limits?: LimitsPreset;
  /** The ledger protocol (default DEFAULT_PROTOCOL); a snapshot or fork genesis (`from`) brings its own. */
  protocol?: number;
  /** Accounts funded from the root's lumens. */
  accounts?: readonly GenesisAccount[];
  /** A snapshot to continue (--load-state). */
  from?: GenesisBase;
}

/** A genesis that continues a snapshot (--load-state, src/standalone/ledgerSnapshot.ts). */
export interface GenesisBase {
  ledgerSeq: number; ledgerVersion: number; baseReserve: number;
  /** The last offer id given out (new offers take the next ones). */
  idPool: bigint;
  /** The state, given the one a new network starts with (what it lacks comes from these). */
  entries(defaults: LedgerEntry[]): LedgerEntry[];
}

function accountEntry(publicKey: Uint8Array, balance: bigint, seqNum: bigint): LedgerEntry {
  return {
    lastModifiedLedgerSeq: 1,
    data: {
      type: 0,
      account: {
        accountId: { type: 0, ed25519: publicKey },
        balance, seqNum, numSubEntries: 0, inflationDest: null, flags: 0,
        homeDomain: new xdr.XdrString(''), thresholds: new Uint8Array([1, 0, 0, 0]), signers: [], ext: { v: 0 },
      },
    },
    ext: { v: 0 },
  };
}

export function genesisLedger(networkId: Uint8Array, opts: GenesisOptions): Genesis {
  const rootKey = rootSigner(networkId).publicKey;
  const funded = opts.accounts ?? [];
  const given = funded.reduce((sum, a) => sum + a.balance, 0n);
  if (given >= TOTAL_COINS) throw new Error('the test accounts would hold every lumen');
  const rootEntry = accountEntry(rootKey, TOTAL_COINS - given, 0n);
  // sequence numbers as for an account created in ledger 1 (ledger << 32)
  const accountEntries = funded.map((a) => accountEntry(a.publicKey, a.balance, 1n << 32n));
  const stateParts = [rootKey, ...funded.map((a) => a.publicKey)].flatMap((key, i) =>
    [encodeLedgerKey(accountKey({ type: 0, ed25519: key })), encodeLedgerEntry(i === 0 ? rootEntry : accountEntries[i - 1])]);
  const zero = new Uint8Array(32);
  const txSet = emptyTxSet(zero);
  const header: xdr.LedgerHeaderWire = {
    ledgerVersion: opts.from?.ledgerVersion ?? opts.protocol ?? DEFAULT_PROTOCOL,
    previousLedgerHash: zero,
    scpValue: { txSetHash: sha256(xdr.GeneralizedTransactionSet.schema.encode(txSet)), closeTime: opts.closeTime, upgrades: [], ext: { v: 0 } },
    txSetResultHash: sha256(xdr.TransactionResultSet.schema.encode({ results: [] })),
    bucketListHash: sha256(...stateParts),
    ledgerSeq: opts.from?.ledgerSeq ?? 1,
    totalCoins: TOTAL_COINS,
    feePool: 0n,
    inflationSeq: 0,
    idPool: opts.from?.idPool ?? 0n,
    baseFee: BASE_FEE,
    baseReserve: opts.from?.baseReserve ?? BASE_RESERVE,
    maxTxSetSize: opts.maxTxSetSize,
    skipList: [zero, zero, zero, zero],
    ext: { v: 0 },
  };
  const meta: xdr.LedgerCloseMetaWire = {
    v: 2,
    v2: {
      ext: { v: 0 }, ledgerHeader: { hash: headerHash(header), header, ext: { v: 0 } }, txSet,
      txProcessing: [], upgradesProcessing: [], scpInfo: [], totalByteSizeOfLiveSorobanState: 0n, evictedKeys: [],
    },
  };
  const entries = [rootEntry, ...accountEntries, ...(nativeAvailable() ? genesisConfigSettings(opts.archival, opts.limits, opts.from?.ledgerVersion ?? opts.protocol ?? DEFAULT_PROTOCOL) : [])];
  return { meta, entries: opts.from ? opts.from.entries(entries) : entries };
}
