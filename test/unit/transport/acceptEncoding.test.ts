// Accept-Encoding negotiation (RFC 9110, 12.5.3): which of zstd and gzip an answer goes out in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { negotiateCoding } from '../../../src/transport/acceptEncoding.ts';

test('no header, an empty one, identity alone or codings the node does not write: no coding', () => {
  for (const header of [undefined, '', 'identity', 'br', 'deflate, br;q=1', 'compress', ' , ,']) {
    assert.equal(negotiateCoding(header), undefined, String(header));
  }
});

test('a single coding the node writes is chosen, whatever its case and spacing', () => {
  assert.equal(negotiateCoding('gzip'), 'gzip');
  assert.equal(negotiateCoding('GZip ; Q=0.5'), 'gzip');
  assert.equal(negotiateCoding('x-gzip'), 'gzip');
  assert.equal(negotiateCoding('zstd'), 'zstd');
  assert.equal(negotiateCoding('gzip, deflate'), 'gzip'); // what Node's fetch (and so the JS SDK) sends
  assert.equal(negotiateCoding('gzip, deflate, br, zstd'), 'zstd'); // what recent browsers send
});

test('q=0 refuses a coding, alone or through *', () => {
  assert.equal(negotiateCoding('gzip;q=0'), undefined);
  assert.equal(negotiateCoding('zstd;q=0, gzip;q=0'), undefined);
  assert.equal(negotiateCoding('*;q=0'), undefined);
  assert.equal(negotiateCoding('zstd;q=0, gzip'), 'gzip');
  assert.equal(negotiateCoding('gzip;q=0, *'), 'zstd');
  assert.equal(negotiateCoding('zstd;q=0, *;q=0.5'), 'gzip');
  assert.equal(negotiateCoding('identity;q=0'), undefined); // nothing acceptable: the answer goes out as it is
  assert.equal(negotiateCoding('gzip;q=0.000'), undefined);
});

test('the higher weight wins; equal weights go to the server\'s preference, zstd', () => {
  assert.equal(negotiateCoding('gzip;q=1, zstd;q=0.5'), 'gzip');
  assert.equal(negotiateCoding('gzip;q=0.4, zstd;q=0.5'), 'zstd');
  assert.equal(negotiateCoding('gzip, zstd'), 'zstd');
  assert.equal(negotiateCoding('zstd;q=0.8, gzip;q=0.8'), 'zstd');
  assert.equal(negotiateCoding('*'), 'zstd');
  assert.equal(negotiateCoding('gzip;q=0.9, *;q=0.1'), 'gzip');
});

test('malformed weights drop their element; a coding named twice keeps its first weight', () => {
  assert.equal(negotiateCoding('zstd;q=2, gzip'), 'gzip');
  assert.equal(negotiateCoding('zstd;q=abc, gzip;q=0.1'), 'gzip');
  assert.equal(negotiateCoding('zstd;q=0.12345'), undefined);
  assert.equal(negotiateCoding('zstd;q=-1'), undefined);
  assert.equal(negotiateCoding('gzip;q=0, gzip;q=1'), undefined);
  assert.equal(negotiateCoding('zstd;level=3'), 'zstd'); // parameters other than q are ignored
});
