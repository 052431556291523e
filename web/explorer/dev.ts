// The developer network's controls (a standalone network serving its lumen_* methods to this page):
// close ledgers, take a snapshot, revert to one or to a ledger. Hidden when the node does not
// serve them here: it is not a standalone network, the methods are off, or the node's caller
// policy refuses this page (docs/security.md).
import { fill, h } from './dom.ts';
import { call } from './rpc.ts';

interface Snapshot { id: string; ledger: number }

const STORED = 'lumen-explorer-snapshots';

function snapshots(): Snapshot[] {
  try {
    return JSON.parse(sessionStorage.getItem(STORED) ?? '[]') as Snapshot[];
  } catch {
    return [];
  }
}

function keep(list: Snapshot[]): void {
  sessionStorage.setItem(STORED, JSON.stringify(list));
}

/** Whether the node answers developer methods to this page (a harmless read: the impersonated accounts). */
export async function devMethodsServed(): Promise<boolean> {
  try {
    await call('lumen_impersonatedAccounts');
    return true;
  } catch {
    return false;
  }
}

/** Fills `el` with the controls; `changed` runs after a revert (the shown ledgers may be gone). */
export function devControls(el: HTMLElement, changed: () => void): void {
  const count = h('input', { type: 'number', min: 1, max: 10000, value: 1, 'aria-label': 'ledgers to close', id: 'dev-close-count' });
  const choice = h('select', { 'aria-label': 'snapshot to revert to', id: 'dev-revert-snapshot' });
  const toLedger = h('input', { type: 'number', min: 1, placeholder: 'or ledger', 'aria-label': 'ledger to revert to', id: 'dev-revert-ledger' });
  const status = h('output', { id: 'dev-status' });
  const listSnapshots = (): void => {
    fill(choice, h('option', { value: '' }, 'snapshot…'),
      snapshots().map((s) => h('option', { value: s.id }, `${s.id} (ledger ${s.ledger})`)));
  };
  const run = (action: () => Promise<string>) => async (): Promise<void> => {
    fill(status, '…');
    try {
      fill(status, await action());
    } catch (e) {
      fill(status, h('span', { class: 'err' }, e instanceof Error ? e.message : String(e)));
    }
  };
  const close = run(async () => {
    const r = await call('lumen_closeLedgers', { count: Math.max(1, Number(count.value) || 1) });
    return `closed through ledger ${r.latestLedger}`;
  });
  const snapshot = run(async () => {
    const r = await call<Snapshot>('lumen_snapshot');
    keep([...snapshots(), { id: r.id, ledger: r.ledger }]);
    listSnapshots();
    return `snapshot ${r.id} at ledger ${r.ledger}`;
  });
  const revert = run(async () => {
    const params = choice.value !== '' ? { id: choice.value } : toLedger.value !== '' ? { ledger: Number(toLedger.value) } : undefined;
    if (params === undefined) throw new Error('choose a snapshot or give a ledger');
    const r = await call('lumen_revert', params);
    const dropped = new Set<string>(r.dropped ?? []);
    keep(snapshots().filter((s) => !dropped.has(s.id)));
    listSnapshots();
    toLedger.value = '';
    changed();
    return `reverted to ledger ${r.ledger}${r.queued ? `, ${r.queued} transactions queued again` : ''}`;
  });
  listSnapshots();
  fill(el,
    h('strong', null, 'Developer network'),
    h('span', { class: 'group' }, h('button', { type: 'button', id: 'dev-close', onclick: () => void close() }, 'Close'), count, 'ledger(s)'),
    h('span', { class: 'group' }, h('button', { type: 'button', id: 'dev-snapshot', onclick: () => void snapshot() }, 'Snapshot')),
    h('span', { class: 'group' }, h('button', { type: 'button', id: 'dev-revert', onclick: () => void revert() }, 'Revert to'), choice, toLedger),
    status);
  el.hidden = false;
}
