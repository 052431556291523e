// Captive core against a fake stellar-core: a small node script that answers the commands the way
// core does (offline-info, new-db, catchup, run) and, for `run`, writes a record-marked stream of
// real fixture ledgers to fd 3.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CaptiveCoreSource, captiveCoreToml } from '../../../src/sources/metaStream/captiveCore.ts';
import { frameRecord } from '../../../src/io/recordMarked.ts';
import type { RawLedger } from '../../../src/sources/ledgerSource.ts';
import { TESTNET, collect, never, p20Ledger } from './support.ts';

const FAKE_CORE = `#!${process.execPath}
import { appendFileSync, existsSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
const setup = JSON.parse(readFileSync(new URL('./fake-core.json', import.meta.url), 'utf8'));
const args = process.argv.slice(2);
appendFileSync(setup.calls, JSON.stringify({ args, cwd: process.cwd() }) + '\\n');
if (args[0] !== '--conf' || args[2] !== '--console') { console.error('bad global options'); process.exit(64); }
const [command, ...rest] = args.slice(3);
const state = 'fake-state.json';
if (setup.fail === command) { console.log('[Database ERROR] something broke in ' + command); process.exit(2); }
if (command === 'offline-info') {
  if (!existsSync(state)) { console.error('no database'); process.exit(1); }
  console.log(JSON.stringify({ info: { ledger: { num: JSON.parse(readFileSync(state, 'utf8')).lcl } } }));
} else if (command === 'new-db') {
  writeFileSync(state, JSON.stringify({ lcl: 1 }));
} else if (command === 'catchup') {
  console.log('[History INFO] Catching up to ' + rest[0]);
  writeFileSync(state, JSON.stringify({ lcl: Number(rest[0].split('/')[0]) }));
} else if (command === 'run') {
  if (rest.join(' ') !== '--metadata-output-stream fd:3') { console.error('unexpected run args'); process.exit(65); }
  process.on('SIGTERM', () => { writeFileSync(setup.pidFile + '.term', 'yes'); process.exit(0); });
  writeFileSync(setup.pidFile, String(process.pid));
  const stream = readFileSync(setup.stream);
  writeSync(3, stream.subarray(0, setup.streamBytes ?? stream.length));
  console.log('[Ledger INFO] Got consensus');
  if (setup.exitAfterStream !== undefined) process.exit(setup.exitAfterStream);
  setInterval(() => {}, 1000);
} else { console.error('unknown command ' + command); process.exit(66); }
`;

interface Setup { fail?: string; exitAfterStream?: number; streamBytes?: number }

