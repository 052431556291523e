// Entries the network's result shows it found, even when no meta shows them (an entry a transaction
// reads but does not change is in no meta). Each operation that ran left a result, and how far an
// operation got tells what it found (stellar-core, protocol 19+):
//   - an operation's own source account, whenever its result is an operation-specific one (opINNER):
//     core answers opNO_ACCOUNT before anything else when the source is gone (OperationFrame::apply);
//   - the destination account of a payment or path payment, unless the result is MALFORMED (checked
//     before applying) or NO_DESTINATION: core loads it first of all (PathPaymentStrictReceiveOpFrame
//     and PathPaymentStrictSendOpFrame doApply; Payment is a path payment without a path), except
//     for an asset paid back to its issuer without a path (shouldBypassIssuerCheck);
//   - the issuer of the asset of a ChangeTrust that succeeded (otherwise CHANGE_TRUST_NO_ISSUER);
//   - the source's trustlines of an offer's assets (not native, not its own), as far as
//     ManageOfferOpFrameBase::checkOfferValid got: it looks up the selling line (SELL_NO_TRUST),
//     then its balance (UNDERFUNDED) and authorization, then the buying line (BUY_NO_TRUST) and
//     its authorization; every later failure and success passed all of it. Deleting an offer
//     (amount 0) checks no line.
// Operations after a failed one still run and leave their own results (TransactionFrame::
// applyOperations), so this holds for every operation of a transaction that got to its operations.
// When an operation's result came from validation (opBAD_AUTH, opNOT_SUPPORTED) the others carry
// default results, and nothing is inferred.
//
// (The owner of any offer, trustline or data entry the state holds exists too: a ledger invariant
// the scratch state applies itself.)
//
// The replay knows these entries existed and nothing else, so it lends the engine stand-ins that
// answer reads only, in two versions with contents as different as can be: when the engine's
// outcome changes with them, it depends on what the replay cannot know.
import { xdr } from '../xdr/xdr.ts';
import { accountKey, bytesEqual, muxedToAccountId, trustLineKey, type AccountId, type LedgerEntry, type LedgerKey } from '../xdr/codec.ts';
import { assetEquals, assetIssuer, assetToTrustLineAsset, isIssuer } from '../ledger/assets.ts';
import type { TransactionFrame } from '../ledger/transactionFrame.ts';

const MALFORMED = -1, NO_DESTINATION = -5;
/** OperationResult codes given at validation: the other operations' results are then defaults. */
const OP_BAD_AUTH = -1, OP_NOT_SUPPORTED = -3;
/** ManageSellOffer / ManageBuyOffer result codes (the same numbers for both). */
const OFFER = { SELL_NO_TRUST: -2, BUY_NO_TRUST: -3, SELL_NOT_AUTHORIZED: -4, UNDERFUNDED: -7, SELL_NO_ISSUER: -9, BUY_NO_ISSUER: -10 } as const;

/** The keys of the entries the operations' results show the network found. */
export function entriesFound(frame: TransactionFrame, result: xdr.TransactionResultWire): LedgerKey[] {
  const results = operationResults(result);
  if (!results || results.some((r) => r.code === OP_BAD_AUTH || r.code === OP_NOT_SUPPORTED)) return [];
  const found: LedgerKey[] = [];
  frame.tx.operations.forEach((op, i) => {
    const r = results[i];
    if (r.code !== 0) return;
    const source = op.sourceAccount ? muxedToAccountId(op.sourceAccount) : frame.sourceId;
    if (op.sourceAccount) found.push(accountKey(source));
    found.push(...foundBy(op.body, source, innerCode(r.tr)));
  });
  return found;
}

/** The operations' results, when the (inner) transaction got to its operations. */
function operationResults(result: xdr.TransactionResultWire): xdr.OperationResultWire[] | undefined {
  const r = result.result;
  const body = r.code === 1 || r.code === -13 ? r.innerResultPair.result.result : r;
  return body.code === 0 || body.code === -1 ? (body as { results: xdr.OperationResultWire[] }).results : undefined;
}

const innerCode = (tr: xdr.OperationResultTrWire): number | undefined =>
  Object.entries(tr).find(([k]) => k !== 'type')?.[1]?.code as number | undefined;

function foundBy(body: xdr.OperationBodyWire, source: AccountId, code: number | undefined): LedgerKey[] {
  const reachedDestination = code !== MALFORMED && code !== NO_DESTINATION;
  switch (body.type) {
    case 1: {
      const op = body.paymentOp;
      return reachedDestination ? destinationUnlessBypassed(op.destination, op.asset, op.asset, 0) : [];
    }
    case 2: {
      const op = body.pathPaymentStrictReceiveOp;
      return reachedDestination ? destinationUnlessBypassed(op.destination, op.sendAsset, op.destAsset, op.path.length) : [];
    }
    case 13: {
      const op = body.pathPaymentStrictSendOp;
      return reachedDestination ? destinationUnlessBypassed(op.destination, op.sendAsset, op.destAsset, op.path.length) : [];
    }
    case 6: {
      const { line, limit } = body.changeTrustOp;
      const issuer = code === 0 && line.type !== 3 && limit > 0n ? assetIssuer(line) : undefined;
      return issuer ? [accountKey(issuer)] : [];
    }
    case 3: return offerLinesFound(source, body.manageSellOfferOp.selling, body.manageSellOfferOp.buying, body.manageSellOfferOp.amount, code);
    case 4: return offerLinesFound(source, body.createPassiveSellOfferOp.selling, body.createPassiveSellOfferOp.buying, body.createPassiveSellOfferOp.amount, code);
    case 12: return offerLinesFound(source, body.manageBuyOfferOp.selling, body.manageBuyOfferOp.buying, body.manageBuyOfferOp.buyAmount, code);
    default: return [];
  }
}

