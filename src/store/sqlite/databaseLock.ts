// One database, one writer: a node holds an exclusive lock on `<db>.lock` from before its first write
// until it closes, so a second node started on the same --db-path stops at once, naming the holder,
// instead of both closing ledgers into one file.
//
// The lock is SQLite's own: the lock file is a small SQLite database whose write lock the holder
// keeps (a transaction begun with BEGIN IMMEDIATE and never ended). SQLite takes it with the OS's
// file locks, which the OS drops when the process ends however it ends, so a crashed node leaves no
// stale lock; and SQLite keeps two connections of one process apart too. The main database is not
// locked this way: readers (the native host's connections, an integrity check) open it as before.
// The holder's pid and command are committed to the lock file first, for the refusal to name them.
import { DatabaseSync } from 'node:sqlite';
import { hostname } from 'node:os';

/** SQLITE_BUSY and SQLITE_LOCKED: another connection holds the lock. */
const BUSY_CODES = new Set([5, 6]);

export class DatabaseLockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseLockedError';
  }
}

export const lockPathOf = (dbPath: string): string => `${dbPath}.lock`;

/** A database path that is a file (":memory:" and "" are private to their connection: nothing to lock). */
export const isFileDatabase = (dbPath: string): boolean => dbPath !== '' && dbPath !== ':memory:' && !dbPath.startsWith('file::memory:');

export class DatabaseLock {
  private readonly db: DatabaseSync;
  private released = false;

  private constructor(db: DatabaseSync) {
    this.db = db;
  }

  /** Takes the lock of `dbPath`, or throws DatabaseLockedError naming the process that holds it. */
  static acquire(dbPath: string): DatabaseLock {
    const path = lockPathOf(dbPath);
    const db = new DatabaseSync(path);
    try {
      db.exec('PRAGMA busy_timeout = 0');
      // nothing here is worth a disk flush (~10 ms of every start): the lock is the OS's, and the
      // holder's name is rewritten at each start; a process that dies leaves its writes to the OS
      db.exec('PRAGMA synchronous = OFF');
      // 1. say who holds it (committed, so a refused node can read it while we hold the write lock)
      if (!tryWriteLock(db)) throw locked(dbPath, db);
      try {
        db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, host TEXT NOT NULL, started TEXT NOT NULL, command TEXT NOT NULL)');
        db.exec('DELETE FROM holder');
        db.prepare('INSERT INTO holder (pid, host, started, command) VALUES (?, ?, ?, ?)')
          .run(process.pid, hostname(), new Date().toISOString(), process.argv.slice(1).join(' ').slice(0, 500));
        db.exec('COMMIT');
      } catch (e) {
        db.exec('ROLLBACK');
        throw e;
      }
      // 2. hold it; another node may have slipped in between the two, and then it is the holder
      if (!tryWriteLock(db)) throw locked(dbPath, db);
    } catch (e) {
      db.close();
      throw e;
    }
    return new DatabaseLock(db);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    try { this.db.exec('ROLLBACK'); } catch { /* nothing open */ }
    this.db.close();
  }
}

function tryWriteLock(db: DatabaseSync): boolean {
  try {
    db.exec('BEGIN IMMEDIATE');
    return true;
  } catch (e) {
    if (BUSY_CODES.has((e as { errcode?: number }).errcode ?? -1)) return false;
    throw e;
  }
}

function locked(dbPath: string, db: DatabaseSync): DatabaseLockedError {
  let who = 'another process';
  try {
    const row = db.prepare('SELECT pid, host, started, command FROM holder').get() as
      { pid: number; host: string; started: string; command: string } | undefined;
    if (row && row.pid !== process.pid) who = `process ${row.pid} on ${row.host} (since ${row.started}: ${row.command})`;
    else if (row) who = 'another database connection of this process';
  } catch { /* the holder is writing its name this instant */ }
  return new DatabaseLockedError(`database ${dbPath} is in use by ${who}: one node per database (stop it, or give this one another --db-path)`);
}
