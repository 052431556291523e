// getLedgerEntries: current values of up to 200 ledger entries, in request order; keys not found are
// omitted. `xdr` is the LedgerEntryData, `extXdr` the LedgerEntryExt. Contract data and code carry
// `liveUntilLedgerSeq` from their TTL entry: 0 when a persistent entry's TTL has lapsed (the
// reference reports such entries as archived; so is one evicted to the hot archive, which has no TTL
// entry), and an expired temporary entry counts as not found.
//
// Our extension: `ledger` answers as of the end of that past ledger instead (the entries and TTLs it
// left, lapsed relative to it), for any ledger the store's entry history covers; `latestLedger` is
// still the latest ledger. Without it the answer is the reference's.
import { xdr } from '../../xdr/xdr.ts';
import { internalError, invalidParams } from '../errors.ts';
import {
  bytesEqual, decodeBase64Std, decodeLedgerEntry, decodeLedgerKey, encodeLedgerKey, toBase64, type LedgerKey,
} from '../../xdr/codec.ts';
import { EntryType, isPersistentKey, isSorobanKey, ttlKeyFor } from '../../xdr/ledgerKeys.ts';
import type { StoreReader, StoredEntry } from '../../store/types.ts';
import type { Method, MethodCall, MethodContext } from './types.ts';
import { ForkFetchError } from '../../fork/forkedState.ts';
import { DB_EMPTY } from './shared/ledgerRange.ts';
import { RecentCache } from './shared/recentCache.ts';
import { parseXdrFormat, renderXdr, type XdrFormat } from './shared/xdrFormat.ts';
import {
  arrayOf, described, ledgerSequence, object, optional, xdrFormatParam, xdrValue,
} from './shared/schemas.ts';

export const MAX_LEDGER_ENTRY_KEYS = 200;
const LEDGER_KEY_MAX_BYTES = 16 * 1024;

// Hot keys (accounts, contract instances) are asked for again and again: remember their decoding,
// and the rendering of an entry's value (base64 answers). A rendering is served only for the very
// bytes it was made from (compared, not hashed: a contract's code entry runs to 128 KiB): a developer
// revert can bring an entry back at a lastModified it had before with other bytes, so the key and
// lastModified alone do not identify a value.
const decodedKeys = new RecentCache<{ key: LedgerKey; keyBytes: Uint8Array }>(10_000);
const renderedEntries = new RecentCache<{ entry: Uint8Array; data: string; ext: string }>(10_000);

function decodeKey(text: unknown, index: number): { key: LedgerKey; keyBytes: Uint8Array } {
  const known = typeof text === 'string' ? decodedKeys.get(text) : undefined;
  if (known) return known;
  const key = decodeKeyText(text, index);
  const decoded = { key, keyBytes: encodeLedgerKey(key) };
  decodedKeys.set(text as string, decoded);
  return decoded;
}

function decodeKeyText(text: unknown, index: number): LedgerKey {
  const bytes = typeof text === 'string' ? decodeBase64Std(text) : undefined;
  let key: LedgerKey | undefined;
  if (bytes && bytes.length <= LEDGER_KEY_MAX_BYTES) {
    try { key = decodeLedgerKey(bytes); } catch { key = undefined; }
  }
  if (!key) throw invalidParams(`cannot unmarshal key value ${String(text)} at index ${index}`);
  if (key.type === EntryType.TTL) throw invalidParams('ledger ttl entries cannot be queried directly');
  return key;
}

/** The `ledger` parameter, when the store's entry history covers it; -32602 naming the range otherwise. */
function pastLedger(ledger: number, store: StoreReader, latest: number): number {
  const oldest = store.entryHistoryOldest();
  if (oldest === undefined) throw invalidParams('ledger is not served: this rpc instance keeps no entry history (--ledger-entry-history=false)');
  if (ledger < oldest || ledger > latest) {
    throw invalidParams(`ledger (${ledger}) must be between the oldest ledger with entry history: ${oldest} `
      + `and the latest ledger: ${latest} for this rpc instance`);
  }
  return ledger;
}

interface Found { key: LedgerKey; keyBytes: Uint8Array; stored: StoredEntry; liveUntil?: number }

function entryResult(found: Found, format: XdrFormat): Record<string, unknown> {
  const json = format === 'json';
  const keyText = renderXdr(format, 'LedgerKey', found.keyBytes);
  const cacheId = `${String(keyText)}:${found.stored.lastModified}`;
  const cached = json ? undefined : renderedEntries.get(cacheId);
  let rendered = cached && bytesEqual(cached.entry, found.stored.entry) ? cached : undefined;
  if (!rendered) {
    const entry = decodeLedgerEntry(found.stored.entry);
    rendered = {
      entry: found.stored.entry,
      data: renderXdr(format, 'LedgerEntryData', xdr.LedgerEntryData.schema.encode(entry.data)) as string,
      ext: renderXdr(format, 'LedgerEntryExt', xdr.LedgerEntryExt.schema.encode(entry.ext)) as string,
    };
    if (!json) renderedEntries.set(cacheId, rendered);
  }
  return {
    [json ? 'keyJson' : 'key']: keyText,
    [json ? 'dataJson' : 'xdr']: rendered.data,
    lastModifiedLedgerSeq: found.stored.lastModified,
    ...(found.liveUntil !== undefined ? { liveUntilLedgerSeq: found.liveUntil } : {}),
    [json ? 'extJson' : 'extXdr']: rendered.ext,
  };
}

