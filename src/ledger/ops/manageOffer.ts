// What ManageSellOffer, ManageBuyOffer and CreatePassiveSellOffer share (stellar-core's
// ManageOfferOpFrameBase): an offer sells sheep for wheat. Creating or updating one first crosses
// the book at its price or better; what is left rests in the book with liabilities on its seller.
// The three differ only in how their amount is stated (sheep to sell, or wheat to buy), and in
// whether a new offer is passive (it does not take offers at exactly its own price).
import type { xdr } from '../../xdr/xdr.ts';
import type { LedgerTxn } from '../ledgerTxn.ts';
import type { LedgerContext, OpContext, OpHandler, OpOutcome } from './types.ts';
import type { Asset, LedgerEntry } from '../../xdr/codec.ts';
import { accountIdEquals, accountOf, addAccountBalance, availableBalance, accountMaxReceive, loadAccountOrThrow } from './accounts.ts';
import { assetEquals, isAssetValid } from '../assets.ts';
import {
  canBuyAtMost, canSellAtMost, lineAddBalance, lineAvailableBalance, lineBalance, lineIsAuthorized, lineMaxReceive,
  loadCreditLine, saveLine, type CreditLine,
} from '../holdings.ts';
import { createEntryWithPossibleSponsorship, removeEntryWithPossibleSponsorship } from '../sponsorship.ts';
import { acquireLiabilities, releaseLiabilities } from '../exchange/offerLiabilities.ts';
import { adjustOffer, priceGreater, priceGreaterOrEqual, Rounding, type Price } from '../exchange/exchangeMath.ts';
import { convertWithOffersAndPools, MAX_OFFERS_TO_CROSS } from '../exchange/convert.ts';
import type { ClaimAtom } from '../exchange/crossOffers.ts';
import { claimAtomEvents } from '../sacEvents.ts';
import { OP_EXCEEDED_WORK_LIMIT, OP_TOO_MANY_SPONSORING, OP_TOO_MANY_SUBENTRIES, failOp, resultMaker } from './opResult.ts';

export const MANAGE_OFFER_SUCCESS = 0;
export const MANAGE_OFFER_MALFORMED = -1;
export const MANAGE_OFFER_SELL_NO_TRUST = -2;
export const MANAGE_OFFER_BUY_NO_TRUST = -3;
export const MANAGE_OFFER_SELL_NOT_AUTHORIZED = -4;
export const MANAGE_OFFER_BUY_NOT_AUTHORIZED = -5;
export const MANAGE_OFFER_LINE_FULL = -6;
export const MANAGE_OFFER_UNDERFUNDED = -7;
export const MANAGE_OFFER_CROSS_SELF = -8;
export const MANAGE_OFFER_NOT_FOUND = -11;
export const MANAGE_OFFER_LOW_RESERVE = -12;

export const PASSIVE_FLAG = 1;

/** One offer operation, read into core's terms. */
export interface OfferRequest {
  sheep: Asset;            // what the offer sells
  wheat: Asset;            // what it buys
  offerId: bigint;         // 0 to create
  price: Price;            // wheat per sheep... as stored: the price of sheep in wheat
  passiveOnCreate: boolean;
  /** The stated amount (sheep to sell, or wheat to buy); 0 deletes the offer. */
  amount: bigint;
  /** The liabilities an offer of the stated amount takes on. */
  liabilities(): { buying: bigint; selling: bigint };
  /** Caps the exchange by the stated amount, less what was already traded. */
  limit(maxSheepSend: bigint, sheepSent: bigint, maxWheatReceive: bigint, wheatReceived: bigint): { maxSheepSend: bigint; maxWheatReceive: bigint };
}

export interface OfferOpSpec<Body> {
  type: 3 | 4 | 12;
  arm: string;
  request(body: Body): OfferRequest;
}

export function manageOfferHandler<Body extends xdr.OperationBodyWire>(spec: OfferOpSpec<Body>): OpHandler<Body> {
  const result = resultMaker<number>(spec.type, spec.arm);
  const placeholder = (): xdr.OperationResultTrWire => result(MANAGE_OFFER_MALFORMED).tr;
  return {
    threshold: () => 'medium',

    checkValid(body) {
      const r = spec.request(body);
      if (!isAssetValid(r.sheep) || !isAssetValid(r.wheat) || assetEquals(r.sheep, r.wheat)) return result(MANAGE_OFFER_MALFORMED);
      if (r.amount < 0n || r.price.d <= 0 || r.price.n <= 0) return result(MANAGE_OFFER_MALFORMED);
      if (r.offerId === 0n && r.amount === 0n) return result(MANAGE_OFFER_MALFORMED);
      if (r.offerId < 0n) return result(MANAGE_OFFER_MALFORMED);
      return null;
    },

    apply(body, ctx) {
      const r = spec.request(body);
      return applyOffer(r, ctx, result, placeholder);
    },
  };
}

