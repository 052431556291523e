// The block explorer (/explorer, docs/explorer.md) in a real browser: headless Chromium (Debian's,
// driven by playwright-core) against a real standalone node, with real transactions sent through
// the JS SDK. Each page renders what the node holds, the live list moves when a ledger closes, the
// developer controls close, snapshot and revert from the page, the call tree expands, searches
// lead to their pages, and the files are served as they should be (types, caching, CSP); with
// --explorer=false the path is 404. Every wait is on a condition, never on time.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { get } from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Asset, Memo, Operation } from '@stellar/stellar-sdk';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import {
  addr, fundedAccount, invoke, invokeOp, startContractNode, sym, u32, u64, uploadAndDeploy,
} from './support/contracts.ts';
import { builder, server, submit } from './support/sdk.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Names the browser resolves to this machine: one the node serves developer methods for (--dev-allow-host), one it does not. */
const ALLOWED_NAME = 'explorer.test';
const OTHER_NAME = 'other.test';

/** Text that would be markup if the page parsed data as HTML. */
const HTML_MEMO = '<b id=pwn1>memo</b>';
const HTML_DATA_NAME = '<img id=pwn2 src=x>';

interface Fixture {
  account: string;
  issuer: string;
  classicHash: string;
  callHash: string;
  counter: string;
  caller: string;
  storage: string;
  callLedger: number;
}

async function latestLedger(node: NodeProcess): Promise<number> {
  return (await node.rpc('getLatestLedger')).result.sequence as number;
}

