// Where the faucet answers: GET or POST /friendbot?addr=G...|C..., as the public friendbots do (a
// POST may also carry `addr` as a form field). Both the standalone network's faucet and a
// follower's proxy mount there.
import type { FastifyInstance } from 'fastify';
import type { Faucet } from './faucet.ts';
import type { FaucetRateLimiter } from './rateLimit.ts';
import { clientKey } from '../transport/clientAddress.ts';

export interface FriendbotReply {
  code(n: number): FriendbotReply;
  header(name: string, value: string): FriendbotReply;
  send(b: unknown): unknown;
}
export type FriendbotHandler = (req: { query: unknown; body?: unknown; method: string; ip: string }, reply: FriendbotReply) => Promise<unknown>;

export function mountFriendbot(app: FastifyInstance, handler: FriendbotHandler): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    for (const path of ['/friendbot', '/friendbot/']) {
      scope.get(path, handler);
      scope.post(path, handler);
    }
  });
}

/**
 * The address asked for, '' when none: as Go's Request.Form, which friendbot reads, a form field in
 * the body wins over the query string's.
 */
export function requestedAddress(req: { query: unknown; body?: unknown }): string {
  for (const source of [req.body, req.query]) {
    const addr = (source as Record<string, unknown> | undefined)?.addr;
    if (typeof addr === 'string' && addr !== '') return addr;
  }
  return '';
}

/** friendbot's content types: a problem (RFC 7807) for errors, HAL for the funding transaction. */
export function contentTypeFor(status: number): string {
  return status >= 400 ? 'application/problem+json; charset=utf-8' : 'application/hal+json; charset=utf-8';
}

/**
 * The standalone network's own faucet, optionally rate-limited (see rateLimit.ts). Only funding
 * attempts (an `addr` given) count; a refused one gets Horizon's rate_limit_exceeded problem, as the
 * public friendbots answer, with Retry-After in seconds.
 */
export function registerFaucetRoutes(app: FastifyInstance, faucet: Faucet, limiter?: FaucetRateLimiter): void {
  mountFriendbot(app, async (req, reply) => {
    const addr = requestedAddress(req);
    if (limiter && addr !== '') {
      const decision = limiter.take(clientKey(req.ip));
      if (!decision.allowed) {
        return reply.code(429).header('retry-after', String(decision.retryAfterSeconds))
          .header('access-control-expose-headers', 'Retry-After') // readable by browser clients too
          .header('content-type', 'application/problem+json')
          .send({ type: 'https://stellar.org/horizon-errors/rate_limit_exceeded', title: 'Rate Limit Exceeded', status: 429, detail: decision.detail });
      }
    }
    const answer = await faucet.fund(addr);
    return reply.code(answer.status).header('content-type', contentTypeFor(answer.status)).send(answer.body);
  });
}
