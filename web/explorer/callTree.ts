// A transaction's call tree, a frame per <details> (collapsed below the top), from either source:
//   - lumen_traceTransaction's TransactionTrace (src/trace/types.ts): each frame with its host
//     costs (instructions and memory, with and without its callees), storage calls, events and
//     authorizations, the operations' state changes, the authorization trees and the fee in parts;
//   - else the diagnostic events the node stored with the transaction (fn_call / fn_return): the
//     calls, arguments, results and events, without costs.
import type {
  FrameCost, StateChange, StorageCall, TraceAuthNode, TraceFee, TraceFrame, TransactionTrace,
} from '../../src/trace/types.ts';
import { dl, h, note, section, table, type Child } from './dom.ts';
import { address, args, arm, scError, scv, tree } from './values.ts';
import { contractFromHex } from './strkey.ts';

interface FrameEvent { contract: string | null; type?: string; topics: unknown[]; data: unknown; successful?: boolean }

/** A frame as shown, whatever its source. */
export interface FrameView {
  id?: number;
  kind?: string;
  contract?: string;
  fn: string;
  args: unknown[];
  /** Present when the frame returned (a void return is the ScVal "void"). */
  result?: unknown;
  error?: string;
  rolledBack: boolean;
  cpu?: FrameCost;
  memory?: FrameCost;
  storage?: StorageCall[];
  events: FrameEvent[];
  authorizedBy?: number[];
  calls: FrameView[];
}

const num = (n: number): string => n.toLocaleString('en-US');
const cost = (c: FrameCost | undefined, unit: string): string | undefined =>
  c === undefined ? undefined : `${num(c.inclusive)} ${unit} (own ${num(c.exclusive)})`;

export function fromTrace(f: TraceFrame): FrameView {
  return {
    id: f.id, kind: f.kind, contract: f.contract, fn: f.function, args: f.args,
    ...('result' in f ? { result: f.result } : {}), error: f.error, rolledBack: f.rolledBack,
    cpu: f.cpuInstructions, memory: f.memoryBytes, storage: f.storage, authorizedBy: f.authorizedBy,
    events: f.events.map((e) => ({ contract: e.contract, type: e.type, topics: e.topics, data: e.data, successful: e.successful })),
    calls: f.calls.map(fromTrace),
  };
}

/**
 * The call tree the host's diagnostic events describe (DiagnosticEvent JSON, in order). A frame
 * opens at fn_call and closes at its fn_return; one still open at the end failed. The host logs one
 * argument as itself and several as a vector, so a single vector argument shows as several.
 */
export function fromDiagnostics(events: readonly any[]): FrameView[] {
  const roots: FrameView[] = [];
  const stack: FrameView[] = [];
  for (const d of events) {
    const e = d?.event;
    const body = e?.body?.v0;
    if (!body) continue;
    const topics: unknown[] = body.topics ?? [];
    const [, first] = arm(topics[0]);
    if (e.type === 'diagnostic' && first === 'fn_call' && topics.length >= 3) {
      const [, idHex] = arm(topics[1]);
      const [, fn] = arm(topics[2]);
      const [dataType, data] = arm(body.data);
      const frame: FrameView = {
        contract: typeof idHex === 'string' && /^[0-9a-f]{64}$/.test(idHex) ? contractFromHex(idHex) : undefined,
        fn: String(fn), args: body.data === 'void' ? [] : dataType === 'vec' ? (data ?? []) : [body.data],
        rolledBack: d.in_successful_contract_call === false, events: [], calls: [],
      };
      (stack.length > 0 ? stack[stack.length - 1].calls : roots).push(frame);
      stack.push(frame);
    } else if (e.type === 'diagnostic' && first === 'fn_return' && stack.length > 0) {
      stack.pop()!.result = body.data;
    } else if (e.type === 'diagnostic' && first === 'error' && stack.length > 0) {
      const top = stack[stack.length - 1];
      const [kind, err] = arm(topics[1]);
      if (top.error === undefined && kind === 'error') top.error = scError(err);
    } else if (e.type !== 'diagnostic' && stack.length > 0) {
      stack[stack.length - 1].events.push({ contract: e.contract_id, type: e.type, topics, data: body.data, successful: d.in_successful_contract_call });
    }
  }
  // frames that never returned failed, and everything under a failed frame was rolled back
  const settle = (f: FrameView, failedAbove: boolean): void => {
    const failed = failedAbove || !('result' in f);
    if (failed) f.rolledBack = true;
    f.calls.forEach((c) => settle(c, failed));
  };
  roots.forEach((r) => settle(r, false));
  return roots;
}

function storageTable(calls: readonly StorageCall[]): HTMLTableElement {
  return table(['call', 'access', 'storage', 'key', 'value'],
    calls.map((c) => [h('span', { class: 'mono' }, c.call), c.access, c.storage ?? '', h('span', { class: 'mono' }, c.key), c.value === undefined ? '' : h('span', { class: 'mono' }, c.value)]),
    { class: 'storage' });
}

