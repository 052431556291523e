// Minimum balances and spendable balance, as stellar-core computes them.
import type { xdr } from '@stellar/stellar-sdk';

type Account = xdr.AccountEntryWire;

export function sponsorshipCounts(a: Account): { numSponsored: number; numSponsoring: number } {
  if (a.ext.v === 1 && a.ext.v1.ext.v === 2) {
    return { numSponsored: a.ext.v1.ext.v2.numSponsored, numSponsoring: a.ext.v1.ext.v2.numSponsoring };
  }
  return { numSponsored: 0, numSponsoring: 0 };
}

export function sellingLiabilities(a: Account): bigint { return a.ext.v === 1 ? a.ext.v1.liabilities.selling : 0n; }
export function buyingLiabilities(a: Account): bigint { return a.ext.v === 1 ? a.ext.v1.liabilities.buying : 0n; }

/** (2 + subentries + sponsoring - sponsored) base reserves. */
export function minimumBalance(a: Account, baseReserve: number, extraSubentries = 0): bigint {
  const { numSponsored, numSponsoring } = sponsorshipCounts(a);
  return BigInt(2 + a.numSubEntries + extraSubentries + numSponsoring - numSponsored) * BigInt(baseReserve);
}

/** What the account can send or pay in fees without dipping into its reserve or offers. */
export function availableBalance(a: Account, baseReserve: number): bigint {
  return a.balance - minimumBalance(a, baseReserve) - sellingLiabilities(a);
}
