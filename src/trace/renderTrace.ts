// A trace as text for a terminal (`lumen-rpc trace`, `--print-traces`): the call tree with each
// frame's arguments, result or error and host costs, its storage calls and events; then the state
// changes, the authorizations and the fee.
import type { StateChange, TraceFrame, TransactionTrace, XdrJson } from './types.ts';

const n = (v: number | string): string => String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const shortId = (s: string): string => (/^[GCMBL][A-Z2-7]{55}$/.test(s) ? `${s.slice(0, 4)}…${s.slice(-4)}` : s);

/** An XDR-JSON value in a line: numbers, symbols, addresses and strings bare; anything else compact JSON, cut. */
export function valueText(v: XdrJson, max = 60): string {
  if (v === null || v === undefined) return 'void';
  if (typeof v === 'string') return shortId(v);
  if (typeof v === 'object' && !Array.isArray(v)) {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 1) {
      const [tag, inner] = entries[0];
      if (['u32', 'i32', 'u64', 'i64', 'u128', 'i128', 'u256', 'i256', 'timepoint', 'duration'].includes(tag)) return String(inner);
      if (tag === 'symbol') return String(inner);
      if (tag === 'string') return JSON.stringify(inner);
      if (tag === 'address') return shortId(String(inner));
      if (tag === 'bool') return String(inner);
      if (tag === 'vec' && Array.isArray(inner)) return `[${inner.map((x) => valueText(x, 20)).join(', ')}]`;
    }
  }
  const text = JSON.stringify(v);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function frameLine(f: TraceFrame): string {
  const cost = `cpu ${n(f.cpuInstructions.inclusive)} (self ${n(f.cpuInstructions.exclusive)}), mem ${n(f.memoryBytes.inclusive)} B`;
  if (f.kind === 'host_function') return `${f.function}  ${cost}`;
  const call = `${shortId(f.contract ?? '?')}${f.kind === 'sac' ? ' (SAC)' : ''}.${f.function}(${f.args.map((a) => valueText(a, 30)).join(', ')})`;
  const outcome = f.error !== undefined ? `✗ ${f.error}` : `→ ${valueText(f.result)}`;
  return `${call} ${outcome}  ${cost}${f.rolledBack ? '  [rolled back]' : ''}`;
}

function renderFrame(f: TraceFrame, prefix: string, last: boolean, out: string[]): void {
  out.push(`${prefix}${last ? '└─ ' : '├─ '}${frameLine(f)}`);
  const inner = `${prefix}${last ? '   ' : '│  '}`;
  const detail = f.calls.length ? `${inner}│  ` : `${inner}   `;
  for (const s of f.storage) out.push(`${detail}storage ${s.access} ${s.storage ? `${s.storage} ` : ''}${s.key}${s.value !== undefined ? ` = ${s.value}` : ''}`);
  for (const e of f.events) out.push(`${detail}event ${e.topics.map((t) => valueText(t, 24)).join(' ')}: ${valueText(e.data)}${e.successful ? '' : ' (undone)'}`);
  f.calls.forEach((c, i) => renderFrame(c, inner, i === f.calls.length - 1, out));
}

function changeLine(c: StateChange): string {
  const key = c.key as Record<string, Record<string, unknown>>;
  const [kind, body] = Object.entries(key)[0] ?? ['entry', {}];
  const owner = body.account_id ?? body.contract ?? '';
  const what = kind === 'contract_data' ? `${shortId(String(owner))} ${valueText(body.key as XdrJson, 30)} (${body.durability})` : `${kind} ${shortId(String(owner))}`;
  const verb = c.before === null ? 'created' : c.after === null ? 'deleted' : 'updated';
  const balance = (e: XdrJson | null): string | undefined => {
    const acc = (e as { data?: { account?: { balance?: string } } } | null)?.data?.account?.balance;
    return acc === undefined ? undefined : n(acc);
  };
  const b0 = balance(c.before), b1 = balance(c.after);
  const diff = b0 !== undefined && b1 !== undefined ? `  balance ${b0} → ${b1}` : '';
  return `  ${verb} ${what}${diff}${c.frames.length ? `  (frames ${c.frames.join(', ')})` : ''}`;
}

export function renderTrace(t: TransactionTrace): string {
  const out: string[] = [];
  const where = t.ledger !== undefined ? ` · ledger ${t.ledger}` : '';
  const reproduced = t.reproduced === undefined ? ''
    : t.reproduced.result && t.reproduced.meta ? ' · re-executed: result and meta reproduced byte for byte'
      : ` · re-executed: NOT reproduced (${t.reproduced.difference ?? 'differs'})`;
  out.push(`transaction ${t.hash}${where} · ${t.status}${reproduced}`);
  for (const op of t.operations) {
    out.push(`operation ${op.index}: ${op.type}`);
    if (op.invocation) renderFrame(op.invocation, '', true, out);
    if (op.stateChanges.length) {
      out.push('state changes:');
      for (const c of op.stateChanges) out.push(changeLine(c));
    }
  }
  for (const a of t.auth) out.push(`auth: ${shortId(a.address)} (${a.credentials}) authorized ${a.root.function}${a.root.frames.length ? ` in frame ${a.root.frames.join(', ')}` : ' (no frame matched)'}`);
  if (t.host) out.push(`host: cpu ${n(t.host.cpuInstructions)} instructions, mem ${n(t.host.memoryBytes)} B (outside frames: cpu ${n(t.host.outsideFrames.cpuInstructions)})`);
  if (t.fee) {
    const f = t.fee;
    out.push(`fee charged ${n(f.charged)} = inclusion ${n(f.inclusion)} + non-refundable ${n(f.nonRefundable)} + refundable ${n(f.refundable)} (rent ${n(f.rent)}); declared resource fee ${n(f.declaredResourceFee)}`);
    out.push(`  resource fee parts: ${Object.entries(f.parts).map(([k, v]) => `${k} ${n(v)}`).join(', ')}`);
  }
  return `${out.join('\n')}\n`;
}
