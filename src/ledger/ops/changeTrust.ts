// ChangeTrust: creates, re-limits or (limit 0) deletes the source's trustline to a credit asset.
// Liquidity-pool share trustlines are not supported by this engine (opNOT_SUPPORTED).
import type { xdr } from '@stellar/stellar-sdk';
import { accountKey, trustLineKey, type LedgerEntry } from '../../xdr/codec.ts';
import { AUTH_CLAWBACK_ENABLED_FLAG, AUTH_REQUIRED_FLAG, AUTHORIZED_FLAG, TRUSTLINE_CLAWBACK_ENABLED_FLAG, accountOf, loadAccount, loadAccountOrThrow, trustLineMinimumLimit, trustLineOf } from './accounts.ts';
import { createEntryWithPossibleSponsorship, removeEntryWithPossibleSponsorship } from '../sponsorship.ts';
import { assetIssuer, assetToTrustLineAsset, isAssetValid, isIssuer } from '../assets.ts';
import { OP_NOT_SUPPORTED, failOp, reserveFailure, resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 6 }>;
type Code = xdr.ChangeTrustResultWire['code'];

export const CHANGE_TRUST_SUCCESS = 0;
export const CHANGE_TRUST_MALFORMED = -1;
export const CHANGE_TRUST_NO_ISSUER = -2;
export const CHANGE_TRUST_INVALID_LIMIT = -3;
export const CHANGE_TRUST_LOW_RESERVE = -4;
export const CHANGE_TRUST_SELF_NOT_ALLOWED = -5;
export const CHANGE_TRUST_TRUST_LINE_MISSING = -6;
export const CHANGE_TRUST_CANNOT_DELETE = -7;
export const CHANGE_TRUST_NOT_AUTH_MAINTAIN_LIABILITIES = -8;

const tr = (code: Code): xdr.OperationResultTrWire => ({ type: 6, changeTrustResult: { code } as xdr.ChangeTrustResultWire });
const result = resultMaker<Code>(6, 'changeTrustResult');

export const changeTrust: OpHandler<Body> = {
  threshold: () => 'medium',

  checkValid(body, ctx) {
    const { line, limit } = body.changeTrustOp;
    if (limit < 0n) return result(CHANGE_TRUST_MALFORMED);
    if (!isAssetValid(line)) return result(CHANGE_TRUST_MALFORMED);
    if (line.type === 0) return result(CHANGE_TRUST_MALFORMED);
    if (isIssuer(ctx.source, line)) return result(CHANGE_TRUST_MALFORMED);
    return null;
  },

  apply(body, ctx) {
    const { line, limit } = body.changeTrustOp;
    const { ltx, ledger } = ctx;
    if (line.type === 0) throw new Error('native asset is not valid in ChangeTrust');
    if (isIssuer(ctx.source, line)) return result(CHANGE_TRUST_SELF_NOT_ALLOWED);
    if (line.type === 3) return failOp(OP_NOT_SUPPORTED, tr(CHANGE_TRUST_MALFORMED));

    const tlAsset = assetToTrustLineAsset(line);
    const issuerId = assetIssuer(line)!;
    const key = trustLineKey(ctx.source, tlAsset);
    const existing = ltx.load(key);

    if (existing) {
      const tl = trustLineOf(existing);
      // The limit cannot drop below what the line holds (plus what its offers may still buy).
      if (limit < trustLineMinimumLimit(tl)) return result(CHANGE_TRUST_INVALID_LIMIT);
      if (limit === 0n) {
        if (tl.ext.v === 1 && tl.ext.v1.ext.v === 2 && tl.ext.v1.ext.v2.liquidityPoolUseCount !== 0) {
          return result(CHANGE_TRUST_CANNOT_DELETE);
        }
        const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
        removeEntryWithPossibleSponsorship(ltx, existing, sourceEntry);
        ltx.update(sourceEntry);
        ltx.erase(key);
      } else {
        if (!ltx.exists(accountKey(issuerId))) return result(CHANGE_TRUST_NO_ISSUER);
        tl.limit = limit;
        ltx.update(existing);
      }
      return result(CHANGE_TRUST_SUCCESS);
    }

    if (limit === 0n) return result(CHANGE_TRUST_INVALID_LIMIT);
    const issuerEntry = loadAccount(ltx, issuerId);
    if (!issuerEntry) return result(CHANGE_TRUST_NO_ISSUER);
    const issuer = accountOf(issuerEntry);
    let flags = 0;
    if ((issuer.flags & AUTH_REQUIRED_FLAG) === 0) flags |= AUTHORIZED_FLAG;
    if ((issuer.flags & AUTH_CLAWBACK_ENABLED_FLAG) !== 0) flags |= TRUSTLINE_CLAWBACK_ENABLED_FLAG;

    const entry: LedgerEntry = {
      lastModifiedLedgerSeq: ledger.ledgerSeq,
      data: { type: 1, trustLine: { accountId: ctx.source, asset: tlAsset, balance: 0n, limit, flags, ext: { v: 0 } } },
      ext: { v: 0 },
    };
    const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
    const unpaid = reserveFailure(createEntryWithPossibleSponsorship(ltx, ledger, entry, sourceEntry), result(CHANGE_TRUST_LOW_RESERVE));
    if (unpaid) return unpaid;
    ltx.update(sourceEntry);
    ltx.create(entry);
    return result(CHANGE_TRUST_SUCCESS);
  },
};
