// The standalone faucet's rate limits (--friendbot-rate-limit-*), against the real server: a refused
// funding request gets HTTP 429 with Horizon's rate_limit_exceeded problem and Retry-After.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';

const fund = (node: NodeProcess, method: 'GET' | 'POST' = 'GET', addr = Keypair.random().publicKey()) =>
  fetch(`${node.url}/friendbot?addr=${addr}`, { method });

async function assertRateLimited(res: Response, limit: RegExp, windowSeconds: number): Promise<void> {
  assert.equal(res.status, 429);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const retryAfter = res.headers.get('retry-after');
  assert.match(retryAfter ?? '', /^\d+$/, 'Retry-After in whole seconds');
  assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= windowSeconds, `Retry-After ${retryAfter}`);
  assert.match(res.headers.get('access-control-expose-headers') ?? '', /retry-after/i);
  const body = (await res.json()) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body), ['type', 'title', 'status', 'detail']);
  assert.equal(body.type, 'https://stellar.org/horizon-errors/rate_limit_exceeded');
  assert.equal(body.title, 'Rate Limit Exceeded');
  assert.equal(body.status, 429);
  assert.match(body.detail as string, limit);
  assert.match(body.detail as string, new RegExp(`retry in ${retryAfter} seconds?$`));
}

describe('faucet rate limits', () => {
  let perClient: NodeProcess;
  let total: NodeProcess;
  const common = ['--close-mode', 'instant', '--log-level', 'warn'];

  before(async () => {
    [perClient, total] = await Promise.all([
      startNodeProcess({ args: [...common, '--friendbot-rate-limit-per-client', '2', '--friendbot-rate-limit-window', '60s'] }),
      startNodeProcess({ args: [...common, '--friendbot-rate-limit-total', '2', '--friendbot-rate-limit-window', '1m'] }),
    ]);
  });
  after(async () => { await Promise.all([perClient?.stop(), total?.stop()]); });

  it('per client: two accounts are funded, the third request gets 429', async () => {
    // requests without an address are no funding attempts: they do not count
    for (let i = 0; i < 3; i++) assert.equal((await fetch(`${perClient.url}/friendbot`)).status, 400);
    const a = await fund(perClient, 'GET');
    assert.equal(a.status, 200, await a.clone().text());
    assert.equal(((await a.json()) as { successful: boolean }).successful, true);
    const b = await fund(perClient, 'POST');
    assert.equal(b.status, 200, await b.text());
    await assertRateLimited(await fund(perClient, 'GET'), /per IP address/, 60);
    await assertRateLimited(await fund(perClient, 'POST'), /per IP address/, 60);
    // the refused address was not funded
    const kp = Keypair.random();
    await assertRateLimited(await fund(perClient, 'GET', kp.publicKey()), /per IP address/, 60);
    const r = await perClient.rpc('getLedgerEntries', { keys: [accountKeyXdr(kp)] });
    assert.deepEqual(r.result.entries ?? [], []);
  });

  it('total: two fundings for everyone, then 429', async () => {
    assert.equal((await fund(total)).status, 200);
    assert.equal((await fund(total, 'POST')).status, 200);
    await assertRateLimited(await fund(total), /overall limit of 2 funding requests per 60 seconds/, 60);
  });
});

function accountKeyXdr(kp: Keypair): string {
  return xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: kp.xdrAccountId() })).toXDR('base64');
}
