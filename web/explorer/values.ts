// Showing values in the stellar-xdr crate's JSON form (what `xdrFormat: "json"` answers): Soroban
// values (ScVal) inline and compact, addresses as links, anything else as a small tree.
import { h, link, short, type Child } from './dom.ts';
import { isAccount, isContract, muxedBase } from './strkey.ts';

/** An address as a link to its page (G… and M… accounts, C… contracts); other text as it is. */
export function address(a: string, full = false): Node {
  const shown = full ? h('span', { class: 'mono' }, a) : short(a);
  if (isContract(a)) return link(`contract/${a}`, shown);
  if (isAccount(a)) return link(`account/${a}`, shown);
  const base = a.startsWith('M') ? muxedBase(a) : undefined;
  if (base) return link(`account/${base}`, shown);
  return shown;
}

export const txLink = (hash: string): Node => link(`tx/${hash}`, short(hash, 8));
export const ledgerLink = (n: number | string): Node => link(`ledger/${n}`, String(n));

/** "invoke_host_function" -> "invoke host function". */
export const words = (snake: string): string => snake.replace(/_/g, ' ');

/** A union's arm in the crate's JSON: a bare string for an arm without a value, else the object's one key. */
export function arm(v: unknown): [string, any] {
  if (typeof v === 'string') return [v, undefined];
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 1) return [keys[0], (v as Record<string, unknown>)[keys[0]]];
  }
  return ['', v];
}

