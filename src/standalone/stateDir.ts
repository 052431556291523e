// The one folder a request may make the node write into (--state-dir), for states too big for an
// answer. A request names a file, never a path: a plain name (letters, digits, '.', '_', '-'; not
// starting with '.'), so no traversal and no absolute path can be said. The file is written beside
// its final name and linked into place, which neither follows a symlink nor replaces an existing file;
// replacing one must be asked for (a rename, which replaces the name itself, never what a symlink
// points to), and never replaces the node's own database files, whatever name they have there.
import { closeSync, linkSync, lstatSync, mkdirSync, openSync, realpathSync, renameSync, rmSync, constants, statSync, writeSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { lockPathOf } from '../store/sqlite/databaseLock.ts';

/** A plain file name: what a request may give. */
const PLAIN_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** A request's file that cannot be written as asked: the message says why. */
export class StateFileError extends Error {}

/** Writes a file piece by piece; `write` may be called any number of times before the end. */
export interface FileSink {
  write(text: string): void;
}

export class StateDir {
  /** The folder's real path (symlinks resolved once, at start). */
  readonly path: string;
  /** Files no name may replace: the database and its companions (compared as device and inode). */
  private readonly protectedPaths: readonly string[];

  /**
   * `folder` is made if missing. `protectedPaths`: the node's own files (database, -wal, -shm, lock),
   * checked by identity, so a hard link or another name for them in the folder is refused too.
   */
  constructor(folder: string, protectedPaths: readonly string[]) {
    mkdirSync(folder, { recursive: true });
    this.path = realpathSync(folder);
    if (!statSync(this.path).isDirectory()) throw new Error(`--state-dir ${folder} is not a folder`);
    this.protectedPaths = protectedPaths.map((p) => resolve(p));
  }

  /**
   * Writes `name` in the folder: `fill` writes the content; the file appears under its name only once
   * complete. Without `overwrite`, an existing name (a file, a symlink, anything) is refused.
   */
  async write(name: string, overwrite: boolean, fill: (sink: FileSink) => Promise<void>): Promise<string> {
    const target = this.target(name);
    const existing = lstatOrUndefined(target);
    if (existing) {
      if (!overwrite) throw new StateFileError(`${name} exists in the state folder: give overwrite: true to replace it`);
      if (existing.isDirectory()) throw new StateFileError(`${name} is a folder in the state folder`);
      if (this.isProtected(existing)) throw new StateFileError(`${name} is the node's own database: it is never replaced`);
    }
    const tmp = join(this.path, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    // O_EXCL | O_NOFOLLOW: a fresh file of ours, whatever appeared at that name meanwhile
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      await fill({ write: (text) => { writeSync(fd, text); } });
      closeSync(fd);
    } catch (e) {
      try { closeSync(fd); } catch { /* closed already */ }
      rmSync(tmp, { force: true });
      throw e;
    }
    try {
      if (overwrite) {
        // checked again just before: the name may have been given to the database meanwhile
        const now = lstatOrUndefined(target);
        if (now && this.isProtected(now)) throw new StateFileError(`${name} is the node's own database: it is never replaced`);
        renameSync(tmp, target);
      } else {
        linkSync(tmp, target); // fails with EEXIST on any existing name, a dangling symlink included
        rmSync(tmp, { force: true });
      }
    } catch (e) {
      rmSync(tmp, { force: true });
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new StateFileError(`${name} exists in the state folder: give overwrite: true to replace it`);
      throw e;
    }
    return target;
  }

  private target(name: string): string {
    if (!PLAIN_NAME.test(name)) {
      throw new StateFileError(`${JSON.stringify(name)} is not a plain file name: letters, digits, '.', '_' and '-', `
        + 'not starting with \'.\', at most 200 characters; the file goes into the node\'s --state-dir');
    }
    return join(this.path, name);
  }

  /** Read at each write: a database's -wal and -shm come and go. */
  private isProtected(s: { dev: number; ino: number }): boolean {
    return this.protectedPaths.some((p) => {
      try {
        const q = statSync(p);
        return q.dev === s.dev && q.ino === s.ino;
      } catch {
        return false;
      }
    });
  }
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** The database's files, which a state folder never replaces. */
export function databaseFiles(dbPath: string): string[] {
  return [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}-journal`, lockPathOf(dbPath)];
}
