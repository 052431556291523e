// The command line holds one process.nextTick queue entry for the life of the process (see
// src/cli/keepNextTickFast.ts): what it holds must be such an entry, or the shapes it is meant to keep
// alive are not kept. Its effect on speed is measured by bench/nextTickCost.ts, not here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keptTickEntry } from '../../../src/cli/keepNextTickFast.ts';

test('holds the queue entry of a process.nextTick callback', async () => {
  await new Promise((resolve) => setImmediate(resolve));
  const entry = keptTickEntry() as Record<string | symbol, unknown> | undefined;
  assert.ok(entry !== undefined, 'the callback ran and kept its entry');
  const symbols = Object.getOwnPropertySymbols(entry).map((s) => s.description);
  assert.ok(symbols.includes('async_id_symbol') && symbols.includes('trigger_async_id_symbol'), `a tick entry's keys: ${symbols.join(', ')}`);
  assert.equal(typeof entry.callback, 'function');
});
