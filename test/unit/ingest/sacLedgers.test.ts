// The synthetic big-ledger generator (test/support/sacLedgers.ts) makes ledgers a follower accepts:
// each header hashes to its hash and chains onto the one before, each transaction's hash is its
// envelope's under the network id (both conversions, JS and native, match results to envelopes),
// the per-ledger fields are patched where they belong, and no hash repeats across ledgers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '../../../src/xdr/xdr.ts';
import { sha256, toHex } from '../../../src/xdr/codec.ts';
import { transactionHash } from '../../../src/xdr/transactions.ts';
import { ledgerToBatch, envelopesOf } from '../../../src/ingest/ledgerToBatch.ts';
import { nativeLedgerToBatch } from '../../../src/ingest/nativeLedgerToBatch.ts';
import { nativeAvailable } from '../../../src/host/native.ts';
import { LedgerChain, SYNTHETIC_NETWORK_ID, hugeTransactionTemplate, ledgerTemplate, sacTransfersTemplate } from '../../support/sacLedgers.ts';

test('ledgers chain, hash, and carry their own sequence numbers; transaction hashes match envelopes and never repeat', () => {
  const template = sacTransfersTemplate(20);
  const chain = new LedgerChain(10);
  const seen = new Set<string>();
  let previous: Uint8Array | undefined;
  for (let i = 0; i < 3; i++) {
    const made = chain.make(template);
    const lcm = xdr.LedgerCloseMeta.schema.decode(made.bytes);
    assert.equal(lcm.v, 2);
    if (lcm.v !== 2) return;
    const { header, hash } = lcm.v2.ledgerHeader;
    assert.equal(header.ledgerSeq, 10 + i);
    assert.equal(header.ledgerVersion, 30);
    assert.deepEqual(hash, sha256(xdr.LedgerHeader.schema.encode(header)), 'the header hashes to its hash');
    if (previous) assert.deepEqual(header.previousLedgerHash, previous, 'chained onto the ledger before');
    previous = hash;
    const set = lcm.v2.txSet;
    assert.deepEqual(header.scpValue.txSetHash, sha256(xdr.GeneralizedTransactionSet.schema.encode(set)));
    const envelopes = envelopesOf(lcm);
    assert.deepEqual(new Set(envelopes.map((e) => toHex(transactionHash(SYNTHETIC_NETWORK_ID, e)))), new Set(made.txHashes));
    for (const env of envelopes) assert.equal(env.type === 2 && env.v1.tx.seqNum, (1n << 32n) + BigInt(10 + i));
    const p = lcm.v2.txProcessing[0];
    const m = p.txApplyProcessing;
    assert.ok(m.v === 4 && m.v4.operations[0].events.length === 1 && m.v4.events.length === 2, 'a transfer event and two fee events');
    const fee = p.feeProcessing;
    assert.ok(fee[0].type === 3 && fee[0].state.lastModifiedLedgerSeq === 10 + i - 1 && fee[1].type === 1 && fee[1].updated.lastModifiedLedgerSeq === 10 + i);
    for (const h of made.txHashes) { assert.ok(!seen.has(h), 'unique across ledgers'); seen.add(h); }
    const js = ledgerToBatch({ bytes: made.bytes }, SYNTHETIC_NETWORK_ID);
    assert.deepEqual(js.transactions.map((t) => toHex(t.hash)), made.txHashes);
    assert.equal(js.events?.length, template.contractEvents);
    if (nativeAvailable()) assert.deepEqual(nativeLedgerToBatch(made.bytes, SYNTHETIC_NETWORK_ID).transactions.map((t) => toHex(t.hash)), made.txHashes);
  }
});

test('a transaction of many transfers carries every event; an empty ledger has none', () => {
  const chain = new LedgerChain(2);
  const empty = ledgerToBatch({ bytes: chain.make(ledgerTemplate('empty', [])).bytes }, SYNTHETIC_NETWORK_ID);
  assert.equal(empty.transactions.length, 0);
  const huge = hugeTransactionTemplate(3000);
  const batch = ledgerToBatch({ bytes: chain.make(huge).bytes }, SYNTHETIC_NETWORK_ID);
  assert.equal(batch.transactions.length, 1);
  assert.equal(batch.events?.length, 3002);
});
