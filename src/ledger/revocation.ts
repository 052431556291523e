// What revoking a trustline's authorization (below AUTHORIZED_TO_MAINTAIN_LIABILITIES) takes away
// from its holder (stellar-core's removeOffersAndPoolShareTrustLines): every offer of the holder
// that buys or sells the asset leaves the book, releasing its liabilities and reserve; then its pool
// shares in every pool holding the asset are redeemed into claimable balances (poolShareRevocation.ts).
import type { LedgerTxn } from './ledgerTxn.ts';
import type { LedgerContext } from './ops/types.ts';
import type { AccountId, Asset } from '../xdr/codec.ts';
import { assetEquals } from './assets.ts';
import { loadAccountOrThrow } from './ops/accounts.ts';
import { offerOf } from './orderBook.ts';
import { releaseLiabilities } from './exchange/offerLiabilities.ts';
import { removeEntryWithPossibleSponsorship } from './sponsorship.ts';
import { redeemPoolSharesOnRevoke, type RevokingOperation } from './poolShareRevocation.ts';

export type RemovalResult = 'ok' | 'lowReserve' | 'tooManySponsoring';
export type { RevokingOperation };

export function removeOffersAndPoolShares(ltxOuter: LedgerTxn, ledger: LedgerContext, holder: AccountId, asset: Asset,
  op: RevokingOperation): RemovalResult {
  const ltx = ltxOuter.nest();
  for (const offerEntry of ltx.offersBySeller(holder)) {
    const offer = offerOf(offerEntry);
    if (!assetEquals(offer.buying, asset) && !assetEquals(offer.selling, asset)) continue;
    releaseLiabilities(ltx, ledger, offerEntry);
    const owner = loadAccountOrThrow(ltx, holder);
    removeEntryWithPossibleSponsorship(ltx, offerEntry, owner);
    ltx.update(owner);
    ltx.erase({ type: 2, offer: { sellerId: offer.sellerId, offerId: offer.offerId } });
  }
  const redeemed = redeemPoolSharesOnRevoke(ltx, ledger, holder, asset, op);
  if (redeemed !== 'ok') {
    ltx.rollback();
    return redeemed;
  }
  ltx.commit();
  return 'ok';
}
