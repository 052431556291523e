// The developer methods' common ground, over HTTP against node processes: the manual close mode and
// switching modes at run time, lumen_closeLedgers, the `lumen-rpc dev` command line, and where the
// methods are refused (-32601 with the reason): a node following a real network, --dev-methods=false.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Keypair } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { latest, startA, startB, waitFor } from './support/twoNodes.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function cli(node: NodeProcess, ...args: string[]): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['bin/lumen-rpc.js', 'dev', ...args, '--rpc-url', node.url], { cwd: ROOT });
  return JSON.parse(stdout);
}

describe('developer network: close modes and closeLedgers', () => {
  let node: NodeProcess;
  before(async () => { node = await startNodeProcess({ args: ['--close-mode', 'manual', '--ledger-close-interval', '50ms', '--log-level', 'warn'] }); });
  after(async () => { await node?.stop(); });

  it('closes nothing in manual mode until asked, then exactly what was asked', async () => {
    const start = await latest(node);
    await sleep(400); // eight cadence ticks
    assert.equal(await latest(node), start);
    const r = await node.rpc('lumen_closeLedgers', { count: 3 });
    assert.equal(r.result.latestLedger, start + 3);
    assert.equal(await latest(node), start + 3);
  });

  it('funds an account from the faucet in manual mode by closing one ledger', async () => {
    const start = await latest(node);
    const res = await fetch(`${node.url}/friendbot?addr=${Keypair.random().publicKey()}`);
    assert.equal(res.status, 200);
    assert.equal((await res.json() as { ledger: number }).ledger, start + 1);
    assert.equal(await latest(node), start + 1);
  });

  it('switches modes at run time', async () => {
    const r = await node.rpc('lumen_setCloseMode', { mode: 'interval' });
    assert.deepEqual(r.result, { mode: 'interval', previous: 'manual' });
    const from = await latest(node);
    await waitFor('interval closes', async () => (await latest(node)) > from + 2, 10_000);
    assert.deepEqual((await node.rpc('lumen_setCloseMode', { mode: 'manual' })).result, { mode: 'manual', previous: 'interval' });
    await sleep(200); // a close under way at the switch may still land
    const stopped = await latest(node);
    await sleep(400);
    assert.equal(await latest(node), stopped);
  });

  it('serves the same methods on the command line', async () => {
    const start = await latest(node);
    assert.equal((await cli(node, 'close-ledgers', '2') as { latestLedger: number }).latestLedger, start + 2);
    assert.deepEqual(await cli(node, 'set-close-mode', 'manual'), { mode: 'manual', previous: 'manual' });
    await assert.rejects(cli(node, 'set-close-mode', 'sometimes'), /-32602 invalid parameters/);
  });

  it('refuses bad params with -32602 and keeps closing', async () => {
    for (const params of [{ count: 0 }, { count: 'many' }, { count: 10_000_001 }]) {
      const r = await node.rpc('lumen_closeLedgers', params);
      assert.equal(r.error?.code, -32602, JSON.stringify(params));
    }
    // a misspelt param is refused, not ignored (a silent closeTimeStep default would mislead)
    const typo = await node.rpc('lumen_closeLedgers', { count: 2, closeTimestep: 5 });
    assert.deepEqual(typo.error, { code: -32602, message: 'invalid parameters', data: 'unknown param closeTimestep; lumen_closeLedgers takes count, closeTimeStep' });
    const before = await latest(node);
    assert.equal((await node.rpc('lumen_closeLedgers', {})).result.latestLedger, before + 1);
  });
});

describe('developer methods where they are not served', () => {
  it('answers -32601 with the reason when turned off', async () => {
    const node = await startNodeProcess({ args: ['--dev-methods', 'false', '--log-level', 'warn'] });
    try {
      const r = await node.rpc('lumen_closeLedgers', { count: 1 });
      assert.equal(r.error?.code, -32601);
      assert.match(r.error.data, /--dev-methods=false/);
      assert.ok((await node.rpc('getHealth')).result);
    } finally { await node.stop(); }
  });

  it('answers -32601 with the reason on a node following a real network', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lumen-devnet-follow-'));
    const a = await startA(dir);
    let b: NodeProcess | undefined;
    try {
      b = await startB(dir, a);
      const r = await b.rpc('lumen_setCloseMode', { mode: 'manual' });
      assert.equal(r.error?.code, -32601);
      assert.match(r.error.data, /standalone network/);
      // the same method on A, the standalone network, works
      assert.equal((await a.rpc('lumen_setCloseMode', { mode: 'interval' })).result.mode, 'interval');
    } finally {
      await b?.stop();
      await a.stop();
    }
  });
});
