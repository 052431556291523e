// ManageData: sets (creates or replaces) or, with no value, deletes a named data entry of the source.
import type { xdr } from '@stellar/stellar-sdk';
import { dataKey, type LedgerEntry } from '../../xdr/codec.ts';
import { accountOf, isStringValid, loadAccountOrThrow } from './accounts.ts';
import { canAddSubEntries, releaseEntryReserve } from '../sponsorship.ts';
import { OP_TOO_MANY_SUBENTRIES, failOp, resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 10 }>;
type Code = xdr.ManageDataResultWire['code'];

export const MANAGE_DATA_SUCCESS = 0;
export const MANAGE_DATA_NOT_SUPPORTED_YET = -1;
export const MANAGE_DATA_NAME_NOT_FOUND = -2;
export const MANAGE_DATA_LOW_RESERVE = -3;
export const MANAGE_DATA_INVALID_NAME = -4;

const tr = (code: Code): xdr.OperationResultTrWire => ({ type: 10, manageDataResult: { code } as xdr.ManageDataResultWire });
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
      releaseEntryReserve(ltx, existing, sourceEntry);
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

    const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
    const source = accountOf(sourceEntry);
    const check = canAddSubEntries(ledger, source, 1);
    if (check === 'lowReserve') return result(MANAGE_DATA_LOW_RESERVE);
    if (check === 'tooManySubentries') return failOp(OP_TOO_MANY_SUBENTRIES, tr(MANAGE_DATA_LOW_RESERVE));
    source.numSubEntries += 1;
    ltx.update(sourceEntry);
    const entry: LedgerEntry = {
      lastModifiedLedgerSeq: ledger.ledgerSeq,
      data: { type: 3, data: { accountId: ctx.source, dataName, dataValue, ext: { v: 0 } } },
      ext: { v: 0 },
    };
    ltx.create(entry);
    return result(MANAGE_DATA_SUCCESS);
  },
};
