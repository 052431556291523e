// The forked network's RPC, as a fork (--fork-url) asks it: its network, latest ledger and ledger
// entries. Every request has a time limit and is tried again a couple of times on what may pass
// (no answer, HTTP 5xx, -32603); a request that still fails rejects with a ForkRemoteError saying
// which URL, which method and what went wrong. Nothing here waits without a limit, and no answer is
// taken past the input cap (counted while it arrives: a remote sending a gigabyte costs the cap).
import { InputTooLargeError, inputCap, readBodyCapped, textOf, type ByteCap } from '../io/inputCaps.ts';

/** At most this many keys per getLedgerEntries request (the reference's limit). */
export const MAX_KEYS_PER_REQUEST = 200;

export class ForkRemoteError extends Error {
  readonly url: string;
  readonly method: string;
  /** The remote's JSON-RPC error code, when it answered one. */
  readonly code: number | undefined;
  constructor(url: string, method: string, detail: string, code?: number) {
    super(`${method} at ${url}: ${detail}`);
    this.name = 'ForkRemoteError';
    this.url = url;
    this.method = method;
    this.code = code;
  }
}

export interface RemoteNetwork { passphrase: string; protocolVersion: number; friendbotUrl?: string }
export interface RemoteLatestLedger { id: string; sequence: number; protocolVersion: number }
export interface RemoteLedger { sequence: number; ledgerCloseTime: number; headerXdr: string }
export interface RemoteEntry {
  /** LedgerKey XDR, base64, as the remote answered it. */
  key: string;
  /** LedgerEntryData XDR, base64. */
  xdr: string;
  extXdr?: string;
  lastModifiedLedgerSeq: number;
  liveUntilLedgerSeq?: number;
}
export interface RemoteEntries { entries: RemoteEntry[]; latestLedger: number }

export interface RemoteRpcOptions {
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** Attempts after the first (default 2). */
  retries?: number;
  /** Wait before the first retry, doubled for each next one (default 250 ms). */
  backoffMs?: number;
  /** The most bytes of one answer, as decoded, refused while it is read (--max-input-bytes). */
  cap?: ByteCap;
}

/** A failure another attempt may not see: the remote did not answer, answered 5xx or -32603. */
class Retryable extends Error {}

export class RemoteRpc {
  readonly url: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly cap: ByteCap;
  private nextId = 1;

  constructor(url: string, opts: RemoteRpcOptions = {}) {
    let parsed: URL;
    try { parsed = new URL(url); } catch { throw new ForkRemoteError(url, 'connect', 'not a URL'); }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ForkRemoteError(url, 'connect', 'not an http:// or https:// URL');
    this.url = url;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    this.retries = opts.retries ?? 2;
    this.backoffMs = opts.backoffMs ?? 250;
    this.cap = opts.cap ?? inputCap();
  }

  getNetwork(signal?: AbortSignal): Promise<RemoteNetwork> {
    return this.call<RemoteNetwork>('getNetwork', {}, signal, (r) => typeof r.passphrase === 'string' && typeof r.protocolVersion === 'number');
  }

  getLatestLedger(signal?: AbortSignal): Promise<RemoteLatestLedger> {
    return this.call<RemoteLatestLedger>('getLatestLedger', {}, signal, (r) => typeof r.sequence === 'number');
  }

  /** One ledger (its header and close time). */
  async getLedger(sequence: number, signal?: AbortSignal): Promise<RemoteLedger> {
    const r = await this.call<{ ledgers: RemoteLedger[] }>('getLedgers', { startLedger: sequence, pagination: { limit: 1 } }, signal,
      (x) => Array.isArray(x.ledgers));
    const ledger = r.ledgers.find((l) => l.sequence === sequence);
    if (!ledger) throw new ForkRemoteError(this.url, 'getLedgers', `ledger ${sequence} is not served`);
    return { ...ledger, ledgerCloseTime: Number(ledger.ledgerCloseTime) };
  }

  /**
   * The current entries of `keys` (base64 LedgerKey XDR), in requests of at most 200 keys; the
   * answers together (absent keys are left out, as the remote leaves them out). `ledger`: as of that
   * past ledger, for a remote that serves it.
   */
  async getLedgerEntries(keys: readonly string[], opts: { ledger?: number; signal?: AbortSignal } = {}): Promise<RemoteEntries> {
    const entries: RemoteEntry[] = [];
    let latestLedger = 0;
    for (let i = 0; i < keys.length; i += MAX_KEYS_PER_REQUEST) {
      const params: Record<string, unknown> = { keys: keys.slice(i, i + MAX_KEYS_PER_REQUEST) };
      if (opts.ledger !== undefined) params.ledger = opts.ledger;
      const r = await this.call<RemoteEntries>('getLedgerEntries', params, opts.signal,
        (x) => (x.entries === undefined || Array.isArray(x.entries)) && typeof x.latestLedger === 'number');
      entries.push(...(r.entries ?? []));
      latestLedger = Math.max(latestLedger, r.latestLedger);
    }
    return { entries, latestLedger };
  }

  /** One JSON-RPC call with the retries. */
  private async call<T>(method: string, params: object, signal: AbortSignal | undefined, valid: (r: Record<string, unknown>) => boolean): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt<T>(method, params, signal, valid);
      } catch (e) {
        if (!(e instanceof Retryable) || attempt >= this.retries || signal?.aborted) {
          if (e instanceof ForkRemoteError) throw e;
          if (signal?.aborted) throw new ForkRemoteError(this.url, method, 'the request was abandoned');
          throw new ForkRemoteError(this.url, method, `${(e as Error).message}${attempt > 0 ? ` (after ${attempt + 1} attempts)` : ''}`,
            (e as { code?: number }).code);
        }
        await sleep(this.backoffMs * 2 ** attempt, signal);
      }
    }
  }

  private async attempt<T>(method: string, params: object, signal: AbortSignal | undefined, valid: (r: Record<string, unknown>) => boolean): Promise<T> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let text: string;
    let status: number;
    try {
      const res = await fetch(this.url, {
        method: 'POST', headers: { 'content-type': 'application/json' }, signal: both,
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
      });
      status = res.status;
      text = textOf(await readBodyCapped(res, this.cap, 'its answer'));
    } catch (e) {
      // not worth another attempt: the same answer would come again
      if (e instanceof InputTooLargeError) throw new ForkRemoteError(this.url, method, e.message);
      if (timeout.aborted) throw new Retryable(`no answer within ${this.timeoutMs / 1000} s`);
      if (signal?.aborted) throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new Retryable(`no answer (${cause?.code ?? cause?.message ?? (e as Error).message})`);
    }
    if (status >= 500) throw new Retryable(`HTTP ${status}`);
    let body: unknown;
    try { body = JSON.parse(text); } catch { body = undefined; }
    if (!isObject(body) || body.jsonrpc !== '2.0' || !('result' in body || 'error' in body)) {
      throw new ForkRemoteError(this.url, method, `the answer is not JSON-RPC (HTTP ${status}: ${JSON.stringify(text.slice(0, 80))})`);
    }
    if (isObject(body.error)) {
      const code = Number(body.error.code);
      const detail = `error ${code}: ${String(body.error.message)}${body.error.data !== undefined ? ` (${JSON.stringify(body.error.data)})` : ''}`;
      if (code === -32603) throw Object.assign(new Retryable(detail), { code });
      throw new ForkRemoteError(this.url, method, detail, code);
    }
    if (!isObject(body.result) || !valid(body.result)) {
      throw new ForkRemoteError(this.url, method, `unexpected result ${JSON.stringify(body.result).slice(0, 120)}`);
    }
    return body.result as T;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
}
