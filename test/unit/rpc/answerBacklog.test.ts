// Unread answers as the methods see them: a client over its share is refused (-32098, its own
// reason) except for the light methods; a heavy call it made before waits for it to read, a second
// at most; past the server's ceiling the heavy calls of calls without a client are refused too.
// The client here is a plain object standing for the transport's count (transport/connectionGuard.ts,
// driven over real sockets in test/integration/perClientLimits.test.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../../../src/config/config.ts';
import { Dispatcher } from '../../../src/rpc/jsonrpc.ts';
import { answersBacklogError, clientBacklogError, type AnswerBacklog, type CallClient } from '../../../src/rpc/answerBacklog.ts';
import { HeavyWork, SHARE_WAIT_MS } from '../../../src/rpc/heavyWork.ts';
import type { Method, MethodContext } from '../../../src/rpc/methods/types.ts';

/** A client whose share is over since `overSince` (undefined: under it), and a backlog that is `full`. */
function counts() {
  const taken: Array<() => void> = [];
  const state = { overSince: undefined as number | undefined, full: false };
  const client: CallClient = {
    key: 'a',
    overShareSince: () => state.overSince,
    refusal: () => (state.overSince !== undefined ? clientBacklogError() : state.full ? answersBacklogError() : undefined),
  };
  const backlog: AnswerBacklog = { full: () => state.full, onTaken: (fn) => { taken.push(fn); } };
  /** The client read its answers. */
  const read = () => { state.overSince = undefined; for (const fn of taken) fn(); };
  return { state, client, backlog, read };
}

describe('the dispatcher and unread answers', () => {
  const methods: Method[] = [
    { name: 'light', light: true, paramsSchema: { type: 'object' }, handler: () => 'small' },
    { name: 'other', paramsSchema: { type: 'object' }, handler: () => 'large' },
  ];
  const d = new Dispatcher({ methods, ctx: { config: defaultConfig } as unknown as MethodContext });
  const call = (method: string, client: CallClient) => JSON.parse(d.handle({ jsonrpc: '2.0', id: 1, method }, { client }) as string);

  it('a client over its share gets its own -32098 for any method but the light ones', () => {
    const { state, client } = counts();
    assert.equal(call('other', client).result, 'large');
    state.overSince = performance.now();
    assert.equal(call('light', client).result, 'small');
    assert.deepEqual(call('other', client).error, {
      code: -32098,
      message: 'answers waiting for this client exceed its share (max-queued-response-bytes-per-address); read them, then try again',
    });
  });

  it('past the server\'s ceiling the light methods still answer, the others say why not', () => {
    const { state, client } = counts();
    state.full = true;
    assert.equal(call('light', client).result, 'small');
    assert.match(call('other', client).error.message, /exceed the server's limit \(max-queued-response-bytes\)/);
  });
});

describe('heavy work and unread answers', () => {
  const signal = new AbortController().signal;

  it('a call whose client goes over its share waits, and builds once the client has read', async () => {
    const { state, client, backlog, read } = counts();
    const heavy = new HeavyWork({ concurrency: 2, jsonThreads: 1, backlog });
    try {
      state.overSince = performance.now();
      let built = false;
      const running = heavy.run({ signal, client }, async () => { built = true; return 'page'; });
      await new Promise((r) => setImmediate(r));
      assert.equal(built, false, 'not while its client holds its share');
      assert.equal(heavy.gate.waiting, 1);
      read();
      assert.equal(await running, 'page');
    } finally {
      await heavy.close();
    }
  });

  it('a client that does not read within the wait is refused with its own reason', async () => {
    const { state, client, backlog } = counts();
    const heavy = new HeavyWork({ concurrency: 2, jsonThreads: 1, backlog });
    try {
      state.overSince = performance.now();
      const t = performance.now();
      await assert.rejects(heavy.run({ signal, client }, async () => 'page'), /exceed its share/);
      assert.ok(performance.now() - t >= SHARE_WAIT_MS - 50, 'it waited for the client first');
      assert.equal(heavy.gate.running, 0);
    } finally {
      await heavy.close();
    }
  });

  it('past the server\'s ceiling a heavy call is refused, with a client or without', async () => {
    const { state, client, backlog } = counts();
    const heavy = new HeavyWork({ concurrency: 2, jsonThreads: 1, backlog });
    try {
      state.full = true;
      await assert.rejects(heavy.run({ signal, client }, async () => 'page'), /exceed the server's limit/);
      await assert.rejects(heavy.run({ signal }, async () => 'page'), /exceed the server's limit/);
      state.full = false;
      assert.equal(await heavy.run({ signal }, async () => 'page'), 'page');
    } finally {
      await heavy.close();
    }
  });
});
