// The replay over real pubnet ledgers: ten consecutive protocol-26 ledgers, a protocol-24 batch and
// a protocol-21 batch (TransactionMeta V3). What the engine applies must come out as the network
// recorded it; what the metas cannot settle is counted apart with its reason.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayFiles } from '../../src/replay/replayRun.ts';
import { summaryOf, type ReplaySummary } from '../../src/replay/report.ts';
import { Reasons } from '../../src/replay/verdict.ts';
import { readLedgerFile, decodeLedger, ReplayInputError } from '../../src/replay/ledgerFiles.ts';
import { envelopesOf } from '../../src/ingest/ledgerToBatch.ts';
import { innerTransaction } from '../../src/xdr/transactions.ts';
import { supportedOperationTypes } from '../../src/ledger/ops/index.ts';
import { operationTypeName } from '../../src/replay/resultNames.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const FIXTURES = join(ROOT, 'test/fixtures/pubnet');
const TEN_LEDGERS = Array.from({ length: 10 }, (_, i) => join(FIXTURES, `ledgers/ledger-${63092982 + i}.xdr.gz`));
const P24_BATCH = join(FIXTURES, 'datastore/FC62697B--60659332.xdr');
const P21_BATCH = join(FIXTURES, 'datastore/FCD285FF--53312000.xdr.zstd');
const SOROBAN_OPS = new Set([24, 25, 26]);

/** What the files hold, counted without the replay: transactions, Soroban ones, operation types. */
function census(files: string[]) {
  let transactions = 0, soroban = 0;
  const types = new Set<number>();
  for (const file of files) {
    for (const raw of readLedgerFile(file)) {
      const lcm = decodeLedger(raw, file);
      const body = lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2;
      transactions += body.txProcessing.length;
      for (const env of envelopesOf(lcm)) {
        const ops = innerTransaction(env).operations.map((o) => o.body.type);
        ops.forEach((t) => types.add(t));
        if (ops.some((t) => SOROBAN_OPS.has(t))) soroban++;
      }
    }
  }
  return { transactions, soroban, types };
}

function assertConsistent(s: ReplaySummary, files: string[]): void {
  const c = census(files);
  const sum = (f: (r: ReplaySummary['rows'][number]) => number) => s.rows.reduce((n, r) => n + f(r), 0);
  assert.equal(s.total.transactions, c.transactions, 'every transaction is counted');
  assert.equal(sum((r) => r.transactions), c.transactions, 'the rows add up to the transactions');
  for (const r of s.rows) assert.equal(r.identical + r.different + r.undetermined, r.transactions, r.label);
  assert.equal(s.total.identical + s.total.different + s.total.undetermined, s.total.transactions);
  assert.equal(s.undeterminedReasons.reduce((n, r) => n + r.transactions, 0), s.total.undetermined, 'every undetermined one has its reason');
  assert.equal(s.undeterminedReasons.find((r) => r.reason === Reasons.soroban)?.transactions ?? 0, c.soroban, 'Soroban transactions are counted apart');
  assert.equal(s.differences.length, s.total.different);

  // every classic operation type the engine supports that these ledgers hold went through the engine
  for (const type of c.types) {
    if (!supportedOperationTypes.includes(type) || SOROBAN_OPS.has(type)) continue;
    const counts = s.operationTypes[operationTypeName(type)];
    assert.ok(counts && counts.applied > 0, `${operationTypeName(type)} was applied`);
  }
  // the offer ids handed out match every header: the starting idPool and its tracking are right
  assert.ok(!s.notes.some((n) => n.includes('continuing from the header')), s.notes.join('\n'));
}

/**
 * Whatever the engine applies comes out as the network recorded it: no difference at all, so every
 * successful transaction made only of supported operation types that the metas can decide is
 * identical (the share the replay reports, 100% on these fixtures).
 */
function assertNoDifference(s: ReplaySummary): void {
  assert.deepEqual(s.differences.map((d) => `${d.ledger} ${d.hash} ${d.row}: ${d.difference}`), []);
  assert.equal(s.supportedSuccesses.different, 0);
  assert.equal(s.supportedSuccesses.identicalShare, 1);
  assert.ok(s.supportedSuccesses.identical > s.supportedSuccesses.undetermined * 10, 'almost all of them decided');
}