function applyOffer(r: OfferRequest, ctx: OpContext, result: (code: number, fields?: object) => OpOutcome,
  placeholder: () => xdr.OperationResultTrWire): OpOutcome {
  const { ltx, ledger, source } = ctx;
  const deleting = r.amount === 0n;

  const invalid = checkOfferValid(ltx, r, ctx);
  if (invalid !== null) return result(invalid);

  let creating = false;
  let flags = 0;
  let extension: LedgerEntry['ext'] = { v: 0 };
  if (r.offerId !== 0n) {
    const key = offerKey(ctx, r.offerId);
    const existing = ltx.load(key);
    if (!existing || existing.data.type !== 2) return result(MANAGE_OFFER_NOT_FOUND);
    releaseLiabilities(ltx, ledger, existing);
    flags = existing.data.offer.flags;
    extension = existing.ext;
    ltx.erase(key);
  } else {
    creating = true;
    flags = r.passiveOnCreate ? PASSIVE_FLAG : 0;
    const placeholderOffer = buildOffer(ctx, r, 0n, 0, { v: 0 });
    const sourceEntry = loadAccountOrThrow(ltx, source);
    const sponsored = createEntryWithPossibleSponsorship(ltx, ledger, placeholderOffer, sourceEntry);
    if (sponsored === 'lowReserve') return result(MANAGE_OFFER_LOW_RESERVE);
    if (sponsored === 'tooManySubentries') return failOp(OP_TOO_MANY_SUBENTRIES, placeholder());
    if (sponsored === 'tooManySponsoring') return failOp(OP_TOO_MANY_SPONSORING, placeholder());
    if (sponsored !== 'ok') throw new Error(`unexpected sponsorship result ${sponsored}`);
    ltx.update(sourceEntry);
    extension = placeholderOffer.ext;
  }
  const passive = (flags & PASSIVE_FLAG) !== 0;

  let amount = 0n;
  let offersClaimed: ClaimAtom[] = [];
  if (!deleting) {
    const params = exchangeParameters(ltx.nest(), ledger, r, ctx);
    if (typeof params === 'number') return result(params);
    if (params.maxWheatReceive === 0n) return result(MANAGE_OFFER_LINE_FULL);

    // the book's price for wheat in sheep is the inverse of ours
    const maxWheatPrice: Price = { n: r.price.d, d: r.price.n };
    const converted = convertWithOffersAndPools(ltx, ledger, r.sheep, params.maxSheepSend, r.wheat, params.maxWheatReceive,
      Rounding.NORMAL, (o) => {
        if ((passive && priceGreaterOrEqual(o.price, maxWheatPrice)) || priceGreater(o.price, maxWheatPrice)) return 'stopBadPrice';
        if (accountIdEquals(o.sellerId, source)) return 'stopCrossSelf';
        return 'keep';
      }, { remaining: MAX_OFFERS_TO_CROSS });
    if (converted.result === 'stopCrossSelf') return result(MANAGE_OFFER_CROSS_SELF);
    if (converted.result === 'crossedTooMany') return failOp(OP_EXCEEDED_WORK_LIMIT, placeholder());
    const sheepStays = converted.result !== 'ok';
    offersClaimed = converted.trail;
    const { sheepSend: sheepSent, wheatReceived } = converted;

    if (wheatReceived > 0n) {
      credit(ltx, ledger, ctx, r.wheat, wheatReceived, 'offer claimed over limit');
      credit(ltx, ledger, ctx, r.sheep, -sheepSent, 'offer sold more than balance');
    }

    if (sheepStays) {
      const account = ltx.load({ type: 0, account: { accountId: source } });
      const sheepLine = r.sheep.type === 0 ? undefined : loadCreditLine(ltx, source, r.sheep);
      const wheatLine = r.wheat.type === 0 ? undefined : loadCreditLine(ltx, source, r.wheat);
      const limits = r.limit(canSellAtMost(ledger, account, r.sheep, sheepLine), sheepSent,
        canBuyAtMost(account, r.wheat, wheatLine), wheatReceived);
      amount = adjustOffer(r.price, limits.maxSheepSend, limits.maxWheatReceive);
    }
  }

  let offer: xdr.ManageOfferSuccessResultOfferWire;
  if (amount > 0n) {
    const newOffer = buildOffer(ctx, r, amount, flags, extension);
    const o = newOffer.data as Extract<LedgerEntry['data'], { type: 2 }>;
    if (creating) o.offer.offerId = ltx.generateId();
    ltx.create(newOffer);
    acquireLiabilities(ltx, ledger, newOffer);
    offer = { effect: creating ? 0 : 1, offer: o.offer };
  } else {
    offer = { effect: 2 };
    const sourceEntry = loadAccountOrThrow(ltx, source);
    removeEntryWithPossibleSponsorship(ltx, buildOffer(ctx, r, 0n, 0, extension), sourceEntry);
    ltx.update(sourceEntry);
  }

  ctx.events.push(...claimAtomEvents(ledger.networkId, ctx.sourceMuxed, offersClaimed));
  return result(MANAGE_OFFER_SUCCESS, { success: { offersClaimed, offer } });
}

