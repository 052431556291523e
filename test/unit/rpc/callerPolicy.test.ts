// CallerPolicy: which Origin and Host a privileged (developer) method answers. The integration test
// (safeByDefault) tries the same over real HTTP and WebSocket; these are the header forms one by one.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CallerPolicy, hostNameOf, isLoopbackHost, normalOrigin } from '../../../src/rpc/callerPolicy.ts';

describe('CallerPolicy', () => {
  const policy = new CallerPolicy({ endpointHost: 'rpc.internal', allowOrigins: ['https://lab.example'], allowHosts: ['devbox.lan'] });
  const allowed = (origin?: string, host?: string) => policy.refusal({ origin, host }) === undefined;

  it('Host: IP addresses, loopback names, the endpoint host and --dev-allow-host pass; any other name is a rebinding', () => {
    for (const host of ['127.0.0.1:8000', '10.0.0.7', '[::1]:8000', '[fe80::1]', 'localhost', 'LOCALHOST:1', 'a.localhost:8000',
      'rpc.internal:8000', 'devbox.lan', 'DevBox.LAN:9', undefined]) {
      assert.ok(allowed(undefined, host), String(host));
    }
    for (const host of ['evil.example', 'evil.example:8000', 'localhost.evil.example', '127.0.0.1.nip.io:8000', 'devbox.lan.evil', '']) {
      assert.ok(!allowed(undefined, host), host);
    }
  });

  it('Origin: none, loopback, allowed and same-origin pass; anything else, "null" included, is refused', () => {
    for (const origin of [undefined, 'http://localhost:3000', 'https://127.0.0.1', 'http://[::1]:5173', 'http://x.localhost', 'https://lab.example', 'https://lab.example:443']) {
      assert.ok(allowed(origin, '127.0.0.1:8000'), String(origin));
    }
    assert.ok(allowed('http://rpc.internal:8000', 'rpc.internal:8000'), 'the node\'s own pages');
    for (const origin of ['https://evil.example', 'null', 'http://lab.example', 'https://lab.example:8443', 'file:///x', 'chrome-extension://abc', 'not a url']) {
      assert.ok(!allowed(origin, '127.0.0.1:8000'), origin);
    }
    // same origin under a rebinding name is still refused: the Host decides
    assert.match(policy.refusal({ origin: 'http://evil.example:8000', host: 'evil.example:8000' })!, /Host "evil\.example:8000"/);
  });

  it('"*" in --dev-allow-host answers any name; a bad --dev-allow-origin stops the start', () => {
    assert.equal(new CallerPolicy({ endpointHost: '0.0.0.0', allowHosts: ['*'] }).refusal({ host: 'anything.example' }), undefined);
    assert.throws(() => new CallerPolicy({ endpointHost: 'localhost', allowOrigins: ['lab.example'] }), /is not an origin/);
  });

  it('reads host names and origins as browsers send them', () => {
    assert.equal(hostNameOf('[::1]:8000'), '::1');
    assert.equal(hostNameOf('Example.COM:80'), 'example.com');
    assert.equal(hostNameOf('::1'), '::1');
    assert.equal(normalOrigin('https://lab.example:443'), 'https://lab.example');
    assert.equal(normalOrigin('ftp://x'), undefined);
    for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'localhost']) assert.ok(isLoopbackHost(h), h);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '128.0.0.1']) assert.ok(!isLoopbackHost(h), h);
  });
});