describe('replay of pubnet ledgers', () => {
  it('ten consecutive protocol-26 ledgers, given in any order', () => {
    const shuffled = [...TEN_LEDGERS].reverse();
    const s = summaryOf(replayFiles(shuffled));
    assert.equal(s.ledgers.first, 63092982);
    assert.equal(s.ledgers.last, 63092991);
    assert.equal(s.networkPassphrase, 'Public Global Stellar Network ; September 2015');
    assertConsistent(s, TEN_LEDGERS);
    assertNoDifference(s);
    // payments, trust lines, merges, offers, path payments through books and pools, claimable
    // balances and sponsorship sandwiches of ten busy ledgers: all identical
    for (const label of ['PAYMENT / success', 'CHANGE_TRUST / success', 'ACCOUNT_MERGE / success', 'MANAGE_SELL_OFFER / success',
      'MANAGE_BUY_OFFER / success', 'PATH_PAYMENT_STRICT_SEND / success', 'PATH_PAYMENT_STRICT_RECEIVE / success', 'CREATE_CLAIMABLE_BALANCE / success',
      'BEGIN_SPONSORING_FUTURE_RESERVES+CREATE_ACCOUNT+CHANGE_TRUST+END_SPONSORING_FUTURE_RESERVES / success']) {
      const row = s.rows.find((r) => r.label === label);
      assert.ok(row && row.transactions > 0 && row.identical === row.transactions, `${label}: ${JSON.stringify(row)}`);
    }
  });

  it('a protocol-24 batch (fee bumps report the inner fee before protocol 25)', () => {
    const s = summaryOf(replayFiles([P24_BATCH]));
    assertConsistent(s, [P24_BATCH]);
    assertNoDifference(s);
    const payments = s.rows.find((r) => r.label === 'PAYMENT / success');
    assert.ok(payments && payments.identical === payments.transactions && payments.transactions >= 20, JSON.stringify(payments));
  });

  it('a protocol-21 batch: TransactionMeta V3 compared in its own version (no classic events before protocol 23)', () => {
    const s = summaryOf(replayFiles([P21_BATCH]));
    assertConsistent(s, [P21_BATCH]);
    assertNoDifference(s);
    assert.ok(s.supportedSuccesses.identical >= 90, `${s.supportedSuccesses.identical} identical`);
  });
});

describe('lumen-rpc replay on the command line', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, ['src/cli/main.ts', 'replay', ...args], { cwd: ROOT, encoding: 'utf8' });

  it('prints the table and writes the JSON summary', () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-cli-'));
    try {
      const json = join(dir, 'summary.json');
      const r = run(P21_BATCH, '--json', json);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /transactions\s+identical\s+different\s+undetermined/);
      assert.match(r.stdout, /PAYMENT \/ success/);
      const summary = JSON.parse(readFileSync(json, 'utf8'));
      assert.equal(summary.ledgers.first, 53312000);
      assert.equal(summary.total.transactions, census([P21_BATCH]).transactions);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('bad input: a message and a non-zero exit, no stack trace', () => {
    const cases: Array<[string[], RegExp]> = [
      [[join(ROOT, 'no-such-ledger.xdr')], /no-such-ledger\.xdr: cannot read \(ENOENT\)/],
      [[TEN_LEDGERS[0], join(ROOT, 'package.json')], /package\.json: not a LedgerCloseMeta/],
    ];
    for (const [args, message] of cases) {
      const r = run(...args);
      assert.notEqual(r.status, 0, args.join(' '));
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /^\s+at /m, 'no stack trace');
    }
  });

  it('ledgers that are not consecutive, or given twice, are refused before any replay', () => {
    const refused = (files: string[], message: RegExp) =>
      assert.throws(() => replayFiles(files), (e: unknown) => e instanceof ReplayInputError && message.test(e.message));
    refused([TEN_LEDGERS[0], TEN_LEDGERS[2]], /not consecutive: 63092982 is followed by 63092984 \(63092983\.\.63092983 missing\)/);
    refused([TEN_LEDGERS[0], TEN_LEDGERS[0]], /ledger 63092982 is in both/);
    refused([], /no files/);
  });
});
