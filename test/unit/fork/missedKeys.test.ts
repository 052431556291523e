// A fork's runs repeated until they miss nothing: what counts as a miss, when a run is repeated,
// which outcome or error is kept. The forked state here is a set of keys: resolving marks them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_FETCH_ROUNDS, MissedKeys } from '../../../src/fork/missedKeys.ts';
import type { ForkedState } from '../../../src/fork/forkedState.ts';

const key = (n: number) => new Uint8Array([n]);

function forked(): ForkedState & { resolved: Set<number>; fetches: number[][] } {
  const resolved = new Set<number>();
  const fetches: number[][] = [];
  return {
    resolved, fetches,
    isResolved: (k) => resolved.has(k[0]),
    // as the real one: keys resolved already are not fetched again
    async resolve(keys) {
      const fresh = keys.map((k) => k[0]).filter((k) => !resolved.has(k)).sort();
      if (fresh.length) fetches.push(fresh);
      for (const k of fresh) resolved.add(k);
    },
  };
}

test('only reads of unresolved keys during a run are misses', async () => {
  const fork = forked();
  const missed = new MissedKeys(fork);
  missed.absent(key(1)); // no run under way: nothing recorded
  fork.resolved.add(2);
  let runs = 0;
  const out = await missed.runFetching(async () => { runs++; missed.absent(key(2)); return 'done'; }, () => false);
  assert.equal(out, 'done');
  assert.equal(runs, 1);
  assert.deepEqual(fork.fetches, []);
});

test('a run that missed keys is repeated after they are fetched; the run that missed nothing counts', async () => {
  const fork = forked();
  const missed = new MissedKeys(fork);
  const outcomes: string[] = [];
  // the second key is only read once the first is there (what a transaction reads after another's write)
  const out = await missed.runFetching(async () => {
    if (!fork.resolved.has(1)) { missed.absent(key(1)); outcomes.push('without 1'); return 'wrong'; }
    if (!fork.resolved.has(2)) { missed.absent(key(2)); outcomes.push('without 2'); return 'wrong'; }
    outcomes.push('complete');
    return 'right';
  }, () => false);
  assert.equal(out, 'right');
  assert.deepEqual(outcomes, ['without 1', 'without 2', 'complete']);
  assert.deepEqual(fork.fetches, [[1], [2]]);
});

test('an error is thrown only from a run that missed nothing; one after a miss is retried', async () => {
  const fork = forked();
  const missed = new MissedKeys(fork);
  let runs = 0;
  const out = await missed.runFetching(async () => {
    runs++;
    if (!fork.resolved.has(7)) { missed.absent(key(7)); throw new Error('setting missing'); }
    return 'applied';
  }, () => false);
  assert.equal(out, 'applied');
  assert.equal(runs, 2);
  await assert.rejects(missed.runFetching(async () => { throw new Error('refused'); }, () => false), /refused/);
});

test('rounds end at the limit (the last outcome is kept) and when stopped', async () => {
  const fork = forked();
  const missed = new MissedKeys(fork);
  let n = 100;
  let runs = 0;
  const out = await missed.runFetching(async () => { runs++; missed.absent(key(n++)); return runs; }, () => false);
  assert.equal(runs, MAX_FETCH_ROUNDS);
  assert.equal(out, MAX_FETCH_ROUNDS);
  runs = 0;
  await missed.runFetching(async () => { runs++; missed.absent(key(n++)); return runs; }, () => true);
  assert.equal(runs, 1);
});

test('overlapping runs each record what was missed while they were under way', async () => {
  const fork = forked();
  const missed = new MissedKeys(fork);
  let release!: () => void;
  const paused = new Promise<void>((r) => { release = r; });
  let closeRuns = 0;
  // a sliced close, paused between slices while a submission's dry run misses key 9
  const close = missed.runFetching(async () => {
    closeRuns++;
    if (closeRuns === 1) await paused;
    return closeRuns;
  }, () => false);
  await missed.discover(() => missed.absent(key(9)));
  release();
  assert.equal(await close, 2, 'the close saw a miss during its run, so it ran again');
  assert.deepEqual(fork.fetches, [[9]]);
});

test('discover repeats a dry run until it misses nothing, ignoring its errors', async () => {
  const fork = forked();
  const missed = new MissedKeys(fork);
  let runs = 0;
  await missed.discover(() => {
    runs++;
    for (const k of [3, 4]) if (!fork.resolved.has(k)) { missed.absent(key(k)); throw new Error('not found'); }
  });
  assert.equal(runs, 3);
  assert.deepEqual(fork.fetches, [[3], [4]]);
});
