// simulateTransaction's request checks and response shape, as the reference node has them
// (stellar-rpc `internal/methods/simulate_transaction.go`, go-stellar-sdk `protocols/rpc`
// SimulateTransactionResponse). Pure functions: the method file wires them to the simulator.
//
// Every request problem is a *result* `{error, latestLedger: 0}` (never a JSON-RPC error), checked
// in the reference's order: xdrFormat, envelope decoding, exactly one operation, no memo, authMode
// (then the operation type), SorobanTransactionData for footprint operations.
import { xdr } from '../../../xdr/xdr.ts';
import type { AuthMode, Simulation } from '../../../host/simulator.ts';
import { innerTransaction, decodeEnvelope } from '../../../xdr/transactions.ts';
import { decodeBase64Std } from '../../../xdr/codec.ts';
import { formatOf, xdrFormatError, xdrJson, type XdrFormat } from './xdrFormat.ts';
import type { XdrTypeName } from '../../xdrJson.ts';
import type { JsonSchema } from '../types.ts';
import {
  arrayOf, described, ledgerSequence, object, optional, uint64String, xdrList, xdrValue,
} from './schemas.ts';

/** The reference's cap on the decoded envelope (xdr.DecodeOptions{MaxMemoryBytes: 1 MiB}). */
export const MAX_SIMULATE_ENVELOPE_BYTES = 1024 * 1024;

/** Go's xdr.OperationType.String(), by wire value. */
export const GO_OPERATION_TYPE_NAMES: readonly string[] = [
  'OperationTypeCreateAccount', 'OperationTypePayment', 'OperationTypePathPaymentStrictReceive',
  'OperationTypeManageSellOffer', 'OperationTypeCreatePassiveSellOffer', 'OperationTypeSetOptions',
  'OperationTypeChangeTrust', 'OperationTypeAllowTrust', 'OperationTypeAccountMerge', 'OperationTypeInflation',
  'OperationTypeManageData', 'OperationTypeBumpSequence', 'OperationTypeManageBuyOffer',
  'OperationTypePathPaymentStrictSend', 'OperationTypeCreateClaimableBalance', 'OperationTypeClaimClaimableBalance',
  'OperationTypeBeginSponsoringFutureReserves', 'OperationTypeEndSponsoringFutureReserves',
  'OperationTypeRevokeSponsorship', 'OperationTypeClawback', 'OperationTypeClawbackClaimableBalance',
  'OperationTypeSetTrustLineFlags', 'OperationTypeLiquidityPoolDeposit', 'OperationTypeLiquidityPoolWithdraw',
  'OperationTypeInvokeHostFunction', 'OperationTypeExtendFootprintTtl', 'OperationTypeRestoreFootprint',
];

const INVOKE_HOST_FUNCTION = 24;
const EXTEND_FOOTPRINT_TTL = 25;
const RESTORE_FOOTPRINT = 26;
export const AUTH_MODES: readonly AuthMode[] = ['enforce', 'record', 'record_allow_nonroot'];

export const ERR_UNMARSHAL = 'Could not unmarshal transaction';
export const ERR_OPERATION_COUNT = 'Transaction contains more than one operation';
export const ERR_MEMO = 'Transaction contains a memo. Soroban transactions do not support memos.';
export const ERR_AUTH_MODE = `optional 'authMode' must be one of ${AUTH_MODES.join(',')} when included`;
export const ERR_AUTH_MODE_NON_INVOKE = 'cannot set authMode with non-InvokeHostFunction operations';
export const ERR_FOOTPRINT_DATA =
  'To perform a SimulateTransaction for ExtendFootprintTtl or RestoreFootprint operations, SorobanTransactionData must be provided';
export const ERR_QUEUE_FULL = 'preflight queue full';
/** Rust's TryFromIntError text: the reference converts instructionLeeway (uint64) to u32 this way. */
export const ERR_LEEWAY_RANGE = 'out of range integral type conversion attempted';
/** The reference's db.ErrEmptyDB. */
export const ERR_EMPTY_DB = 'DB is empty';

export const errAuthModeWithAuth = (mode: string): string => `cannot set authMode to '${mode}' with an auth footprint`;
/** validateAuthMode's message (lower-case "transaction"; the handler's own upper-case one is unreachable). */
export const errUnsupportedOperation = (type: number): string =>
  `transaction contains unsupported operation type: ${GO_OPERATION_TYPE_NAMES[type] ?? ''}`;

export interface SimulationPlan {
  kind: 'invoke' | 'footprint';
  /** The envelope as the host reads it: standard base64, line breaks removed. */
  transactionXdr: string;
  /** invoke only: the mode after the default was applied (enforce with auth entries, else record). */
  authMode?: AuthMode;
  format: XdrFormat;
}

