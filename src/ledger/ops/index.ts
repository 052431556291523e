// Registry of the classic operations the standalone ledger engine applies, keyed by OperationType.
//
// Supported (each handler receives the whole OperationBody, `op.body`):
//    0 CREATE_ACCOUNT                createAccount.ts
//    1 PAYMENT                       payment.ts        (native and credit assets)
//    2 PATH_PAYMENT_STRICT_RECEIVE   pathPaymentStrictReceive.ts  (shared: pathPayment.ts, ../exchange/)
//    3 MANAGE_SELL_OFFER             manageSellOffer.ts           (shared: manageOffer.ts, ../exchange/)
//    4 CREATE_PASSIVE_SELL_OFFER     createPassiveSellOffer.ts
//    5 SET_OPTIONS                   setOptions.ts
//    6 CHANGE_TRUST                  changeTrust.ts    (credit assets and liquidity-pool shares)
//    7 ALLOW_TRUST                   allowTrust.ts
//    8 ACCOUNT_MERGE                 accountMerge.ts
//   10 MANAGE_DATA                   manageData.ts
//   11 BUMP_SEQUENCE                 bumpSequence.ts
//   12 MANAGE_BUY_OFFER              manageBuyOffer.ts
//   13 PATH_PAYMENT_STRICT_SEND      pathPaymentStrictSend.ts
//   14 CREATE_CLAIMABLE_BALANCE      createClaimableBalance.ts
//   15 CLAIM_CLAIMABLE_BALANCE       claimClaimableBalance.ts
//   16 BEGIN_SPONSORING_FUTURE_RESERVES  beginSponsoringFutureReserves.ts
//   17 END_SPONSORING_FUTURE_RESERVES    endSponsoringFutureReserves.ts
//   18 REVOKE_SPONSORSHIP            revokeSponsorship.ts  (entries and signers)
//   19 CLAWBACK                      clawback.ts
//   20 CLAWBACK_CLAIMABLE_BALANCE    clawbackClaimableBalance.ts
//   21 SET_TRUST_LINE_FLAGS          setTrustLineFlags.ts
//   22 LIQUIDITY_POOL_DEPOSIT        liquidityPoolDeposit.ts      (pools: ../liquidityPools.ts)
//   23 LIQUIDITY_POOL_WITHDRAW       liquidityPoolWithdraw.ts
//   24 INVOKE_HOST_FUNCTION          invokeHostFunction.ts  (the Soroban host, through the native addon)
//   25 EXTEND_FOOTPRINT_TTL          extendFootprintTtl.ts
//   26 RESTORE_FOOTPRINT             restoreFootprint.ts
//
// Retired (`retiredOperationTypes`): 9 INFLATION, which core supports only before protocol 12. Like
// every type without a handler it is answered opNOT_SUPPORTED, and that is core's answer too: core
// asks isOpSupported before it looks at the operation's source account or signatures, and validation
// asks for a handler first.
//
// Sponsorship (CAP-33): every operation that creates or removes an entry or signer pays or releases
// its reserve through ../sponsorship.ts, so the account sponsoring the source's future reserves pays
// while a sponsorship is open.
import type { xdr } from '../../xdr/xdr.ts';
import { accountKey } from '../../xdr/codec.ts';
import type { OpHandler, OpOutcome } from './types.ts';
import { createAccount } from './createAccount.ts';
import { payment } from './payment.ts';
import { setOptions } from './setOptions.ts';
import { changeTrust } from './changeTrust.ts';
import { allowTrust } from './allowTrust.ts';
import { accountMerge } from './accountMerge.ts';
import { manageData } from './manageData.ts';
import { bumpSequence } from './bumpSequence.ts';
import { beginSponsoringFutureReserves } from './beginSponsoringFutureReserves.ts';
import { endSponsoringFutureReserves } from './endSponsoringFutureReserves.ts';
import { revokeSponsorship } from './revokeSponsorship.ts';
import { setTrustLineFlags } from './setTrustLineFlags.ts';
import { liquidityPoolDeposit } from './liquidityPoolDeposit.ts';
import { liquidityPoolWithdraw } from './liquidityPoolWithdraw.ts';
import { invokeHostFunction } from './invokeHostFunction.ts';
import { extendFootprintTtl } from './extendFootprintTtl.ts';
import { restoreFootprint } from './restoreFootprint.ts';
import { pathPaymentStrictReceive } from './pathPaymentStrictReceive.ts';
import { pathPaymentStrictSend } from './pathPaymentStrictSend.ts';
import { manageSellOffer } from './manageSellOffer.ts';
import { manageBuyOffer } from './manageBuyOffer.ts';
import { createPassiveSellOffer } from './createPassiveSellOffer.ts';
import { createClaimableBalance } from './createClaimableBalance.ts';
import { claimClaimableBalance } from './claimClaimableBalance.ts';
import { clawback } from './clawback.ts';
import { clawbackClaimableBalance } from './clawbackClaimableBalance.ts';
import { zeroClaimableBalanceId } from '../claimableBalances.ts';

const OP_NO_ACCOUNT = -2;

/**
 * What stellar-core's OperationFrame::apply does around every operation: the source account must
 * still exist (an earlier operation may have merged it) or the result is opNO_ACCOUNT, and the
 * operation's own validity checks run again before it is applied.
 */
function asApplied<B extends xdr.OperationBodyWire>(h: OpHandler<B>, arm: string): OpHandler<B> {
  return {
    threshold: (body) => h.threshold(body),
    checkValid: (body, ctx) => h.checkValid(body, ctx),
    apply(body, ctx) {
      if (!ctx.ltx.exists(accountKey(ctx.source))) {
        const placeholder = { type: body.type, [arm]: { code: -1 } } as unknown as xdr.OperationResultTrWire;
        return { tr: placeholder, success: false, code: OP_NO_ACCOUNT };
      }
      return h.checkValid(body, ctx) ?? h.apply(body, ctx);
    },
  };
}

