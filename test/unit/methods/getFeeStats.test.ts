import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getFeeStats } from '../../../src/rpc/methods/getFeeStats.ts';
import type { MethodContext } from '../../../src/rpc/methods/types.ts';
import {
  FIRST_LEDGER, LAST_LEDGER, assertDecimalString, assertShape, call, contextFor, envelopesByHash,
  ledgerMeta, openEmptyStore, openStore, type TestStore,
} from './support/pubnet.ts';

let db: TestStore;
let ctx: MethodContext;
before(() => { db = openStore(); ctx = contextFor(db.store); });
after(() => db.close());

const SOROBAN_OPS = new Set([24, 25, 26]); // invokeHostFunction, extendFootprintTtl, restoreFootprint

/** Per ledger: the transaction count and the fee samples, derived with the SDK from the raw ledgers. */
function fixtureFees(seq: number): { transactions: number; soroban: bigint[]; classic: bigint[] } {
  const envelopes = envelopesByHash(seq);
  const soroban: bigint[] = [];
  const classic: bigint[] = [];
  const processing = ledgerMeta(seq).txProcessing;
  for (const p of processing) {
    const ops = envelopes.get(Buffer.from(p.result.transactionHash).toString('hex'))!.operations;
    const charged = p.result.result.feeCharged;
    const m = p.txApplyProcessing;
    if (ops.length === 1 && SOROBAN_OPS.has(ops[0].body.type)) {
      const ext = m.v === 4 ? m.v4.sorobanMeta?.ext : undefined;
      if (ext?.v === 1) soroban.push(charged - ext.v1.totalNonRefundableResourceFeeCharged - ext.v1.totalRefundableResourceFeeCharged);
    } else {
      classic.push(charged / BigInt(ops.length));
    }
  }
  return { transactions: processing.length, soroban, classic };
}

const perLedger = new Map<number, ReturnType<typeof fixtureFees>>();
const feesOf = (seq: number) => perLedger.get(seq) ?? perLedger.set(seq, fixtureFees(seq)).get(seq)!;
const sorted = (v: bigint[]): bigint[] => [...v].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

const DISTRIBUTION = {
  max: 'string', min: 'string', mode: 'string', p10: 'string', p20: 'string', p30: 'string', p40: 'string', p50: 'string',
  p60: 'string', p70: 'string', p80: 'string', p90: 'string', p95: 'string', p99: 'string',
  transactionCount: 'string', ledgerCount: 'number',
} as const;

test('windows cover the stored ledgers; counts match the ledgers\' transactions', async () => {
  const result = await call(getFeeStats, {}, ctx);
  assertShape(result, { sorobanInclusionFee: 'object', inclusionFee: 'object', latestLedger: 'number' }, 'getFeeStats');
  assertShape(result.sorobanInclusionFee, DISTRIBUTION, 'sorobanInclusionFee');
  assertShape(result.inclusionFee, DISTRIBUTION, 'inclusionFee');
  assert.equal(result.latestLedger, LAST_LEDGER);

  let transactions = 0;
  const soroban: bigint[] = [];
  const classic: bigint[] = [];
  for (let seq = FIRST_LEDGER; seq <= LAST_LEDGER; seq++) {
    const f = feesOf(seq);
    transactions += f.transactions;
    soroban.push(...f.soroban);
    classic.push(...f.classic);
  }
  assert.equal(soroban.length + classic.length, transactions, 'every fixture transaction yields one sample');
  assert.equal(result.sorobanInclusionFee.transactionCount, String(soroban.length));
  assert.equal(result.inclusionFee.transactionCount, String(classic.length));
  // both default windows (50 Soroban, 10 classic) span all ten stored ledgers
  assert.equal(result.sorobanInclusionFee.ledgerCount, 10);
  assert.equal(result.inclusionFee.ledgerCount, 10);

  const s = sorted(classic);
  assert.equal(result.inclusionFee.min, String(s[0]));
  assert.equal(result.inclusionFee.max, String(s[s.length - 1]));
  assert.equal(result.inclusionFee.p50, String(s[Math.ceil(s.length / 2) - 1]));
  assert.equal(result.inclusionFee.p99, String(s[Math.ceil(s.length * 0.99) - 1]));
  const ss = sorted(soroban);
  assert.equal(result.sorobanInclusionFee.p90, String(ss[Math.ceil(ss.length * 0.9) - 1]));
  for (const v of Object.values(result.inclusionFee).filter((x) => typeof x === 'string')) assertDecimalString(v, 'fee');
});

test('a smaller classic window counts only the last ledgers', async () => {
  const result = await call(getFeeStats, {}, contextFor(db.store, { config: { classicFeeStatsRetentionWindow: 3, sorobanFeeStatsRetentionWindow: 2 } }));
  const last3 = [LAST_LEDGER - 2, LAST_LEDGER - 1, LAST_LEDGER].flatMap((seq) => feesOf(seq).classic);
  const last2 = [LAST_LEDGER - 1, LAST_LEDGER].flatMap((seq) => feesOf(seq).soroban);
  assert.equal(result.inclusionFee.ledgerCount, 3);
  assert.equal(result.inclusionFee.transactionCount, String(last3.length));
  assert.equal(result.sorobanInclusionFee.ledgerCount, 2);
  assert.equal(result.sorobanInclusionFee.transactionCount, String(last2.length));
  // mode: most frequent, smallest on ties
  const counts = new Map<bigint, number>();
  for (const f of last3) counts.set(f, (counts.get(f) ?? 0) + 1);
  const best = Math.max(...counts.values());
  const mode = sorted([...counts].filter(([, c]) => c === best).map(([v]) => v))[0];
  assert.equal(result.inclusionFee.mode, String(mode));
});

test('an empty store: zero distributions and latestLedger 0', async () => {
  const empty = openEmptyStore();
  try {
    const result = await call(getFeeStats, {}, contextFor(empty.store));
    assert.equal(result.latestLedger, 0);
    for (const d of [result.sorobanInclusionFee, result.inclusionFee]) {
      assertShape(d, DISTRIBUTION);
      assert.equal(d.ledgerCount, 0);
      assert.equal(d.p50, '0');
      assert.equal(d.transactionCount, '0');
    }
  } finally {
    empty.close();
  }
});
