// ManageData: sets (creates or replaces) or, with no value, deletes a named data entry of the source.
import type { xdr } from '../../xdr/xdr.ts';
import { dataKey, type LedgerEntry } from '../../xdr/codec.ts';
import { isStringValid, loadAccountOrThrow } from './accounts.ts';
import { createEntryWithPossibleSponsorship, removeEntryWithPossibleSponsorship } from '../sponsorship.ts';
import { reserveFailure, resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 10 }>;
type Code = xdr.ManageDataResultWire['code'];

export const MANAGE_DATA_SUCCESS = 0;
export const MANAGE_DATA_NOT_SUPPORTED_YET = -1;
export const MANAGE_DATA_NAME_NOT_FOUND = -2;
export const MANAGE_DATA_LOW_RESERVE = -3;
export const MANAGE_DATA_INVALID_NAME = -4;

const result = resultMaker<Code>(10, 'manageDataResult');

export const manageData: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body) {
    const name = body.manageDataOp.dataName;
    if (name.length < 1 || !isStringValid(name)) return result(MANAGE_DATA_INVALID_NAME);
    return null;
  },

  apply(body, ctx) {
    const { dataName, dataValue } = body.manageDataOp;
    const { ltx, ledger } = ctx;
    const key = dataKey(ctx.source, dataName);
    const existing = ltx.load(key);

    if (dataValue === null) {
      if (!existing) return result(MANAGE_DATA_NAME_NOT_FOUND);
      const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
      removeEntryWithPossibleSponsorship(ltx, existing, sourceEntry);
      ltx.update(sourceEntry);
      ltx.erase(key);
      return result(MANAGE_DATA_SUCCESS);
    }

    if (existing) {
      if (existing.data.type !== 3) throw new Error('expected a data entry');
      existing.data.data.dataValue = dataValue;
      ltx.update(existing);
      return result(MANAGE_DATA_SUCCESS);
    }

    const entry: LedgerEntry = {
      lastModifiedLedgerSeq: ledger.ledgerSeq,
      data: { type: 3, data: { accountId: ctx.source, dataName, dataValue, ext: { v: 0 } } },
      ext: { v: 0 },
    };
    const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
    const unpaid = reserveFailure(createEntryWithPossibleSponsorship(ltx, ledger, entry, sourceEntry), result(MANAGE_DATA_LOW_RESERVE));
    if (unpaid) return unpaid;
    ltx.update(sourceEntry);
    ltx.create(entry);
    return result(MANAGE_DATA_SUCCESS);
  },
};
