// Accounts the network's result shows it found, even when no meta shows them (an account a
// transaction reads but does not change is in no meta). Each operation that ran left a result, and
// how far an operation got tells what it found (stellar-core, protocol 19+):
//   - an operation's own source, whenever its result is an operation-specific one (opINNER): core
//     answers opNO_ACCOUNT before anything else when the source is gone (OperationFrame::apply);
//   - the destination of a payment or path payment, unless the result is MALFORMED (checked before
//     applying) or NO_DESTINATION: core loads it first of all (PathPaymentStrictReceiveOpFrame and
//     PathPaymentStrictSendOpFrame doApply; Payment is a path payment without a path), except for
//     an asset paid back to its issuer without a path (shouldBypassIssuerCheck);
//   - the issuer of the asset of a ChangeTrust that succeeded (otherwise CHANGE_TRUST_NO_ISSUER).
// Operations after a failed one still run and leave their own results (TransactionFrame::
// applyOperations), so this holds for every operation of a transaction that got to its operations.
// When an operation's result came from validation (opBAD_AUTH, opNOT_SUPPORTED) the others carry
// default results, and nothing is inferred.
//
// The replay knows these accounts existed and nothing else, so it lends the engine stand-ins that
// answer reads only, in two versions with contents as different as can be: when the engine's
// outcome changes with them, it depends on what the replay cannot know.
import { xdr } from '@stellar/stellar-sdk';
import { accountKey, bytesEqual, muxedToAccountId, type AccountId, type LedgerEntry, type LedgerKey } from '../xdr/codec.ts';
import { assetEquals, assetIssuer } from '../ledger/assets.ts';
import type { TransactionFrame } from '../ledger/transactionFrame.ts';

const MALFORMED = -1, NO_DESTINATION = -5;
/** OperationResult codes given at validation: the other operations' results are then defaults. */
const OP_BAD_AUTH = -1, OP_NOT_SUPPORTED = -3;

/** The accounts the operations' results show the network found, beyond the transaction's own source. */
export function accountsFound(frame: TransactionFrame, result: xdr.TransactionResultWire): AccountId[] {
  const results = operationResults(result);
  if (!results || results.some((r) => r.code === OP_BAD_AUTH || r.code === OP_NOT_SUPPORTED)) return [];
  const found: AccountId[] = [];
  frame.tx.operations.forEach((op, i) => {
    const r = results[i];
    if (r.code !== 0) return;
    if (op.sourceAccount) found.push(muxedToAccountId(op.sourceAccount));
    const other = otherAccountFound(op.body, innerCode(r.tr));
    if (other) found.push(other);
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

function otherAccountFound(body: xdr.OperationBodyWire, code: number | undefined): AccountId | undefined {
  switch (body.type) {
    case 1: {
      const op = body.paymentOp;
      return code === MALFORMED || code === NO_DESTINATION ? undefined : destinationUnlessBypassed(op.destination, op.asset, op.asset, 0);
    }
    case 2: {
      const op = body.pathPaymentStrictReceiveOp;
      return code === MALFORMED || code === NO_DESTINATION ? undefined : destinationUnlessBypassed(op.destination, op.sendAsset, op.destAsset, op.path.length);
    }
    case 13: {
      const op = body.pathPaymentStrictSendOp;
      return code === MALFORMED || code === NO_DESTINATION ? undefined : destinationUnlessBypassed(op.destination, op.sendAsset, op.destAsset, op.path.length);
    }
    case 6: {
      const { line, limit } = body.changeTrustOp;
      return code === 0 && line.type !== 3 && limit > 0n ? assetIssuer(line) : undefined;
    }
    default: return undefined;
  }
}

function destinationUnlessBypassed(destination: xdr.MuxedAccountWire, send: xdr.AssetWire, dest: xdr.AssetWire, pathLength: number): AccountId | undefined {
  const id = muxedToAccountId(destination);
  const issuer = assetIssuer(dest);
  const bypassed = issuer !== undefined && pathLength === 0 && assetEquals(send, dest) && bytesEqual(issuer.ed25519, id.ed25519);
  return bypassed ? undefined : id;
}

export type StandInVersion = 'bare' | 'full';

/** Stand-ins for the found accounts that `shows` says no meta shows. */
export function standIns(found: readonly AccountId[], shows: (key: LedgerKey) => boolean, version: StandInVersion): LedgerEntry[] {
  const out = new Map<string, LedgerEntry>();
  for (const id of found) {
    const hex = Buffer.from(id.ed25519).toString('hex');
    if (!out.has(hex) && !shows(accountKey(id))) out.set(hex, standIn(id, version));
  }
  return [...out.values()];
}

/**
 * An account known to exist and nothing more. 'bare': nothing in it, no flags. 'full': every
 * account flag, a large balance, a home domain. No signers in either: the replay does not verify
 * signatures, and a signer a transaction removes would have put the account in its meta.
 */
function standIn(accountId: AccountId, version: StandInVersion): LedgerEntry {
  const full = version === 'full';
  return {
    lastModifiedLedgerSeq: 0,
    data: {
      type: 0,
      account: {
        accountId, balance: full ? 1n << 60n : 0n, seqNum: 0n, numSubEntries: 0, inflationDest: null, flags: full ? 0xf : 0,
        homeDomain: new xdr.XdrString(full ? 'stand-in' : ''), thresholds: new Uint8Array([1, 0, 0, 0]), signers: [], ext: { v: 0 },
      },
    },
    ext: { v: 0 },
  };
}