describe('the block explorer in a real browser', () => {
  let node: NodeProcess;
  let browser: Browser;
  let fx: Fixture;
  /** Whether the node serves lumen_traceTransaction (checked once, after the fixture). */
  let traced = false;

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH`);
    }
    node = await startContractNode(['--dev-allow-host', ALLOWED_NAME]);
    const s = server(node.url);
    const kp = await fundedAccount(node.url);
    const issuer = await fundedAccount(node.url);
    const asset = new Asset('TEST', issuer.publicKey());
    // a trustline, an offer and a data entry (listed on the account page), and markup in the memo and the data name
    const classic = (await builder(s, kp)).addMemo(Memo.text(HTML_MEMO))
      .addOperation(Operation.changeTrust({ asset, limit: '1000' }))
      .addOperation(Operation.manageSellOffer({ selling: Asset.native(), buying: asset, amount: '10', price: '2' }))
      .addOperation(Operation.manageData({ name: HTML_DATA_NAME, value: 'v' }))
      .build();
    classic.sign(kp);
    const { done: classicDone } = await submit(s, classic);
    assert.equal(classicDone.status, 'SUCCESS');
    const { contractId: counter } = await uploadAndDeploy(s, kp, 'counter');
    const { contractId: caller } = await uploadAndDeploy(s, kp, 'caller');
    const { contractId: storage } = await uploadAndDeploy(s, kp, 'storage');
    const call = await invoke(s, kp, invokeOp(caller, 'call_increment', addr(counter), u32(5)));
    await invoke(s, kp, invokeOp(storage, 'put_persistent', sym('pkey'), u64(7)));
    await invoke(s, kp, invokeOp(storage, 'put_temporary', sym('tkey'), u64(8)));
    fx = {
      account: kp.publicKey(), issuer: issuer.publicKey(), classicHash: Buffer.from(classic.hash()).toString('hex'), callHash: call.hash,
      counter, caller, storage, callLedger: call.done.ledger,
    };
    // from now on ledgers close only when asked: a list that moves moved because of a close
    assert.equal((await node.rpc('lumen_setCloseMode', { mode: 'manual' })).result?.mode, 'manual');
    traced = (await node.rpc('lumen_traceTransaction', { hash: call.hash })).error?.code !== -32601;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
        '--disable-sync', '--disable-features=LocalNetworkAccessChecks',
        `--host-resolver-rules=MAP ${ALLOWED_NAME} 127.0.0.1, MAP ${OTHER_NAME} 127.0.0.1`,
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await node?.stop();
  });

  /**
   * A page of the explorer at `route` (`tx/<hash>`, …), with what went wrong in it (script errors,
   * console errors such as a Content-Security-Policy refusal) collected for `done` to check.
   */
  async function open(route: string, origin = node.url): Promise<{ page: Page; done(): Promise<void> }> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
    await page.goto(`${origin}/explorer#/${route}`);
    return {
      page,
      async done() {
        await page.close();
        assert.deepEqual(problems, []);
      },
    };
  }

  const text = (page: Page, selector: string) => page.locator(selector).first().innerText();
  /** Waits until the newest ledger the front page lists is `n`. */
  const topIs = (page: Page, n: number) => page.waitForFunction(
    (m) => (globalThis as any).document.querySelector('table.ledgers tbody tr:first-child td:first-child')?.textContent === String(m), n);

  it('the front page lists the latest ledgers and transactions', async () => {
    const { page, done } = await open('');
    await topIs(page, await latestLedger(node));
    await page.locator(`table.transactions a[href="#/tx/${fx.callHash}"]`).waitFor();
    assert.match(await text(page, 'table.transactions'), /call call_increment/);
    assert.match(await text(page, 'header #live'), /live/);
    assert.match(await text(page, '.page'), /Standalone Network ; February 2017/);
    await done();
  });

  it('the live list moves when a ledger closes', async () => {
    const { page, done } = await open('');
    const before = await latestLedger(node);
    const top = page.locator('table.ledgers tbody tr:first-child td:first-child');
    await topIs(page, before);
    const closed = (await node.rpc('lumen_closeLedgers', { count: 2 })).result.latestLedger as number;
    assert.equal(closed, before + 2);
    await topIs(page, closed);
    assert.equal(await top.innerText(), String(closed));
    // the ledger before it is the next row: the list moved, one row per ledger
    assert.equal(await page.locator('table.ledgers tbody tr:nth-child(2) td:first-child').innerText(), String(closed - 1));
    assert.equal(await text(page, '#latest a'), String(closed));
    await done();
  });

  it('the developer controls close a ledger, take a snapshot and revert to it, from the page', async () => {
    const { page, done } = await open('');
    await page.locator('#dev-close').waitFor();
    const start = await latestLedger(node);
    await topIs(page, start);
    await page.click('#dev-close');
    await page.locator('#dev-status', { hasText: `closed through ledger ${start + 1}` }).waitFor();
    await topIs(page, start + 1);
    assert.equal(await latestLedger(node), start + 1);

    await page.click('#dev-snapshot');
    await page.locator('#dev-status', { hasText: `at ledger ${start + 1}` }).waitFor();
    const id = /snapshot (0x[0-9a-f]+)/.exec(await text(page, '#dev-status'))![1];
    await page.fill('#dev-close-count', '3');
    await page.click('#dev-close');
    await topIs(page, start + 4);
    await page.selectOption('#dev-revert-snapshot', id);
    await page.click('#dev-revert');
    await page.locator('#dev-status', { hasText: `reverted to ledger ${start + 1}` }).waitFor();
    await topIs(page, start + 1);
    assert.equal(await latestLedger(node), start + 1);
    // and the list goes on from there
    await node.rpc('lumen_closeLedgers', { count: 1 });
    await topIs(page, start + 2);
    await done();
  });

  it('the node\'s own origin under a name it serves developer methods for: the controls work; under another name they are hidden', async () => {
    const port = new URL(node.url).port;
    // Origin http://explorer.test:<port> is neither loopback nor --dev-allow-origin: it is the node's own
    const own = await open('', `http://${ALLOWED_NAME}:${port}`);
    await own.page.locator('#dev-close').waitFor();
    const start = await latestLedger(node);
    await own.page.click('#dev-close');
    await own.page.locator('#dev-status', { hasText: `closed through ledger ${start + 1}` }).waitFor();
    await own.done();
    // a name the node does not answer developer methods to (a rebinding page's): the page works, without them
    const other = await open('', `http://${OTHER_NAME}:${port}`);
    await other.page.locator('table.ledgers tbody tr').first().waitFor();
    const refused: any = await other.page.evaluate(async () => (await fetch('/', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'lumen_impersonatedAccounts' }),
    })).json());
    assert.equal(refused.error?.code, -32003, JSON.stringify(refused));
    assert.equal(await other.page.locator('#dev').isHidden(), true);
    await other.done();
  });

  it('a ledger page: its header and its transactions', async () => {
    const { page, done } = await open(`ledger/${fx.callLedger}`);
    await page.locator(`table.transactions a[href="#/tx/${fx.callHash}"]`).waitFor();
    const overview = await text(page, '.overview');
    assert.match(overview, /base fee\s+100 stroops/);
    assert.match(overview, /protocol\s+28/);
    assert.match(await text(page, '.nav'), new RegExp(`← ${fx.callLedger - 1}`));
    await done();
  });

  it('a transaction page: operations with decoded arguments, result, events, fees; data shown as text, never as markup', async () => {
    const call = await open(`tx/${fx.callHash}`);
    await call.page.locator('.operation').first().waitFor();
    const op = await text(call.page, '.operation');
    assert.match(op, /call_increment\(C[A-Z2-7]{3}.+, 5u32\)/s);
    assert.match(op, /result: invoke host function: success/);
    assert.match(op, /counter, incr/);
    const overview = await text(call.page, '.overview');
    assert.match(overview, /return value\s+5u32/);
    assert.match(overview, /fee charged\s+\d+ stroops/);
    assert.match(await text(call.page, 'h1'), /SUCCESS/);
    assert.ok(await call.page.locator(`.operation a[href="#/contract/${fx.caller}"]`).count() > 0, 'the called contract links to its page');
    await call.page.locator('.call-tree details.frame').first().waitFor();
    await call.done();

    const classic = await open(`tx/${fx.classicHash}`);
    await classic.page.locator('.operation').nth(2).waitFor();
    assert.match(await text(classic.page, '.overview'), new RegExp(`memo\\s+text: ${HTML_MEMO.replace(/[()]/g, '\\$&')}`));
    assert.equal(await classic.page.locator('#pwn1').count(), 0, 'the memo was not parsed as HTML');
    assert.match(await text(classic.page, '.page'), /change trust/);
    assert.match(await text(classic.page, '.page'), /manage sell offer/);
    await classic.done();
  });

  it('the call tree expands: a collapsed frame opens on a click and shows its callee', async () => {
    const { page, done } = await open(`tx/${fx.callHash}`);
    // a frame below the top one: collapsed at first
    const collapsed = page.locator('.call-tree details.frame details.frame').first();
    await collapsed.waitFor({ state: 'attached' });
    assert.equal(await collapsed.getAttribute('open'), null);
    const inner = collapsed.locator(':scope > .frame-body');
    assert.equal(await inner.isVisible(), false);
    await collapsed.locator(':scope > summary').click();
    await inner.waitFor({ state: 'visible' });
    // the counter's increment, called by the caller: shown once its caller's frame is open
    assert.match(await page.locator('.call-tree').innerText(), /increment\(5u32\) → 5u32/);
    await done();
  });

  it('the trace\'s call tree: costs per frame, storage calls, state changes and fee parts', async () => {
    assert.ok(traced, 'the node serves lumen_traceTransaction');
    const { page, done } = await open(`tx/${fx.callHash}`);
    const tree = page.locator('#trace .call-tree');
    await tree.locator('details.frame').first().waitFor();
    // open every frame down to the counter's
    for (let closed = tree.locator('details.frame:not([open]) > summary'); await closed.count() > 0;) await closed.first().click();
    const shown = await tree.innerText();
    assert.match(shown, /call_increment/);
    assert.match(shown, /increment\(5u32\) → 5u32/);
    assert.match(shown, /instructions\s+[\d,]+ instructions \(own [\d,]+\)/);
    assert.match(shown, /put_contract_data/);
    const trace = await text(page, '#trace');
    assert.match(trace, /State changes/);
    assert.match(trace, /Fee/);
    await done();
  });

  it('an account page: balance, thresholds, signers, trustlines, offers and data entries', async () => {
    const { page, done } = await open(`account/${fx.account}`);
    await page.locator('table.trustlines').waitFor();
    assert.match(await text(page, '.overview'), /balance\s+[\d,]+(\.\d+)? XLM/);
    assert.match(await text(page, 'table.signers'), new RegExp(`${fx.account}\\s+1`));
    assert.match(await text(page, 'table.trustlines'), new RegExp(`TEST:${fx.issuer.slice(0, 6)}`));
    assert.match(await text(page, 'table.offers'), /XLM\s+TEST:.+\s+10\s+2\/1/s);
    assert.match(await text(page, 'table.data'), new RegExp(HTML_DATA_NAME.replace(/[()]/g, '\\$&')));
    assert.equal(await page.locator('#pwn2').count(), 0, 'the data entry\'s name was not parsed as HTML');
    await done();
  });

  it('a contract page: its wasm, instance storage, persistent and temporary entries with TTLs, events', async () => {
    const counter = await open(`contract/${fx.counter}`);
    await counter.page.locator('table.events tbody tr').first().waitFor();
    assert.match(await text(counter.page, 'table.instance-storage'), /COUNT\s+5u32/);
    assert.match(await text(counter.page, '.exports'), /get, increment/);
    assert.match(await text(counter.page, 'table.events'), /counter, incr\s+5u32/);
    assert.match(await text(counter.page, '.overview'), /instance TTL\s+until \d+/);
    // an event emitted while the page is open appears on it
    const s = server(node.url);
    await node.rpc('lumen_setCloseMode', { mode: 'instant' });
    try {
      const kp = await fundedAccount(node.url);
      await invoke(s, kp, invokeOp(fx.counter, 'increment', u32(2)));
    } finally {
      await node.rpc('lumen_setCloseMode', { mode: 'manual' });
    }
    await counter.page.locator('table.events tbody tr', { hasText: '7u32' }).waitFor();
    await counter.done();

    const storage = await open(`contract/${fx.storage}`);
    await storage.page.locator('table.storage').waitFor();
    const entries = await text(storage.page, 'table.storage');
    assert.match(entries, /persistent\s+pkey\s+7u64\s+until \d+ \([\d,]+ more ledgers\)/);
    assert.match(entries, /temporary\s+tkey\s+8u64\s+until \d+/);
    await storage.done();
  });

  it('the search box leads to a transaction, an account, a contract and a ledger', async () => {
    const { page, done } = await open('');
    const search = async (q: string, route: string, pageName: string) => {
      await page.fill('#q', q);
      await page.press('#q', 'Enter');
      await page.waitForFunction((r) => (globalThis as any).location.hash === `#/${r}`, route);
      await page.locator(`.page[data-page="${pageName}"]`).waitFor();
    };
    await search(fx.callHash.toUpperCase(), `tx/${fx.callHash}`, 'tx');
    await page.locator('.operation').first().waitFor();
    await search(fx.account, `account/${fx.account}`, 'account');
    await page.locator('table.signers').waitFor();
    await search(` ${fx.counter} `, `contract/${fx.counter}`, 'contract');
    await page.locator('table.instance-storage').waitFor();
    await search(String(fx.callLedger), `ledger/${fx.callLedger}`, 'ledger');
    await page.locator('table.transactions').waitFor();
    await page.fill('#q', 'not a thing');
    await page.press('#q', 'Enter');
    await page.locator('#search-problem', { hasText: 'Not a ledger number' }).waitFor();
    await done();
  });

  it('serves its files with their types, a Content-Security-Policy and cache headers; /explorer and /explorer/ alike', async () => {
    const [bare, slash] = await Promise.all([fetch(`${node.url}/explorer`), fetch(`${node.url}/explorer/`)]);
    const html = await bare.text();
    assert.equal(bare.status, 200);
    assert.equal(await slash.text(), html);
    assert.equal(bare.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(bare.headers.get('cache-control'), 'no-cache');
    const csp = bare.headers.get('content-security-policy') ?? '';
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script');
    const script = /src="(\/explorer\/explorer-[A-Z0-9]{8}\.js)"/.exec(html)?.[1];
    const style = /href="(\/explorer\/explorer-[A-Z0-9]{8}\.css)"/.exec(html)?.[1];
    assert.ok(script && style, html);
    const js = await fetch(`${node.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(js.status, 200);
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(js.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(js.headers.get('x-content-type-options'), 'nosniff');
    const css = await fetch(`${node.url}${style}`);
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
    // the budget docs/explorer.md states: the script and the style sheet, minified, 80 KiB; gzipped, 24 KiB
    const [jsBytes, cssBytes] = [Buffer.from(await js.arrayBuffer()), Buffer.from(await css.arrayBuffer())];
    const sizes = { minified: jsBytes.length + cssBytes.length, gzip: gzipSync(jsBytes, { level: 9 }).length + gzipSync(cssBytes, { level: 9 }).length };
    assert.ok(sizes.minified <= 80 * 1024 && sizes.gzip <= 24 * 1024, JSON.stringify(sizes));
    // revalidation: the same ETag is 304
    const etag = bare.headers.get('etag')!;
    assert.equal((await fetch(`${node.url}/explorer/`, { headers: { 'if-none-match': etag } })).status, 304);
    // gzip when asked (node's fetch decodes it; a raw request sees the encoding)
    const raw = await new Promise<{ encoding?: string; bytes: Buffer }>((resolve, reject) => {
      get(`${node.url}${script}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], bytes: Buffer.concat(chunks) }));
      }).on('error', reject);
    });
    assert.equal(raw.encoding, 'gzip');
    assert.equal(gunzipSync(raw.bytes).toString(), await (await fetch(`${node.url}${script}`)).text());
    const missing = await fetch(`${node.url}/explorer/nothing.js`);
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), '404 page not found\n');
  });
});

