// What every ledger source gives ingestion: raw LedgerCloseMeta bytes, in ledger order. The
// standalone network, a SEP-54 datastore and a stellar-core meta stream all look like this; nothing
// downstream knows which one it reads.

export interface RawLedger {
  sequence: number;
  /** One LedgerCloseMeta XDR, exactly as the source holds it (stored unchanged). */
  bytes: Uint8Array;
}

export interface LedgerSource {
  /** For logs and errors: "datastore /data/ledgers", "meta stream /tmp/core.pipe". */
  readonly description: string;
  /**
   * The ledgers from `from` on, in order, without gaps. Unbounded sources wait for new ledgers (a
   * datastore polls for the next file, a stream waits for the next record); `to` (inclusive) ends
   * the iteration. Aborting `signal` ends it early. A corrupt or truncated ledger is an error, never
   * a partial ledger. `from` 0 asks for whatever the source holds first.
   */
  ledgers(from: number, opts: { signal: AbortSignal; to?: number }): AsyncIterable<RawLedger>;
  /** The newest ledger the source can give now (undefined: it cannot tell, e.g. a stream). */
  latest(): Promise<number | undefined>;
  /** The oldest ledger the source can give (undefined: it cannot tell). */
  earliest(): Promise<number | undefined>;
}
