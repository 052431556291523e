// The client key of a connection's source address (the faucet's rate limits and the transport's
// per-client budgets share it): the address forms, and a socket already gone still gets a key.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { clientKey } from '../../../src/transport/clientAddress.ts';

it('a loopback address other than 127.0.0.1 is a client of its own; a socket already gone has one key', () => {
  assert.equal(clientKey('127.0.0.2'), '127.0.0.2');
  assert.equal(clientKey('::ffff:127.0.0.2'), '127.0.0.2');
  assert.equal(clientKey(undefined), 'unknown');
});

it('clientKey: IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
  assert.equal(clientKey('203.0.113.7'), '203.0.113.7');
  assert.equal(clientKey('::ffff:203.0.113.7'), '203.0.113.7');
  assert.equal(clientKey('::FFFF:127.0.0.1'), '127.0.0.1');
  assert.equal(clientKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:0db8:0001:0002::1'), '2001:db8:1:2::/64');
  assert.equal(clientKey('2001:db8::1'), '2001:db8:0:0::/64');
  assert.equal(clientKey('2001:db8::'), '2001:db8:0:0::/64');
  assert.equal(clientKey('::1'), '0:0:0:0::/64');
  assert.equal(clientKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(clientKey('2001:db8:1:2:3:4:1.2.3.4'), '2001:db8:1:2::/64');
  assert.equal(clientKey('64:ff9b::192.0.2.1'), '64:ff9b:0:0::/64');
  assert.equal(clientKey('not an address'), 'not an address');
});
