// Safe by default, tried as an attacker would, against real node processes over real HTTP and
// WebSocket: a web page on another origin, a DNS-rebinding page (its own name in Host), a request that
// names files, a node on a shared address, a second node on a database in use. Each refusal is
// checked to have done nothing (no file written, no state changed), and each allowed path to work.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { DatabaseSync } from 'node:sqlite';
import { existsSync, linkSync, mkdtempSync, readFileSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { freePort, startNodeProcess, startRefusal, type NodeProcess } from './support/nodeProcess.ts';
import { waitFor } from './support/twoNodes.ts';

const QUIET = ['--log-level', 'warn'];
const EVIL = 'https://evil.example';

interface HttpAnswer { status: number; headers: Record<string, string | string[] | undefined>; body: any }

/** A request with exactly the headers given (Host included), as a browser or a rebinding page sends it. */
function send(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<HttpAnswer> {
  const target = new URL(url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request({
      host: target.hostname, port: target.port, path: '/', method: options.method ?? 'POST',
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        let parsed: unknown = text;
        try { parsed = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const call = (method: string, params: unknown = {}) => ({ jsonrpc: '2.0', id: 1, method, params });

/** One JSON-RPC call over a WebSocket opened with the given Upgrade headers. */
async function overWebSocket(url: string, headers: Record<string, string>, body: unknown): Promise<any> {
  const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers });
  try {
    await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
    const answer = new Promise<any>((resolve) => ws.once('message', (data) => resolve(JSON.parse(String(data)))));
    ws.send(JSON.stringify(body));
    return await answer;
  } finally {
    ws.close();
  }
}

describe('developer methods: only from this machine\'s own callers', () => {
  let node: NodeProcess;
  let stateDir: string;
  before(async () => {
    stateDir = realpathSync(mkdtempSync(join(tmpdir(), 'lumen-safe-state-')));
    node = await startNodeProcess({ args: [...QUIET, '--state-dir', stateDir, '--dev-allow-origin', 'https://team.example:8443', '--dev-allow-host', 'devbox.lan'] });
  });
  after(async () => { await node?.stop(); });

  it('a cross-origin POST from another site is refused before any work, while a reference method from that site answers', async () => {
    const refused = await send(node.url, { headers: { origin: EVIL }, body: call('lumen_dumpState', { file: 'evil.json' }) });
    assert.equal(refused.status, 200);
    assert.equal(refused.body.error?.code, -32003, JSON.stringify(refused.body));
    assert.equal(refused.body.error.message, 'forbidden');
    assert.match(refused.body.error.data, /lumen_dumpState: .*not from "https:\/\/evil\.example"/);
    assert.equal(existsSync(join(stateDir, 'evil.json')), false, 'nothing was written');
    // the page may read the refusal (it is a CORS answer), and nothing else
    assert.equal(refused.headers['access-control-allow-origin'], EVIL);
    const health = await send(node.url, { headers: { origin: EVIL }, body: call('getHealth') });
    assert.equal(health.body.result?.status, 'healthy');
    assert.equal(health.headers['access-control-allow-origin'], EVIL);
    // a batch: the developer method refused, the reference method beside it answered
    const batch = await send(node.url, { headers: { origin: EVIL }, body: [call('lumen_snapshot'), call('getNetwork')] });
    assert.equal(batch.body[0].error?.code, -32003);
    assert.ok(batch.body[1].result?.passphrase);
  });

  it('the preflight a page sends first is answered for the reference\'s sake, and what follows it to a developer method is refused', async () => {
    // A preflight carries no body, so it cannot name a method: it is answered for every origin (dApps and
    // Stellar Lab call the reference's methods cross-origin), and the call that follows is refused.
    const preflight = await send(node.url, {
      method: 'OPTIONS',
      headers: { origin: EVIL, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], EVIL);
    const taken = (await node.rpc('lumen_snapshot')).result;
    await node.rpc('lumen_closeLedgers', { count: 2 });
    const after = await send(node.url, { headers: { origin: EVIL }, body: call('lumen_revert', { id: taken.id }) });
    assert.equal(after.body.error?.code, -32003);
    // the refused revert did nothing: the ledgers are there, and so is the snapshot
    assert.ok((await node.rpc('getLatestLedger')).result.sequence >= taken.ledger + 2);
    const revert = await node.rpc('lumen_revert', { id: taken.id });
    assert.ok(revert.result, JSON.stringify(revert));
  });

  it('callers without an Origin, loopback origins, the node\'s own origin and --dev-allow-origin are answered', async () => {
    const port = new URL(node.url).port;
    for (const headers of [
      {}, { origin: 'http://localhost:3000' }, { origin: 'http://127.0.0.1:5173' }, { origin: 'http://[::1]:8080' },
      { origin: `http://127.0.0.1:${port}` }, { origin: 'https://team.example:8443' },
    ] as Array<Record<string, string>>) {
      const r = await send(node.url, { headers, body: call('lumen_impersonatedAccounts') });
      assert.ok(r.body.result, `${JSON.stringify(headers)}: ${JSON.stringify(r.body)}`);
    }
    for (const origin of ['null', 'https://team.example', 'http://team.example:8443', 'https://localhost.evil.example', 'file://']) {
      const r = await send(node.url, { headers: { origin }, body: call('lumen_impersonatedAccounts') });
      assert.equal(r.body.error?.code, -32003, `${origin}: ${JSON.stringify(r.body)}`);
    }
  });

  it('a request under a rebinding Host is refused for developer methods, over HTTP and WebSocket, while reference methods answer', async () => {
    const port = new URL(node.url).port;
    const rebinding = { host: `rebind.example:${port}`, origin: `http://rebind.example:${port}` };
    // the same-origin POST of a rebound page: no CORS stops it, the Host does
    const r = await send(node.url, { headers: rebinding, body: call('lumen_dumpState', { file: 'rebound.json' }) });
    assert.equal(r.body.error?.code, -32003, JSON.stringify(r.body));
    assert.match(r.body.error.data, /Host "rebind\.example:\d+" is not a name this node serves developer methods for/);
    const bare = await send(node.url, { headers: { host: 'rebind.example' }, body: call('lumen_snapshot') });
    assert.equal(bare.body.error?.code, -32003);
    assert.equal(existsSync(join(stateDir, 'rebound.json')), false);
    assert.equal((await send(node.url, { headers: rebinding, body: call('getHealth') })).body.result?.status, 'healthy');
    // over WebSocket: the Upgrade's headers hold for every call on the connection
    const ws = await overWebSocket(node.url, rebinding, call('lumen_snapshot'));
    assert.equal(ws.error?.code, -32003, JSON.stringify(ws));
    const wsEvil = await overWebSocket(node.url, { origin: EVIL }, call('lumen_closeLedgers', { count: 1 }));
    assert.equal(wsEvil.error?.code, -32003, JSON.stringify(wsEvil));
    assert.ok((await overWebSocket(node.url, rebinding, call('getLatestLedger'))).result.sequence > 0);
    assert.ok((await overWebSocket(node.url, {}, call('lumen_impersonatedAccounts'))).result, 'a WebSocket client without an Origin is answered');
    // names the node does answer to: IP addresses, loopback names, --dev-allow-host
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `app.localhost:${port}`, `devbox.lan:${port}`, `[::1]:${port}`]) {
      const ok = await send(node.url, { headers: { host }, body: call('lumen_impersonatedAccounts') });
      assert.ok(ok.body.result, `${host}: ${JSON.stringify(ok.body)}`);
    }
  });

  it('server-sent streams carry no developer method: a stream of a developer method\'s name is no stream, whatever the Host', async () => {
    const port = new URL(node.url).port;
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/stream/lumen_closeLedgers', headers: { host: `rebind.example:${port}` } }, (r) => {
        let body = '';
        r.on('data', (d) => { body += d; });
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(res.status, 400, res.body);
    assert.match(res.body, /kind/);
  });

  it('lumen_dumpState writes only plain names into --state-dir: no traversal, no absolute path, no symlink followed, no overwrite unless asked', async () => {
    const outside = realpathSync(mkdtempSync(join(tmpdir(), 'lumen-safe-outside-')));
    for (const file of ['../escape.json', `${outside}/abs.json`, 'sub/x.json', '.hidden', '..', 'a\u0000b', '']) {
      const r = await node.rpc('lumen_dumpState', { file });
      assert.equal(r.error?.code, -32602, `${JSON.stringify(file)}: ${JSON.stringify(r)}`);
    }
    assert.deepEqual(readdirSync(outside), [], 'nothing was written outside');
    assert.equal(existsSync(join(stateDir, '..', 'escape.json')), false);
    // a symlink in the folder to a file outside: refused without overwrite; replaced (not followed) with it
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, join(stateDir, 'link.json'));
    const viaLink = await node.rpc('lumen_dumpState', { file: 'link.json' });
    assert.match(JSON.stringify(viaLink.error), /exists in the state folder/);
    const replaced = await node.rpc('lumen_dumpState', { file: 'link.json', overwrite: true });
    assert.ok(replaced.result?.entries > 0, JSON.stringify(replaced));
    assert.equal(readFileSync(victim, 'utf8'), 'keep me', 'the symlink\'s target is untouched');
    assert.ok(JSON.parse(readFileSync(join(stateDir, 'link.json'), 'utf8')).ledger_entries.length > 0);
    // a dangling symlink would make a new file where it points: refused
    symlinkSync(join(outside, 'created.json'), join(stateDir, 'dangling.json'));
    assert.match(JSON.stringify((await node.rpc('lumen_dumpState', { file: 'dangling.json' })).error), /exists in the state folder/);
    assert.equal(existsSync(join(outside, 'created.json')), false);
    // a file of the folder is replaced only when asked
    const first = await node.rpc('lumen_dumpState', { file: 'state.json' });
    assert.ok(first.result, JSON.stringify(first));
    assert.equal(first.result.path, join(stateDir, 'state.json'));
    assert.match(JSON.stringify((await node.rpc('lumen_dumpState', { file: 'state.json' })).error), /give overwrite: true/);
    assert.ok((await node.rpc('lumen_dumpState', { file: 'state.json', overwrite: true })).result);
    assert.deepEqual(readdirSync(stateDir).filter((n) => n.endsWith('.tmp')), [], 'no temporary file left');
  });

  it('without --state-dir the node writes no file for a request, and says how to get the state', async () => {
    const plain = await startNodeProcess({ args: QUIET });
    try {
      const r = await plain.rpc('lumen_dumpState', { file: 'x.json' });
      assert.equal(r.error?.code, -32602);
      assert.match(r.error.data ?? r.error.message, /started without --state-dir/);
      assert.ok((await plain.rpc('lumen_dumpState', {})).result.ledger_entries.length > 0);
    } finally {
      await plain.stop();
    }
  });

  it('never replaces the database, whatever its name in the state folder', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'lumen-safe-db-')));
    const dbPath = join(dir, 'node.sqlite');
    const shared = await startNodeProcess({ dbPath, args: [...QUIET, '--state-dir', dir] });
    try {
      linkSync(dbPath, join(dir, 'alias.json'));
      for (const file of ['node.sqlite', 'node.sqlite-wal', 'alias.json']) {
        const r = await shared.rpc('lumen_dumpState', { file, overwrite: true });
        assert.equal(r.error?.code, -32602, `${file}: ${JSON.stringify(r)}`);
        assert.match(r.error.data ?? r.error.message, /the node's own database/);
      }
      const before = (await shared.rpc('getLatestLedger')).result.sequence;
      await waitFor('the node to keep closing ledgers into its database', async () => (await shared.rpc('getLatestLedger')).result.sequence > before, 30_000);
    } finally {
      await shared.stop();
    }
  });
});

