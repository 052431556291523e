// One writer per database (src/store/sqlite/databaseLock.ts), in one process: a second store on a
// database in use is refused; closing frees it; and a store whose start fails after taking the lock
// (a schema newer than this build) leaves it free, so the next try fails for its own reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { DatabaseLockedError } from '../../../src/store/sqlite/databaseLock.ts';

test('a database has one store at a time; a failed open frees it', () => {
  const path = join(mkdtempSync(join(tmpdir(), 'lumen-lock-')), 'node.sqlite');
  const first = new SqliteStore(path);
  assert.throws(() => new SqliteStore(path), (e: unknown) => e instanceof DatabaseLockedError && /in use by another database connection of this process/.test(e.message));
  first.close();
  new SqliteStore(path).close();

  const raw = new DatabaseSync(path);
  raw.exec('PRAGMA user_version = 999');
  raw.close();
  for (let i = 0; i < 2; i++) assert.throws(() => new SqliteStore(path), /schema version 999 is newer than this build knows/);
});
