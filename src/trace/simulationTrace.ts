// simulateTransaction's `trace: true`: the simulated transaction, assembled as the simulation says
// (its footprint and resources, its auth entries, its resource fee), applied by the ledger engine
// on the latest state as the next ledger would apply it, with the host's trace on; nothing is
// written. The addresses the recorded auth entries name have not signed anything yet, so the engine
// signs for accounts as lumen_impersonateAccount does (src/ledger/impersonation.ts): the host then
// checks everything else about the auth as usual. A contract address's own __check_auth cannot be
// satisfied this way; its frame then shows the auth failure.
import { xdr } from '../xdr/xdr.ts';
import { encodeLedgerKey, muxedToAccountId, toHex, accountKey, type AccountId } from '../xdr/codec.ts';
import type { StoreReader } from '../store/types.ts';
import { frameOf } from '../ledger/transactionFrame.ts';
import { applyTransaction, chargeFee, maxSeqNumsToApply, recordRefund } from '../ledger/closeLedger.ts';
import { LedgerTxn } from '../ledger/ledgerTxn.ts';
import type { HostRun } from '../ledger/soroban/context.ts';
import type { LedgerContext } from '../ledger/ops/types.ts';
import type { Impersonated } from '../ledger/impersonation.ts';
import { StateBeforeTransaction, baseFromStore } from './stateBeforeTransaction.ts';
import type { TraceAppliers } from './appliers.ts';
import { transactionTrace } from './transactionTrace.ts';
import type { TransactionTrace } from './types.ts';

export interface SimulatedTransaction {
  /** The envelope as sent to simulateTransaction (base64). */
  transactionXdr: string;
  /** The simulation's SorobanTransactionData, auth entries (base64) and resource fee. */
  transactionData: string;
  auth: readonly string[];
  minResourceFee: string;
}

const fromBase64 = (b: string): Uint8Array => new Uint8Array(Buffer.from(b, 'base64'));

/** The accounts the auth entries name with address credentials: the engine signs for them. */
function signingAccounts(auth: readonly xdr.SorobanAuthorizationEntryWire[]): Impersonated {
  const ids = new Set<string>();
  for (const a of auth) {
    const c = a.credentials;
    const address = c.type === 1 ? c.address.address : c.type === 2 ? c.addressV2.address : c.type === 3 ? c.addressWithDelegates.addressCredentials.address : undefined;
    if (address?.type === 0) ids.add(toHex(address.accountId.ed25519));
  }
  return { has: (id: Uint8Array) => ids.has(toHex(id)), size: ids.size };
}

export function traceSimulation(store: StoreReader, networkId: Uint8Array, sim: SimulatedTransaction, appliers: TraceAppliers): TransactionTrace {
  const latest = store.latestLedger();
  if (!latest) throw new Error('the node holds no ledger yet');
  const header = xdr.LedgerHeaderHistoryEntry.schema.decode(latest.header).header;
  const envelope = xdr.TransactionEnvelope.schema.decode(fromBase64(sim.transactionXdr));
  const tx: xdr.TransactionWire | undefined = envelope.type === 2 ? envelope.v1.tx : envelope.type === 5 ? envelope.feeBump.tx.innerTx.v1.tx : undefined;
  if (!tx || tx.operations.length !== 1 || tx.operations[0].body.type !== 24) throw new Error('only an InvokeHostFunction transaction can be traced');
  const op = tx.operations[0].body.invokeHostFunctionOp;
  const data = xdr.SorobanTransactionData.schema.decode(fromBase64(sim.transactionData));
  const auth = op.auth.length ? op.auth : sim.auth.map((a) => xdr.SorobanAuthorizationEntry.schema.decode(fromBase64(a)));
  const state = new StateBeforeTransaction(baseFromStore(store, 'latest'));
  // as assembled: the simulation's resources and auth; the inclusion fee offered, plus the resource fee
  const source: AccountId = muxedToAccountId(tx.sourceAccount);
  const account = state.getEntry(encodeLedgerKey(accountKey(source)));
  const seqNum = account?.data.type === 0 ? account.data.account.seqNum + 1n : tx.seqNum;
  const inclusion = BigInt(tx.fee) - (tx.ext.v === 1 ? tx.ext.sorobanData.resourceFee : 0n);
  const fee = Number(inclusion + BigInt(sim.minResourceFee));
  const assembled: xdr.TransactionWire = {
    ...tx, seqNum, fee: Math.min(fee, 0xffff_ffff), ext: { v: 1, sorobanData: data },
    operations: [{ ...tx.operations[0], body: { type: 24, invokeHostFunctionOp: { ...op, auth } } }],
  };
  const frame = frameOf({ type: 2, v1: { tx: assembled, signatures: [] } }, networkId);

  const ledger: LedgerContext = {
    ledgerSeq: latest.sequence + 1, closeTime: header.scpValue.closeTime, protocolVersion: header.ledgerVersion,
    baseReserve: header.baseReserve, baseFee: header.baseFee, networkId, impersonated: signingAccounts(auth),
  };
  const config = appliers.configAt(store, latest.sequence, (key) => state.getEntry(encodeLedgerKey(key)));
  if (!config) throw new Error('the network has no Soroban configuration');
  const host = appliers.forConfig(config, header.ledgerVersion);

  const root = new LedgerTxn(state, ledger.ledgerSeq, { idPool: header.idPool });
  // the fee stage, as a close charges it before any transaction applies
  const { charged } = chargeFee(root, frame, ledger.baseFee);
  const hostRuns: HostRun[] = [];
  const applied = applyTransaction(frame, root, ledger, charged, maxSeqNumsToApply([frame]), { config, host }, new Uint8Array(32),
    { skipSignatureVerification: true, hostRuns });
  const refund = applied.soroban?.tracker.refund ?? 0n;
  if (refund > 0n) recordRefund(applied.result, applied.meta, refund, networkId, frame);
  return transactionTrace({ frame, result: applied.result, meta: applied.meta, hostRuns, networkId, host }, { hash: frame.hashHex });
}
