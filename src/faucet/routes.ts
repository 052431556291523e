// Where the faucet answers: GET or POST /friendbot?addr=G..., as the public friendbots do. Both the
// standalone network's faucet and a follower's proxy mount there.
import type { FastifyInstance } from 'fastify';
import type { Faucet } from './faucet.ts';

export interface FriendbotReply { code(n: number): { send(b: unknown): unknown } }
export type FriendbotHandler = (req: { query: unknown; method: string }, reply: FriendbotReply) => Promise<unknown>;

export function mountFriendbot(app: FastifyInstance, handler: FriendbotHandler): void {
  for (const path of ['/friendbot', '/friendbot/']) {
    app.get(path, handler);
    app.post(path, handler);
  }
}

/** The standalone network's own faucet. */
export function registerFaucetRoutes(app: FastifyInstance, faucet: Faucet): void {
  mountFriendbot(app, async (req, reply) => {
    const addr = (req.query as Record<string, unknown>)?.addr;
    const answer = await faucet.fund(typeof addr === 'string' ? addr : '');
    return reply.code(answer.status).send(answer.body);
  });
}
