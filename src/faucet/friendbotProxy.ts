// A following node's /friendbot: forwards to the network's faucet and answers only once this node
// has ingested the funding ledger. Clients (the JS SDK's fundAddress) read the funding transaction
// back from the node right after the faucet answers; a node a ledger behind would say NOT_FOUND.
import type { FastifyInstance } from 'fastify';
import type { StoreReader } from '../store/types.ts';
import { mountFriendbot, requestedAddress } from './routes.ts';
import { SERVICE_ANSWER_CAP, readBodyCapped, textOf } from '../io/inputCaps.ts';

export function registerFriendbotProxy(app: FastifyInstance, opts: { upstream: string; store: StoreReader; waitMs?: number }): void {
  mountFriendbot(app, async (req, reply) => {
    const addr = requestedAddress(req);
    const url = new URL(opts.upstream);
    if (addr !== '') url.searchParams.set('addr', addr);
    let res: Response;
    try {
      res = await fetch(url, { method: req.method === 'POST' ? 'POST' : 'GET', signal: AbortSignal.timeout(30_000) });
    } catch (e) {
      return reply.code(502).send({ status: 502, title: 'friendbot unreachable', detail: (e as Error).message });
    }
    let text: string;
    try {
      text = textOf(await readBodyCapped(res, SERVICE_ANSWER_CAP, `the faucet's answer (${url.origin})`));
    } catch (e) {
      return reply.code(502).send({ status: 502, title: 'friendbot answer unreadable', detail: (e as Error).message });
    }
    let body: unknown = text;
    try { body = JSON.parse(text); } catch { /* not JSON: pass it on as is */ }
    const ledger = (body as { ledger?: unknown })?.ledger;
    if (res.ok && typeof ledger === 'number') await waitForLedger(opts.store, ledger, opts.waitMs ?? 15_000);
    return reply.code(res.status).send(body);
  });
}

async function waitForLedger(store: StoreReader, ledger: number, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  while ((store.ledgerRange()?.latest.sequence ?? 0) < ledger && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
  }
}
