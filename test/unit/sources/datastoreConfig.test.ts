import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDatastoreConfig, serializeDatastoreConfig } from '../../../src/sources/datastore/datastoreConfig.ts';
import { P20, TESTNET } from './support.ts';

const valid = { networkPassphrase: TESTNET, version: '1.0', compression: 'zstd', ledgersPerBatch: 1, batchesPerPartition: 64000 };

test('the fixture datastore manifest parses', () => {
  const config = parseDatastoreConfig(readFileSync(join(P20, '.config.json')), 'p20');
  assert.deepEqual(config, { networkPassphrase: TESTNET, version: '1.0', compression: 'zstd', ledgersPerBatch: 1, batchesPerPartition: 64000 });
});

test('serializing and parsing gives the same manifest, in galexie field order', () => {
  const config = parseDatastoreConfig(JSON.stringify({ ...valid, ledgersPerBatch: 64, batchesPerPartition: 10 }), 'x');
  const text = serializeDatastoreConfig(config);
  assert.deepEqual(Object.keys(JSON.parse(text)), ['networkPassphrase', 'version', 'compression', 'ledgersPerBatch', 'batchesPerPartition']);
  assert.deepEqual(parseDatastoreConfig(text, 'x'), config);
});

test('compression: absent or empty means zstd, "none" is uncompressed, anything else is refused', () => {
  const { compression: _omit, ...withoutCompression } = valid;
  assert.equal(parseDatastoreConfig(JSON.stringify(withoutCompression), 'x').compression, 'zstd');
  assert.equal(parseDatastoreConfig(JSON.stringify({ ...valid, compression: '' }), 'x').compression, 'zstd');
  assert.equal(parseDatastoreConfig(JSON.stringify({ ...valid, compression: 'none' }), 'x').compression, 'none');
  assert.throws(() => parseDatastoreConfig(JSON.stringify({ ...valid, compression: 'gzip' }), 'x'), /compression is "gzip"/);
});

test('bad manifests are refused with the field and the store named', () => {
  assert.throws(() => parseDatastoreConfig('{"networkPassphrase": ', 'gs://bucket'), /^Error: gs:\/\/bucket\/\.config\.json: not valid JSON/);
  assert.throws(() => parseDatastoreConfig('[1]', 'x'), /expected a JSON object/);
  assert.throws(() => parseDatastoreConfig(JSON.stringify({ ...valid, networkPassphrase: undefined }), 'x'), /networkPassphrase is missing/);
  assert.throws(() => parseDatastoreConfig(JSON.stringify({ ...valid, ledgersPerBatch: undefined }), 'x'), /ledgersPerBatch is missing/);
  assert.throws(() => parseDatastoreConfig(JSON.stringify({ ...valid, ledgersPerBatch: 0 }), 'x'), /ledgersPerBatch is 0, expected a positive integer/);
  assert.throws(() => parseDatastoreConfig(JSON.stringify({ ...valid, batchesPerPartition: '64000' }), 'x'), /batchesPerPartition is "64000"/);
  assert.throws(() => parseDatastoreConfig(JSON.stringify({ ...valid, batchesPerPartition: 1.5 }), 'x'), /batchesPerPartition is 1\.5/);
  assert.throws(() => parseDatastoreConfig(JSON.stringify({ ...valid, version: 1 }), 'x'), /version is 1, expected a string/);
});
