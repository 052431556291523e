// A checkpoint ledger's header, when the standalone network publishes a history archive
// (--publish-history-archive): its bucketListHash is the hash of the bucket lists the publisher
// will write for the state the ledger leaves, by stellar-core's rules (src/archive/publishedBuckets.ts,
// src/archive/bucketListHash.ts), so the published checkpoint passes the checks a follower or an
// archive fork makes (src/archive/checkpointVerification.ts). Every other ledger's header keeps
// the hash chain of closeLedger.ts (the network has no bucket list to hash), and so do checkpoint
// ledgers when nothing is published: hashing the whole state costs a full read of it.
import type { LedgerWriter } from '../ingest/ledgerWriter.ts';
import type { WindowLedger } from '../ingest/stateSizeWindow.ts';
import type { ClosedLedger } from '../ledger/closeLedger.ts';
import { headerHash } from '../ledger/header.ts';
import { publishedBucketListHash } from '../archive/publishedBuckets.ts';
import { stateWithWrites } from '../store/stateWithWrites.ts';

/**
 * The bucketListHash of the state `ledger` leaves (the stored state with the ledger's writes,
 * as `writer` will store them) as published at `protocolVersion`. `ledger` must be the next to store.
 */
export function checkpointBucketListHash(writer: LedgerWriter, ledger: WindowLedger, protocolVersion: number): Uint8Array {
  return publishedBucketListHash(stateWithWrites(writer.store, writer.entryWritesOf(ledger)), protocolVersion);
}

/**
 * Puts `bucketListHash` in a closed ledger's header, and the header's new hash in the ledger and
 * its meta. The skip list needs no change: it takes a ledger's bucketListHash at multiples of 50,
 * and a checkpoint ledger (64k - 1, odd) is never one.
 */
export function commitToBucketList(closed: ClosedLedger, bucketListHash: Uint8Array): void {
  if (closed.header.ledgerSeq % 50 === 0) throw new Error(`ledger ${closed.header.ledgerSeq}: its skip list would take its bucketListHash`);
  closed.header.bucketListHash = bucketListHash;
  closed.hash = headerHash(closed.header);
  closed.meta.v2.ledgerHeader = { ...closed.meta.v2.ledgerHeader, hash: closed.hash, header: closed.header };
}