function destinationUnlessBypassed(destination: xdr.MuxedAccountWire, send: xdr.AssetWire, dest: xdr.AssetWire, pathLength: number): LedgerKey[] {
  const id = muxedToAccountId(destination);
  const issuer = assetIssuer(dest);
  const bypassed = issuer !== undefined && pathLength === 0 && assetEquals(send, dest) && bytesEqual(issuer.ed25519, id.ed25519);
  return bypassed ? [] : [accountKey(id)];
}

function offerLinesFound(source: AccountId, selling: xdr.AssetWire, buying: xdr.AssetWire, amount: bigint, code: number | undefined): LedgerKey[] {
  if (amount === 0n || code === undefined || code === MALFORMED || code === OFFER.SELL_NO_TRUST || code === OFFER.SELL_NO_ISSUER) return [];
  const lines: LedgerKey[] = [];
  const line = (asset: xdr.AssetWire) => {
    if (asset.type === 1 || asset.type === 2) {
      if (!isIssuer(source, asset)) lines.push(trustLineKey(source, assetToTrustLineAsset(asset)));
    }
  };
  line(selling);
  // the selling line's balance and authorization come before the buying line is looked up
  if (code !== OFFER.UNDERFUNDED && code !== OFFER.SELL_NOT_AUTHORIZED && code !== OFFER.BUY_NO_TRUST && code !== OFFER.BUY_NO_ISSUER) line(buying);
  return lines;
}

export type StandInVersion = 'bare' | 'full';

/**
 * What the replay's state says a stood-in entry must at least hold, so that it agrees with the
 * entries the state knows its account owns: the ledger's invariants (sub-entries counted, offers'
 * liabilities carried by the account or line they sell and buy through, reserves covered) hold for
 * it as for any real entry, and the engine's own consistency checks pass as they did on the network.
 */
export interface StandInFloor {
  /** Trustlines, offers and data entries the account owns in the state (numSubEntries counts them). */
  subEntries: number;
  /** Of those, the ones another account sponsors (numSponsored). */
  sponsored: number;
  /** What the account's known offers commit in the stand-in's asset (native for an account). */
  liabilities: { buying: bigint; selling: bigint };
  baseReserve: number;
}

const HUGE = 1n << 60n;
const AUTHORIZED = 1, AUTHORIZED_TO_MAINTAIN_LIABILITIES = 2;

/**
 * An entry known to exist and nothing more: an account or a trustline, at the floor its known
 * entries set. 'bare': the least it can hold (the reserve and what its offers sell; a line only
 * authorized to maintain liabilities if it has any, else not at all). 'full': a large balance,
 * every account flag, an authorized line with room to spare. No signers in either: the replay does
 * not verify signatures, and a signer a transaction removes would have put the account in its
 * meta. Undefined for other kinds of entries.
 */
export function standIn(key: LedgerKey, version: StandInVersion, floor: StandInFloor): LedgerEntry | undefined {
  const full = version === 'full';
  const { liabilities } = floor;
  const owes = liabilities.buying > 0n || liabilities.selling > 0n;
  if (key.type === 0) {
    const reserve = BigInt(2 + floor.subEntries - floor.sponsored) * BigInt(floor.baseReserve);
    const ext: xdr.AccountEntryExtWire = !owes && floor.sponsored === 0 ? { v: 0 } : {
      v: 1,
      v1: {
        liabilities,
        ext: floor.sponsored === 0 ? { v: 0 }
          : { v: 2, v2: { numSponsored: floor.sponsored, numSponsoring: 0, signerSponsoringIDs: [], ext: { v: 0 } } },
      },
    };
    return {
      lastModifiedLedgerSeq: 0,
      data: {
        type: 0,
        account: {
          accountId: key.account.accountId, balance: full ? HUGE + liabilities.selling : reserve + liabilities.selling, seqNum: 0n,
          numSubEntries: floor.subEntries, inflationDest: null, flags: full ? 0xf : 0,
          homeDomain: new xdr.XdrString(full ? 'stand-in' : ''), thresholds: new Uint8Array([1, 0, 0, 0]), signers: [], ext,
        },
      },
      ext: { v: 0 },
    };
  }
  if (key.type === 1) {
    const balance = full ? HUGE + liabilities.selling : liabilities.selling;
    return {
      lastModifiedLedgerSeq: 0,
      data: {
        type: 1,
        trustLine: {
          accountId: key.trustLine.accountId, asset: key.trustLine.asset, balance,
          limit: full ? HUGE * 4n + liabilities.buying : balance + liabilities.buying,
          flags: full ? AUTHORIZED : owes ? AUTHORIZED_TO_MAINTAIN_LIABILITIES : 0,
          ext: owes ? { v: 1, v1: { liabilities, ext: { v: 0 } } } : { v: 0 },
        },
      },
      ext: { v: 0 },
    };
  }
  return undefined;
}
