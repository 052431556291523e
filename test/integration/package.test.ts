// The packed package, installed into an empty project as a user would: `npm pack`, then `npm install`
// of the tarball in a folder with nothing else. The command line starts a network and its `dev`
// commands drive it; `import` and `require` of lumen-rpc start one in-process; its types check.
// The tarball holds what runs (the bundles, the addon and its sources, docs, examples), nothing of
// the sources, tests or benches.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './support/nodeProcess.ts';
import { runCommand, userEnv } from './support/commands.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// a user's Node (>= 22.15): the project's own, first on PATH
const NODE_DIR = dirname(process.execPath);

function run(command: string, args: string[], cwd: string): string {
  const r = runCommand(command, args, { cwd, pathFirst: NODE_DIR });
  assert.equal(r.status, 0, `${command} ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

async function rpc(url: string, method: string, params?: unknown): Promise<any> {
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return r.json();
}

describe('the packed package in an empty project', () => {
  let folder: string;
  let app: string;
  let tarball: string;
  before(() => {
    folder = mkdtempSync(join(tmpdir(), 'lumen-rpc-package-'));
    // the bundles the test run built first: packing must not rebuild them under other tests' feet
    const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', folder], ROOT)) as Array<{ filename: string; files: Array<{ path: string }> }>;
    tarball = join(folder, packed[0].filename);
    const paths = packed[0].files.map((f) => f.path);
    assert.ok(paths.includes('dist/library.mjs') && paths.includes('dist/library.d.ts') && paths.includes('bin/lumen-rpc.js'), paths.join(', '));
    assert.ok(paths.includes('dist/explorer/index.html') && paths.some((p) => /^dist\/explorer\/explorer-\w+\.js$/.test(p)), paths.join(', '));
    assert.deepEqual(paths.filter((p) => /^(src|test|bench|scripts|scratch)\//.test(p) || p.endsWith('.map')), []);
    app = join(folder, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
    run('npm', ['install', '--no-audit', '--no-fund', tarball], app);
  });
  after(() => rmSync(folder, { recursive: true, force: true }));

  it('is small: the tarball and what it unpacks to', (t) => {
    const size = statSync(tarball).size;
    t.diagnostic(`tarball ${(size / 2 ** 20).toFixed(1)} MiB`);
    assert.ok(size < 40 * 2 ** 20, `${size} bytes`);
  });

  it('npx lumen-rpc start serves a network; npx lumen-rpc dev drives it', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // its own process group: npx starts the node as a child, which a signal to npx alone would leave running
    const node: ChildProcess = spawn('npx', ['lumen-rpc', 'start', '--endpoint', `127.0.0.1:${port}`, '--db-path', join(folder, 'cli.sqlite'), '--close-mode', 'manual'], { cwd: app, env: userEnv(NODE_DIR), stdio: 'ignore', detached: true });
    const exited = new Promise((resolve) => node.once('exit', resolve));
    try {
      let latest: number | undefined;
      for (const deadline = Date.now() + 60_000; latest === undefined; await new Promise((r) => setTimeout(r, 100))) {
        assert.ok(Date.now() < deadline, 'the node did not answer within 60 s');
        latest = await rpc(url, 'getLatestLedger').then((a) => a.result?.sequence, () => undefined);
      }
      run('npx', ['lumen-rpc', 'dev', 'close-ledgers', '3', '--rpc-url', url], app);
      assert.equal((await rpc(url, 'getLatestLedger')).result.sequence, latest + 3);
      // the explorer, served from the installed package's files
      const page = await fetch(`${url}/explorer`);
      assert.equal(page.status, 200);
      const script = /src="(\/explorer\/[^"]+\.js)"/.exec(await page.text())?.[1];
      assert.equal((await fetch(`${url}${script}`)).status, 200, String(script));
    } finally {
      process.kill(-node.pid!, 'SIGTERM');
      await exited;
    }
  });

  it('import and require of lumen-rpc start a network in the process', () => {
    const script = (load: string) => `${load}
const net = await startNetwork({ accounts: 1, closeMode: 'manual' });
const before = (await net.request('getLatestLedger')).sequence;
const after = await net.closeLedgers(2);
await net.stop();
console.log(JSON.stringify({ before, after, account: net.accounts[0].publicKey }));`;
    for (const [kind, load] of [['import', "import { startNetwork } from 'lumen-rpc';"], ['require', "const { startNetwork } = (await import('node:module')).createRequire(import.meta.url)('lumen-rpc');"]]) {
      const out = JSON.parse(run(process.execPath, ['--input-type=module', '-e', script(load)], app).trim().split('\n').pop()!);
      assert.equal(out.after, out.before + 2, kind);
      assert.match(out.account, /^G[A-Z2-7]{55}$/, kind);
    }
  });

  it('an install that cannot build the addon says why in one line, and goes on', () => {
    const installed = join(app, 'node_modules', 'lumen-rpc');
    const addon = join(installed, 'native', 'lumen_native.node');
    renameSync(addon, `${addon}.away`);
    try {
      for (const [env, needs] of [[{ CARGO: '/nonexistent/cargo' }, /needs cargo/], [{ CC: '/nonexistent/cc' }, /needs a C compiler/]] as const) {
        const r = runCommand(process.execPath, ['bin/installNative.js'], { cwd: installed, pathFirst: NODE_DIR, env });
        assert.equal(r.status, 0, r.stderr);
        const lines = r.stderr.trim().split('\n');
        assert.equal(lines.length, 1, r.stderr);
        assert.match(lines[0], needs);
        assert.match(lines[0], /npm rebuild lumen-rpc/);
      }
    } finally {
      renameSync(`${addon}.away`, addon);
    }
  });

  it('its types check in a TypeScript project', () => {
    writeFileSync(join(app, 'check.ts'), `import { startNetwork, useNetwork, type Network } from 'lumen-rpc';
const start: (o?: { accounts?: number }) => Promise<Network> = startNetwork;
const url = async (): Promise<string> => (await start()).rpcUrl;
void url; void useNetwork;
// @ts-expect-error: closeMode takes the three modes only
void startNetwork({ closeMode: 'sometimes' });
`);
    run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', 'false', 'check.ts'], app);
  });
});
