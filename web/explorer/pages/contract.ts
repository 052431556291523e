// A contract: its instance (executable, instance storage, TTL), its Wasm (size, exports, TTL, a
// download), its persistent and temporary storage (lumen_dumpState, where the node serves it) and
// its events (getEvents, newest first, then live).
import { dl, errorBox, fill, h, note, overview, section, short, table, type Child } from '../dom.ts';
import { contractCodeKey, contractInstanceKey } from '../ledgerKeys.ts';
import type { Page } from '../page.ts';
import { call, ledgerWindow } from '../rpc.ts';
import { dumpState, ttlText } from '../state.ts';
import { eventCursorAfter, stream } from '../stream.ts';
import { hexToBytes, isContract } from '../strkey.ts';
import { readWasm } from '../wasm.ts';
import { arm, ledgerLink, scv, txLink, words } from '../values.ts';

const EVENTS = 50;

function eventRow(e: any): Child[] {
  return [ledgerLink(e.ledger), e.txHash ? txLink(e.txHash) : '',
    h('span', null, ((e.topicJson ?? []) as unknown[]).flatMap((t, i) => [i > 0 ? ', ' : '', scv(t)])), scv(e.valueJson)];
}

function download(hash: string, code: Uint8Array): HTMLButtonElement {
  return h('button', {
    type: 'button',
    onclick: () => {
      const url = URL.createObjectURL(new Blob([code as BlobPart], { type: 'application/wasm' }));
      const a = h('a', { href: url, download: `${hash}.wasm` });
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    },
  }, 'Download .wasm');
}

export async function contract(page: Page, id: string): Promise<void> {
  fill(page.el, h('h1', null, 'Contract'), h('p', { class: 'mono hash' }, id), h('p', null, 'Loading…'));
  if (!isContract(id)) { fill(page.el, h('h1', null, 'Contract'), errorBox(`not a contract address: ${id}`)); return; }
  const [instanceAnswer, { latestLedger, oldestLedger }] = await Promise.all([
    call('getLedgerEntries', { keys: [contractInstanceKey(id)], xdrFormat: 'json' }), ledgerWindow(),
  ]);
  if (!page.alive()) return;
  const found = instanceAnswer.entries[0];
  if (!found) {
    fill(page.el, h('h1', null, 'Contract'), h('p', { class: 'mono hash' }, id), note('No such contract instance (never deployed, or archived and evicted).'));
    return;
  }
  const instance = found.dataJson.contract_data.val.contract_instance;
  const [execKind, wasmHash] = arm(instance.executable);
  const instanceStorage: Array<{ key: unknown; val: unknown }> = instance.storage ?? [];
  const wasmBox = h('div', null, execKind === 'wasm' ? 'Loading…' : note(execKind === 'stellar_asset' ? 'A Stellar Asset Contract: built into the host, no Wasm.' : words(execKind)));
  const storageBox = h('div', null, 'Loading…');
  const eventsBox = h('div', null, 'Loading…');
  fill(page.el,
    h('h1', null, 'Contract'), h('p', { class: 'mono hash' }, id),
    overview([
      ['executable', execKind === 'wasm' ? h('span', null, 'wasm ', short(wasmHash, 8)) : words(execKind)],
      ['instance TTL', ttlText(found.liveUntilLedgerSeq, latestLedger)],
      ['last modified', ledgerLink(found.lastModifiedLedgerSeq)],
    ]),
    h('section', { class: 'wasm' }, h('h2', null, 'Wasm'), wasmBox),
    h('div', { class: 'columns even' },
      h('div', null,
        section('Instance storage', instanceStorage.length === 0 ? note('Empty.') : table(['key', 'value'], instanceStorage.map((e) => [scv(e.key), scv(e.val)]), { class: 'instance-storage' })),
        section('Persistent and temporary storage', storageBox)),
      section('Events', eventsBox)),
  );

  const work: Array<Promise<void>> = [];
  if (execKind === 'wasm') {
    work.push(call('getLedgerEntries', { keys: [contractCodeKey(wasmHash)], xdrFormat: 'json' }).then((r) => {
      if (!page.alive()) return;
      const code = r.entries[0];
      if (!code) { fill(wasmBox, note('The Wasm entry is archived or missing.')); return; }
      const bytes = hexToBytes(code.dataJson.contract_code.code);
      const wasm = readWasm(bytes);
      fill(wasmBox, dl([
        ['hash', h('span', { class: 'mono' }, wasmHash)],
        ['size', `${bytes.length.toLocaleString('en-US')} bytes`],
        ['TTL', ttlText(code.liveUntilLedgerSeq, latestLedger)],
        ['functions', h('span', { class: 'exports' }, wasm.exports.filter((e) => !e.startsWith('_')).map((e, i) => [i > 0 ? ', ' : '', h('span', { class: 'fn' }, e)]))],
        ['custom sections', wasm.customSections.join(', ') || 'none'],
        ['', download(wasmHash, bytes)],
      ]));
    }));
  }
  work.push(dumpState().then((dump) => {
    if (!page.alive()) return;
    if ('unavailable' in dump) {
      fill(storageBox, note(`Persistent and temporary entries are not listed: no key names them in advance, and ${dump.unavailable}. Instance storage is shown beside.`));
      return;
    }
    const rows = dump.state.entries.filter((e) => {
      const [kind, d] = arm(e.entry.data);
      return kind === 'contract_data' && d.contract === id && d.key !== 'ledger_key_contract_instance';
    });
    fill(storageBox, rows.length === 0 ? note('No persistent or temporary entries.') : table(['durability', 'key', 'value', 'TTL'], rows.map((e) => {
      const d = arm(e.entry.data)[1];
      return [d.durability, scv(d.key), scv(d.val), ttlText(e.live_until, dump.state.sequence, d.durability === 'temporary')];
    }), { class: 'storage' }));
  }));
  work.push(call('getEvents', { startLedger: oldestLedger, filters: [{ contractIds: [id] }], pagination: { limit: EVENTS, order: 'desc' }, xdrFormat: 'json' }).then((r) => {
    if (!page.alive()) return;
    const events: any[] = r.events;
    const body = h('tbody', null, events.map((e) => h('tr', null, eventRow(e).map((c) => h('td', null, c)))));
    const none = events.length === 0 ? note('No events in the stored ledgers yet; new ones appear here.') : undefined;
    fill(eventsBox, h('table', { class: 'events' }, h('thead', null, h('tr', null, ['ledger', 'transaction', 'topics', 'data'].map((c) => h('th', null, c)))), body), none);
    // then live, from right after the last ledger read
    const sub = stream.subscribe(
      { kind: 'events', cursor: eventCursorAfter(r.latestLedger), filters: [{ contractIds: [id] }], xdrFormat: 'json' },
      (e) => {
        none?.remove();
        body.prepend(h('tr', null, eventRow(e).map((c) => h('td', null, c))));
      },
      (e) => ({ cursor: e.id }),
    );
    page.onLeave(() => sub.close());
  }));
  await Promise.all(work);
}
