// Every protocol the standalone engine writes has fixture ledgers made by a standalone run, with the
// upgrade into it (test/fixtures/standalone/upgrade, made by make.ts there), and those ledgers are
// replayed with no difference and followed by a node: this test fails when a protocol is added to
// src/ledger/protocols.ts without them (docs/protocol-upgrade.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENGINE_PROTOCOLS } from '../../src/ledger/protocols.ts';
import { decodeLedger, readLedgerFile } from '../../src/replay/ledgerFiles.ts';
import { startNodeProcess } from './support/nodeProcess.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'test/fixtures/standalone/upgrade');
const PASSPHRASE = 'Standalone Network ; February 2017';

interface FixtureLedger { file: string; sequence: number; protocol: number; upgrades: number; transactions: number }

function fixtureLedgers(): FixtureLedger[] {
  return readdirSync(FIXTURES).filter((f) => f.endsWith('.xdr.zst')).map((name) => {
    const file = join(FIXTURES, name);
    const [raw] = readLedgerFile(file);
    const lcm = decodeLedger(raw, file);
    assert.equal(lcm.v, 2);
    const header = lcm.v2.ledgerHeader.header;
    return {
      file, sequence: header.ledgerSeq, protocol: header.ledgerVersion, upgrades: header.scpValue.upgrades.length,
      transactions: lcm.v2.txProcessing.length,
    };
  }).sort((a, b) => a.sequence - b.sequence);
}

/** `lumen-rpc replay` of `files` (consecutive ledgers): its JSON summary. */
function replay(files: string[]): any {
  const out = join(mkdtempSync(join(tmpdir(), 'lumen-replay-')), 'summary.json');
  const r = spawnSync(process.execPath, ['bin/lumen-rpc.js', 'replay', ...files, '--network-passphrase', PASSPHRASE, '--json', out], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(readFileSync(out, 'utf8'));
}

test('each protocol the engine writes has fixture ledgers with transactions, and an upgrade ledger into it', () => {
  const ledgers = fixtureLedgers();
  for (let i = 1; i < ledgers.length; i++) assert.equal(ledgers[i].sequence, ledgers[i - 1].sequence + 1, 'consecutive');
  for (const protocol of ENGINE_PROTOCOLS) {
    const of = ledgers.filter((l) => l.protocol === protocol);
    assert.ok(of.some((l) => l.transactions > 0), `protocol ${protocol}: fixture ledgers with transactions (run test/fixtures/standalone/make.ts)`);
  }
  for (const [older, newer] of ENGINE_PROTOCOLS.slice(1).map((p, i) => [ENGINE_PROTOCOLS[i], p])) {
    const upgrade = ledgers.find((l) => l.protocol === newer && ledgers.find((m) => m.sequence === l.sequence - 1)?.protocol === older);
    assert.ok(upgrade && upgrade.upgrades === 1, `the ledger that upgrades ${older} to ${newer}, carrying its upgrade`);
  }
});

test('replay: the ledgers of each protocol, and across the upgrades, replay with no difference', () => {
  const ledgers = fixtureLedgers();
  for (const protocol of ENGINE_PROTOCOLS) {
    const summary = replay(ledgers.filter((l) => l.protocol === protocol).map((l) => l.file));
    assert.equal(summary.total.different, 0, `protocol ${protocol}: ${JSON.stringify(summary.differences)}`);
    assert.ok(summary.total.identical > 0, `protocol ${protocol}: some transactions replayed identical`);
  }
  const all = replay(ledgers.map((l) => l.file));
  assert.equal(all.total.different, 0, JSON.stringify(all.differences));
  assert.equal(all.total.transactions, ledgers.reduce((n, l) => n + l.transactions, 0));
});

test('a follower of the fixture datastore ingests every ledger across the upgrade, with its transactions and events', async () => {
  const ledgers = fixtureLedgers();
  const node = await startNodeProcess({
    args: ['--log-level', 'warn', '--datastore', FIXTURES, '--network-passphrase', PASSPHRASE], readyWhenListening: true,
  });
  try {
    const last = ledgers[ledgers.length - 1].sequence;
    const deadline = Date.now() + 30_000;
    while ((await node.rpc('getLatestLedger')).result?.sequence !== last) {
      assert.ok(Date.now() < deadline, `the fixture ledgers were not ingested:\n${node.output()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal((await node.rpc('getLatestLedger')).result.protocolVersion, ENGINE_PROTOCOLS[ENGINE_PROTOCOLS.length - 1]);
    const txs = await node.rpc('getTransactions', { startLedger: ledgers[0].sequence, pagination: { limit: 200 } });
    assert.equal(txs.result.transactions.length, ledgers.reduce((n, l) => n + l.transactions, 0));
    const events = await node.rpc('getEvents', { startLedger: ledgers[0].sequence, filters: [{ type: 'contract' }], pagination: { limit: 1000 } });
    const protocolOfLedger = new Map(ledgers.map((l) => [l.sequence, l.protocol]));
    const withEvents = new Set(events.result.events.map((e: { ledger: number }) => protocolOfLedger.get(e.ledger)));
    for (const protocol of ENGINE_PROTOCOLS) assert.ok(withEvents.has(protocol), `contract events in protocol-${protocol} ledgers`);
  } finally {
    await node.stop();
  }
});
