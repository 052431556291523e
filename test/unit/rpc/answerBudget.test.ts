// The answer budget and the page built within it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AnswerBudget, RESPONSE_TOO_LARGE_CODE } from '../../../src/rpc/answerBudget.ts';
import { methodCall } from '../../../src/rpc/jsonrpc.ts';
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
    assert.match(e.data!, /a result of 40 bytes does not fit: 80 of its 100-byte budget used/);
  });
});

describe('Page', () => {
  it('ends on the budget with the items that fit, as one JSON array with the envelope around it', () => {
    const budget = new AnswerBudget(10);
    const page = new Page(call(budget));
    assert.equal(page.add('"abcd"'), true);     // 6 bytes
    assert.equal(page.hasRoom(), true);
    assert.equal(page.add('"ef"'), true);       // 4 bytes: 10 in all
    assert.equal(page.hasRoom(), false);
    assert.equal(page.cut, true);
    const answer = page.answer('{"items":', ',"cursor":"2"}');
    assert.equal(answer.text(), '{"items":["abcd","ef"],"cursor":"2"}');
    assert.equal(answer.bytes, Buffer.byteLength(answer.text()));
  });

  it('measures UTF-8 bytes, text and encoded pieces alike', () => {
    const page = new Page(call(new AnswerBudget(0)));
    page.add(['{"v":', new Uint8Array(Buffer.from('"é€"')), '}']);
    page.add('"ü"');
    const answer = page.answer('[', ']');
    assert.equal(answer.text(), '[[{"v":"é€"},"ü"]]');
    assert.equal(answer.bytes, Buffer.byteLength(answer.text()));
  });

  it('is an error when another batch element spent the budget first', () => {
    const budget = new AnswerBudget(10);
    new Page(call(budget)).add('"0123456789abc"');
    const second = new Page(call(budget));
    assert.throws(() => second.hasRoom(), (e: unknown) => e instanceof RpcError && e.code === RESPONSE_TOO_LARGE_CODE);
  });
});
