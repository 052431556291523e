// SetOptions: account flags, thresholds and master weight, signers, home domain, inflation
// destination. Signers are kept sorted by key (XDR order) and each one holds a base reserve, paid by
// the account or by whoever sponsors its future reserves.
import type { xdr } from '../../xdr/xdr.ts';
import { accountKey } from '../../xdr/codec.ts';
import { ALL_ACCOUNT_AUTH_FLAGS, AUTH_CLAWBACK_ENABLED_FLAG, AUTH_IMMUTABLE_FLAG, AUTH_REVOCABLE_FLAG, MASK_ACCOUNT_FLAGS_V17, MAX_SIGNERS, accountIdEquals, accountOf, compareSignerKeys, extV2, isStringValid, loadAccountOrThrow } from './accounts.ts';
import { createSignerWithPossibleSponsorship, removeSignerWithPossibleSponsorship } from '../sponsorship.ts';
import { reserveFailure, resultMaker } from './opResult.ts';
import type { OpHandler } from './types.ts';

type Body = Extract<xdr.OperationBodyWire, { type: 5 }>;
type Code = xdr.SetOptionsResultWire['code'];

export const SET_OPTIONS_SUCCESS = 0;
export const SET_OPTIONS_LOW_RESERVE = -1;
export const SET_OPTIONS_TOO_MANY_SIGNERS = -2;
export const SET_OPTIONS_BAD_FLAGS = -3;
export const SET_OPTIONS_INVALID_INFLATION = -4;
export const SET_OPTIONS_CANT_CHANGE = -5;
export const SET_OPTIONS_UNKNOWN_FLAG = -6;
export const SET_OPTIONS_THRESHOLD_OUT_OF_RANGE = -7;
export const SET_OPTIONS_BAD_SIGNER = -8;
export const SET_OPTIONS_INVALID_HOME_DOMAIN = -9;
export const SET_OPTIONS_AUTH_REVOCABLE_REQUIRED = -10;

const result = resultMaker<Code>(5, 'setOptionsResult');

// Thresholds bytes: [master weight, low, medium, high]
const MASTER = 0, LOW = 1, MED = 2, HIGH = 3;

export const setOptions: OpHandler<Body> = {
  threshold(body) {
    const o = body.setOptionsOp;
    const touchesSigning = o.masterWeight !== null || o.lowThreshold !== null || o.medThreshold !== null
      || o.highThreshold !== null || o.signer !== null;
    return touchesSigning ? 'high' : 'medium';
  },

  checkValid(body, ctx) {
    const o = body.setOptionsOp;
    if ((o.setFlags !== null && (o.setFlags & ~MASK_ACCOUNT_FLAGS_V17) !== 0)
      || (o.clearFlags !== null && (o.clearFlags & ~MASK_ACCOUNT_FLAGS_V17) !== 0)) {
      return result(SET_OPTIONS_UNKNOWN_FLAG);
    }
    if (o.setFlags !== null && o.clearFlags !== null && (o.setFlags & o.clearFlags) !== 0) return result(SET_OPTIONS_BAD_FLAGS);
    for (const t of [o.masterWeight, o.lowThreshold, o.medThreshold, o.highThreshold]) {
      if (t !== null && t > 255) return result(SET_OPTIONS_THRESHOLD_OUT_OF_RANGE);
    }
    if (o.signer !== null) {
      const k = o.signer.key;
      if (k.type === 0 && accountIdEquals({ type: 0, ed25519: k.ed25519 }, ctx.source)) return result(SET_OPTIONS_BAD_SIGNER);
      if (o.signer.weight > 255) return result(SET_OPTIONS_BAD_SIGNER);
      if (k.type === 3 && k.ed25519SignedPayload.payload.length === 0) return result(SET_OPTIONS_BAD_SIGNER);
    }
    if (o.homeDomain !== null && !isStringValid(o.homeDomain)) return result(SET_OPTIONS_INVALID_HOME_DOMAIN);
    return null;
  },

  apply(body, ctx) {
    const o = body.setOptionsOp;
    const { ltx, ledger } = ctx;
    const sourceEntry = loadAccountOrThrow(ltx, ctx.source);
    const acc = accountOf(sourceEntry);

    if (o.inflationDest !== null) {
      if (!accountIdEquals(o.inflationDest, ctx.source) && !ltx.exists(accountKey(o.inflationDest))) {
        return result(SET_OPTIONS_INVALID_INFLATION);
      }
      acc.inflationDest = o.inflationDest;
    }

    const immutable = (acc.flags & AUTH_IMMUTABLE_FLAG) !== 0;
    if (o.clearFlags !== null) {
      if ((o.clearFlags & ALL_ACCOUNT_AUTH_FLAGS) !== 0 && immutable) return result(SET_OPTIONS_CANT_CHANGE);
      acc.flags &= ~o.clearFlags;
    }
    if (o.setFlags !== null) {
      if ((o.setFlags & ALL_ACCOUNT_AUTH_FLAGS) !== 0 && immutable) return result(SET_OPTIONS_CANT_CHANGE);
      acc.flags |= o.setFlags;
    }
    // Clawback requires revocable (protocol 17+).
    if ((o.setFlags !== null || o.clearFlags !== null)
      && (acc.flags & AUTH_CLAWBACK_ENABLED_FLAG) !== 0 && (acc.flags & AUTH_REVOCABLE_FLAG) === 0) {
      return result(SET_OPTIONS_AUTH_REVOCABLE_REQUIRED);
    }

    if (o.homeDomain !== null) acc.homeDomain = o.homeDomain;

    // Thresholds are shared bytes: replace, never edit in place.
    const th = new Uint8Array(acc.thresholds);
    if (o.masterWeight !== null) th[MASTER] = o.masterWeight & 0xff;
    if (o.lowThreshold !== null) th[LOW] = o.lowThreshold & 0xff;
    if (o.medThreshold !== null) th[MED] = o.medThreshold & 0xff;
    if (o.highThreshold !== null) th[HIGH] = o.highThreshold & 0xff;
    acc.thresholds = th;

    if (o.signer !== null) {
      const { key, weight } = o.signer;
      // Lower bound of `key` in the sorted signer list.
      let at = acc.signers.findIndex((s) => compareSignerKeys(s.key, key) >= 0);
      if (at < 0) at = acc.signers.length;
      const found = at < acc.signers.length && compareSignerKeys(acc.signers[at].key, key) === 0;
      if (weight !== 0) {
        if (found) {
          acc.signers[at] = { key: acc.signers[at].key, weight };
        } else {
          if (acc.signers.length >= MAX_SIGNERS) return result(SET_OPTIONS_TOO_MANY_SIGNERS);
          acc.signers.splice(at, 0, { key, weight });
          // signerSponsoringIDs stays parallel to signers: the new one starts unsponsored
          extV2(acc)?.signerSponsoringIDs.splice(at, 0, null);
          const unpaid = reserveFailure(createSignerWithPossibleSponsorship(ltx, ledger, sourceEntry, at), result(SET_OPTIONS_LOW_RESERVE));
          if (unpaid) return unpaid;
        }
      } else if (found) {
        removeSignerWithPossibleSponsorship(ltx, sourceEntry, at);
      }
    }

    ltx.update(sourceEntry);
    return result(SET_OPTIONS_SUCCESS);
  },
};