describe('the explorer where developer methods are not served (--dev-methods=false, as on a followed network)', () => {
  let node: NodeProcess;
  let browser: Browser;
  before(async () => {
    node = await startContractNode(['--dev-methods=false']);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  });
  after(async () => {
    await browser?.close();
    await node?.stop();
  });

  it('shows no developer controls; the account page says why it lists no trustlines, and looks one up by its asset', async () => {
    const s = server(node.url);
    const kp = await fundedAccount(node.url);
    const issuer = await fundedAccount(node.url);
    const tx = (await builder(s, kp)).addOperation(Operation.changeTrust({ asset: new Asset('USDC', issuer.publicKey()), limit: '500' })).build();
    tx.sign(kp);
    assert.equal((await submit(s, tx)).done.status, 'SUCCESS');
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    await page.goto(`${node.url}/explorer#/account/${kp.publicKey()}`);
    const trustlines = page.locator('section:has(> h2:text-is("Trustlines"))');
    await trustlines.locator('.note', { hasText: 'lumen_dumpState' }).waitFor();
    await trustlines.locator('form.inline input').fill(`USDC:${issuer.publicKey()}`);
    await trustlines.locator('form.inline button').click();
    await trustlines.locator('dl', { hasText: 'limit' }).waitFor();
    assert.match(await trustlines.innerText(), /limit\s+500/);
    assert.equal(await page.locator('#dev').isHidden(), true);
    await page.close();
    assert.deepEqual(problems, []);
  });
});

describe('--explorer=false', () => {
  let node: NodeProcess;
  before(async () => { node = await startNodeProcess({ args: ['--explorer=false', '--log-level', 'warn'] }); });
  after(async () => { await node?.stop(); });

  it('answers /explorer 404, as any unknown path', async () => {
    for (const path of ['/explorer', '/explorer/', '/explorer/index.html']) {
      const res = await fetch(`${node.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal(await res.text(), '404 page not found\n');
    }
    assert.equal((await node.rpc('getHealth')).result.status, 'healthy');
  });
});
