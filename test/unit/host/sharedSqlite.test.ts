// The addon reads the node's database on its own threads while the store writes it. Both must use
// the one SQLite library in the process (node:sqlite's): a second copy would not see the writer's
// locks, and the first time it opened the WAL index it would truncate it under the writer (with
// the addon's own bundled SQLite this test died of a Bus error, and a follower lost a ledger).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { loadNative } from '../../../src/host/index.ts';

test('the addon opening and dropping read connections while the store commits loses no commit and sees each one', async () => {
  const dbPath = join(mkdtempSync(join(tmpdir(), 'lumen-shared-sqlite-')), 'node.sqlite');
  const db = new DatabaseSync(dbPath);
  db.exec('PRAGMA journal_mode = WAL; CREATE TABLE ledgers (sequence INTEGER PRIMARY KEY, header BLOB)');
  const insert = db.prepare('INSERT INTO ledgers VALUES (?, ?)');
  const addon = loadNative();
  const header = Buffer.alloc(3000, 7); // not a header: the addon reads it and says so, naming the ledger
  const rows = 12_000;
  let written = 0;
  try {
    while (written < rows) {
      const seen = written;
      // a fresh connection each time, opened on a host thread while this thread commits
      addon.closeDatabase(dbPath);
      const reading = addon.simulateInvoke({ dbPath, networkPassphrase: 'shared sqlite test', transactionXdr: 'AAAA' });
      for (let i = 0; i < 25 && written < rows; i++) insert.run(++written, header);
      const result = await reading;
      if (seen > 0) {
        const read = Number(/ledger (\d+)/.exec(result.error ?? '')?.[1]);
        assert.ok(read >= seen && read <= written, `the addon read ledger ${read}; ${seen} were committed before it started: ${result.error}`);
      }
    }
    const sequences = (db.prepare('SELECT sequence FROM ledgers ORDER BY sequence').all() as Array<{ sequence: number }>).map((r) => r.sequence);
    assert.equal(sequences.length, rows);
    assert.ok(sequences.every((s, i) => s === i + 1), 'no commit lost');
    assert.equal((db.prepare('PRAGMA integrity_check').get() as { integrity_check: string }).integrity_check, 'ok');
  } finally {
    addon.closeDatabase(dbPath);
    db.close();
  }
});
