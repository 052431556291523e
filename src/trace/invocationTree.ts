// The invocation tree of one host run, from what the host itself reported:
//   - the trace hook's steps (native/src/apply/trace.rs): each frame's push and pop with the budget's
//     CPU instructions and memory at that moment, its result or error, and its storage calls;
//   - the diagnostic events of the same run: each call's `fn_call` (the called contract in full, the
//     function, the arguments as values) and `fn_return` (the returned value), and the contract
//     events in the order they were emitted.
// Frames the hook saw and `fn_call` events come in the same order (the host emits the event just
// before it pushes the callee's frame), so the n-th contract frame is the n-th call that started one.
import { StrKey } from '@stellar/stellar-sdk';
import { xdr } from '../xdr/xdr.ts';
import { toJson } from '../xdr/runtime/json.ts';
import type { NativeTraceStep } from '../host/native.ts';
import type { StorageCall, TraceFrame, TracedEvent, XdrJson } from './types.ts';

const scValJson = (v: xdr.ScValWire): XdrJson => toJson(xdr.ScVal.schema, v);

const symbolOf = (v: xdr.ScValWire | undefined): string | undefined => (v?.type === 15 ? v.sym.toString() : undefined);

/** Contract ids seen, as strkeys: a run names the same few contracts in every event. */
const strKeys = new Map<string, string>();
function contractStrKey(id: Uint8Array): string {
  const hex = Buffer.from(id.buffer, id.byteOffset, id.byteLength).toString('hex');
  let key = strKeys.get(hex);
  if (key === undefined) {
    if (strKeys.size >= 4096) strKeys.clear();
    key = StrKey.encodeContract(Buffer.from(id));
    strKeys.set(hex, key);
  }
  return key;
}

const ACCESS: Record<string, StorageCall['access']> = {
  get_contract_data: 'read', has_contract_data: 'read', put_contract_data: 'write', del_contract_data: 'delete',
};

/** A storage call as the host passed it: (key, [value,] storage type) for data calls; TTL calls as given. */
function storageCall(step: NativeTraceStep): StorageCall {
  const call = step.call ?? '';
  const args = step.args ?? [];
  const access = ACCESS[call] ?? 'extend';
  const out: StorageCall = { call, access, key: args[0] ?? '' };
  if (call === 'put_contract_data') {
    out.value = args[1];
    if (args[2] !== undefined) out.storage = args[2];
  } else if (call in ACCESS || call === 'extend_contract_data_ttl') {
    if (args[1] !== undefined) out.storage = args[1];
  }
  return out;
}

interface OpenFrame {
  frame: TraceFrame;
  cpuAtPush: number;
  memAtPush: number;
}

/** How many arguments each frame was called with, as the hook saw (fn_call's data alone cannot tell). */
const argCounts = new WeakMap<TraceFrame, number>();
/**
 * The hook's rendering of what a frame returned: its result when no fn_return event gives the value
 * (the host function root, whose value the operation's result holds).
 */
const hostResults = new WeakMap<TraceFrame, string>();

/** The frames the hook saw, nested, with inclusive and exclusive costs; ids depth-first from 0. */
function framesFromSteps(steps: readonly NativeTraceStep[]): { roots: TraceFrame[]; inOrder: TraceFrame[] } {
  const roots: TraceFrame[] = [];
  const inOrder: TraceFrame[] = [];
  const stack: OpenFrame[] = [];
  for (const step of steps) {
    if (step.step === 'push') {
      const kind = step.kind === 'VM' ? 'contract' : step.kind === 'SAC' ? 'sac' : 'host_function';
      const frame: TraceFrame = {
        id: inOrder.length, kind, function: kind === 'host_function' ? step.kind ?? '' : step.function ?? '', args: [],
        rolledBack: false, cpuInstructions: { inclusive: 0, exclusive: 0 }, memoryBytes: { inclusive: 0, exclusive: 0 },
        storage: [], events: [], authorizedBy: [], calls: [],
      };
      inOrder.push(frame);
      (stack.length ? stack[stack.length - 1].frame.calls : roots).push(frame);
      argCounts.set(frame, step.argCount ?? 0);
      stack.push({ frame, cpuAtPush: step.cpu ?? 0, memAtPush: step.mem ?? 0 });
    } else if (step.step === 'pop') {
      const open = stack.pop();
      if (!open) continue;
      const { frame } = open;
      frame.cpuInstructions.inclusive = (step.cpu ?? 0) - open.cpuAtPush;
      frame.memoryBytes.inclusive = (step.mem ?? 0) - open.memAtPush;
      if (step.ok && step.result) hostResults.set(frame, step.result);
      else { frame.error = step.result ?? 'error'; frame.rolledBack = true; }
    } else if (stack.length) {
      stack[stack.length - 1].frame.storage.push(storageCall(step));
    }
  }
  for (const frame of inOrder) {
    const callees = frame.calls.reduce((n, c) => n + c.cpuInstructions.inclusive, 0);
    const calleesMem = frame.calls.reduce((n, c) => n + c.memoryBytes.inclusive, 0);
    frame.cpuInstructions.exclusive = frame.cpuInstructions.inclusive - callees;
    frame.memoryBytes.exclusive = frame.memoryBytes.inclusive - calleesMem;
    // a failed caller rolls back its callees too
    if (frame.rolledBack) markRolledBack(frame);
  }
  return { roots, inOrder };
}

