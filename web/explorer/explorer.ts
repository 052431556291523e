// The explorer's page: a header (search, the live latest ledger, the developer controls) and the
// page the URL's hash names: #/ (latest), #/ledger/<n>, #/tx/<hash>, #/account/<G…|M…>,
// #/contract/<C…>. Served by the node at /explorer (src/explorer/routes.ts); docs/explorer.md.
import { errorBox, fill, h, link } from './dom.ts';
import { devControls, devMethodsServed } from './dev.ts';
import { live } from './live.ts';
import type { Page, PageRender } from './page.ts';
import { account } from './pages/account.ts';
import { contract } from './pages/contract.ts';
import { home } from './pages/home.ts';
import { ledger } from './pages/ledger.ts';
import { transaction } from './pages/transaction.ts';
import { searchRoute } from './search.ts';
import { stream } from './stream.ts';

const ROUTES: Record<string, PageRender> = { '': home, ledger, tx: transaction, account, contract };

const main = document.getElementById('main')!;
let leaving: Array<() => void> = [];
let shown = 0;

const decoded = (part: string): string => {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
};

function route(): void {
  for (const cleanup of leaving) cleanup();
  leaving = [];
  const n = ++shown;
  const [name = '', arg = ''] = location.hash.replace(/^#\/?/, '').split('/').map(decoded);
  const render: PageRender | undefined = Object.hasOwn(ROUTES, name) ? ROUTES[name] : undefined;
  const el = h('div', { class: 'page', 'data-page': render ? name || 'home' : 'unknown' });
  main.replaceChildren(el);
  const page: Page = { el, alive: () => n === shown, onLeave: (f) => { if (n === shown) leaving.push(f); else f(); } };
  if (!render) { fill(el, h('h1', null, 'Not found'), h('p', null, 'No such page. ', link('', 'Latest ledgers and transactions'))); return; }
  Promise.resolve(render(page, arg)).catch((e: unknown) => { if (page.alive()) el.append(errorBox(e)); });
  window.scrollTo(0, 0);
}

// the header of index.html
const form = document.getElementById('search') as HTMLFormElement;
const query = document.getElementById('q') as HTMLInputElement;
const problem = document.getElementById('search-problem')!;
form.addEventListener('submit', (e) => {
  e.preventDefault();
  const to = searchRoute(query.value);
  problem.textContent = to ? '' : 'Not a ledger number, transaction hash, account (G…, M…) or contract (C…).';
  if (to) {
    query.value = '';
    location.hash = `#/${to}`;
  }
});

const latest = document.getElementById('latest')!;
const status = document.getElementById('live')!;
live.listen(() => {
  const n = live.latest;
  fill(latest, n === undefined ? '' : ['ledger ', link(`ledger/${n}`, String(n))]);
});
stream.onStatus((s) => {
  status.textContent = s === 'live' ? 'live' : s === 'connecting' ? 'connecting…' : 'offline';
  status.className = `live ${s}`;
});

/** The live lists, started again a little later while the node cannot answer (it may be restarting). */
function startLive(retryMs = 1000): void {
  live.start().catch((e: unknown) => {
    console.warn(`the live lists could not start (again in ${retryMs / 1000} s):`, e);
    setTimeout(() => startLive(Math.min(retryMs * 2, 10_000)), retryMs);
  });
}

const reload = (): void => { startLive(); route(); };
window.addEventListener('hashchange', route);
route();
startLive();
void devMethodsServed().then((served) => { if (served) devControls(document.getElementById('dev')!, reload); });