function eventsTable(events: readonly FrameEvent[]): HTMLTableElement {
  return table(['contract', 'topics', 'data'], events.map((e) => [
    e.contract ? address(e.contract) : '—',
    h('span', { class: e.successful === false ? 'rolled-back' : undefined }, e.topics.flatMap((t, i) => [i > 0 ? ', ' : '', scv(t)])),
    scv(e.data),
  ]), { class: 'events' });
}

/** One frame and its callees; `open` for the top. */
export function frameElement(f: FrameView, open: boolean): HTMLDetailsElement {
  const outcome: Child = f.error !== undefined
    ? h('span', { class: 'err' }, ' ✗ ', f.error)
    : 'result' in f ? h('span', null, ' → ', scv(f.result)) : '';
  const summary = h('summary', null,
    f.kind && f.kind !== 'contract' ? h('span', { class: 'badge' }, f.kind === 'sac' ? 'SAC' : 'host function') : '',
    f.contract ? [address(f.contract), '.'] : '',
    h('span', { class: 'fn' }, f.fn), args(f.args), outcome,
    f.cpu ? h('span', { class: 'cost' }, `${num(f.cpu.inclusive)} instr`) : '',
    f.rolledBack ? h('span', { class: 'badge warn' }, 'rolled back') : '');
  const body = h('div', { class: 'frame-body' },
    dl([
      ['instructions', cost(f.cpu, 'instructions')],
      ['memory', cost(f.memory, 'bytes')],
      ['authorized by', f.authorizedBy && f.authorizedBy.length > 0 ? f.authorizedBy.map((a) => `#${a}`).join(', ') : undefined],
    ]),
    f.storage && f.storage.length > 0 ? [h('h4', null, 'Storage'), storageTable(f.storage)] : '',
    f.events.length > 0 ? [h('h4', null, 'Events'), eventsTable(f.events)] : '',
    f.calls.map((c) => frameElement(c, false)));
  return h('details', { class: `frame${f.rolledBack ? ' rolled-back' : ''}`, ...(open ? { open: true } : {}), 'data-frame': f.id }, summary, body);
}

function stateChangesTable(changes: readonly StateChange[]): HTMLTableElement {
  return table(['entry', 'before', 'after', 'frames'], changes.map((c) => [
    tree(c.key),
    c.before === null ? h('span', { class: 'muted' }, 'did not exist') : tree(c.before),
    c.after === null ? h('span', { class: 'muted' }, 'deleted') : tree(c.after),
    c.frames.map((id) => `#${id}`).join(', '),
  ]), { class: 'changes' });
}

function authNode(n: TraceAuthNode): HTMLLIElement {
  return h('li', null, `#${n.id} `, n.contract ? [address(n.contract), '.'] : '', h('span', { class: 'fn' }, n.function), args(n.args),
    n.frames.length > 0 ? h('span', { class: 'muted' }, ` frames ${n.frames.map((f) => `#${f}`).join(', ')}`) : '',
    n.subInvocations.length > 0 ? h('ul', null, n.subInvocations.map(authNode)) : '');
}

function feeList(fee: TraceFee): HTMLDListElement {
  return dl([
    ['charged', `${fee.charged} stroops`],
    ['inclusion', fee.inclusion],
    ['declared resource fee', fee.declaredResourceFee],
    ['non-refundable', fee.nonRefundable],
    ['refundable', fee.refundable],
    ['rent', fee.rent],
    ...Object.entries(fee.parts).map(([k, v]) => [`  ${k}`, v] as const),
  ]);
}

/** The trace of a transaction: call trees, state changes, authorizations, costs and fees. */
export function traceSection(trace: TransactionTrace): HTMLElement {
  return section('Trace',
    dl([
      ['status', trace.status],
      ['re-executed', trace.reproduced ? `result ${trace.reproduced.result ? 'identical' : 'different'}, meta ${trace.reproduced.meta ? 'identical' : 'different'}${trace.reproduced.difference ? ` (${trace.reproduced.difference})` : ''}` : undefined],
      ['host instructions', trace.host ? `${num(trace.host.cpuInstructions)} (outside frames ${num(trace.host.outsideFrames.cpuInstructions)})` : undefined],
      ['host memory', trace.host ? `${num(trace.host.memoryBytes)} bytes (outside frames ${num(trace.host.outsideFrames.memoryBytes)})` : undefined],
    ]),
    trace.operations.map((op) => h('div', { class: 'trace-op' },
      h('h3', null, `Operation ${op.index}: ${op.type}`),
      op.invocation ? h('div', { class: 'call-tree' }, frameElement(fromTrace(op.invocation), true)) : '',
      op.stateChanges.length > 0 ? [h('h4', null, 'State changes'), stateChangesTable(op.stateChanges)] : note('No state changes.'))),
    trace.auth.length > 0 ? [h('h3', null, 'Authorizations'), trace.auth.map((a) => h('div', { class: 'auth' },
      h('p', null, address(a.address), ` (${a.credentials.replace(/_/g, ' ')})`), h('ul', null, authNode(a.root))))] : '',
    trace.fee ? [h('h3', null, 'Fee'), feeList(trace.fee)] : '');
}
