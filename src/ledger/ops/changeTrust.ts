// ChangeTrust: creates, re-limits or (limit 0) deletes the source's trustline to a credit asset or
// to the shares of a liquidity pool (CAP-38). A pool-share line needs a trustline, at least
// authorized to maintain liabilities, to each constituent the source does not issue (native needs
// none); it counts as two reserves, marks those trustlines used (liquidityPoolUseCount, which keeps
// them from being deleted) and creates the pool with its first share line, erasing it with its last.
import type { xdr } from '../../xdr/xdr.ts';
import { accountKey, trustLineKey, type LedgerEntry, type TrustLineAsset } from '../../xdr/codec.ts';
import { AUTH_CLAWBACK_ENABLED_FLAG, AUTH_REQUIRED_FLAG, AUTHORIZED_FLAG, TRUSTLINE_CLAWBACK_ENABLED_FLAG, accountOf, loadAccount, loadAccountOrThrow, trustLineMinimumLimit, trustLineOf } from './accounts.ts';
import { createEntryWithPossibleSponsorship, removeEntryWithPossibleSponsorship } from '../sponsorship.ts';
import { assetIssuer, assetToTrustLineAsset, isAssetValid, isIssuer } from '../assets.ts';
import { addPoolShareTrustLine, liquidityPoolUseCount, poolIdOfParams, removePoolShareTrustLine } from '../liquidityPools.ts';
import { reserveFailure, resultMaker } from './opResult.ts';
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

const result = resultMaker<Code>(6, 'changeTrustResult');

type LineAsset = Exclude<xdr.ChangeTrustAssetWire, { type: 0 }>;

const trustLineAssetOf = (line: LineAsset): TrustLineAsset =>
  line.type === 3 ? { type: 3, liquidityPoolId: poolIdOfParams(line.liquidityPool.constantProduct) } : assetToTrustLineAsset(line);

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

    const tlAsset = trustLineAssetOf(line);
    const key = trustLineKey(ctx.source, tlAsset);
    const existing = ltx.load(key);

    if (existing) {
      const tl = trustLineOf(existing);
      // The limit cannot drop below what the line holds (plus what its offers may still buy); for
      // a pool-share line that is why shares still held block deletion.
      if (limit < trustLineMinimumLimit(tl)) return result(CHANGE_TRUST_INVALID_LIMIT);
      if (limit === 0n) {
        // a trustline some pool-share line of the account builds on stays
        if (tl.asset.type !== 3 && liquidityPoolUseCount(tl) !== 0) return result(CHANGE_TRUST_CANNOT_DELETE);
        const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
        removeEntryWithPossibleSponsorship(ltx, existing, sourceEntry);
        ltx.update(sourceEntry);
        ltx.erase(key);
        if (line.type === 3) removePoolShareTrustLine(ltx, ctx.source, line.liquidityPool.constantProduct);
      } else {
        if (line.type !== 3 && !ltx.exists(accountKey(assetIssuer(line)!))) return result(CHANGE_TRUST_NO_ISSUER);
        tl.limit = limit;
        ltx.update(existing);
      }
      return result(CHANGE_TRUST_SUCCESS);
    }

    if (limit === 0n) return result(CHANGE_TRUST_INVALID_LIMIT);
    let flags = 0; // pool-share lines carry no flags
    if (line.type !== 3) {
      const issuerEntry = loadAccount(ltx, assetIssuer(line)!);
      if (!issuerEntry) return result(CHANGE_TRUST_NO_ISSUER);
      const issuer = accountOf(issuerEntry);
      if ((issuer.flags & AUTH_REQUIRED_FLAG) === 0) flags |= AUTHORIZED_FLAG;
      if ((issuer.flags & AUTH_CLAWBACK_ENABLED_FLAG) !== 0) flags |= TRUSTLINE_CLAWBACK_ENABLED_FLAG;
    } else {
      const pool = addPoolShareTrustLine(ltx, ledger.ledgerSeq, ctx.source, line.liquidityPool.constantProduct);
      if (pool === 'trustLineMissing') return result(CHANGE_TRUST_TRUST_LINE_MISSING);
      if (pool === 'notAuthorizedToMaintainLiabilities') return result(CHANGE_TRUST_NOT_AUTH_MAINTAIN_LIABILITIES);
    }

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
