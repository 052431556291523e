// A ledger: its header and its transactions.
import { errorBox, fill, h, link, note, overview, rawJson, section, table } from '../dom.ts';
import type { Page } from '../page.ts';
import { call, ledgerWindow } from '../rpc.ts';
import { summarize, type TxSummary } from '../transactions.ts';
import { address, arm, lumens, tree, txLink, unixTime, words } from '../values.ts';

/** The transactions of one ledger, page by page. */
async function ledgerTransactions(sequence: number): Promise<TxSummary[]> {
  const found: TxSummary[] = [];
  let cursor: string | undefined;
  for (;;) {
    const answer = await call('getTransactions', cursor === undefined
      ? { startLedger: sequence, pagination: { limit: 200 }, xdrFormat: 'json' }
      : { pagination: { cursor, limit: 200 }, xdrFormat: 'json' });
    const mine = (answer.transactions as any[]).filter((t) => t.ledger === sequence);
    found.push(...mine.map(summarize));
    if (answer.transactions.length < 200 || mine.length < answer.transactions.length) return found;
    cursor = answer.cursor;
  }
}

export async function ledger(page: Page, arg: string): Promise<void> {
  const sequence = Number(arg);
  fill(page.el, h('h1', null, `Ledger ${arg}`), h('p', null, 'Loading…'));
  if (!Number.isInteger(sequence) || sequence < 1 || sequence > 0xffffffff) { fill(page.el, h('h1', null, 'Ledger'), errorBox(`not a ledger number: ${arg}`)); return; }
  const { latestLedger, oldestLedger } = await ledgerWindow();
  if (!page.alive()) return;
  const nav = h('p', { class: 'nav' },
    sequence > oldestLedger ? link(`ledger/${sequence - 1}`, `← ${sequence - 1}`) : '',
    ' ', sequence < latestLedger ? link(`ledger/${sequence + 1}`, `${sequence + 1} →`) : '');
  if (sequence > latestLedger || sequence < oldestLedger) {
    fill(page.el, h('h1', null, `Ledger ${sequence}`), nav, note(sequence > latestLedger
      ? `Not closed yet: the latest ledger is ${latestLedger}.`
      : `Not stored: this node keeps ledgers ${oldestLedger} to ${latestLedger} (--history-retention-window).`));
    return;
  }
  const [ledgers, txs] = await Promise.all([
    call('getLedgers', { startLedger: sequence, pagination: { limit: 1 }, xdrFormat: 'json' }),
    ledgerTransactions(sequence),
  ]);
  if (!page.alive()) return;
  const item = ledgers.ledgers[0];
  const header = item?.headerJson?.header ?? {};
  const [valueKind] = arm(header.scp_value?.ext);
  fill(page.el,
    h('h1', null, `Ledger ${sequence}`), nav,
    overview([
      ['hash', h('span', { class: 'mono' }, item?.hash ?? '')],
      ['closed at', unixTime(item?.ledgerCloseTime ?? header.scp_value?.close_time)],
      ['protocol', String(header.ledger_version)],
      ['previous ledger', h('span', { class: 'mono' }, header.previous_ledger_hash ?? '')],
      ['transaction set', h('span', { class: 'mono' }, header.scp_value?.tx_set_hash ?? '')],
      ['value', words(valueKind)],
      ['base fee', `${header.base_fee} stroops`],
      ['base reserve', `${lumens(header.base_reserve ?? 0)} XLM`],
      ['total coins', `${lumens(header.total_coins ?? 0)} XLM`],
      ['fee pool', `${lumens(header.fee_pool ?? 0)} XLM`],
      ['max transaction set size', String(header.max_tx_set_size)],
      ['upgrades', (header.scp_value?.upgrades ?? []).length > 0 ? tree(header.scp_value.upgrades) : undefined],
    ]),
    section(`Transactions (${txs.length})`, txs.length === 0 ? note('No transactions in this ledger.') : table(['#', 'transaction', 'source', 'operations', 'status', 'fee charged'],
      txs.map((t) => [String(t.applicationOrder), txLink(t.hash), t.source ? address(t.source) : '', t.operations,
        h('span', { class: `status ${t.status.toLowerCase()}` }, t.status), t.feeCharged]),
      { class: 'transactions' })),
    rawJson('Header (JSON)', item?.headerJson),
  );
}
