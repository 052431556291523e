// Registry of the classic operations the standalone ledger engine applies, keyed by OperationType.
//
// Supported (each handler receives the whole OperationBody, `op.body`):
//    0 CREATE_ACCOUNT        createAccount.ts
//    1 PAYMENT               payment.ts        (native and credit assets)
//    5 SET_OPTIONS           setOptions.ts
//    6 CHANGE_TRUST          changeTrust.ts    (credit assets; pool-share lines → opNOT_SUPPORTED)
//    7 ALLOW_TRUST           allowTrust.ts
//    8 ACCOUNT_MERGE         accountMerge.ts
//   10 MANAGE_DATA           manageData.ts
//   11 BUMP_SEQUENCE         bumpSequence.ts
//   21 SET_TRUST_LINE_FLAGS  setTrustLineFlags.ts
//
// Not handled here (the applier answers opNOT_SUPPORTED): path payments (2, 13), offers (3, 4, 12),
// inflation (9), claimable balances (14, 15, 20), sponsorship (16, 17, 18), clawback (19), liquidity
// pools (22, 23); the Soroban operations (24, 25, 26) belong to the host.
//
// Since offers, liquidity pools and sponsorship operations are absent, no liabilities, pool shares or
// new sponsorships can arise; the handlers still honour liabilities and sponsorship counters that
// existing entries carry.
import type { xdr } from '@stellar/stellar-sdk';
import type { OpHandler, OpOutcome } from './types.ts';
import { createAccount } from './createAccount.ts';
import { payment } from './payment.ts';
import { setOptions } from './setOptions.ts';
import { changeTrust } from './changeTrust.ts';
import { allowTrust } from './allowTrust.ts';
import { accountMerge } from './accountMerge.ts';
import { manageData } from './manageData.ts';
import { bumpSequence } from './bumpSequence.ts';
import { setTrustLineFlags } from './setTrustLineFlags.ts';

export const opHandlers: Partial<Record<number /* OperationType */, OpHandler<any>>> = {
  0: createAccount,
  1: payment,
  5: setOptions,
  6: changeTrust,
  7: allowTrust,
  8: accountMerge,
  10: manageData,
  11: bumpSequence,
  21: setTrustLineFlags,
};

/** OperationType numbers with a handler, ascending. */
export const supportedOperationTypes: readonly number[] = Object.keys(opHandlers).map(Number).sort((a, b) => a - b);

/**
 * The OperationResult for an outcome (from `apply` or `checkValid`): `{code: opINNER, tr}`, or the
 * bare top-level code (opNOT_SUPPORTED, opTOO_MANY_SUBENTRIES, opTOO_MANY_SPONSORING) when set.
 */
export function operationResultOf(outcome: OpOutcome): xdr.OperationResultWire {
  return outcome.code !== undefined ? { code: outcome.code } : { code: 0, tr: outcome.tr };
}
