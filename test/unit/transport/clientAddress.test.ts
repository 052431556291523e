// The client key of a connection's source address (the faucet's tests cover the address forms:
// test/unit/faucet/rateLimit.test.ts): a socket already gone still gets a key.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { clientKey } from '../../../src/transport/clientAddress.ts';

it('a loopback address other than 127.0.0.1 is a client of its own; a socket already gone has one key', () => {
  assert.equal(clientKey('127.0.0.2'), '127.0.0.2');
  assert.equal(clientKey('::ffff:127.0.0.2'), '127.0.0.2');
  assert.equal(clientKey(undefined), 'unknown');
});
