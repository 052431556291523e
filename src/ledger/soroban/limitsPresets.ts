// The Soroban limits a new developer network starts with (--limits). "testnet" is what genesis has
// always written: the public testnet's settings. "unlimited" raises every limit to the values of
// Quickstart's "unlimited" settings upgrade (its local/core/etc/config-settings/*/unlimited.json):
// per-transaction and per-ledger instructions, memory, disk reads and writes (entries and bytes),
// footprint entries, transaction and ledger sizes, events size, contract, key and entry sizes and
// the ledger's transaction count. Fees, cost parameters and state archival stay testnet's: they
// price and expire, they do not refuse, and the cost parameters belong to our host's protocol.
import type { xdr } from '../../xdr/xdr.ts';

export type LimitsPreset = 'testnet' | 'unlimited';

const U32_MAX = 0xffff_ffff;
/** Quickstart's instruction limit: 2^61 - 1 (the host's budget counts in i64 with headroom). */
const MAX_INSTRUCTIONS = 2n ** 61n - 1n;
/** Quickstart's per-transaction size limit: u32 max less 2,000 bytes (room for the envelope around it). */
const MAX_TX_SIZE_BYTES = U32_MAX - 2000;

/** Raises the limits of one ConfigSettingEntry in place (settings without limits are left as they are). */
export function raiseToUnlimited(s: xdr.ConfigSettingEntryWire): void {
  switch (s.configSettingID) {
    case 0: s.contractMaxSizeBytes = U32_MAX; break;
    case 1: Object.assign(s.contractCompute, { ledgerMaxInstructions: MAX_INSTRUCTIONS, txMaxInstructions: MAX_INSTRUCTIONS, txMemoryLimit: U32_MAX }); break;
    case 2: Object.assign(s.contractLedgerCost, {
      ledgerMaxDiskReadEntries: U32_MAX, ledgerMaxDiskReadBytes: U32_MAX, ledgerMaxWriteLedgerEntries: U32_MAX, ledgerMaxWriteBytes: U32_MAX,
      txMaxDiskReadEntries: U32_MAX, txMaxDiskReadBytes: U32_MAX, txMaxWriteLedgerEntries: U32_MAX, txMaxWriteBytes: U32_MAX,
    }); break;
    case 4: s.contractEvents.txMaxContractEventsSizeBytes = U32_MAX; break;
    case 5: Object.assign(s.contractBandwidth, { ledgerMaxTxsSizeBytes: U32_MAX, txMaxSizeBytes: MAX_TX_SIZE_BYTES }); break;
    case 8: s.contractDataKeySizeBytes = U32_MAX; break;
    case 9: s.contractDataEntrySizeBytes = U32_MAX; break;
    case 11: s.contractExecutionLanes.ledgerMaxTxCount = U32_MAX; break;
    case 15: s.contractLedgerCostExt.txMaxFootprintEntries = U32_MAX; break;
    default: break;
  }
}
