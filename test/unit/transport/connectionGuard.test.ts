// The connection guard's first-request timers: a connection waits for its first request under a
// timer, and the server listens to requests for the guard only while some connection waits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { ConnectionGuard } from '../../../src/transport/connectionGuard.ts';

test('a connection is timed until its first request; requests are listened to only while one waits', async () => {
  const server = createServer((_req, res) => { res.end('ok'); });
  const guard = new ConnectionGuard({ maxConnections: 0, readTimeoutMs: 60_000, writeTimeoutMs: 0, maxQueuedResponseBytes: 0 });
  guard.attach(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const open = async (): Promise<Socket> => {
    const seen = once(server, 'connection');
    const socket = connect(port, '127.0.0.1');
    await seen;
    return socket;
  };
  try {
    assert.equal(server.listenerCount('request'), 1, 'no connection waits');
    const first = await open();
    assert.equal(server.listenerCount('request'), 2, 'a connection waits for its first request');
    first.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(first, 'data');
    assert.equal(server.listenerCount('request'), 1, 'its request was heard');
    const second = await open();
    const third = await open();
    assert.equal(server.listenerCount('request'), 2);
    second.destroy();
    await once(second, 'close');
    while (guard.open > 2) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(server.listenerCount('request'), 2, 'the third still waits');
    third.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(third, 'data');
    assert.equal(server.listenerCount('request'), 1);
    first.destroy();
    third.destroy();
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
