// Logger formats and the per-request log lines.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, formatTextLine } from '../../../src/log.ts';
import { rpc, startServer } from './support.ts';

describe('createLogger', () => {
  it('writes logfmt-style text lines', () => {
    const lines: string[] = [];
    const log = createLogger({ logLevel: 'info', logFormat: 'text' }, { write: (s) => { lines.push(s); } });
    log.info({ method: 'getHealth', status: 'ok', n: 3, note: 'two words' }, 'finished JSONRPC request');
    log.debug('hidden');
    log.warn('value %d', 5);
    log.child({ subsys: 'ingest' }).error({ err: new Error('disk full') }, 'commit failed');
    assert.equal(lines.length, 3);
    assert.match(lines[0], /^time="\d{4}-\d\d-\d\dT[\d:.]+Z" level=info msg="finished JSONRPC request" method=getHealth status=ok n=3 note="two words"\n$/);
    assert.match(lines[1], /^time="[^"]+" level=warn msg="value 5"\n$/);
    assert.match(lines[2], /^time="[^"]+" level=error msg="commit failed" subsys=ingest error="disk full" stack="Error: disk full/);
  });

  it('writes pino JSON lines', () => {
    const lines: string[] = [];
    const log = createLogger({ logLevel: 'debug', logFormat: 'json' }, { write: (s) => { lines.push(s); } });
    log.debug({ a: 1 }, 'hello');
    log.trace('hidden');
    assert.equal(lines.length, 1);
    const rec = JSON.parse(lines[0]) as Record<string, unknown>;
    assert.equal(rec.level, 'debug');
    assert.equal(rec.msg, 'hello');
    assert.equal(rec.a, 1);
    assert.equal(typeof rec.time, 'string');
  });

  it('reformats any pino line', () => {
    const line = formatTextLine('{"level":30,"time":0,"pid":1,"msg":"x","k":"v w","o":{"a":1}}\n');
    assert.equal(line, 'time="1970-01-01T00:00:00.000Z" level=info msg="x" k="v w" o="{\\"a\\":1}"\n');
  });
});

describe('request logs', () => {
  it('logs one info line per call with method, duration and status', async () => {
    const t = await startServer();
    try {
      await rpc(t.port, { jsonrpc: '2.0', id: 42, method: 'echo', params: { a: 1 } });
      await rpc(t.port, { jsonrpc: '2.0', id: 43, method: 'echo', params: { a: 'x' } });
      const done = t.probe.logs.filter((l) => l.includes('msg="finished JSONRPC request"'));
      assert.equal(done.length, 2);
      assert.match(done[0], /level=info .*json_req=42 method=echo duration="?[\d.]+(µs|ms)"? status=ok/);
      assert.match(done[1], /json_req=43 method=echo duration=\S+ status=invalid_parameters/);
      assert.ok(!t.probe.logs.some((l) => l.includes('starting JSONRPC request')), 'start lines are debug');
    } finally {
      await t.close();
    }
  });

  it('logs the start with params at debug', async () => {
    const t = await startServer({ logLevel: 'debug' });
    try {
      await rpc(t.port, { jsonrpc: '2.0', id: 1, method: 'echo', params: { a: 1 } });
      assert.ok(t.probe.logs.some((l) => /level=debug msg="starting JSONRPC request" .*method=echo params="\{\\"a\\":1\}"/.test(l)), t.probe.logs.join(''));
    } finally {
      await t.close();
    }
  });
});