/** Stroops as XLM (7 decimals, trailing zeros dropped). */
export function lumens(stroops: string | number | bigint): string {
  const n = BigInt(stroops);
  const neg = n < 0n;
  const abs = neg ? -n : n;
  const frac = (abs % 10_000_000n).toString().padStart(7, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${(abs / 10_000_000n).toLocaleString('en-US')}${frac ? `.${frac}` : ''}`;
}

/** Unix seconds (number or decimal text) as a UTC date and time. */
export function unixTime(seconds: string | number): string {
  const d = new Date(Number(seconds) * 1000);
  return Number.isNaN(d.getTime()) ? String(seconds) : d.toISOString().replace('T', ' ').replace(/\.000Z$/, 'Z');
}

const typed = (value: string, type: string): HTMLSpanElement =>
  h('span', { class: 'val', title: type }, value, h('small', { class: 'type' }, type));

const ERROR_TYPES: Record<string, string> = {
  contract: 'Contract', wasm_vm: 'WasmVm', context: 'Context', storage: 'Storage', object: 'Object', crypto: 'Crypto',
  events: 'Events', budget: 'Budget', value: 'Value', auth: 'Auth',
};
const camel = (s: string): string => s.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

/** An ScVal error as the host prints it: Error(Contract, #1), Error(Budget, ExceededLimit). */
export function scError(e: unknown): string {
  const [type, code] = arm(e);
  return `Error(${ERROR_TYPES[type] ?? camel(type)}, ${typeof code === 'number' ? `#${code}` : camel(String(code))})`;
}

/** One ScVal, inline. */
export function scv(v: unknown): Node {
  if (v === 'void') return h('span', { class: 'val', title: 'void' }, '()');
  if (v === 'ledger_key_contract_instance') return h('span', { class: 'val sym' }, 'LedgerKeyContractInstance');
  // a value the host printed itself (a trace's host-function result: "U32(5)")
  if (typeof v === 'string') return h('span', { class: 'val mono' }, v);
  const [type, x] = arm(v);
  switch (type) {
    case 'bool': return h('span', { class: 'val' }, String(x));
    case 'u32': case 'i32': case 'u64': case 'i64': case 'u128': case 'i128': case 'u256': case 'i256':
    case 'timepoint': case 'duration':
      return typed(String(x), type);
    case 'symbol': return h('span', { class: 'val sym', title: 'symbol' }, String(x));
    case 'string': return h('span', { class: 'val str', title: 'string' }, JSON.stringify(x));
    case 'bytes': return h('span', { class: 'val mono', title: `bytes (${String(x).length / 2}): ${x}` },
      `0x${String(x).length > 24 ? `${String(x).slice(0, 12)}…${String(x).slice(-8)}` : x}`);
    case 'address': return address(String(x));
    case 'error': return h('span', { class: 'val err' }, scError(x));
    case 'vec': return list('[', (x as unknown[] | null) ?? [], ']', (i) => scv(i));
    case 'map': return list('{', (x as Array<{ key: unknown; val: unknown }> | null) ?? [], '}', (e) => h('span', null, scv(e.key), ': ', scv(e.val)));
    case 'ledger_key_nonce': return h('span', { class: 'val' }, `nonce ${(x as { nonce: string }).nonce}`);
    case 'contract_instance': return instance(x);
    default: return h('span', { class: 'val mono' }, JSON.stringify(v));
  }
}

function list<T>(open: string, items: readonly T[], close: string, one: (item: T) => Node): HTMLSpanElement {
  const parts: Child[] = [open];
  items.forEach((item, i) => parts.push(i > 0 ? ', ' : '', one(item)));
  parts.push(close);
  return h('span', { class: 'val' }, parts);
}

function instance(x: any): HTMLSpanElement {
  const [kind, hash] = arm(x?.executable);
  return h('span', { class: 'val' }, 'instance of ', kind === 'wasm' ? h('span', { class: 'mono', title: hash }, `wasm ${String(hash).slice(0, 12)}…`) : words(kind),
    x?.storage ? [', storage ', scv({ map: x.storage })] : '');
}

/** Arguments as a call shows them: (a, b, c). */
export function args(values: readonly unknown[]): HTMLSpanElement {
  return list('(', values, ')', (v) => scv(v));
}

/** Fields that hold an amount in stroops (1/10,000,000 of a unit, for every asset). */
const AMOUNTS = new Set(['amount', 'starting_balance', 'send_amount', 'send_max', 'dest_amount', 'dest_min', 'limit', 'balance',
  'buy_amount', 'max_amount_a', 'max_amount_b', 'min_amount_a', 'min_amount_b', 'fee_pool']);

/** Any XDR JSON as a tree of fields (strkeys as links, amounts in units). Small leaves stay on one line. */
export function tree(v: unknown, key?: string): Node {
  if (key !== undefined && AMOUNTS.has(key) && (typeof v === 'string' || typeof v === 'number') && /^-?\d+$/.test(String(v))) {
    return h('span', { class: 'mono', title: `${v} stroops` }, lumens(v));
  }
  if (v === null || v === undefined) return h('span', { class: 'muted' }, 'none');
  if (typeof v === 'string') return /^[GCM][A-Z2-7]{55}([A-Z2-7]{13})?$/.test(v) ? address(v) : h('span', { class: 'mono' }, v);
  if (typeof v !== 'object') return h('span', { class: 'mono' }, String(v));
  if (Array.isArray(v)) {
    if (v.length === 0) return h('span', { class: 'muted' }, '[]');
    return h('ol', { class: 'tree', start: 0 }, v.map((x) => h('li', null, tree(x))));
  }
  const entries = Object.entries(v as Record<string, unknown>).filter(([k, x]) => !(k === 'ext' && x === 'v0'));
  if (entries.length === 0) return h('span', { class: 'muted' }, '{}');
  return h('ul', { class: 'tree' }, entries.map(([k, x]) => h('li', null, h('span', { class: 'key' }, k), ' ', tree(x, k))));
}

/** A contract event (ContractEvent JSON): contract, topics, data. */
export function eventRow(e: any): Child[] {
  const body = e?.body?.v0 ?? {};
  return [
    e?.contract_id ? address(e.contract_id) : h('span', { class: 'muted' }, '—'),
    e?.type ?? '',
    h('span', null, ((body.topics ?? []) as unknown[]).flatMap((t, i) => [i > 0 ? ', ' : '', scv(t)])),
    scv(body.data),
  ];
}
