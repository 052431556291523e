// Ledger keys: the key of an entry, the key of its TTL entry, and a map key for in-memory lookups.
import { sha256, encodeLedgerKey, toBase64, type LedgerEntryChange, type LedgerEntryData, type LedgerKey } from './codec.ts';

export function ledgerKeyOf(d: LedgerEntryData): LedgerKey {
  switch (d.type) {
    case 0: return { type: 0, account: { accountId: d.account.accountId } };
    case 1: return { type: 1, trustLine: { accountId: d.trustLine.accountId, asset: d.trustLine.asset } };
    case 2: return { type: 2, offer: { sellerId: d.offer.sellerId, offerId: d.offer.offerId } };
    case 3: return { type: 3, data: { accountId: d.data.accountId, dataName: d.data.dataName } };
    case 4: return { type: 4, claimableBalance: { balanceId: d.claimableBalance.balanceId } };
    case 5: return { type: 5, liquidityPool: { liquidityPoolId: d.liquidityPool.liquidityPoolId } };
    case 6: return { type: 6, contractData: { contract: d.contractData.contract, key: d.contractData.key, durability: d.contractData.durability } };
    case 7: return { type: 7, contractCode: { hash: d.contractCode.hash } };
    case 8: return { type: 8, configSetting: { configSettingId: d.configSetting.configSettingID } };
    case 9: return { type: 9, ttl: { keyHash: d.ttl.keyHash } };
  }
}

/** The key of the entry a LedgerEntryChange is about, whatever the kind of change. */
export function ledgerKeyOfChange(c: LedgerEntryChange): LedgerKey {
  switch (c.type) {
    case 0: return ledgerKeyOf(c.created.data);
    case 1: return ledgerKeyOf(c.updated.data);
    case 2: return c.removed;
    case 3: return ledgerKeyOf(c.state.data);
    case 4: return ledgerKeyOf(c.restored.data);
  }
}

/** LedgerEntryType values the node tells apart by number (keys and entries share them). */
export const EntryType = {
  ACCOUNT: 0, TRUSTLINE: 1, OFFER: 2, DATA: 3, CLAIMABLE_BALANCE: 4, LIQUIDITY_POOL: 5,
  CONTRACT_DATA: 6, CONTRACT_CODE: 7, CONFIG_SETTING: 8, TTL: 9 } as const;

/** ConfigSettingID values (Stellar-contract-config-setting.x) the node reads by name. */
export const ConfigSettingId = {
  CONTRACT_MAX_SIZE_BYTES: 0, CONTRACT_COMPUTE_V0: 1, CONTRACT_LEDGER_COST_V0: 2, CONTRACT_EVENTS_V0: 4,
  CONTRACT_BANDWIDTH_V0: 5, CONTRACT_DATA_KEY_SIZE_BYTES: 8, CONTRACT_DATA_ENTRY_SIZE_BYTES: 9,
  STATE_ARCHIVAL: 10, LIVE_SOROBAN_STATE_SIZE_WINDOW: 12, CONTRACT_LEDGER_COST_EXT_V0: 15,
} as const;

/** The key of one network configuration entry. */
export const configSettingKey = (id: number): LedgerKey => ({ type: 8, configSetting: { configSettingId: id } });

/** The LedgerEntryType of a LedgerKey XDR (its first word), without decoding it. */
export const ledgerKeyType = (keyXdr: Uint8Array): number =>
  ((keyXdr[0] << 24) | (keyXdr[1] << 16) | (keyXdr[2] << 8) | keyXdr[3]) >>> 0;

/** Contract data and code: the entries that have a TTL. */
export const isSorobanKey = (key: LedgerKey): boolean => key.type === 6 || key.type === 7;

/** Contract code and persistent contract data are archived when their TTL lapses; temporary data is deleted. */
export const isPersistentKey = (key: LedgerKey): boolean =>
  key.type === 7 || (key.type === 6 && key.contractData.durability === 1);

/** Contract data and code live as long as their TTL entry, keyed by the hash of their own key. */
export const ttlKeyFor = (key: LedgerKey): Extract<LedgerKey, { type: 9 }> => ({ type: 9, ttl: { keyHash: sha256(encodeLedgerKey(key)) } });

/**
 * A map key for a LedgerKey. Accounts, trustlines and offers, by far the most looked up (an offer's
 * for every offer a crossing looks at), skip XDR encoding; the '#', '~' and '%' prefixes keep their
 * ids apart from the base64 of other keys, and their parts have fixed lengths or come last.
 */
export function keyId(key: LedgerKey): string {
  switch (key.type) {
    case 0: return '#' + toBase64(key.account.accountId.ed25519);
    case 1: {
      const a = key.trustLine.asset;
      if (a.type === 1) return `~4${toBase64(key.trustLine.accountId.ed25519)}${toBase64(a.alphaNum4.assetCode)}${toBase64(a.alphaNum4.issuer.ed25519)}`;
      if (a.type === 2) return `~12${toBase64(key.trustLine.accountId.ed25519)}${toBase64(a.alphaNum12.assetCode)}${toBase64(a.alphaNum12.issuer.ed25519)}`;
      return toBase64(encodeLedgerKey(key));
    }
    case 2: return `%${toBase64(key.offer.sellerId.ed25519)}${key.offer.offerId}`;
    default: return toBase64(encodeLedgerKey(key));
  }
}
