// The front page: the network, and the latest ledgers and transactions, moving as ledgers close.
import { fill, h, note, section, short, table } from '../dom.ts';
import { live } from '../live.ts';
import type { Page } from '../page.ts';
import { call } from '../rpc.ts';
import { address, ledgerLink, txLink, unixTime } from '../values.ts';

const DRAWN = 'explorer-latest-ledgers';

export async function home(page: Page): Promise<void> {
  const network = h('div', null, 'Loading…');
  const ledgers = h('div', { id: 'latest-ledgers' });
  const transactions = h('div', { id: 'latest-transactions' });
  fill(page.el,
    section('Network', network),
    h('div', { class: 'columns' }, section('Latest ledgers', ledgers), section('Latest transactions', transactions)));

  const draw = (): void => {
    // the moment the first ledgers are on screen, for the bench (bench/explorer.ts)
    if (live.ledgers.length > 0 && performance.getEntriesByName(DRAWN).length === 0) performance.mark(DRAWN);
    fill(ledgers, live.ledgers.length === 0 ? note('No ledgers yet.') : table(['ledger', 'hash', 'transactions', 'closed at'],
      live.ledgers.map((l) => [ledgerLink(l.sequence), short(l.hash, 6), l.sequence >= live.countedFrom ? String(live.txCounts.get(l.sequence) ?? 0) : '—', h('span', { title: unixTime(l.closeTime) }, unixTime(l.closeTime).slice(11))]),
      { class: 'ledgers' }));
    fill(transactions, live.transactions.length === 0 ? note('No transactions in the stored ledgers.') : table(['transaction', 'ledger', 'source', 'operations', 'status'],
      live.transactions.map((t) => [txLink(t.hash), ledgerLink(t.ledger), t.source ? address(t.source) : '', t.operations,
        h('span', { class: `status ${t.status.toLowerCase()}` }, t.status)]),
      { class: 'transactions' }));
  };
  draw();
  page.onLeave(live.listen(draw));

  const [net, version] = await Promise.all([call('getNetwork'), call('getVersionInfo').catch(() => undefined)]);
  if (!page.alive()) return;
  fill(network, h('dl', { class: 'fields' },
    h('dt', null, 'passphrase'), h('dd', null, net.passphrase),
    h('dt', null, 'protocol'), h('dd', null, String(net.protocolVersion)),
    net.friendbotUrl ? [h('dt', null, 'faucet'), h('dd', null, h('span', { class: 'mono' }, net.friendbotUrl))] : '',
    version ? [h('dt', null, 'node'), h('dd', null, `${version.version ?? ''} ${version.commitHash ? `(${String(version.commitHash).slice(0, 10)})` : ''}`)] : ''));
}
