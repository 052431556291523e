// The standalone faucet's optional rate limits, for networks shared by many people: so many funding
// requests per window per client IP address, and so many per window for everyone together.
//
// Both are token buckets (kept as GCRA: one "theoretical arrival time" per bucket): a bucket holds
// `limit` requests and refills at `limit` per window, so a fresh client may send `limit` at once and
// then one every window/limit. A refused request takes nothing from either bucket, and a request the
// per-client limit refuses does not count against the total. A bucket that has refilled completely
// is the same as a fresh one, so idle clients are dropped without changing any answer; the map of
// clients is also capped, evicting the one whose last accepted request is oldest.

export interface RateLimitOptions {
  /** Requests per window per client (0: no per-client limit). */
  perClient: number;
  /** Requests per window for all clients together (0: no overall limit). */
  total: number;
  windowSeconds: number;
  /** Most clients remembered at once (default 100,000). */
  maxClients?: number;
  /** Monotonic milliseconds (default performance.now). */
  now?: () => number;
}

export type RateLimitDecision =
  | { allowed: true }
  | { allowed: false; limit: 'client' | 'total'; retryAfterSeconds: number; detail: string };

export const DEFAULT_MAX_CLIENTS = 100_000;
const EPSILON_MS = 1e-6; // float slack: `limit` requests spaced exactly window/limit apart all pass

/** One token bucket as GCRA: `tat` is when the bucket will be full again. */
class Bucket {
  private readonly interval: number; // ms per request (window / limit)
  private readonly windowMs: number;

  constructor(limit: number, windowMs: number) {
    this.interval = windowMs / limit;
    this.windowMs = windowMs;
  }

  /** Milliseconds until a request would be accepted (0: now), given the bucket's `tat`. */
  wait(tat: number, now: number): number {
    const next = Math.max(tat, now) + this.interval;
    const over = next - now - this.windowMs;
    return over > EPSILON_MS ? over : 0;
  }

  /** The bucket's `tat` after accepting a request. */
  take(tat: number, now: number): number {
    return Math.max(tat, now) + this.interval;
  }
}

export class FaucetRateLimiter {
  private readonly perClient: number;
  private readonly total: number;
  private readonly windowSeconds: number;
  private readonly windowMs: number;
  private readonly maxClients: number;
  private readonly now: () => number;
  private readonly clientBucket: Bucket | undefined;
  private readonly totalBucket: Bucket | undefined;
  /** Client key → tat, in the order of their last accepted request (oldest first). */
  private readonly clients = new Map<string, number>();
  private totalTat = -Infinity;
  private nextSweep: number;

  constructor(opts: RateLimitOptions) {
    for (const [name, v] of [['perClient', opts.perClient], ['total', opts.total]] as const) {
      if (!Number.isInteger(v) || v < 0) throw new RangeError(`faucet rate limit ${name} must be a non-negative integer, got ${v}`);
    }
    if ((opts.perClient > 0 || opts.total > 0) && !(opts.windowSeconds > 0 && Number.isFinite(opts.windowSeconds))) {
      throw new RangeError(`faucet rate limit window must be a positive number of seconds, got ${opts.windowSeconds}`);
    }
    const maxClients = opts.maxClients ?? DEFAULT_MAX_CLIENTS;
    if (!Number.isInteger(maxClients) || maxClients < 1) throw new RangeError(`maxClients must be a positive integer, got ${maxClients}`);
    this.perClient = opts.perClient;
    this.total = opts.total;
    this.windowSeconds = opts.windowSeconds;
    this.windowMs = opts.windowSeconds * 1000;
    this.maxClients = maxClients;
    this.now = opts.now ?? (() => performance.now());
    this.clientBucket = opts.perClient > 0 ? new Bucket(opts.perClient, this.windowMs) : undefined;
    this.totalBucket = opts.total > 0 ? new Bucket(opts.total, this.windowMs) : undefined;
    this.nextSweep = this.now() + this.windowMs;
  }

  /** True when either limit is on. */
  get enabled(): boolean { return this.clientBucket !== undefined || this.totalBucket !== undefined; }

  /** Clients currently remembered. */
  get clientCount(): number { return this.clients.size; }

  /** Counts one funding request from `client` (see clientKey) if both limits allow it. */
  take(client: string): RateLimitDecision {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now);
    const clientTat = this.clients.get(client) ?? -Infinity;
    const clientWait = this.clientBucket ? this.clientBucket.wait(clientTat, now) : 0;
    const totalWait = this.totalBucket ? this.totalBucket.wait(this.totalTat, now) : 0;
    // both refusing: name the one that lasts longer, so the client's retry is not refused again
    if (clientWait > 0 || totalWait > 0) return clientWait >= totalWait ? this.refuse('client', clientWait) : this.refuse('total', totalWait);
    if (this.totalBucket) this.totalTat = this.totalBucket.take(this.totalTat, now);
    if (this.clientBucket) {
      this.clients.delete(client); // re-inserted last: the map stays in last-accepted order
      this.clients.set(client, this.clientBucket.take(clientTat, now));
      if (this.clients.size > this.maxClients) this.clients.delete(this.clients.keys().next().value!);
    }
    return { allowed: true };
  }

  /** Drops the clients whose buckets are full again (they would be answered as fresh ones). */
  private sweep(now: number): void {
    for (const [client, tat] of this.clients) if (tat <= now) this.clients.delete(client);
    this.nextSweep = now + this.windowMs;
  }

  private refuse(limit: 'client' | 'total', waitMs: number): RateLimitDecision {
    const retryAfterSeconds = Math.max(1, Math.ceil(waitMs / 1000 - EPSILON_MS));
    const window = `${this.windowSeconds} second${this.windowSeconds === 1 ? '' : 's'}`;
    const which = limit === 'client'
      ? `this client's limit of ${this.perClient} funding request${this.perClient === 1 ? '' : 's'} per ${window} per IP address`
      : `the faucet's overall limit of ${this.total} funding request${this.total === 1 ? '' : 's'} per ${window} for all clients`;
    return {
      allowed: false, limit, retryAfterSeconds,
      detail: `friendbot rate limit exceeded: ${which} is used up; retry in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}`,
    };
  }
}
