// Where the faucet answers: GET or POST /friendbot?addr=G..., as the public friendbots do. Both the
// standalone network's faucet and a follower's proxy mount there.
import type { FastifyInstance } from 'fastify';
import type { Faucet } from './faucet.ts';
import { clientKey, type FaucetRateLimiter } from './rateLimit.ts';

export interface FriendbotReply {
  code(n: number): FriendbotReply;
  header(name: string, value: string): FriendbotReply;
  send(b: unknown): unknown;
}
export type FriendbotHandler = (req: { query: unknown; method: string; ip: string }, reply: FriendbotReply) => Promise<unknown>;

export function mountFriendbot(app: FastifyInstance, handler: FriendbotHandler): void {
  for (const path of ['/friendbot', '/friendbot/']) {
    app.get(path, handler);
    app.post(path, handler);
  }
}

/**
 * The standalone network's own faucet, optionally rate-limited (see rateLimit.ts). Only funding
 * attempts (an `addr` given) count; a refused one gets Horizon's rate_limit_exceeded problem, as the
 * public friendbots answer, with Retry-After in seconds.
 */
export function registerFaucetRoutes(app: FastifyInstance, faucet: Faucet, limiter?: FaucetRateLimiter): void {
  mountFriendbot(app, async (req, reply) => {
    const addr = (req.query as Record<string, unknown>)?.addr;
    if (limiter && typeof addr === 'string' && addr !== '') {
      const decision = limiter.take(clientKey(req.ip));
      if (!decision.allowed) {
        return reply.code(429).header('retry-after', String(decision.retryAfterSeconds))
          .header('access-control-expose-headers', 'Retry-After') // readable by browser clients too
          .header('content-type', 'application/problem+json')
          .send({ type: 'https://stellar.org/horizon-errors/rate_limit_exceeded', title: 'Rate Limit Exceeded', status: 429, detail: decision.detail });
      }
    }
    const answer = await faucet.fund(typeof addr === 'string' ? addr : '');
    return reply.code(answer.status).send(answer.body);
  });
}
