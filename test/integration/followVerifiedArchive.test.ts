// A follower whose history archive fails verification stops, as a failed start does: one line naming
// what does not match, exit code 2, and nothing served as the network's state. A is a real standalone
// network publishing its datastore and archive; B follows a copy of that archive whose state files
// name bucket lists that do not hash to the checkpoint headers (the ledgers are A's, unchanged).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKPOINT, latest, startA, startB, waitFor } from './support/twoNodes.ts';
import { parseHistoryArchiveState, serializeHistoryArchiveState } from '../../src/archive/historyArchiveState.ts';

/** Every file under `dir` whose name matches. */
function filesUnder(dir: string, name: RegExp): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => name.test(f.split('/').pop()!)).map((f) => join(dir, f));
}

test('a follower whose archive does not hash to the ledger headers stops with one line', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-follow-verify-'));
  const a = await startA(dir);
  try {
    await waitFor('A to publish its first checkpoint', async () => await latest(a) > CHECKPOINT + 4
      && filesUnder(join(dir, 'archive'), /^history-0000003f\.json$/).length === 1);
    // a copy of what A published: its datastore as is, its archive with every state's live list reordered
    const published = mkdtempSync(join(tmpdir(), 'lumen-follow-verify-copy-'));
    symlinkSync(join(dir, 'datastore'), join(published, 'datastore'));
    cpSync(join(dir, 'archive'), join(published, 'archive'), { recursive: true });
    let tampered = 0;
    for (const file of filesUnder(join(published, 'archive'), /^(history-[0-9a-f]{8}|stellar-history)\.json$/)) {
      const has = parseHistoryArchiveState(readFileSync(file));
      const levels = has.currentBuckets;
      const i = levels.findIndex((l) => l.curr !== levels[0].curr);
      assert.ok(i > 0, `${file}: two levels with different buckets to swap`);
      [levels[0].curr, levels[i].curr] = [levels[i].curr, levels[0].curr];
      writeFileSync(file, serializeHistoryArchiveState(has));
      tampered++;
    }
    assert.ok(tampered >= 2, 'the checkpoint and the root state');

    // B stops once the bootstrap fails: before or after it answered its first request
    let output: string;
    try {
      const b = await startB(published, a);
      try {
        await waitFor('B to stop', async () => b.child.exitCode !== null);
      } finally {
        await b.stop();
      }
      assert.equal(b.child.exitCode, 2, b.output());
      output = b.output();
    } catch (e) {
      assert.match((e as Error).message, /^lumen-rpc exited with 2:\n/);
      output = (e as Error).message;
    }
    const lines = output.split('\n').filter((l) => l.startsWith('lumen-rpc: '));
    assert.equal(lines.length, 1, output);
    assert.match(lines[0], /^lumen-rpc: .*archive: checkpoint \d+: the live and hot-archive bucket lists hash to [0-9a-f]{64} .*but ledger \d+'s header has bucketListHash [0-9a-f]{64}$/);
    // the untampered archive is followed: the refusal was the tampering's
    const good = await startB(dir, a);
    try {
      await waitFor('B to follow A from the real archive', async () => (await latest(good)) > CHECKPOINT);
    } finally {
      await good.stop();
    }
    assert.ok(existsSync(join(dir, 'archive')));
  } finally {
    await a.stop();
  }
});
