// Malformed and hostile requests each get the reference's error, and the node keeps serving with its
// data intact.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';

describe('bad input', () => {
  let node: NodeProcess;
  let ledgerBefore: any;

  const post = (body: string, contentType = 'application/json') =>
    fetch(node.url, { method: 'POST', headers: { 'content-type': contentType }, body });
  const call = async (method: string, params?: unknown) => {
    const res = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }));
    assert.equal(res.status, 200);
    return res.json() as Promise<any>;
  };

  before(async () => {
    node = await startNodeProcess({ args: ['--ledger-close-interval', '200ms', '--log-level', 'error'] });
    ledgerBefore = (await call('getLedgers', { startLedger: 1, pagination: { limit: 1 } })).result.ledgers[0];
  });
  after(async () => { await node?.stop(); });

  it('malformed JSON is a parse error', async () => {
    const res = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    assert.equal(res.status, 500);
    assert.match(await res.text(), /-32700/);
  });

  it('envelope errors: version, extra fields, non-object batch element, unknown method', async () => {
    let r: any = await (await post(JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'getHealth' }))).json();
    assert.equal(r.error.code, -32600);
    r = await (await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getHealth', extra: 1 }))).json();
    assert.equal(r.error.code, -32600);
    assert.equal(typeof (r.error.data ?? ''), 'string');
    r = await (await post(JSON.stringify([1]))).json();
    assert.equal(r[0].error.code, -32700);
    r = await call('noSuchMethod');
    assert.deepEqual(r.error, { code: -32601, message: 'method not found', data: 'noSuchMethod' }); // jrpc2 v1.3.3 names the method in data
    assert.equal(r.id, 7);
  });

  it('wrong parameter types and bad values are invalid params', async () => {
    assert.equal((await call('getLedgers', { startLedger: 'one' })).error.code, -32602);
    assert.equal((await call('getLedgers', [1, 2])).error.code, -32602);
    assert.equal((await call('getTransaction', { hash: 'zz' })).error.code, -32602);
    assert.equal((await call('getTransaction', { hash: 'g'.repeat(64) })).error.code, -32602);
    const badKey = await call('getLedgerEntries', { keys: ['!!!not base64!!!'] });
    assert.equal(badKey.error.code, -32602);
    const garbageKey = await call('getLedgerEntries', { keys: ['AAAAAAAAAAAAAAAA'] });
    assert.equal(garbageKey.error.code, -32602);
    const tooMany = await call('getLedgerEntries', { keys: Array(201).fill('AAAAAAAAAAAAAAAA') });
    assert.equal(tooMany.error.code, -32602);
    const garbageTx = await call('sendTransaction', { transaction: 'AAAAAAAAAAAAAAAAAAAA' });
    assert.deepEqual(garbageTx.error, { code: -32602, message: 'invalid_xdr' });
    const notB64 = await call('sendTransaction', { transaction: '***' });
    assert.equal(notB64.error.code, -32602);
  });

  it('params absent, null, {} and with null members are all accepted', async () => {
    for (const params of [undefined, null, {}]) assert.ok((await call('getLatestLedger', params)).result);
    const r = await call('getLedgers', { startLedger: 1, pagination: { cursor: null, limit: null }, xdrFormat: null });
    assert.ok(r.result.ledgers.length > 0);
  });

  it('an oversized body is refused without harm', async () => {
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: { transaction: 'A'.repeat(2 * 1024 * 1024) } });
    const res = await post(huge);
    assert.ok(res.status >= 400, `status ${res.status}`);
  });

  it('a 1000-element batch is answered element by element, in order', async () => {
    const batch = Array.from({ length: 1000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: i % 2 ? 'getNetwork' : 'nope' }));
    const res = await post(JSON.stringify(batch));
    assert.equal(res.status, 200);
    const out: any[] = await res.json() as any[];
    assert.equal(out.length, 1000);
    out.forEach((r, i) => {
      assert.equal(r.id, i);
      if (i % 2) assert.ok(r.result.passphrase); else assert.equal(r.error.code, -32601);
    });
  });

  it('wrong content type and method are HTTP errors', async () => {
    assert.equal((await post('{}', 'text/plain')).status, 415);
    assert.equal((await fetch(node.url, { method: 'GET' })).status, 405);
  });

  it('still serves, with its data intact', async () => {
    const after = (await call('getLedgers', { startLedger: 1, pagination: { limit: 1 } })).result.ledgers[0];
    assert.deepEqual(after, ledgerBefore);
    // and keeps closing ledgers (the suite may finish inside the first interval: wait for one)
    let latest = (await call('getLatestLedger')).result;
    for (let i = 0; i < 100 && latest.sequence < 2; i++) {
      await new Promise((r) => setTimeout(r, 50));
      latest = (await call('getLatestLedger')).result;
    }
    assert.ok(latest.sequence >= 2, `no ledger closed: latest is ${latest.sequence}`);
    const health = await call('getHealth');
    assert.equal(health.result.status, 'healthy');
  });
});
