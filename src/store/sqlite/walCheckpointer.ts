// Checkpoints the write-ahead log from a thread of its own. SQLite's automatic checkpoint runs inside
// the COMMIT that crosses its threshold: it copies the log into the database file and waits for the
// disk (fsync), on the thread that ingests and serves. Measured on a follower of pubnet ledgers,
// that was about a quarter of the store write's time. Here the writer only notes each commit; a
// worker thread with its own connection runs PASSIVE checkpoints (they never block the writer or the
// readers) as commits come, on the other core. The writer keeps a far larger automatic threshold as
// a backstop, should this thread fall behind.
import { Worker } from 'node:worker_threads';

/** Int32 slots shared with the worker. */
const COMMITS = 0;
const STOP = 1;
const CLOSED = 2;
/** Set by the thread once its connection is open and it waits for commits. */
const RUNNING = 3;
/** The longest close() waits for a checkpoint in progress to finish. */
const CLOSE_WAIT_MS = 5000;

// CommonJS evaluated in the worker: the same from the sources and from the bundle.
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { DatabaseSync } = require('node:sqlite');
const flags = new Int32Array(workerData.flags);
let db;
try {
  db = new DatabaseSync(workerData.path);
  db.exec('PRAGMA busy_timeout = 0');
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
  Atomics.store(flags, ${RUNNING}, 1);
  let seen = 0;
  while (Atomics.load(flags, ${STOP}) === 0) {
    Atomics.wait(flags, ${COMMITS}, seen, 1000);
    seen = Atomics.load(flags, ${COMMITS});
    if (Atomics.load(flags, ${STOP}) !== 0) break;
    try { checkpoint.get(); } catch {} // busy: the next commit tries again
  }
} finally {
  try { db && db.close(); } catch {}
  Atomics.store(flags, ${CLOSED}, 1);
  Atomics.notify(flags, ${CLOSED});
}
`;

export class WalCheckpointer {
  private readonly flags = new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT));
  private readonly path: string;
  private worker: Worker | undefined;

  constructor(path: string) { this.path = path; }

  /**
   * A transaction committed: the log has grown. The thread starts at the second commit, and copies
   * what the first logged then (SQLite's own threshold is the backstop meanwhile): starting a thread
   * costs a few ms, which at the first commit, a new database's genesis, delayed the node's first
   * answer.
   */
  committed(): void {
    if (Atomics.add(this.flags, COMMITS, 1) === 0) return;
    this.worker ??= this.start();
    Atomics.notify(this.flags, COMMITS);
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path: this.path, flags: this.flags.buffer } });
    worker.unref();
    // a thread that cannot run leaves checkpoints to SQLite's own threshold
    worker.on('error', () => { Atomics.store(this.flags, CLOSED, 1); });
    return worker;
  }

  /**
   * Stops the thread and waits (a few seconds at most) for its connection to close. A thread still
   * starting is not waited for: it starts with this thread's help, which a wait here would block
   * for the whole CLOSE_WAIT_MS (a node stopped right after its second commit: a test's network);
   * it has no checkpoint under way, and ends where it is.
   */
  close(): void {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    Atomics.store(this.flags, STOP, 1);
    Atomics.notify(this.flags, COMMITS);
    if (Atomics.load(this.flags, RUNNING) === 1) Atomics.wait(this.flags, CLOSED, 0, CLOSE_WAIT_MS);
    void worker.terminate();
  }
}