/** The trustline checks core makes before touching anything (checkOfferValid). */
function checkOfferValid(ltx: LedgerTxn, r: OfferRequest, ctx: OpContext): number | null {
  if (r.amount === 0n) return null;
  if (r.sheep.type !== 0) {
    const line = loadCreditLine(ltx, ctx.source, r.sheep);
    if (!line) return MANAGE_OFFER_SELL_NO_TRUST;
    if (lineBalance(line) === 0n) return MANAGE_OFFER_UNDERFUNDED;
    if (!lineIsAuthorized(line)) return MANAGE_OFFER_SELL_NOT_AUTHORIZED;
  }
  if (r.wheat.type !== 0) {
    const line = loadCreditLine(ltx, ctx.source, r.wheat);
    if (!line) return MANAGE_OFFER_BUY_NO_TRUST;
    if (!lineIsAuthorized(line)) return MANAGE_OFFER_BUY_NOT_AUTHORIZED;
  }
  return null;
}

/**
 * How much the offer may send and receive now (computeOfferExchangeParameters), read in a level
 * that is rolled back: the whole new offer's liabilities must fit, or LINE_FULL / UNDERFUNDED.
 */
function exchangeParameters(probe: LedgerTxn, ledger: LedgerContext, r: OfferRequest, ctx: OpContext):
  { maxSheepSend: bigint; maxWheatReceive: bigint } | number {
  try {
    const account = loadAccountOrThrow(probe, ctx.source);
    const sheepLine = r.sheep.type === 0 ? undefined : loadCreditLine(probe, ctx.source, r.sheep);
    const wheatLine = r.wheat.type === 0 ? undefined : loadCreditLine(probe, ctx.source, r.wheat);
    const maxWheatReceive = canBuyAtMost(account, r.wheat, wheatLine);
    const maxSheepSend = canSellAtMost(ledger, account, r.sheep, sheepLine);
    const { buying, selling } = r.liabilities();
    const availableLimit = r.wheat.type === 0 ? accountMaxReceive(accountOf(account)) : lineMaxReceive(wheatLine as CreditLine);
    if (availableLimit < buying) return MANAGE_OFFER_LINE_FULL;
    const available = r.sheep.type === 0 ? availableBalance(ledger, accountOf(account)) : lineAvailableBalance(sheepLine as CreditLine);
    if (available < selling) return MANAGE_OFFER_UNDERFUNDED;
    return r.limit(maxSheepSend, 0n, maxWheatReceive, 0n);
  } finally {
    probe.rollback();
  }
}

/** Adds `delta` of `asset` to the source's holding; core treats a failure here as impossible. */
function credit(ltx: LedgerTxn, ledger: LedgerContext, ctx: OpContext, asset: Asset, delta: bigint, what: string): void {
  if (asset.type === 0) {
    const account = loadAccountOrThrow(ltx, ctx.source);
    if (!addAccountBalance(ledger, accountOf(account), delta)) throw new Error(what);
    ltx.update(account);
    return;
  }
  const line = loadCreditLine(ltx, ctx.source, asset);
  if (!line || !lineAddBalance(line, delta)) throw new Error(what);
  saveLine(ltx, line);
}

const offerKey = (ctx: OpContext, offerId: bigint): xdr.LedgerKeyWire => ({ type: 2, offer: { sellerId: ctx.source, offerId } });

function buildOffer(ctx: OpContext, r: OfferRequest, amount: bigint, flags: number, ext: LedgerEntry['ext']): LedgerEntry {
  return {
    lastModifiedLedgerSeq: ctx.ledger.ledgerSeq,
    data: { type: 2, offer: { sellerId: ctx.source, offerId: r.offerId, selling: r.sheep, buying: r.wheat, amount, price: r.price, flags, ext: { v: 0 } } },
    ext,
  };
}