/**
 * Handlers by OperationType. `apply` includes the source-exists check (opNO_ACCOUNT) and re-runs
 * `checkValid`, so the applier needs only call `apply` and map the outcome with `operationResultOf`.
 */
const registered: ReadonlyArray<[type: number, handler: OpHandler<any>, resultArm: string]> = [
  [0, createAccount, 'createAccountResult'],
  [1, payment, 'paymentResult'],
  [2, pathPaymentStrictReceive, 'pathPaymentStrictReceiveResult'],
  [3, manageSellOffer, 'manageSellOfferResult'],
  [4, createPassiveSellOffer, 'createPassiveSellOfferResult'],
  [5, setOptions, 'setOptionsResult'],
  [6, changeTrust, 'changeTrustResult'],
  [7, allowTrust, 'allowTrustResult'],
  [8, accountMerge, 'accountMergeResult'],
  [10, manageData, 'manageDataResult'],
  [11, bumpSequence, 'bumpSeqResult'],
  [12, manageBuyOffer, 'manageBuyOfferResult'],
  [13, pathPaymentStrictSend, 'pathPaymentStrictSendResult'],
  [14, createClaimableBalance, 'createClaimableBalanceResult'],
  [15, claimClaimableBalance, 'claimClaimableBalanceResult'],
  [16, beginSponsoringFutureReserves, 'beginSponsoringFutureReservesResult'],
  [17, endSponsoringFutureReserves, 'endSponsoringFutureReservesResult'],
  [18, revokeSponsorship, 'revokeSponsorshipResult'],
  [19, clawback, 'clawbackResult'],
  [20, clawbackClaimableBalance, 'clawbackClaimableBalanceResult'],
  [21, setTrustLineFlags, 'setTrustLineFlagsResult'],
  [22, liquidityPoolDeposit, 'liquidityPoolDepositResult'],
  [23, liquidityPoolWithdraw, 'liquidityPoolWithdrawResult'],
  [24, invokeHostFunction, 'invokeHostFunctionResult'],
  [25, extendFootprintTtl, 'extendFootprintTtlResult'],
  [26, restoreFootprint, 'restoreFootprintResult'],
];

export const opHandlers: Partial<Record<number /* OperationType */, OpHandler<any>>> =
  Object.fromEntries(registered.map(([type, h, arm]) => [type, asApplied(h, arm)]));

/**
 * Operation types core no longer supports at the protocols this engine runs, with the protocol that
 * retired them. They deliberately have no handler (see the header).
 */
export const retiredOperationTypes: ReadonlyMap<number, { name: string; supportedBefore: number }> = new Map([
  [9, { name: 'INFLATION', supportedBefore: 12 }],
]);

for (const type of retiredOperationTypes.keys()) {
  if (opHandlers[type]) throw new Error(`operation type ${type} is retired but has a handler`);
}

const resultArms = new Map(registered.map(([type, , arm]) => [type, arm]));

const ZERO_ACCOUNT = { type: 0, ed25519: new Uint8Array(32) };
const ZERO_OFFER = { sellerId: ZERO_ACCOUNT, offerId: 0n, selling: { type: 0 }, buying: { type: 0 }, amount: 0n, price: { n: 0, d: 0 }, flags: 0, ext: { v: 0 } };

/**
 * The result an operation that passed validation carries when its transaction is refused as
 * txFAILED for another operation: core leaves it at its type's success value.
 */
export function validResultOf(opType: number): xdr.OperationResultTrWire {
  if (opType === 8) return { type: 8, accountMergeResult: { code: 0, sourceAccountBalance: 0n } };
  // core's default success values: an empty trade and zeroed entries
  if (opType === 3 || opType === 4 || opType === 12) {
    return { type: opType, [resultArms.get(opType)!]: { code: 0, success: { offersClaimed: [], offer: { effect: 0, offer: ZERO_OFFER } } } } as unknown as xdr.OperationResultTrWire;
  }
  if (opType === 2 || opType === 13) {
    return { type: opType, [resultArms.get(opType)!]: { code: 0, success: { offers: [], last: { destination: ZERO_ACCOUNT, asset: { type: 0 }, amount: 0n } } } } as unknown as xdr.OperationResultTrWire;
  }
  if (opType === 14) return { type: 14, createClaimableBalanceResult: { code: 0, balanceId: zeroClaimableBalanceId() } };
  if (opType === 24) return { type: 24, invokeHostFunctionResult: { code: 0, success: new Uint8Array(32) } };
  const arm = resultArms.get(opType);
  if (!arm) throw new Error(`no result arm for operation type ${opType}`);
  return { type: opType, [arm]: { code: 0 } } as unknown as xdr.OperationResultTrWire;
}

/** OperationType numbers with a handler, ascending. */
export const supportedOperationTypes: readonly number[] = Object.keys(opHandlers).map(Number).sort((a, b) => a - b);

/**
 * The OperationResult for an outcome (from `apply` or `checkValid`): `{code: opINNER, tr}`, or the
 * bare top-level code (opNO_ACCOUNT, opNOT_SUPPORTED, opTOO_MANY_SUBENTRIES, opTOO_MANY_SPONSORING)
 * when set.
 */
export function operationResultOf(outcome: OpOutcome): xdr.OperationResultWire {
  return outcome.code !== undefined ? { code: outcome.code } : { code: 0, tr: outcome.tr };
}
