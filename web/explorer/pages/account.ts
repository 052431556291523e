// An account: its balance, thresholds, signers and flags (getLedgerEntries), and its trustlines,
// offers and data entries (lumen_dumpState, where the node serves it).
import { dl, errorBox, fill, h, note, overview, section, table } from '../dom.ts';
import { accountKey, trustlineKey } from '../ledgerKeys.ts';
import type { Page } from '../page.ts';
import { call } from '../rpc.ts';
import { dumpState } from '../state.ts';
import { isAccount, muxedBase } from '../strkey.ts';
import { address, arm, lumens, tree } from '../values.ts';

const FLAGS: ReadonlyArray<[number, string]> = [[1, 'auth required'], [2, 'auth revocable'], [4, 'auth immutable'], [8, 'clawback enabled']];
const TRUST_FLAGS: ReadonlyArray<[number, string]> = [[1, 'authorized'], [2, 'authorized to maintain liabilities'], [4, 'clawback enabled']];

const flagNames = (flags: number, names: ReadonlyArray<[number, string]>): string =>
  names.filter(([bit]) => (flags & bit) !== 0).map(([, n]) => n).join(', ') || 'none';

/** An Asset or TrustLineAsset (crate JSON) as CODE:ISSUER, XLM, or a pool. */
export function assetText(asset: unknown): Node {
  const [kind, value] = arm(asset);
  if (kind === 'native') return document.createTextNode('XLM');
  if (kind === 'pool_share') return h('span', { class: 'mono', title: String(value) }, `pool ${String(value).slice(0, 12)}…`);
  return h('span', null, `${value?.asset_code}:`, address(value?.issuer));
}

export async function account(page: Page, id: string): Promise<void> {
  const g = id.startsWith('M') ? muxedBase(id) : id;
  fill(page.el, h('h1', null, 'Account'), h('p', { class: 'mono hash' }, id), h('p', null, 'Loading…'));
  if (g === undefined || !isAccount(g)) { fill(page.el, h('h1', null, 'Account'), errorBox(`not an account address: ${id}`)); return; }
  const [entries, dump] = await Promise.all([call('getLedgerEntries', { keys: [accountKey(g)], xdrFormat: 'json' }), dumpState()]);
  if (!page.alive()) return;
  const found = entries.entries[0];
  if (!found) {
    fill(page.el, h('h1', null, 'Account'), h('p', { class: 'mono hash' }, g), note('No such account: never funded, or merged.'));
    return;
  }
  const a = found.dataJson.account;
  const thresholds = String(a.thresholds ?? '00000000');
  const weight = (i: number): number => parseInt(thresholds.slice(i * 2, i * 2 + 2), 16);
  const v1 = arm(a.ext)[1];
  const v2 = arm(v1?.ext)[1];
  const v3 = arm(v2?.ext)[1];
  const signers: Array<{ key: string; weight: number }> = [{ key: g, weight: weight(0) }, ...(a.signers ?? [])];

  const trustlines = h('div', null);
  const offers = h('div', null);
  const data = h('div', null);
  fill(page.el,
    h('h1', null, 'Account'), h('p', { class: 'mono hash' }, g),
    id !== g ? note(`${id} is a muxed address of this account.`) : '',
    overview([
      ['balance', `${lumens(a.balance)} XLM`],
      ['liabilities', v1 ? `buying ${lumens(v1.liabilities.buying)}, selling ${lumens(v1.liabilities.selling)} XLM` : undefined],
      ['sequence', String(a.seq_num)],
      ['subentries', String(a.num_sub_entries)],
      ['thresholds', `low ${weight(1)}, medium ${weight(2)}, high ${weight(3)}`],
      ['flags', flagNames(a.flags, FLAGS)],
      ['home domain', a.home_domain || undefined],
      ['inflation destination', a.inflation_dest ? address(a.inflation_dest) : undefined],
      ['sponsoring / sponsored', v2 ? `${v2.num_sponsoring} / ${v2.num_sponsored}` : undefined],
      ['sequence bumped at', v3 ? `ledger ${v3.seq_ledger}` : undefined],
      ['last modified', `ledger ${found.lastModifiedLedgerSeq}`],
    ]),
    section('Signers', table(['signer', 'weight'], signers.map((s) => [
      /^G/.test(s.key) ? address(s.key, true) : h('span', { class: 'mono' }, s.key), String(s.weight),
    ]), { class: 'signers' })),
    section('Trustlines', trustlines),
    section('Offers', offers),
    section('Data entries', data),
  );

  if ('unavailable' in dump) {
    const why = `Listing an account's trustlines, offers and data entries needs the whole state: ${dump.unavailable}.`;
    fill(trustlines, note(why), trustlineLookup(g));
    fill(offers, note(why));
    fill(data, note(why));
    return;
  }
  const mine = (kind: string, owner: string) => dump.state.entries.map((e) => e.entry.data).filter((d) => arm(d)[0] === kind && arm(d)[1][owner] === g).map((d) => arm(d)[1]);
  const lines = mine('trustline', 'account_id');
  fill(trustlines, lines.length === 0 ? note('No trustlines.') : table(['asset', 'balance', 'limit', 'flags'], lines.map((t) => [
    assetText(t.asset), lumens(t.balance), lumens(t.limit), flagNames(t.flags, TRUST_FLAGS),
  ]), { class: 'trustlines' }));
  const own = mine('offer', 'seller_id');
  fill(offers, own.length === 0 ? note('No offers.') : table(['offer', 'selling', 'buying', 'amount', 'price'], own.map((o) => [
    String(o.offer_id), assetText(o.selling), assetText(o.buying), lumens(o.amount), `${o.price.n}/${o.price.d}`,
  ]), { class: 'offers' }));
  const named = mine('data', 'account_id');
  fill(data, named.length === 0 ? note('No data entries.') : table(['name', 'value (hex)'], named.map((d) => [d.data_name, tree(d.data_value)]), { class: 'data' }));
}

/** Without the whole state: one trustline at a time, by its asset. */
function trustlineLookup(g: string): HTMLElement {
  const input = h('input', { type: 'text', placeholder: 'CODE:ISSUER', 'aria-label': 'asset', size: 40 });
  const out = h('div', null);
  const form = h('form', {
    class: 'inline',
    onsubmit: (e: Event) => {
      e.preventDefault();
      const [code, issuer] = input.value.trim().split(':');
      void (async () => {
        try {
          const r = await call('getLedgerEntries', { keys: [trustlineKey(g, code, issuer)], xdrFormat: 'json' });
          const t = r.entries[0]?.dataJson?.trustline;
          fill(out, t ? dl([['balance', lumens(t.balance)], ['limit', lumens(t.limit)], ['flags', flagNames(t.flags, TRUST_FLAGS)]]) : note('No such trustline.'));
        } catch (err) { fill(out, errorBox(err)); }
      })();
    },
  }, 'Look one up: ', input, h('button', { type: 'submit' }, 'Look up'));
  return h('div', null, form, out);
}