describe('developer methods on a shared address', () => {
  it('are off on a non-loopback address unless asked, and when asked, the start warns that anyone reaching it controls the network', async () => {
    const port = await freePort();
    const off = await startNodeProcess({ port, args: ['--endpoint', `0.0.0.0:${port}`] });
    try {
      const r = await off.rpc('lumen_closeLedgers', { count: 1 });
      assert.equal(r.error?.code, -32601);
      assert.match(r.error.data, /not a loopback address; start it with --dev-methods=true/);
      assert.match(off.output(), /Developer methods +off/);
      assert.doesNotMatch(off.output(), /anyone who reaches it controls/);
    } finally {
      await off.stop();
    }
    const port2 = await freePort();
    const on = await startNodeProcess({ port: port2, args: ['--endpoint', `0.0.0.0:${port2}`, '--dev-methods=true'] });
    try {
      assert.ok((await on.rpc('lumen_closeLedgers', { count: 1 })).result);
      await on.outputMatching(/anyone who reaches it controls this network/);
      assert.match(on.output(), /Developer methods +ON FOR EVERYONE WHO REACHES THIS ADDRESS/);
      // the caller rules still hold there: a page from another site is refused
      const page = await send(on.url, { headers: { origin: EVIL }, body: call('lumen_closeLedgers', { count: 1 }) });
      assert.equal(page.body.error?.code, -32003);
    } finally {
      await on.stop();
    }
  });
});

