import { test } from 'node:test';
import assert from 'node:assert/strict';
import { candidateObjectKeys, objectKey, parseFileName, parsePartitionName } from '../../../src/sources/datastore/objectKeys.ts';

const galexie = { ledgersPerBatch: 1, batchesPerPartition: 64000 };
const flatZst = { partitioned: false, extension: 'zst' };

test('the default layout: ledger 0 and partition boundaries', () => {
  assert.equal(objectKey(0, galexie), 'FFFFFFFF--0-63999/FFFFFFFF--0.xdr.zst');
  assert.equal(objectKey(63999, galexie), 'FFFFFFFF--0-63999/FFFF0600--63999.xdr.zst');
  assert.equal(objectKey(64000, galexie), 'FFFF05FF--64000-127999/FFFF05FF--64000.xdr.zst');
  assert.equal(objectKey(60659332, galexie), 'FC6331FF--60608000-60671999/FC62697B--60659332.xdr.zst');
});

test('the fixture file names are the flat keys of their ledgers', () => {
  assert.equal(objectKey(999, galexie, flatZst), 'FFFFFC18--999.xdr.zst');
  assert.equal(objectKey(982180, galexie, flatZst), 'FFF1035B--982180.xdr.zst');
  assert.equal(objectKey(60659332, galexie, { partitioned: false, extension: '' }), 'FC62697B--60659332.xdr');
  assert.equal(objectKey(53312000, galexie, { partitioned: false, extension: 'zstd' }), 'FCD285FF--53312000.xdr.zstd');
});

test('several ledgers per file: file end in the name, partition spans files', () => {
  const layout = { ledgersPerBatch: 64, batchesPerPartition: 10 };
  assert.equal(objectKey(100, layout), 'FFFFFFFF--0-639/FFFFFFBF--64-127.xdr.zst');
  assert.equal(objectKey(640, layout), 'FFFFFD7F--640-1279/FFFFFD7F--640-703.xdr.zst');
});

test('one file per partition means no partition folder (go: FilesPerPartition > 1)', () => {
  assert.equal(objectKey(5, { ledgersPerBatch: 1, batchesPerPartition: 1 }), 'FFFFFFFA--5.xdr.zst');
  assert.equal(objectKey(130, { ledgersPerBatch: 64, batchesPerPartition: 1 }), 'FFFFFF7F--128-191.xdr.zst');
});

test('ends are capped at the top of uint32', () => {
  assert.equal(objectKey(0xffffffff, { ledgersPerBatch: 10, batchesPerPartition: 1000 }), '00001C7F--4294960000-4294967295/00000005--4294967290-4294967295.xdr.zst');
  assert.throws(() => objectKey(-1, galexie), /not a ledger sequence/);
});

test('candidates: the real key first, then other extensions, then flat names', () => {
  const keys = candidateObjectKeys(999, { ...galexie, compression: 'zstd' });
  assert.deepEqual(keys, [
    'FFFFFFFF--0-63999/FFFFFC18--999.xdr.zst',
    'FFFFFFFF--0-63999/FFFFFC18--999.xdr.zstd',
    'FFFFFFFF--0-63999/FFFFFC18--999.xdr',
    'FFFFFC18--999.xdr.zst',
    'FFFFFC18--999.xdr.zstd',
    'FFFFFC18--999.xdr',
  ]);
  assert.equal(candidateObjectKeys(999, { ...galexie, compression: 'none' })[0], 'FFFFFFFF--0-63999/FFFFFC18--999.xdr');
});

test('names parse back to their ledgers; anything else is not a ledger file', () => {
  assert.deepEqual(parseFileName('FFFFFC18--999.xdr.zst'), { start: 999, end: 999 });
  assert.deepEqual(parseFileName('FFFFFFBF--64-127.xdr.zstd'), { start: 64, end: 127 });
  assert.deepEqual(parseFileName('FC62697B--60659332.xdr'), { start: 60659332, end: 60659332 });
  assert.equal(parseFileName('FFFFFC17--999.xdr.zst'), undefined, 'prefix disagrees with the number');
  assert.equal(parseFileName('.tmp-1-0'), undefined);
  assert.equal(parseFileName('.config.json'), undefined);
  assert.deepEqual(parsePartitionName('FFFFFFFF--0-63999'), { start: 0, end: 63999 });
  assert.equal(parsePartitionName('FFFFFFFF--0'), undefined);
});
