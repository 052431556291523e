// Read access to a tree of files addressed by relative keys ("FFFFFFFF--0-63999/FFFFFFFF--0.xdr.zst",
// ".well-known/stellar-history.json"): a local folder, or a bucket over HTTPS. Datastores and history
// archives are both read through this. Public buckets only: gs:// and s3:// URLs are mapped to their
// anonymous HTTPS endpoints (no request signing).
import { open, readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputTooLargeError, inputCap, readBodyCapped, readFileCapped, type ByteCap } from './inputCaps.ts';

export interface ObjectStore {
  readonly description: string;
  /**
   * The object's bytes, or undefined when it does not exist (any other failure throws). An object
   * larger than the store's cap (--max-input-bytes) is refused while it is read (InputTooLargeError).
   */
  get(key: string): Promise<Uint8Array | undefined>;
  /**
   * The object's bytes as a stream of chunks, or undefined when it does not exist: for objects too
   * large to hold in memory (history-archive buckets run to gigabytes). Optional; callers fall back to get().
   */
  stream?(key: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** Whether the object exists, without fetching it (a HEAD, a stat). Optional; callers fall back to get(). */
  exists?(key: string): Promise<boolean>;
  /**
   * The names directly under a folder key ("" for the root; sub-folders end in "/"), or undefined
   * when there is no such folder. Only stores that list cheaply have it (a local folder).
   */
  list?(folder: string): Promise<string[] | undefined>;
}

export interface HttpOptions {
  /** Per request, milliseconds. */
  timeoutMs?: number;
  /** Retries of a failed request (network error, 5xx, 429), with backoff. Not-found is not retried. */
  retries?: number;
}

/**
 * A store from a location: a folder path, file://, http(s)://, gs://bucket/prefix or s3://bucket/prefix.
 * `cap`: the most bytes get() takes of one object.
 */
export function openObjectStore(location: string, http: HttpOptions = {}, cap: ByteCap = inputCap()): ObjectStore {
  if (/^https?:\/\//i.test(location)) return new HttpObjectStore(location, http, undefined, cap);
  const gs = /^gs:\/\/([^/]+)\/?(.*)$/i.exec(location);
  if (gs) return new HttpObjectStore(`https://storage.googleapis.com/${gs[1]}/${gs[2]}`, http, location, cap);
  const s3 = /^s3:\/\/([^/]+)\/?(.*)$/i.exec(location);
  if (s3) return new HttpObjectStore(`https://${s3[1]}.s3.amazonaws.com/${s3[2]}`, http, location, cap);
  if (/^file:\/\//i.test(location)) return new FolderObjectStore(new URL(location).pathname, cap);
  return new FolderObjectStore(location, cap);
}

export class FolderObjectStore implements ObjectStore {
  readonly description: string;
  private readonly root: string;
  private readonly cap: ByteCap;
  constructor(root: string, cap: ByteCap = inputCap()) {
    this.root = resolve(root);
    this.description = this.root;
    this.cap = cap;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const path = join(this.root, key);
    try {
      return await readFileCapped(path, this.cap);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async stream(key: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    try {
      const handle = await open(join(this.root, key));
      return handle.createReadStream({ highWaterMark: 1 << 20 });  // closes the handle at end or error
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      return (await stat(join(this.root, key))).isFile();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw e;
    }
  }

  async list(folder: string): Promise<string[] | undefined> {
    try {
      const entries = await readdir(join(this.root, folder), { withFileTypes: true });
      return entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw e;
    }
  }
}

export class HttpObjectStore implements ObjectStore {
  readonly description: string;
  private readonly base: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly cap: ByteCap;

  constructor(base: string, opts: HttpOptions = {}, description?: string, cap: ByteCap = inputCap()) {
    this.base = base.endsWith('/') ? base : `${base}/`;
    this.description = description ?? base;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.retries = opts.retries ?? 3;
    this.cap = cap;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const found = await this.request('GET', key);
    if (!found) return undefined;
    try {
      return await readBodyCapped(found.res, this.cap, found.url);
    } catch (e) {
      if (e instanceof InputTooLargeError) throw e;
      throw new Error(`GET ${found.url}: ${(e as Error).message}`);
    } finally {
      found.done();
    }
  }

  /**
   * Retries apply until the response starts; after that a failure ends the stream with an error. The
   * timeout is per chunk (idle time), not for the whole body, which may take minutes for a large bucket.
   */
  async stream(key: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    const found = await this.request('GET', key);
    if (!found) return undefined;
    const { res, url, touch, done } = found;
    return (async function* idleTimed() {
      try {
        for await (const chunk of res.body!) {
          touch();
          yield chunk;
        }
      } catch (e) {
        throw new Error(`GET ${url}: ${(e as Error).message}`);
      } finally {
        done();
      }
    })();
  }

  /** A HEAD request, retried like get(). */
  async exists(key: string): Promise<boolean> {
    const found = await this.request('HEAD', key);
    found?.done();
    return found !== undefined;
  }

  /**
   * The object's response, or undefined when it is absent (404; buckets that hide absence answer
   * 403). Network errors, 5xx and 429 are retried with backoff. The request is aborted after
   * `timeoutMs` without progress: `touch()` (data arrived) pushes that deadline on, `done()` ends it.
   */
  private async request(method: 'GET' | 'HEAD', key: string): Promise<{ res: Response; url: string; touch(): void; done(): void } | undefined> {
    const url = this.urlOf(key);
    let lastError: unknown;
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 5000)));
      const abort = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const touch = () => {
        clearTimeout(timer);
        timer = setTimeout(() => abort.abort(new Error(`no data for ${this.timeoutMs} ms`)), this.timeoutMs);
      };
      const done = () => clearTimeout(timer);
      touch();
      try {
        const res = await fetch(url, { method, signal: abort.signal });
        if (res.status === 404 || res.status === 403) { done(); await res.body?.cancel(); return undefined; }
        if (res.ok) return { res, url, touch, done };
        done();
        await res.body?.cancel();
        lastError = new Error(`${method} ${url}: HTTP ${res.status}`);
        if (res.status < 500 && res.status !== 429) break;
      } catch (e) {
        done();
        lastError = new Error(`${method} ${url}: ${(e as Error).message}`);
      }
    }
    throw lastError;
  }

  private urlOf(key: string): string {
    return this.base + key.split('/').map(encodeURIComponent).join('/');
  }
}