describe('one database, one writer', () => {
  it('a second node on a database in use refuses to start, naming the holder, and the first keeps closing ledgers; readers may still open it', async () => {
    const first = await startNodeProcess({ args: QUIET });
    try {
      const message = await startRefusal({ dbPath: first.dbPath, args: QUIET, readyTimeoutMs: 15_000 });
      assert.match(message, new RegExp(`database .*node\\.sqlite is in use by process ${first.child.pid} `));
      assert.equal(message.split('\n').filter((l) => /is in use by/.test(l)).length, 1, 'one clear line');
      const before = (await first.rpc('getLatestLedger')).result.sequence;
      await waitFor('the first node to keep closing ledgers', async () => (await first.rpc('getLatestLedger')).result.sequence > before + 1, 30_000);
      assert.doesNotMatch(first.output(), /UNIQUE constraint failed/);
      // a read-only check of the database in use
      const reader = new DatabaseSync(first.dbPath, { readOnly: true });
      try {
        assert.equal((reader.prepare('PRAGMA quick_check').get() as { quick_check: string }).quick_check, 'ok');
        assert.ok(Number((reader.prepare('SELECT max(sequence) AS s FROM ledgers').get() as { s: number }).s) >= before);
      } finally {
        reader.close();
      }
    } finally {
      await first.stop();
    }
    // once the first is gone, the database is free again (a crash frees it too: the OS drops the lock)
    const again = await startNodeProcess({ dbPath: first.dbPath, args: QUIET });
    await again.stop('SIGKILL');
    const afterCrash = await startNodeProcess({ dbPath: first.dbPath, args: QUIET });
    await afterCrash.stop();
  });
});