/** Checks a request as the reference does, up to the point where it asks the host. */
export function planSimulation(params: Record<string, unknown>): SimulationPlan | { error: string } {
  const formatError = xdrFormatError(params.xdrFormat);
  if (formatError !== undefined) return { error: formatError };
  const format = formatOf(params.xdrFormat);

  const text = typeof params.transaction === 'string' ? params.transaction : '';
  const bytes = decodeBase64Std(text);
  if (bytes === undefined || bytes.length > MAX_SIMULATE_ENVELOPE_BYTES) return { error: ERR_UNMARSHAL };
  let envelope: xdr.TransactionEnvelopeWire;
  try {
    envelope = decodeEnvelope(bytes);
  } catch {
    return { error: ERR_UNMARSHAL };
  }
  const tx = innerTransaction(envelope);
  if (tx.operations.length !== 1) return { error: ERR_OPERATION_COUNT };
  if (tx.memo.type !== 0) return { error: ERR_MEMO };
  const op = tx.operations[0];

  const requested = typeof params.authMode === 'string' ? params.authMode : '';
  if (requested !== '' && !(AUTH_MODES as readonly string[]).includes(requested)) return { error: ERR_AUTH_MODE };
  const transactionXdr = /[\r\n]/.test(text) ? text.replace(/[\r\n]/g, '') : text;
  switch (op.body.type) {
    case INVOKE_HOST_FUNCTION: {
      const hasAuth = op.body.invokeHostFunctionOp.auth.length > 0;
      if (requested === '') return { kind: 'invoke', transactionXdr, authMode: hasAuth ? 'enforce' : 'record', format };
      if (hasAuth && requested !== 'enforce') return { error: errAuthModeWithAuth(requested) };
      return { kind: 'invoke', transactionXdr, authMode: requested as AuthMode, format };
    }
    case EXTEND_FOOTPRINT_TTL:
    case RESTORE_FOOTPRINT:
      if (requested !== '') return { error: ERR_AUTH_MODE_NON_INVOKE };
      // A V0 envelope never carries SorobanTransactionData; a fee bump's inner transaction may.
      if (envelope.type === 0 || tx.ext.v !== 1) return { error: ERR_FOOTPRINT_DATA };
      return { kind: 'footprint', transactionXdr, format };
    default:
      return { error: errUnsupportedOperation(op.body.type) };
  }
}

const json = (type: XdrTypeName, b64: string): unknown => xdrJson(type, new Uint8Array(Buffer.from(b64, 'base64')));

/**
 * The result object, with the reference's field names, order and omissions (Go `omitempty`):
 * error, transactionData(Json), events(Json), minResourceFee (string, left out when 0),
 * results (successful invocations only), cost (InvokeHostFunction simulations: the legacy field,
 * cpuInsns/memBytes as decimal strings), restorePreamble, stateChanges (`before`/`after` always
 * present, null when absent), latestLedger.
 */
export function simulationResult(sim: Simulation, plan: Pick<SimulationPlan, 'kind' | 'format'>, latestLedger: number): Record<string, unknown> {
  const asJson = plan.format === 'json';
  const out: Record<string, unknown> = {};
  if (sim.error) out.error = sim.error;
  if (sim.transactionData) {
    if (asJson) out.transactionDataJson = json('SorobanTransactionData', sim.transactionData);
    else out.transactionData = sim.transactionData;
  }
  if (sim.events.length > 0) {
    if (asJson) out.eventsJson = sim.events.map((e) => json('DiagnosticEvent', e));
    else out.events = sim.events;
  }
  if (sim.minResourceFee !== '0') out.minResourceFee = sim.minResourceFee;
  if (sim.result) {
    const { auth, xdr: retval } = sim.result;
    out.results = [asJson
      ? { ...(auth.length > 0 ? { authJson: auth.map((a) => json('SorobanAuthorizationEntry', a)) } : {}), returnValueJson: json('ScVal', retval) }
      : { auth, xdr: retval }];
  }
  if (plan.kind === 'invoke') out.cost = { cpuInsns: sim.cost.cpuInsns, memBytes: sim.cost.memBytes };
  if (sim.restorePreamble) {
    const p = sim.restorePreamble;
    out.restorePreamble = asJson
      ? { transactionDataJson: json('SorobanTransactionData', p.transactionData), minResourceFee: p.minResourceFee }
      : { transactionData: p.transactionData, minResourceFee: p.minResourceFee };
  }
  if (sim.stateChanges.length > 0) {
    out.stateChanges = sim.stateChanges.map((c) => (asJson
      ? {
        type: c.type,
        keyJson: json('LedgerKey', c.key),
        before: null,
        ...(c.before !== undefined ? { beforeJson: json('LedgerEntry', c.before) } : {}),
        after: null,
        ...(c.after !== undefined ? { afterJson: json('LedgerEntry', c.after) } : {}),
      }
      : { type: c.type, key: c.key, before: c.before ?? null, after: c.after ?? null }));
  }
  out.latestLedger = latestLedger;
  return out;
}

/** A state change's `before` / `after`: a LedgerEntry, or null; under "json" null stays beside …Json. */
const entryOrNull = (rename: string): JsonSchema => ({
  ...xdrValue('LedgerEntry', { name: rename, keepAs: { type: 'null' }, optional: true }),
  type: ['string', 'null'],
});

/** The result's schema (rpc.discover), member for member what simulationResult sends. */
export const simulationResultSchema: JsonSchema = object({
  error: optional({ type: 'string', description: 'why the simulation failed; the other members are then mostly absent' }),
  transactionData: optional(xdrValue('SorobanTransactionData', 'transactionDataJson')),
  events: optional(xdrList('DiagnosticEvent', 'eventsJson')),
  minResourceFee: optional(described(uint64String, 'stroops; left out when 0')),
  results: optional(arrayOf(object({
    auth: xdrList('SorobanAuthorizationEntry', { name: 'authJson', optional: true }),
    xdr: xdrValue('ScVal', 'returnValueJson'),
  }), 'one element, for a successful InvokeHostFunction: its auth entries and return value')),
  cost: optional(object({ cpuInsns: uint64String, memBytes: uint64String },
    'lumen-rpc extension (the legacy field the reference dropped): the host\'s CPU instructions and memory bytes')),
  restorePreamble: optional(object({
    transactionData: xdrValue('SorobanTransactionData', 'transactionDataJson'),
    minResourceFee: uint64String,
  }, 'a RestoreFootprint to send first')),
  stateChanges: optional(arrayOf(object({
    type: { type: 'string', enum: ['created', 'updated', 'deleted'] },
    key: xdrValue('LedgerKey', 'keyJson'),
    before: entryOrNull('beforeJson'),
    after: entryOrNull('afterJson'),
  }))),
  latestLedger: ledgerSequence,
});
