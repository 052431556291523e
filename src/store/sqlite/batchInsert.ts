// Multi-row statements: one node:sqlite call per up to 64 rows instead of one per row. Each call
// into node:sqlite costs a few microseconds of binding and crossing before SQLite does any work, and
// a busy pubnet ledger writes about a thousand rows of each kind: per row that overhead was most of
// the store write (about twice as fast per row with 64 to a call, measured).
import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** Row counts a statement is prepared for: full calls of 64, then 8s, then 1s for the rest. */
const SIZES = [64, 8, 1] as const;

export type SqlValue = number | bigint | string | Uint8Array | null;

export class BatchInsert {
  private readonly stmts = new Map<number, StatementSync>();
  private readonly db: DatabaseSync;
  private readonly sql: (values: string) => string;
  private readonly row: string;
  private readonly width: number;
  private readonly args: SqlValue[] = [];

  /**
   * `prefix`: the statement before its VALUES list ("INSERT INTO t (a, b)"), or a function making
   * the whole statement around `VALUES (...), (...)` (an upsert's ON CONFLICT clause, or VALUES
   * used as a table to select from). `width`: the values per row.
   */
  constructor(db: DatabaseSync, prefix: string | ((values: string) => string), width: number) {
    this.db = db;
    this.sql = typeof prefix === 'string' ? (values) => `${prefix} ${values}` : prefix;
    this.width = width;
    this.row = `(${Array(width).fill('?').join(', ')})`;
  }

  private stmt(rows: number): StatementSync {
    let s = this.stmts.get(rows);
    if (!s) {
      s = this.db.prepare(this.sql(`VALUES ${Array(rows).fill(this.row).join(', ')}`));
      this.stmts.set(rows, s);
    }
    return s;
  }

  /** Adds one row's values; writes when 64 rows are waiting. */
  add(...values: SqlValue[]): void {
    for (const v of values) this.args.push(v);
    if (this.args.length === SIZES[0] * this.width) this.flush();
  }

  /** Writes the rows waiting; returns the rows the statements changed. */
  flush(): number {
    let changes = 0;
    try {
      let rows = this.args.length / this.width;
      let offset = 0;
      while (rows > 0) {
        const n = SIZES.find((s) => s <= rows)!;
        changes += Number(this.stmt(n).run(...this.args.slice(offset, offset + n * this.width)).changes);
        offset += n * this.width;
        rows -= n;
      }
    } finally {
      this.args.length = 0;
    }
    return changes;
  }

  /** Drops rows not written yet (their transaction failed). */
  clear(): void { this.args.length = 0; }
}
