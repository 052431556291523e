import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FaucetRateLimiter, type RateLimitDecision, type RateLimitOptions } from '../../../src/faucet/rateLimit.ts';

/** A limiter on a hand-moved clock (milliseconds). */
function limiter(opts: Partial<RateLimitOptions>) {
  const clock = { t: 1_000_000 };
  const l = new FaucetRateLimiter({ perClient: 0, total: 0, windowSeconds: 60, now: () => clock.t, ...opts });
  return { l, clock, advance: (seconds: number) => { clock.t += seconds * 1000; } };
}

function refused(d: RateLimitDecision) {
  assert.equal(d.allowed, false, 'expected a refusal');
  return d as Extract<RateLimitDecision, { allowed: false }>;
}

test('per client: the limit at once, then refused with the wait for the next token; other clients unaffected', () => {
  const { l, advance } = limiter({ perClient: 2, windowSeconds: 60 });
  assert.deepEqual(l.take('1.1.1.1'), { allowed: true });
  assert.deepEqual(l.take('1.1.1.1'), { allowed: true });
  const r = refused(l.take('1.1.1.1'));
  assert.equal(r.limit, 'client');
  assert.equal(r.retryAfterSeconds, 30, 'a bucket of 2 per 60 s refills one every 30 s');
  assert.match(r.detail, /2 funding requests per 60 seconds per IP address/);
  assert.match(r.detail, /retry in 30 seconds/);
  assert.deepEqual(l.take('2.2.2.2'), { allowed: true });
  advance(10);
  assert.equal(refused(l.take('1.1.1.1')).retryAfterSeconds, 20);
  advance(19.5);
  assert.equal(refused(l.take('1.1.1.1')).retryAfterSeconds, 1, 'rounded up, never 0');
  advance(0.5);
  assert.deepEqual(l.take('1.1.1.1'), { allowed: true }, 'retrying after Retry-After works');
  refused(l.take('1.1.1.1'));
  advance(60);
  assert.deepEqual(l.take('1.1.1.1'), { allowed: true });
  assert.deepEqual(l.take('1.1.1.1'), { allowed: true }, 'a whole window idle refills the whole bucket');
  refused(l.take('1.1.1.1'));
});

test('refused requests take nothing: hammering does not push the retry time back', () => {
  const { l, advance } = limiter({ perClient: 1, windowSeconds: 10 });
  assert.equal(l.take('a').allowed, true);
  for (let i = 0; i < 9; i++) { advance(1); refused(l.take('a')); }
  advance(1);
  assert.equal(l.take('a').allowed, true);
});

test('uneven rates: limit requests spaced exactly window/limit apart all pass', () => {
  const { l, advance } = limiter({ perClient: 7, windowSeconds: 60 });
  for (let i = 0; i < 7; i++) assert.equal(l.take('a').allowed, true);
  for (let i = 0; i < 70; i++) {
    refused(l.take('a'));
    advance(60 / 7);
    assert.equal(l.take('a').allowed, true, `request ${i}`);
  }
});

test('total: shared by all clients, with its own detail', () => {
  const { l, advance } = limiter({ total: 3, windowSeconds: 30 });
  for (const c of ['a', 'b', 'c']) assert.equal(l.take(c).allowed, true);
  const r = refused(l.take('d'));
  assert.equal(r.limit, 'total');
  assert.equal(r.retryAfterSeconds, 10);
  assert.match(r.detail, /overall limit of 3 funding requests per 30 seconds for all clients/);
  assert.equal(l.clientCount, 0, 'no per-client limit: no clients remembered');
  advance(10);
  assert.equal(l.take('d').allowed, true);
  refused(l.take('e'));
});

