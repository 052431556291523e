// Ledger entries for the store tests: entry writes of a batch, and a deterministic series of
// entries over a few keys (accounts, persistent and temporary contract data, TTLs).
import { createHash } from 'node:crypto';
import type { IngestBatch } from '../../../src/store/types.ts';
import { encodeLedgerEntry, encodeLedgerKey, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';
import { account, contractData, ttl } from '../archive/helpers.ts';

export type Write = IngestBatch['entryWrites'][number];

export const keyOf = (e: LedgerEntry): Uint8Array => encodeLedgerKey(ledgerKeyOf(e.data));
export const put = (e: LedgerEntry): Write => ({ key: keyOf(e), entry: encodeLedgerEntry(e), lastModified: e.lastModifiedLedgerSeq });
export const remove = (key: Uint8Array, seq: number): Write => ({ key, entry: null, lastModified: seq });

/** A deterministic generator (xorshift32), so a failure replays. */
export function random(seed: number): () => number {
  let x = seed;
  return () => { x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0; return x / 2 ** 32; };
}

/** Version `version` of the entry of key number `keyNumber`, written at ledger `seq`. */
export function entryFor(keyNumber: number, version: number, seq: number): LedgerEntry {
  switch (keyNumber % 4) {
    case 0: return account(keyNumber + 1, BigInt(version), seq);
    case 1: return contractData(keyNumber, version, seq, 1);
    case 2: return contractData(keyNumber, version, seq, 0);
    default: return ttl(createHash('sha256').update(String(keyNumber)).digest(), seq + version, seq);
  }
}
