// The attacks issue 30 names, made by a real browser (headless Chromium, driven by playwright-core)
// against a real node: a page of another site calls the developer methods cross-origin (the browser
// sends its preflight, then the POST; and opens a WebSocket, which CORS never covers), and a
// DNS-rebinding page calls them as its own origin. Chromium's own host-resolver rules play the
// attacker's DNS: rebind.example resolves to 127.0.0.1. Chromium's Local Network Access checks are
// off: they ask the user, who may allow a site (Stellar Lab asks for a local node), and Firefox and
// Safari have none, so the node must stand on its own. A page on a loopback origin (a dApp's dev
// server) is answered, so the refusals are the node's, not the browser's.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** What the page's script does: JSON-RPC calls by fetch and over a WebSocket, to `target`. */
const PAGE_SCRIPT = `
  window.rpc = async (target, method, params) => {
    const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return res.json();
  };
  window.wsRpc = (target, method, params) => new Promise((resolve, reject) => {
    const ws = new WebSocket(target);
    ws.onerror = () => reject(new Error('websocket failed'));
    ws.onopen = () => ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
    ws.onmessage = (m) => { resolve(JSON.parse(m.data)); ws.close(); };
  });`;
const PAGE = `<!doctype html><title>a page</title><script>${PAGE_SCRIPT}</script>`;

describe('a real browser cannot reach the developer methods from another site or a rebinding page', () => {
  let node: NodeProcess;
  let browser: Browser;
  let stateDir: string;

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium; .ci/run does) or set CHROMIUM_PATH`);
    }
    stateDir = realpathSync(mkdtempSync(join(tmpdir(), 'lumen-browser-state-')));
    node = await startNodeProcess({ args: ['--log-level', 'warn', '--state-dir', stateDir] });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-features=LocalNetworkAccessChecks',
        // the attacker's DNS: its names lead to this machine
        '--host-resolver-rules=MAP rebind.example 127.0.0.1, MAP evil.example 127.0.0.1',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await node?.stop();
  });

  /** A page served (by the browser itself) at `url`, with the script above. */
  async function pageAt(url: string): Promise<Page> {
    const page = await browser.newPage();
    await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: PAGE }));
    await page.goto(url);
    return page;
  }

  it('a page of another site: its cross-origin POST (after the preflight) and its WebSocket are refused; the reference\'s methods answer it', async () => {
    const page = await pageAt('https://evil.example/attack.html');
    try {
      const target = node.url;
      const dumped = await page.evaluate(([t]) => (globalThis as any).rpc(t, 'lumen_dumpState', { file: 'from-browser.json' }), [target]);
      assert.equal(dumped.error?.code, -32003, JSON.stringify(dumped));
      assert.equal(existsSync(join(stateDir, 'from-browser.json')), false, 'nothing written');
      const health = await page.evaluate(([t]) => (globalThis as any).rpc(t, 'getHealth', {}), [target]);
      assert.equal(health.result?.status, 'healthy', 'a dApp on another site still reads the node');
      const ws = await page.evaluate(([t]) => (globalThis as any).wsRpc(t, 'lumen_closeLedgers', { count: 1 }), [target.replace('http', 'ws')]);
      assert.equal(ws.error?.code, -32003, JSON.stringify(ws));
    } finally {
      await page.close();
    }
  });

  it('a DNS-rebinding page: same-origin calls under its own name are refused for developer methods', async () => {
    const port = new URL(node.url).port;
    // the page came from the attacker's server at rebind.example:<port>; the name now leads to the node
    const page = await pageAt(`http://rebind.example:${port}/attack.html`);
    try {
      const dumped = await page.evaluate(() => (globalThis as any).rpc('/', 'lumen_dumpState', { file: 'rebound.json' }));
      assert.equal(dumped.error?.code, -32003, JSON.stringify(dumped));
      assert.match(dumped.error.data, /Host "rebind\.example:\d+"/);
      assert.equal(existsSync(join(stateDir, 'rebound.json')), false);
      const ws = await page.evaluate(([p]) => (globalThis as any).wsRpc(`ws://rebind.example:${p}/`, 'lumen_snapshot', {}), [port]);
      assert.equal(ws.error?.code, -32003, JSON.stringify(ws));
      const latest = await page.evaluate(() => (globalThis as any).rpc('/', 'getLatestLedger', {}));
      assert.ok(latest.result?.sequence > 0, 'the node answered the page: the refusal above is the policy\'s');
    } finally {
      await page.close();
    }
  });

  it('a page on a loopback origin (a dApp\'s dev server) is answered', async () => {
    const page = await pageAt('http://localhost:5173/app.html');
    try {
      const dumped = await page.evaluate(([t]) => (globalThis as any).rpc(t, 'lumen_dumpState', { file: 'from-localhost.json' }), [node.url]);
      assert.ok(dumped.result?.entries > 0, JSON.stringify(dumped));
      assert.equal(existsSync(join(stateDir, 'from-localhost.json')), true);
    } finally {
      await page.close();
    }
  });
});
