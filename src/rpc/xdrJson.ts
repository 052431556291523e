// XDR -> JSON text for `xdrFormat: "json"`, rendered by the stellar-xdr crate in the native addon
// (native/src/xdr_json.rs): the serde rendering the reference node serves, so names and shapes match
// it by construction. Large values (ledgers, transactions, their metas) render off the event loop
// on the addon's host threads, as UTF-8 bytes the transport writes as they are (the loop never
// decodes or measures a large string); small ones (an event's topics, a ledger entry) render in
// place, which costs less than handing them to a thread.
//
// Without the addon (LUMEN_SKIP_NATIVE=1) the generated TypeScript renders instead, on the event
// loop: src/xdr/generated is checked against the same crate (test/rust/xdr-oracle), so the text is
// the same, only slower.
import { loadNative, nativeAvailable } from '../host/native.ts';
import { xdr } from '../xdr/xdr.ts';
import { Semaphore } from '../work/semaphore.ts';

/** The XDR types the API renders as JSON (native/src/xdr_json.rs accepts exactly these). */
export type XdrTypeName =
  | 'LedgerCloseMeta' | 'LedgerHeaderHistoryEntry' | 'TransactionEnvelope' | 'TransactionResult'
  | 'TransactionMeta' | 'DiagnosticEvent' | 'TransactionEvent' | 'ContractEvent' | 'ScVal' | 'LedgerKey'
  | 'LedgerEntry' | 'LedgerEntryData' | 'LedgerEntryExt' | 'SorobanTransactionData' | 'SorobanAuthorizationEntry';

export type XdrJsonItem = readonly [XdrTypeName, Uint8Array];

const generated = xdr as unknown as Record<XdrTypeName, { fromXdr(b: Uint8Array): { toJson(): unknown } }>;

/** The generated TypeScript's rendering (no addon). */
const generatedJson = (type: XdrTypeName, bytes: Uint8Array): string => JSON.stringify(generated[type].fromXdr(bytes).toJson());

/**
 * One small value's JSON text, rendered on the calling thread. For values of bounded size and
 * nesting (contract values the host produced, ledger entries, events); ledgers and transactions go
 * through XdrJsonRenderer.
 */
export function xdrJsonText(type: XdrTypeName, bytes: Uint8Array): string {
  return nativeAvailable() ? loadNative().xdrToJsonSync(type, bytes) : generatedJson(type, bytes);
}

/**
 * Renders large values on the addon's host threads, at most `threads` requests' worth at once (the
 * rest wait their turn): rendering is CPU work beside the event loop, SQLite and ingestion.
 */
export class XdrJsonRenderer {
  private readonly slots: Semaphore;
  private closed = false;
  constructor(threads: number) { this.slots = new Semaphore(threads); }

  /** The JSON of each item as UTF-8, in order; rejects naming the value that did not render. */
  async render(items: readonly XdrJsonItem[]): Promise<Uint8Array[]> {
    if (items.length === 0) return [];
    if (this.closed) throw new Error('XDR JSON rendering is closed');
    const release = await this.slots.acquire();
    try {
      if (!nativeAvailable()) return items.map(([type, bytes]) => Buffer.from(generatedJson(type, bytes)));
      return await loadNative().xdrToJson(items.map(([type]) => type), items.map(([, bytes]) => bytes));
    } catch (e) {
      throw new Error(`XDR to JSON failed: ${(e as Error)?.message ?? String(e)}`);
    } finally {
      release();
    }
  }

  close(): void { this.closed = true; }
}
