// lumen_archiveEntry: a contract entry's TTL ends with the next ledger, and the ledger after it evicts
// the entry through the network's own eviction (archived if persistent, deleted if temporary), so
// restoring it works exactly as after a real expiry.
import { object, ledgerSequence } from '../shared/schemas.ts';
import { encodeLedgerKey } from '../../../xdr/codec.ts';
import { ttlKeyFor } from '../../../xdr/ledgerKeys.ts';
import { expireNow } from '../../../standalone/stateEdits.ts';
import { parseKey, runEdit, xdrParam } from './shared/stateParams.ts';
import { devNetwork, type DevMethod } from './types.ts';

/** Eviction takes at most maxEntriesToArchive entries a ledger, earliest expiry first: a backlog may delay ours. */
const MAX_EVICTION_LEDGERS = 64;

export const archiveEntry: DevMethod = {
  name: 'lumen_archiveEntry',
  cli: { command: 'archive-entry', args: ['key'] },
  paramsSchema: {
    type: 'object',
    properties: { key: xdrParam('the LedgerKey of a contract data or code entry: base64 XDR or its JSON form') },
    required: ['key'],
    additionalProperties: false,
  },
  doc: {
    summary: 'Archive a persistent contract entry (delete a temporary one) now, through eviction',
    result: {
      name: 'archiveEntryResult',
      schema: object({
        ledger: { ...ledgerSequence, description: 'the ledger whose upgrade ended the TTL' },
        evictedIn: { ...ledgerSequence, description: 'the ledger that evicted the entry (0: not evicted, a transaction extended it meanwhile)' },
      }),
    },
  },
  async handler(params, ctx) {
    const network = devNetwork(ctx);
    const key = parseKey(params.key);
    const ledger = await runEdit(network, (ltx) => { expireNow(ltx, key); });
    const ttlKey = encodeLedgerKey(ttlKeyFor(key));
    for (let i = 0; i < MAX_EVICTION_LEDGERS; i++) {
      const closed = await network.closeNextLedger();
      const ttl = ctx.store.entry(ttlKey);
      if (!ttl) return { ledger, evictedIn: closed };
      if (ttl.lastModified !== ledger) break;
    }
    return { ledger, evictedIn: 0 };
  },
};