export const getLedgerEntries: Method = {
  name: 'getLedgerEntries',
  paramsSchema: {
    type: 'object',
    properties: {
      keys: { type: 'array', items: { type: 'string' }, description: `up to ${MAX_LEDGER_ENTRY_KEYS} LedgerKeys (base64 XDR); not TTL keys` },
      xdrFormat: xdrFormatParam,
      ledger: { type: 'integer', description: 'lumen-rpc extension: answer as of the end of this past ledger (within the entry history, see docs/methods.md)' },
    },
  },
  doc: {
    summary: 'Current values of ledger entries',
    description: 'In the order asked for; keys that are not found are left out. Contract data and code carry '
      + 'liveUntilLedgerSeq (0 once archived).',
    params: { keys: { required: true } },
    result: {
      name: 'getLedgerEntriesResult',
      schema: object({
        entries: arrayOf(object({
          key: xdrValue('LedgerKey', 'keyJson'),
          xdr: xdrValue('LedgerEntryData', 'dataJson'),
          lastModifiedLedgerSeq: ledgerSequence,
          liveUntilLedgerSeq: optional(described(ledgerSequence, 'contract data and code only: the end of its TTL; 0 when archived')),
          extXdr: xdrValue('LedgerEntryExt', 'extJson'),
        })),
        latestLedger: ledgerSequence,
      }),
    },
  },
  handler(params, ctx, call) {
    // a fork: the keys it has never asked the forked network for are fetched first (a failure is -32603)
    if (ctx.fork && params.ledger === undefined && Array.isArray(params.keys) && params.keys.length > 0
      && params.keys.length <= MAX_LEDGER_ENTRY_KEYS) {
      const fork = ctx.fork;
      const keyBytes = params.keys.map((k, i) => decodeKey(k, i).keyBytes);
      if (keyBytes.some((k) => !fork.isResolved(k))) {
        return fork.resolve(keyBytes, { signal: call.signal }).then(
          () => answerEntries(params, ctx, call),
          (e: unknown) => { throw e instanceof ForkFetchError ? internalError(e.message) : e; });
      }
    }
    return answerEntries(params, ctx, call);
  },
};

function answerEntries(params: Record<string, unknown>, ctx: MethodContext, call: MethodCall): unknown {
  const format = parseXdrFormat(params.xdrFormat);
  const requested = Array.isArray(params.keys) ? params.keys : [];
  if (requested.length > MAX_LEDGER_ENTRY_KEYS) {
    throw invalidParams(`key count (${requested.length}) exceeds maximum supported (${MAX_LEDGER_ENTRY_KEYS})`);
  }
  const decoded = requested.map(decodeKey);
  const keys = decoded.map((d) => d.key);

  const latest = ctx.store.latestLedger();
  if (!latest) throw internalError(`could not get latest ledger: ${DB_EMPTY}`);
  if (keys.length === 0) throw internalError('could not query captive core: no keys specified in request');

  const at = params.ledger === undefined ? latest.sequence : pastLedger(params.ledger as number, ctx.store, latest.sequence);
  const keyBytes = decoded.map((d) => d.keyBytes);
  const ttlKeyBytes = keys.map((k) => (isSorobanKey(k) ? encodeLedgerKey(ttlKeyFor(k)) : undefined));
  const wanted = [...keyBytes, ...ttlKeyBytes.filter((k): k is Uint8Array => k !== undefined)];
  const stored = params.ledger === undefined ? ctx.store.entries(wanted) : ctx.store.entriesAt(wanted, at);

  const render = (i: number): Record<string, unknown> | undefined => {
    const key = keys[i];
    const entry = stored.get(toBase64(keyBytes[i]));
    if (!entry) return undefined;
    const found: Found = { key, keyBytes: keyBytes[i], stored: entry };
    const ttlKey = ttlKeyBytes[i];
    if (ttlKey) {
      const ttl = stored.get(toBase64(ttlKey));
      const liveUntil = ttl ? decodeLedgerEntry(ttl.entry).data : undefined;
      const until = liveUntil?.type === EntryType.TTL ? liveUntil.ttl.liveUntilLedgerSeq : undefined;
      if (until !== undefined && until < at) {
        if (!isPersistentKey(key)) return undefined; // expired temporary data: gone
        found.liveUntil = 0; // archived
      } else if (until !== undefined) {
        found.liveUntil = until;
      } else if (isPersistentKey(key)) {
        // A persistent entry without a TTL entry was evicted to the hot archive (a followed
        // network's state bootstrapped from one): archived.
        found.liveUntil = 0;
      }
    }
    return entryResult(found, format);
  };
  const answer = (entries: Record<string, unknown>[]) => ({ entries, latestLedger: latest.sequence });
  if (format !== 'json') return answer(keys.map((_, i) => render(i)).filter((e) => e !== undefined));
  // up to 200 entries of contract code rendered as JSON: the event loop gets turns in between
  return (async () => {
    const entries: Record<string, unknown>[] = [];
    for (let i = 0; i < keys.length; i++) {
      await call.checkpoint();
      const e = render(i);
      if (e) entries.push(e);
    }
    return answer(entries);
  })();
}
