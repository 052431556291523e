// The answer budget and the page built within it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AnswerBudget, RESPONSE_TOO_LARGE_CODE } from '../../../src/rpc/answerBudget.ts';
import { methodCall } from '../../../src/rpc/callScope.ts';
import { Page } from '../../../src/rpc/methods/shared/page.ts';
import { RpcError } from '../../../src/rpc/errors.ts';

const call = (budget: AnswerBudget) => methodCall(new AbortController().signal, budget);

describe('AnswerBudget', () => {
  it('takes what fits, always the first item, and nothing once an item was refused', () => {
    const b = new AnswerBudget(100);
    assert.equal(b.take(150), true, 'the first item goes in even when larger than the budget');
    assert.equal(b.take(1), false);
    assert.equal(b.spent, true);

    const c = new AnswerBudget(100);
    assert.equal(c.take(60), true);
    assert.equal(c.take(50), false, '110 > 100');
    assert.equal(c.take(10), false, 'the answer is full once an item was refused');
    assert.equal(c.used, 60);
  });

  it('0 means no limit', () => {
    const b = new AnswerBudget(0);
    for (let i = 0; i < 100; i++) assert.equal(b.take(1e9), true);
    assert.equal(b.spent, false);
  });

  it('its error is -32005 with the numbers in data', () => {
    const b = new AnswerBudget(100);
    b.take(80);
    const e = b.tooLarge(40);
    assert.equal(e.code, RESPONSE_TOO_LARGE_CODE);
    assert.equal(e.message, 'response size limit exceeded');
    assert.match(String(e.data), /a result of 40 bytes does not fit: 80 of its 100-byte budget used/);
  });
});

/** Rows handed out `n` at a time, as a store read would, counting the reads. */
function rows<R>(all: R[]) {
  let next = 0;
  const state = { reads: 0, read: (n: number): R[] => { state.reads++; const out = all.slice(next, next + n); next += out.length; return out; } };
  return state;
}

describe('Page', () => {
  it('ends on the budget with the items that fit, without rendering the next one, as one JSON array with the envelope around it', async () => {
    const page = new Page(call(new AnswerBudget(10)), 200);
    const source = rows(['"abcd"', '"ef"', '"gh"', '"ij"']);
    const rendered: string[] = [];
    const last = await page.fill(2, source.read, (r) => { rendered.push(r); return r; });
    assert.equal(last, '"ef"', '6 + 4 bytes: the budget is spent');
    assert.deepEqual(rendered, ['"abcd"', '"ef"'], 'room is asked before rendering the next row');
    assert.equal(page.full, true, 'cut by the budget');
    const answer = page.answer('{"items":', ',"cursor":"2"}');
    assert.equal(answer.text(), '{"items":["abcd","ef"],"cursor":"2"}');
    assert.equal(answer.bytes, Buffer.byteLength(answer.text()));
  });

  it('stops at its limit, when the store runs dry, and at a row it does not accept', async () => {
    const limited = new Page(call(new AnswerBudget(0)), 3);
    assert.equal(await limited.fill(2, rows([1, 2, 3, 4, 5]).read, String), 3);
    assert.equal(limited.full, true, 'full on its limit');

    const dry = new Page(call(new AnswerBudget(0)), 10);
    const source = rows([1, 2, 3]);
    assert.equal(await dry.fill(2, source.read, String), 3);
    assert.equal(source.reads, 2, 'a short read ends the page');
    assert.equal(dry.full, false, 'the data ran out');

    const bounded = new Page(call(new AnswerBudget(0)), 10);
    assert.equal(await bounded.fill(4, rows([1, 2, 3, 4, 5]).read, String, (r) => r <= 2), 2);
    assert.equal(bounded.answer('', '').text(), '[1,2]');
    assert.equal(bounded.full, false);
  });

  it('renders `ahead` rows side by side with the one awaited, keeps their order, and wastes at most that many at a cut', { timeout: 30_000 }, async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    // each render waits until the next row's render has started (or there is no next row in its chunk):
    // rendered one at a time, the page would never finish
    const waiting = new Map<number, () => void>();
    const render = (r: number): Promise<string> => new Promise((resolve) => {
      started.push(r);
      running++;
      most = Math.max(most, running);
      waiting.get(r - 1)?.();
      const done = () => { running--; resolve(`"${'x'.repeat(r)}"`); };
      if (r % 4 === 0) setImmediate(done); else waiting.set(r, done);
    });
    const page = new Page(call(new AnswerBudget(0)), 8);
    assert.equal(await page.fill(4, rows([1, 2, 3, 4, 5, 6, 7, 8]).read, render, () => true, 1), 8);
    assert.equal(page.answer('', '').text(), `[${[1, 2, 3, 4, 5, 6, 7, 8].map((r) => `"${'x'.repeat(r)}"`).join(',')}]`);
    assert.equal(most, 2, 'two renders at once');

    // a budget of 10 bytes: "x" (3), "xx" (4) fit, "xxx" (5) does not; the render of 4 started ahead is wasted
    started.length = 0;
    const cut = new Page(call(new AnswerBudget(10)), 8);
    const immediate = (r: number) => { started.push(r); return Promise.resolve(`"${'x'.repeat(r)}"`); };
    assert.equal(await cut.fill(8, rows([1, 2, 3, 4, 5, 6]).read, immediate, () => true, 1), 2);
    assert.deepEqual(started, [1, 2, 3, 4]);
  });

  it('measures UTF-8 bytes, text and encoded pieces alike', () => {
    const page = new Page(call(new AnswerBudget(0)), 10);
    page.add(['{"v":', new Uint8Array(Buffer.from('"é€"')), '}']);
    page.add('"ü"');
    const answer = page.answer('[', ']');
    assert.equal(answer.text(), '[[{"v":"é€"},"ü"]]');
    assert.equal(answer.bytes, Buffer.byteLength(answer.text()));
  });

  it('is an error, before reading or rendering anything, when another batch element spent the budget first', async () => {
    const budget = new AnswerBudget(10);
    new Page(call(budget), 10).add('"0123456789abc"');
    const source = rows(['"x"']);
    let rendered = 0;
    await assert.rejects(new Page(call(budget), 10).fill(1, source.read, (r) => { rendered++; return r; }),
      (e: unknown) => e instanceof RpcError && e.code === RESPONSE_TOO_LARGE_CODE);
    assert.equal(source.reads, 0);
    assert.equal(rendered, 0);
  });
});
