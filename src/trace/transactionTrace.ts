// Puts a transaction's trace together from one execution of it: the engine's result and meta, and
// the host's runs (its trace hook's steps and diagnostic events) recorded while it ran.
import { xdr } from '../xdr/xdr.ts';
import { accountIdToStrKey, muxedToAccountId, type LedgerEntryChange } from '../xdr/codec.ts';
import type { HostRun } from '../ledger/soroban/context.ts';
import type { TransactionFrame } from '../ledger/transactionFrame.ts';
import { resourceUse } from '../ledger/soroban/resources.ts';
import type { NativeSorobanApplier } from '../host/native.ts';
import { operationTypeName, transactionCodeName } from '../replay/resultNames.ts';
import { invocationTree } from './invocationTree.ts';
import { stateChangesOf } from './stateChanges.ts';
import { authTreesOf } from './authTree.ts';
import { feeOf } from './feeParts.ts';
import type { OperationTrace, TraceAuth, TraceFrame, TransactionTrace } from './types.ts';

export interface TracedExecution {
  frame: TransactionFrame;
  result: xdr.TransactionResultWire;
  meta: xdr.TransactionMetaWire;
  hostRuns: readonly HostRun[];
  networkId: Uint8Array;
  /** Prices the fee parts; absent: no fee section. */
  host?: NativeSorobanApplier;
}

/** The inner result's code for a fee bump (its own code says only whether the inner one succeeded). */
function statusOf(result: xdr.TransactionResultWire): string {
  const r = result.result;
  if ((r.code === 1 || r.code === -13) && 'innerResultPair' in r) return transactionCodeName(r.innerResultPair.result.result.code);
  return transactionCodeName(r.code);
}

/** Each operation's own changes, by operation index (none for a meta version without them). */
function metaOperationChanges(m: xdr.TransactionMetaWire): LedgerEntryChange[][] {
  switch (m.v) {
    case 0: return m.operations.map((o) => o.changes);
    case 1: return m.v1.operations.map((o) => o.changes);
    case 2: return m.v2.operations.map((o) => o.changes);
    case 3: return m.v3.operations.map((o) => o.changes);
    case 4: return m.v4.operations.map((o) => o.changes);
  }
}

export function transactionTrace(run: TracedExecution, where: Pick<TransactionTrace, 'hash' | 'ledger' | 'applicationOrder'>): TransactionTrace {
  const { frame, result, meta, hostRuns, networkId } = run;
  const opChanges = metaOperationChanges(meta);
  const auth: TraceAuth[] = [];
  let host: TransactionTrace['host'];
  let eventsBytes = 0;
  const operations: OperationTrace[] = frame.tx.operations.map((op, index) => {
    const type = operationTypeName(op.body.type);
    const out: OperationTrace = { index, type, stateChanges: [] };
    let frames: TraceFrame[] = [];
    const hostRun = op.body.type === 24 ? hostRuns[0] : undefined;
    if (hostRun) {
      const tree = invocationTree(hostRun.result.trace ?? [], hostRun.diagnostics);
      frames = tree.frames;
      if (tree.root) out.invocation = tree.root;
      const source = accountIdToStrKey(muxedToAccountId(op.sourceAccount ?? frame.tx.sourceAccount));
      if (op.body.type === 24) auth.push(...authTreesOf(op.body.invokeHostFunctionOp.auth, source, frames));
      const rootCpu = tree.root?.cpuInstructions.inclusive ?? 0;
      const rootMem = tree.root?.memoryBytes.inclusive ?? 0;
      host = {
        cpuInstructions: hostRun.result.cpuInsns, memoryBytes: hostRun.result.memBytes,
        outsideFrames: { cpuInstructions: hostRun.result.cpuInsns - rootCpu, memoryBytes: hostRun.result.memBytes - rootMem },
      };
      eventsBytes = hostRun.result.contractEvents.reduce((n, e) => n + e.length, 0) + (hostRun.result.returnValue?.length ?? 0);
    }
    out.stateChanges = stateChangesOf(opChanges[index] ?? [], frames, networkId);
    return out;
  });
  const trace: TransactionTrace = { ...where, status: statusOf(result), operations, auth };
  if (host) trace.host = host;
  if (run.host && frame.sorobanData) {
    const use = { ...resourceUse(frame, frame.sorobanData), contractEventsSizeBytes: eventsBytes };
    trace.fee = feeOf(run.host, use, frame.sorobanData.resourceFee, result, meta);
  }
  return trace;
}
