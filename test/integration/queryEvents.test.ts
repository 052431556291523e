// queryEvents over HTTP against the node as a process: its events are getEvents' events (same ranges,
// equivalent filters, both orders; getEvents' descending order is our extension), every scanStatus,
// a cursor reused after new ledgers and after a restart with a shorter window, each error reason,
// xdrFormat json. Raw JSON-RPC: the newest JS SDK the registry serves (17.2.0) has no queryEvents
// (it came with 17.4.0). Events come from the network itself: faucet fundings and payments (native
// asset contract transfers and fee events) and two instances of the counter contract.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, xdr, type rpc } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { addr, fundedAccount, invoke, invokeOp, server, startContractNode, sym, u32, uploadAndDeploy } from './support/contracts.ts';
import { builder, submit } from './support/sdk.ts';

const b64 = (v: xdr.ScVal): string => v.toXDR('base64');

/** One getEvents filter and the queryEvents filter meaning the same (getEvents' topics end with `**`). */
interface FilterPair { name: string; get: unknown[]; query: unknown[] | undefined }

describe('queryEvents over JSON-RPC', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let start: number;
  let kp: Keypair;
  let counter: string;
  let other: string;
  let pairs: FilterPair[];

  const result = async (method: string, params: unknown): Promise<any> => {
    const r = await node.rpc(method, params);
    assert.ok(r.result, `${method} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
    return r.result;
  };
  const error = async (params: unknown): Promise<any> => {
    const r = await node.rpc('queryEvents', params);
    assert.ok(r.error, `queryEvents ${JSON.stringify(params)} was answered: ${JSON.stringify(r.result)?.slice(0, 200)}`);
    return r.error;
  };
  const latest = async (): Promise<number> => (await result('getLatestLedger', {})).sequence;
  const pay = async (to: string) => {
    const tx = (await builder(s, kp)).addOperation(Operation.payment({ destination: to, asset: Asset.native(), amount: '1' })).build();
    tx.sign(kp);
    assert.equal((await submit(s, tx)).done.status, 'SUCCESS');
  };

  /** getEvents' events of [min, max] in one page (the test's ranges are far below its 10,000 limit). */
  async function viaGetEvents(min: number, max: number, filters: unknown[], order: 'asc' | 'desc', xdrFormat = 'base64'): Promise<any[]> {
    const page = await result('getEvents', { startLedger: min, endLedger: max + 1, filters, xdrFormat, pagination: { limit: 10_000, order } });
    return page.events;
  }

  /** queryEvents paged with cursors until it stops; every page's cursor and status are returned too. */
  async function viaQueryEvents(params: Record<string, unknown>, limit: number): Promise<{ events: any[]; pages: any[] }> {
    const events: any[] = [];
    const pages: any[] = [];
    let page = await result('queryEvents', { ...params, limit });
    for (;;) {
      pages.push(page);
      events.push(...page.events);
      if (page.scanStatus !== 'HAS_MORE') return { events, pages };
      assert.ok(pages.length < 500, 'too many pages');
      page = await result('queryEvents', { cursor: page.cursor, limit, xdrFormat: params.xdrFormat });
    }
  }

  before(async () => {
    node = await startContractNode();
    s = server(node.url);
    start = await latest();
    kp = await fundedAccount(node.url);
    counter = (await uploadAndDeploy(s, kp, 'counter')).contractId;
    other = (await uploadAndDeploy(s, kp, 'counter')).contractId;
    for (const by of [3, 1, 4]) await invoke(s, kp, invokeOp(counter, 'increment', u32(by)));
    const friend = await fundedAccount(node.url);
    await pay(friend.publicKey());
    await invoke(s, kp, invokeOp(other, 'increment', u32(100)));
    await pay(friend.publicKey());
    await invoke(s, kp, invokeOp(counter, 'increment', u32(1)));
    const incr = b64(sym('incr'));
    pairs = [
      { name: 'no filter', get: [], query: undefined },
      { name: 'one contract', get: [{ type: 'contract', contractIds: [counter] }], query: [{ type: 'contract', contractId: counter }] },
      { name: 'topic 0', get: [{ topics: [[b64(sym('counter')), '**']] }], query: [{ topic0: b64(sym('counter')) }] },
      {
        name: 'two filters: a contract with topic 1, and native transfers',
        get: [{ contractIds: [other], topics: [['*', incr, '**']] }, { topics: [[b64(sym('transfer')), '**']] }],
        query: [{ contractId: other, topic1: incr }, { topic0: b64(sym('transfer')) }],
      },
      { name: 'fee events of one account', get: [{ topics: [[b64(sym('fee')), b64(addr(kp.publicKey())), '**']] }], query: [{ topic0: b64(sym('fee')), topic1: b64(addr(kp.publicKey())) }] },
      { name: 'system events', get: [{ type: 'system' }], query: [{ type: 'system' }] },
    ];
  });
  after(async () => { await node?.stop(); });

  it('the events of getEvents, over the same ranges and filters, in both orders, paged three at a time', async () => {
    const end = await latest();
    let compared = 0;
    for (const p of pairs) {
      for (const [min, max] of [[start, end], [start + 3, end - 2]]) {
        for (const order of ['asc', 'desc'] as const) {
          const expected = await viaGetEvents(min, max, p.get, order);
          const params: Record<string, unknown> = { minLedger: min, maxLedger: max, order };
          if (p.query) params.filters = p.query;
          const { events, pages } = await viaQueryEvents(params, 3);
          assert.deepEqual(events, expected, `${p.name}, ${order}, ${min}..${max}`);
          assert.equal(pages.at(-1).scanStatus, 'COMPLETE');
          assert.equal(pages.at(-1).cursor, undefined);
          compared += events.length;
        }
      }
    }
    const all = await viaGetEvents(start, end, [], 'asc');
    assert.ok(all.length >= 20, `${all.length} events`);
    assert.ok(compared > 4 * all.length, `${compared} events compared`);
    for (const e of all) assert.equal(e.pagingToken, e.id, 'getEvents: pagingToken = id');
    const counted = (await viaGetEvents(start, end, pairs[1].get, 'asc')).length;
    assert.equal(counted, 4, 'the counter\'s four increments');
  });

  it('xdrFormat json: the same events as getEvents renders as JSON', async () => {
    const end = await latest();
    for (const order of ['asc', 'desc'] as const) {
      const expected = await viaGetEvents(start, end, pairs[3].get, order, 'json');
      const { events } = await viaQueryEvents({ minLedger: start, maxLedger: end, order, filters: pairs[3].query, xdrFormat: 'json' }, 2);
      assert.deepEqual(events, expected);
      assert.ok(events.length > 0 && 'topicJson' in events[0] && 'valueJson' in events[0]);
    }
  });

  it('waiting for ledgers: at the tip, and before the top edge closes; the same cursors return what arrived', async () => {
    const tip = await latest();
    const open = await viaQueryEvents({ minLedger: start, filters: pairs[1].query }, 100);
    const waiting = open.pages.at(-1);
    assert.equal(waiting.scanStatus, 'WAITING_FOR_LEDGERS');
    assert.ok(waiting.scannedLedger >= tip && waiting.scannedLedger === waiting.latestLedger, JSON.stringify(waiting));
    assert.equal(open.events.length, 4);
    const ahead = await result('queryEvents', { order: 'desc', minLedger: start, maxLedger: tip + 3, filters: pairs[1].query });
    assert.deepEqual([ahead.events, ahead.scanStatus, ahead.scannedLedger], [[], 'WAITING_FOR_LEDGERS', tip + 4]);
    const future = await result('queryEvents', { minLedger: tip + 1000 });
    assert.deepEqual([future.events, future.scanStatus, future.scannedLedger], [[], 'WAITING_FOR_LEDGERS', tip + 999]);

    for (const by of [5, 9]) await invoke(s, kp, invokeOp(counter, 'increment', u32(by)));
    while (await latest() < tip + 3) await new Promise((r) => setTimeout(r, 200));
    const now = await latest();
    const arrived = await viaQueryEvents({ cursor: waiting.cursor }, 100);
    const expected = (await viaGetEvents(waiting.scannedLedger + 1, now, pairs[1].get, 'asc'));
    assert.equal(expected.length, 2);
    assert.deepEqual(arrived.events.filter((e) => e.ledger <= now), expected);
    const topClosed = await viaQueryEvents({ cursor: ahead.cursor }, 100);
    assert.deepEqual(topClosed.events, await viaGetEvents(start, tip + 3, pairs[1].get, 'desc'));
    assert.ok(topClosed.events.length >= 4);
    assert.equal(topClosed.pages.at(-1).scanStatus, 'COMPLETE');
  });

  it('each error reason, with its data', async () => {
    const tip = await latest();
    const invalid = async (params: unknown, message: string) => {
      const e = await error(params);
      assert.deepEqual({ code: e.code, message: e.message, reason: e.data?.reason }, { code: -32602, message, reason: 'invalid_params' });
    };
    await invalid({ minLedger: start, topic0: 'x' }, "unknown parameter 'topic0'");
    await invalid({ minLedger: start, filters: [{ topic4: b64(sym('x')) }] }, "filters[0]: unknown field 'topic4'");
    await invalid({ cursor: 'qe1_x', order: 'desc' }, 'cursor cannot be combined with minLedger, maxLedger, order or filters: the cursor carries them');
    await invalid({ minLedger: start, limit: 1001 }, 'limit must be between 1 and 1000');
    await invalid({ maxLedger: tip }, 'minLedger is required in ascending order');
    await invalid([start], 'invalid parameters: params must be an object; positional (array) params are not supported');
    await invalid({ minLedger: 'two' }, 'invalid parameters: params.minLedger must be integer');
    const budget = await error({ minLedger: start, filters: Array.from({ length: 16 }, (_, i) => ({ topic0: b64(u32(i)) })) });
    assert.deepEqual(budget.data, { reason: 'invalid_params', termsUsed: 16, termBudget: 15 });

    const range = await error({ order: 'desc', minLedger: tip + 50 });
    assert.equal(range.code, -32602);
    assert.equal(range.data.reason, 'ledger_out_of_range');
    assert.equal(range.data.missingLedger, tip + 50);
    assert.ok(range.data.latestLedger >= tip && range.data.oldestLedger <= start, JSON.stringify(range.data));

    const getEventsCursor = (await result('getEvents', { startLedger: start, pagination: { limit: 1 } })).cursor;
    for (const cursor of [getEventsCursor, 'qe1_AAAAAAAA', 'garbage']) {
      const e = await error({ cursor });
      assert.equal(e.code, -32602);
      assert.deepEqual(Object.keys(e.data), ['reason', 'oldestLedger', 'latestLedger']);
      assert.equal(e.data.reason, 'cursor_malformed');
    }
    // the answer keeps the fields' JSON types
    const page = await result('queryEvents', { minLedger: start, limit: 1 });
    assert.deepEqual(Object.fromEntries(Object.entries(page).map(([k, v]) => [k, Array.isArray(v) ? 'array' : typeof v])),
      { events: 'array', cursor: 'string', scanStatus: 'string', scannedLedger: 'number', oldestLedger: 'number', latestLedger: 'number' });
  });

  it('after a restart with a shorter window: cursors still work; OLDEST_REACHED below the window, ledger_out_of_range for ascending scans under it', async () => {
    const tip = await latest();
    const down = await result('queryEvents', { order: 'desc', minLedger: start, maxLedger: tip, limit: 1 });
    assert.equal(down.scanStatus, 'HAS_MORE');
    const up = await result('queryEvents', { minLedger: start, limit: 1 });
    assert.equal(up.scanStatus, 'HAS_MORE');
    const port = Number(new URL(node.url).port);
    await node.stop();
    node = await startContractNode(['--history-retention-window', '5'], { dbPath: node.dbPath, port });
    // the window shrinks as the next ledger is stored
    let oldest = 0;
    for (let i = 0; i < 100 && oldest <= tip - 4; i++) {
      oldest = (await result('getHealth', {})).oldestLedger;
      if (oldest <= tip - 4) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(oldest > tip - 4, `oldest ${oldest}`);
    const rest = await viaQueryEvents({ cursor: down.cursor }, 50);
    const last = rest.pages.at(-1);
    assert.equal(last.scanStatus, 'OLDEST_REACHED');
    assert.equal(last.scannedLedger, last.oldestLedger);
    for (const page of rest.pages) assert.ok(page.events.every((e: any) => e.ledger >= page.oldestLedger && e.ledger <= tip));
    const again = await result('queryEvents', { cursor: last.cursor });
    assert.deepEqual([again.events, again.scanStatus, again.cursor], [[], 'OLDEST_REACHED', last.cursor]);
    const e = await error({ cursor: up.cursor });
    assert.equal(e.data.reason, 'ledger_out_of_range');
    assert.equal(e.data.missingLedger, up.events[0].ledger);
    assert.ok(e.data.oldestLedger > up.events[0].ledger);
  });
});
