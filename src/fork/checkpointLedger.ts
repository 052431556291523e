// Ledger N of a fork made from a history archive alone (--fork-archive without --datastore): the
// archive holds N's header but no LedgerCloseMeta, so the stored ledger N is a meta made around the
// archive's header entry. Its hash is the network's (followers and clients see the real chain, and
// the fork's N + 1 chains onto it); it has no transactions, upgrades or evictions, and its
// transaction set is the empty one chained on N - 1, so it does not hash to the header's txSetHash
// unless N was empty. What N's transactions changed is in the checkpoint's state already.
import { xdr } from '../xdr/xdr.ts';
import type { LedgerSource, RawLedger } from '../sources/ledgerSource.ts';
import { emptyTxSet } from '../ledger/txSet.ts';
import type { LedgerHeaderHistoryEntry } from '../xdr/codec.ts';

/** The first protocol whose ledgers close with LedgerCloseMeta V2. */
const FIRST_PROTOCOL_WITH_META_V2 = 23;

/**
 * The checkpoint ledger whose header entry `header` an archive gave (verified by the bootstrap,
 * src/archive/checkpointVerification.ts), as a source of that one ledger.
 */
export function checkpointLedgerSource(archiveDescription: string, header: LedgerHeaderHistoryEntry, liveSorobanStateSize: bigint): LedgerSource {
  const checkpoint = header.header.ledgerSeq;
  const raw: RawLedger = { sequence: checkpoint, bytes: checkpointLedgerMeta(header, liveSorobanStateSize) };
  return {
    description: `${archiveDescription} (ledger ${checkpoint}'s header)`,
    async *ledgers(from) { if (from <= raw.sequence) yield raw; },
    latest: async () => raw.sequence,
    earliest: async () => raw.sequence,
  };
}

/**
 * The LedgerCloseMeta of a ledger known only by its header entry. `liveSorobanStateSize` is the
 * average of the state-size window as the ledger left it (what core publishes in a V2 meta).
 */
export function checkpointLedgerMeta(headerEntry: LedgerHeaderHistoryEntry, liveSorobanStateSize: bigint): Uint8Array {
  const body = {
    ext: { v: 0 as const },
    ledgerHeader: headerEntry,
    txSet: emptyTxSet(headerEntry.header.previousLedgerHash),
    txProcessing: [], upgradesProcessing: [], scpInfo: [],
    totalByteSizeOfLiveSorobanState: liveSorobanStateSize,
    evictedKeys: [],
  };
  const meta: xdr.LedgerCloseMetaWire = headerEntry.header.ledgerVersion >= FIRST_PROTOCOL_WITH_META_V2
    ? { v: 2, v2: body }
    : { v: 1, v1: { ...body, unused: [] } };
  return xdr.LedgerCloseMeta.schema.encode(meta);
}