function fakeCore(t: { after(fn: () => void): void }, ledgers: RawLedger[], setup: Setup = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-captive-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const binaryPath = join(dir, 'stellar-core');
  const calls = join(dir, 'calls.log');
  const stream = join(dir, 'stream.xdr');
  const pidFile = join(dir, 'core.pid');
  writeFileSync(stream, Buffer.concat(ledgers.map((l) => frameRecord(l.bytes))));
  writeFileSync(binaryPath, FAKE_CORE);
  chmodSync(binaryPath, 0o755);
  const write = (s: Setup) => writeFileSync(join(dir, 'fake-core.json'), JSON.stringify({ calls, stream, pidFile, ...s }));
  write(setup);
  return {
    binaryPath,
    storagePath: join(dir, 'storage'),
    dir,
    reconfigure: write,
    commands: (): string[] => readFileSync(calls, 'utf8').trim().split('\n').map((l) => (JSON.parse(l).args as string[]).slice(3).join(' ')),
    pid: () => Number(readFileSync(pidFile, 'utf8')),
    terminated: () => { try { return readFileSync(`${pidFile}.term`, 'utf8') === 'yes'; } catch { return false; } },
  };
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

const ledgers = [997, 998, 999].map(p20Ledger);

test('a fresh start: new-db, catchup to the ledger before, run with the meta stream on fd 3', async (t) => {
  const core = fakeCore(t, ledgers);
  const appendix = join(core.dir, 'core-appendix.cfg');
  writeFileSync(appendix, '[[VALIDATORS]]\nNAME = "sdf_testnet_1"\nHOME_DOMAIN = "testnet.stellar.org"\nPUBLIC_KEY = "GDKXE2OZMJIPOSLNA6N6F2BVCI3O777I2OOC4BV7VOYUEHYX7RTRYA7Y"\n');
  const logs: string[] = [];
  const source = new CaptiveCoreSource({
    binaryPath: core.binaryPath, storagePath: core.storagePath, networkPassphrase: TESTNET, configPath: appendix,
    historyArchiveUrls: ['https://history.stellar.org/prd/core-testnet/core_testnet_001/'], log: (l) => logs.push(l),
  });
  const got = await collect(source.ledgers(997, { signal: never(), to: 999 }));
  assert.deepEqual(got, ledgers);
  assert.deepEqual(core.commands(), ['offline-info', 'new-db', 'catchup 996/0', 'run --metadata-output-stream fd:3']);
  assert.ok(logs.includes('[History INFO] Catching up to 996/0'), 'core output goes to the log');
  // core is stopped once `to` is reached
  assert.equal(core.terminated(), true);
  assert.equal(alive(core.pid()), false);

  const config = readFileSync(join(core.storagePath, 'stellar-core.cfg'), 'utf8');
  assert.match(config, /^NETWORK_PASSPHRASE = "Test SDF Network ; September 2015"$/m);
  assert.match(config, /^DATABASE = "sqlite3:\/\/stellar\.db"$/m);
  assert.match(config, /^EMIT_CLASSIC_EVENTS = true$/m);
  assert.match(config, /^BACKFILL_STELLAR_ASSET_EVENTS = false$/m);
  assert.match(config, /^ENABLE_SOROBAN_DIAGNOSTIC_EVENTS = true$/m);
  assert.match(config, /^\[\[VALIDATORS\]\]\nNAME = "sdf_testnet_1"$/m);
  assert.match(config, /^get = "curl -sf https:\/\/history\.stellar\.org\/prd\/core-testnet\/core_testnet_001\/\{0\} -o \{1\}"$/m);

  // A restart with core's database at the ledger before: straight to run.
  await collect(source.ledgers(997, { signal: never(), to: 997 }));
  assert.deepEqual(core.commands().slice(4), ['offline-info', 'run --metadata-output-stream fd:3']);
});

test('aborting while core runs ends the ledgers and stops core', async (t) => {
  const core = fakeCore(t, ledgers);
  const abort = new AbortController();
  const got: number[] = [];
  for await (const l of new CaptiveCoreSource({ binaryPath: core.binaryPath, storagePath: core.storagePath, networkPassphrase: TESTNET }).ledgers(997, { signal: abort.signal })) {
    got.push(l.sequence);
    if (got.length === 3) abort.abort(); // the stream stays open: core keeps running
  }
  assert.deepEqual(got, [997, 998, 999]);
  assert.equal(alive(core.pid()), false);
  assert.equal(core.terminated(), true);
});

test('core dying mid-stream is an error with its exit code and last output', async (t) => {
  const whole = Buffer.concat(ledgers.map((l) => frameRecord(l.bytes)));
  const core = fakeCore(t, ledgers, { exitAfterStream: 3 });
  const source = new CaptiveCoreSource({ binaryPath: core.binaryPath, storagePath: core.storagePath, networkPassphrase: TESTNET });
  const seen: number[] = [];
  await assert.rejects(async () => {
    for await (const l of source.ledgers(997, { signal: never() })) seen.push(l.sequence);
  }, /captive core .*: stellar-core run exited with code 3 after ledger 999; its last output:\n.*Got consensus/s);
  assert.deepEqual(seen, [997, 998, 999]);

  // cut inside the second record: the first ledger, then a truncation error
  core.reconfigure({ exitAfterStream: 0, streamBytes: whole.length - 5000 });
  seen.length = 0;
  await assert.rejects(async () => {
    for await (const l of source.ledgers(997, { signal: never() })) seen.push(l.sequence);
  }, /truncated after 2 complete records/);
  assert.deepEqual(seen, [997, 998]);
});

test('a failing setup command or a missing binary is a clear error', async (t) => {
  const core = fakeCore(t, ledgers, { fail: 'new-db' });
  await assert.rejects(
    collect(new CaptiveCoreSource({ binaryPath: core.binaryPath, storagePath: core.storagePath, networkPassphrase: TESTNET }).ledgers(997, { signal: never() })),
    /stellar-core new-db exited with code 2; its last output:\n.*something broke in new-db/s,
  );
  await assert.rejects(
    collect(new CaptiveCoreSource({ binaryPath: join(core.dir, 'no-such-core'), storagePath: core.storagePath, networkPassphrase: TESTNET }).ledgers(997, { signal: never() })),
    /stellar-core new-db could not be started/,
  );
});

test('the generated config refuses an operator config of another network', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-captive-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const appendix = join(dir, 'core.cfg');
  writeFileSync(appendix, 'NETWORK_PASSPHRASE = "Public Global Stellar Network ; September 2015"\nFAILURE_SAFETY = 1\n');
  assert.throws(() => captiveCoreToml({ networkPassphrase: TESTNET, configPath: appendix }), /NETWORK_PASSPHRASE is "Public Global Stellar Network ; September 2015", expected "Test SDF/);
  writeFileSync(appendix, 'FAILURE_SAFETY = 1\nHTTP_PORT = 11626\n');
  const toml = captiveCoreToml({ networkPassphrase: TESTNET, configPath: appendix });
  assert.match(toml, /^FAILURE_SAFETY = 1$/m, "the operator's values are kept");
  assert.match(toml, /^HTTP_PORT = 11626$/m);
});