function markRolledBack(frame: TraceFrame): void {
  frame.rolledBack = true;
  for (const c of frame.calls) markRolledBack(c);
}


/** The frame's contract as an address; events and fn_call name contracts by their 32-byte id. */
interface Placed { frame: TraceFrame; contractId?: string }

/**
 * Builds the tree of one host run. `diagnostics` are the run's diagnostic events (contract events
 * included, in emission order). Returns the root frame (the host function) and the events in order.
 */
export function invocationTree(steps: readonly NativeTraceStep[], diagnostics: readonly xdr.DiagnosticEventWire[]):
  { root: TraceFrame | undefined; frames: TraceFrame[]; events: TracedEvent[] } {
  const { roots, inOrder } = framesFromSteps(steps);
  const root = roots[0];
  const callFrames = inOrder.filter((f) => f.kind !== 'host_function');
  const events: TracedEvent[] = [];
  const open: Placed[] = root ? [{ frame: root }] : [];
  let next = 0; // the next contract frame a fn_call may start

  const innermostOf = (contractId: string | undefined): number => {
    for (let i = open.length - 1; i >= 0; i--) if (open[i].contractId === contractId) return i;
    return -1;
  };

  for (const d of diagnostics) {
    const e = d.event;
    const body = e.body.v0;
    const emitter = e.contractId ? contractStrKey(e.contractId) : undefined;
    if (e.type === 2) {
      const tag = symbolOf(body.topics[0]);
      if (tag === 'fn_call') {
        const called = body.topics[1];
        const fn = symbolOf(body.topics[2]) ?? '';
        const candidate = callFrames[next];
        // a call that failed before its frame was pushed (no such contract or function) has no frame
        const hostName = candidate?.function ?? '';
        if (!candidate || (!hostName.startsWith('sym#') && hostName !== fn)) continue;
        next++;
        candidate.function = fn;
        if (called?.type === 13) candidate.contract = contractStrKey(called.bytes);
        candidate.args = argsOf(body.data, candidate);
        // the caller is the innermost open frame of the emitting contract (none: the host function)
        const at = emitter ? innermostOf(emitter) : 0;
        if (at >= 0) open.length = at + 1;
        open.push({ frame: candidate, contractId: candidate.contract });
      } else if (tag === 'fn_return') {
        const at = innermostOf(emitter);
        if (at <= 0) continue;
        const { frame } = open[at];
        frame.result = scValJson(body.data);
        open.length = at;
      }
      continue;
    }
    const at = innermostOf(emitter);
    const owner = at >= 0 ? open[at].frame : open[open.length - 1]?.frame;
    const event: TracedEvent = {
      index: events.length, contract: emitter ?? null, type: e.type === 0 ? 'system' : 'contract',
      topics: body.topics.map(scValJson), data: scValJson(body.data), successful: d.inSuccessfulContractCall,
    };
    events.push(event);
    owner?.events.push(event);
  }
  for (const f of inOrder) {
    // InvokeContract returns what the contract it called returned
    if (f.kind === 'host_function' && f.calls[0]?.result !== undefined && !f.rolledBack) f.result = f.calls[0].result;
    const shown = hostResults.get(f);
    if (f.result === undefined && shown !== undefined && !f.rolledBack) f.result = shown;
  }
  return { root, frames: inOrder, events };
}

/**
 * The host's fn_call event carries no argument as void, one as itself and several as a vector; the
 * hook's count of the frame's arguments tells a one-vector call from a list.
 */
function argsOf(data: xdr.ScValWire, frame: TraceFrame): XdrJson[] {
  const count = argCounts.get(frame) ?? 0;
  if (count === 0) return [];
  if (count === 1) return [scValJson(data)];
  return data.type === 16 ? (data.vec ?? []).map(scValJson) : [scValJson(data)];
}