test('both: a request refused per client does not count against the total; the longer wait is named', () => {
  const { l, advance } = limiter({ perClient: 1, total: 2, windowSeconds: 60 });
  assert.equal(l.take('a').allowed, true);
  assert.equal(refused(l.take('a')).limit, 'client');
  assert.equal(refused(l.take('a')).limit, 'client');
  assert.equal(l.take('b').allowed, true, 'a\'s refusals took nothing from the total');
  const r = refused(l.take('c'));
  assert.equal(r.limit, 'total');
  assert.equal(r.retryAfterSeconds, 30);
  advance(30);
  // the total has its next token now, a's own bucket only in 30 s more: the client limit is named
  const a = refused(l.take('a'));
  assert.equal(a.limit, 'client');
  assert.equal(a.retryAfterSeconds, 30);
  assert.equal(l.take('c').allowed, true);
  // d is fresh: only the total (used up again by c) refuses it
  assert.equal(refused(l.take('d')).limit, 'total');
});

test('both refusing: Retry-After is the longer wait', () => {
  const { l } = limiter({ perClient: 1, total: 1, windowSeconds: 60 });
  assert.equal(l.take('a').allowed, true);
  const r = refused(l.take('a'));
  assert.equal(r.retryAfterSeconds, 60);
  const { l: l2, advance } = limiter({ perClient: 2, total: 1, windowSeconds: 60 });
  assert.equal(l2.take('a').allowed, true);
  assert.equal(l2.take('a').allowed, false);
  advance(59);
  // a's own bucket has a token; the total's next one is in 1 s
  const r2 = refused(l2.take('a'));
  assert.equal(r2.limit, 'total');
  assert.equal(r2.retryAfterSeconds, 1);
});

test('memory: idle clients are dropped after a window, and the map is capped (oldest evicted)', () => {
  const { l, advance } = limiter({ perClient: 2, windowSeconds: 60, maxClients: 3 });
  for (const c of ['a', 'b', 'c']) assert.equal(l.take(c).allowed, true);
  assert.equal(l.take('a').allowed, true); // a is now the most recent
  assert.equal(l.clientCount, 3);
  assert.equal(l.take('d').allowed, true);
  assert.equal(l.clientCount, 3, 'capped');
  // b was the oldest: it was evicted and starts afresh (2 more); a was kept (refused)
  assert.equal(l.take('b').allowed, true);
  assert.equal(l.take('b').allowed, true);
  refused(l.take('b'));
  refused(l.take('a'));

  const idle = limiter({ perClient: 1, windowSeconds: 60 });
  for (let i = 0; i < 1000; i++) idle.l.take(`10.0.${i >> 8}.${i & 255}`);
  assert.equal(idle.l.clientCount, 1000);
  idle.advance(30);
  idle.l.take('x');
  assert.equal(idle.l.clientCount, 1001, 'not yet a window idle');
  idle.advance(31);
  idle.l.take('y');
  assert.equal(idle.l.clientCount, 2, 'the 1000 idle buckets were full again and dropped; x and y remain');
  refused(idle.l.take('x'));
});

test('the default cap is 100k clients', () => {
  const { l } = limiter({ perClient: 1 });
  for (let i = 0; i < 100_010; i++) l.take(`c${i}`);
  assert.equal(l.clientCount, 100_000);
  assert.equal(l.take('c5').allowed, true, 'among the oldest: evicted, so fresh');
  refused(l.take('c100009'));
});

test('off and invalid settings', () => {
  const { l } = limiter({});
  assert.equal(l.enabled, false);
  for (let i = 0; i < 1000; i++) assert.equal(l.take('a').allowed, true);
  assert.throws(() => new FaucetRateLimiter({ perClient: 1, total: 0, windowSeconds: 0 }), /window must be a positive number/);
  assert.throws(() => new FaucetRateLimiter({ perClient: -1, total: 0, windowSeconds: 60 }), /perClient must be a non-negative integer/);
  assert.throws(() => new FaucetRateLimiter({ perClient: 0, total: 1.5, windowSeconds: 60 }), /total must be a non-negative integer/);
  assert.doesNotThrow(() => new FaucetRateLimiter({ perClient: 0, total: 0, windowSeconds: 0 }), 'off: the window does not matter');
});

test('the detail says singular when it is', () => {
  const { l } = limiter({ perClient: 1, windowSeconds: 1 });
  l.take('a');
  const r = refused(l.take('a'));
  assert.match(r.detail, /limit of 1 funding request per 1 second per IP address is used up; retry in 1 second$/);
});

