// getLatestLedger: the latest stored ledger. `headerXdr` is the bare LedgerHeader (getLedgers sends
// the LedgerHeaderHistoryEntry), `closeTime` a string; xdrFormat is ignored, as by the reference.
import { xdr } from '../../xdr/xdr.ts';
import { internalError } from '../errors.ts';
import { toBase64, toHex } from '../../xdr/codec.ts';
import type { Method } from './types.ts';
import { RawJson } from '../rawJson.ts';
import type { LedgerRow } from '../../store/types.ts';
import { hexHash, ledgerSequence, object, uint32, unixTimeString, xdrOnly } from './shared/schemas.ts';

/** The answer only changes when a ledger closes; it is built, and serialized, once per ledger. */
let cached: { row: LedgerRow; result: RawJson } | undefined;

export const getLatestLedger: Method = {
  name: 'getLatestLedger',
  light: true,
  paramsSchema: { type: 'object' },
  doc: {
    summary: 'The latest stored ledger',
    result: {
      name: 'getLatestLedgerResult',
      schema: object({
        id: { ...hexHash, description: 'hash of the ledger header' },
        protocolVersion: uint32,
        sequence: ledgerSequence,
        closeTime: unixTimeString,
        headerXdr: xdrOnly('LedgerHeader'),
        metadataXdr: xdrOnly('LedgerCloseMeta'),
      }),
    },
  },
  handler(_params, ctx) {
    const latest = ctx.store.latestLedger();
    if (!latest) throw internalError('could not get latest ledger sequence');
    if (cached?.row === latest) return cached.result;
    const header = xdr.LedgerHeaderHistoryEntry.schema.decode(latest.header).header;
    const result = new RawJson(JSON.stringify({
      id: toHex(latest.hash),
      protocolVersion: latest.protocolVersion,
      sequence: latest.sequence,
      closeTime: String(latest.closeTime),
      headerXdr: toBase64(xdr.LedgerHeader.schema.encode(header)),
      metadataXdr: toBase64(latest.meta),
    }));
    cached = { row: latest, result };
    return result;
  },
};
