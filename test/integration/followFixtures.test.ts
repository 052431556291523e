// Following real networks' ledgers: the node runs in follow mode over the real ledgers in
// test/fixtures (a datastore folder, single metas framed as a core meta stream, captured
// getLedgers answers) and is checked over JSON-RPC against what the metas themselves say: header
// hashes recomputed, every transaction and event present, the captured responses matched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { frameRecord, splitRecords } from '../../src/io/recordMarked.ts';
import { joinChunks } from '../../src/io/inputCaps.ts';

const FIXTURES = new URL('../../test/fixtures/', import.meta.url).pathname;
const PUBNET = 'Public Global Stellar Network ; September 2015';
const TESTNET = 'Test SDF Network ; September 2015';

const tmp = () => mkdtempSync(join(tmpdir(), 'lumen-follow-'));
const sha256Hex = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

function bodyOf(lcm: xdr.LedgerCloseMetaWire) {
  return lcm.v === 0 ? lcm.v0 : lcm.v === 1 ? lcm.v1 : lcm.v2;
}

/** What a ledger's meta says, computed here independently of the node. */
function expectations(bytes: Uint8Array) {
  const lcm = xdr.LedgerCloseMeta.schema.decode(bytes);
  const body = bodyOf(lcm);
  const header = body.ledgerHeader.header;
  let events = 0;
  const txs = body.txProcessing.map((p) => {
    const m = p.txApplyProcessing;
    if (m.v === 4) events += m.v4.events.length + m.v4.operations.reduce((n, o) => n + o.events.length, 0);
    if (m.v === 3 && m.v3.sorobanMeta) events += m.v3.sorobanMeta.events.length;
    const code = p.result.result.result.code;
    return { hash: Buffer.from(p.result.transactionHash).toString('hex'), successful: code === 0 || code === 1 };
  });
  return {
    sequence: header.ledgerSeq,
    hash: sha256Hex(xdr.LedgerHeader.schema.encode(header)),
    closeTime: String(header.scpValue.closeTime),
    txs, events,
  };
}

async function waitForLedger(node: NodeProcess, seq: number, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await node.rpc('getLatestLedger');
    if (r.result?.sequence >= seq) return;
    if (Date.now() > deadline) throw new Error(`ledger ${seq} not ingested; latest ${JSON.stringify(r)}\n${node.output()}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

const follow = (args: string[]) => startNodeProcess({ args: ['--log-level', 'info', ...args], readyWhenListening: true });

/** The node's getLedgers, getTransactions and getEvents over a ledger range, checked against the metas. */
async function checkLedgers(node: NodeProcess, metas: Uint8Array[]): Promise<void> {
  const exp = metas.map(expectations);
  const first = exp[0].sequence;
  const r = await node.rpc('getLedgers', { startLedger: first, pagination: { limit: metas.length } });
  assert.equal(r.result.ledgers.length, metas.length, JSON.stringify(r).slice(0, 500));
  r.result.ledgers.forEach((l: any, i: number) => {
    assert.equal(l.sequence, exp[i].sequence);
    assert.equal(l.hash, exp[i].hash, 'header hash recomputed');
    assert.equal(l.ledgerCloseTime, exp[i].closeTime);
    assert.equal(l.metadataXdr, b64(metas[i]), 'the meta is stored byte for byte');
  });

  const txs: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await node.rpc('getTransactions', cursor ? { pagination: { cursor, limit: 200 } } : { startLedger: first, pagination: { limit: 200 } });
    assert.ok(page.result, JSON.stringify(page));
    const inRange = page.result.transactions.filter((t: any) => t.ledger <= exp.at(-1)!.sequence);
    txs.push(...inRange);
    if (page.result.transactions.length < 200 || inRange.length < page.result.transactions.length) break;
    cursor = page.result.cursor;
  }
  const expectedTxs = exp.flatMap((e) => e.txs.map((t) => ({ ...t, ledger: e.sequence })));
  assert.equal(txs.length, expectedTxs.length, 'every transaction');
  txs.forEach((t, i) => {
    assert.equal(t.txHash, expectedTxs[i].hash);
    assert.equal(t.ledger, expectedTxs[i].ledger);
    assert.equal(t.status, expectedTxs[i].successful ? 'SUCCESS' : 'FAILED');
  });
  const one = await node.rpc('getTransaction', { hash: expectedTxs[Math.floor(expectedTxs.length / 2)]?.hash ?? '00'.repeat(32) });
  if (expectedTxs.length) assert.equal(one.result.ledger, expectedTxs[Math.floor(expectedTxs.length / 2)].ledger);

  const totalEvents = exp.reduce((n, e) => n + e.events, 0);
  const events = await node.rpc('getEvents', { startLedger: first, endLedger: exp.at(-1)!.sequence + 1, filters: [], pagination: { limit: 10000 } });
  assert.ok(events.result, JSON.stringify(events));
  assert.equal(events.result.events.length, totalEvents, 'every contract and system event');
  for (const e of events.result.events) assert.ok(txs.some((t) => t.txHash === e.txHash), 'events point at stored transactions');
}

test('a SEP-54 datastore folder: testnet ledgers 997-999 (protocol 20)', async () => {
  const dir = join(FIXTURES, 'testnet/datastore-p20');
  const node = await follow(['--datastore', dir, '--network-passphrase', TESTNET, '--datastore-poll-interval', '100ms']);
  try {
    await waitForLedger(node, 999);
    const metas = [999, 998, 997].map((s) => readdirSync(dir).find((f) => f.endsWith(`--${s}.xdr.zst`))!)
      .map((f) => zstdDecompressSync(readFileSync(join(dir, f))).subarray(12)).reverse();
    await checkLedgers(node, metas);
    const chain = await node.rpc('getLedgers', { startLedger: 997, pagination: { limit: 3 } });
    for (let i = 1; i < 3; i++) {
      const header = xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from(chain.result.ledgers[i].headerXdr, 'base64'));
      assert.equal(Buffer.from(header.header.previousLedgerHash).toString('hex'), chain.result.ledgers[i - 1].hash, 'ledgers chain');
    }
  } finally { await node.stop(); }
});

test('single pubnet metas as a stellar-core meta stream: ledgers 63092982-63092991 (protocol 26)', async () => {
  const metas = Array.from({ length: 10 }, (_, i) => gunzipSync(readFileSync(join(FIXTURES, `pubnet/ledgers/ledger-${63092982 + i}.xdr.gz`))));
  const stream = join(tmp(), 'meta.xdr');
  writeFileSync(stream, joinChunks(metas.map(frameRecord)));
  const node = await follow(['--meta-stream', stream, '--network-passphrase', PUBNET]);
  try {
    await waitForLedger(node, 63092991);
    await checkLedgers(node, metas);
  } finally { await node.stop(); }
});

test('single-ledger datastore files: pubnet 60659332 (plain XDR, protocol 24) and 53312000 (zstd, protocol 21)', async () => {
  for (const [file, seq, compression] of [['FC62697B--60659332.xdr', 60659332, 'none'], ['FCD285FF--53312000.xdr.zstd', 53312000, 'zstd']] as const) {
    const dir = tmp();
    cpSync(join(FIXTURES, 'pubnet/datastore', file), join(dir, file));
    writeFileSync(join(dir, '.config.json'), JSON.stringify({ networkPassphrase: PUBNET, version: '1.0', compression, ledgersPerBatch: 1, batchesPerPartition: 64000 }));
    const raw = readFileSync(join(dir, file));
    const meta = (compression === 'zstd' ? zstdDecompressSync(raw) : raw).subarray(12);
    const node = await follow(['--datastore', dir, '--network-passphrase', PUBNET]);
    try {
      await waitForLedger(node, seq);
      await checkLedgers(node, [meta]);
      if (seq === 53312000) {
        // its one Soroban transaction (TransactionMeta V3) carries 21 diagnostic events
        const lcm = xdr.LedgerCloseMeta.schema.decode(meta);
        const processing = bodyOf(lcm).txProcessing;
        const soroban = processing.findIndex((p) => p.txApplyProcessing.v === 3 && p.txApplyProcessing.v3.sorobanMeta);
        const r = await node.rpc('getTransaction', { hash: Buffer.from(processing[soroban].result.transactionHash).toString('hex') });
        assert.equal(r.result.applicationOrder, soroban + 1);
        assert.equal(r.result.diagnosticEventsXdr?.length, 21);
      }
    } finally { await node.stop(); }
  }
});

test('captured testnet getLedgers answers (172627-172628, protocol 22) are reproduced', async () => {
  const blocks = JSON.parse(readFileSync(join(FIXTURES, 'testnet/getLedgers-p22/blocks.json'), 'utf8')).map((b: any) => b.Stellar);
  const consecutive = blocks.filter((b: any) => b.sequence === 172627 || b.sequence === 172628);
  const stream = join(tmp(), 'meta.xdr');
  writeFileSync(stream, joinChunks(consecutive.map((b: any) => frameRecord(Buffer.from(b.metadataXdr, 'base64')))));
  const node = await follow(['--meta-stream', stream, '--network-passphrase', TESTNET]);
  try {
    await waitForLedger(node, 172628);
    const r = await node.rpc('getLedgers', { startLedger: 172627, pagination: { limit: 2 } });
    assert.equal(r.result.ledgers.length, 2);
    r.result.ledgers.forEach((l: any, i: number) => {
      const c = consecutive[i];
      assert.deepEqual(
        { hash: l.hash, sequence: l.sequence, ledgerCloseTime: l.ledgerCloseTime, headerXdr: l.headerXdr, metadataXdr: l.metadataXdr },
        { hash: c.hash, sequence: c.sequence, ledgerCloseTime: String(c.ledgerCloseTime), headerXdr: c.headerXdr, metadataXdr: c.metadataXdr });
    });
    await checkLedgers(node, consecutive.map((b: any) => Buffer.from(b.metadataXdr, 'base64')));
  } finally { await node.stop(); }
});

test('the synthetic load-test meta streams (zstd, record-marked): ingested up to their first gap, which stops ingestion', async () => {
  for (const [file, passphrase] of [
    ['load-test-ledgers-v23-standalone.xdr.zstd', 'Standalone Network ; February 2017'],
    ['load-test-ledgers-v24.xdr.zstd', 'load test network'],
  ] as const) {
    const path = join(FIXTURES, 'synthetic', file);
    const metas = splitRecords(zstdDecompressSync(readFileSync(path)), file);
    const seqs = metas.map((m) => expectations(m).sequence);
    const consecutive = seqs.findIndex((q, i) => i > 0 && q !== seqs[i - 1] + 1);
    assert.ok(consecutive > 1, `${file} has a gap after its first ledgers (${seqs.join(', ')})`);
    const node = await follow(['--meta-stream', path, '--network-passphrase', passphrase]);
    try {
      await waitForLedger(node, seqs[consecutive - 1]);
      await checkLedgers(node, metas.slice(0, consecutive));
      await node.outputMatching(/ingestion stopped/, 30_000);
      await node.outputMatching(new RegExp(`ledger ${seqs[consecutive]} follows ledger ${seqs[consecutive - 1]}`));
      assert.equal((await node.rpc('getLatestLedger')).result.sequence, seqs[consecutive - 1]);
    } finally { await node.stop(); }
  }
});

test('a gap, a truncated file or another network\'s ledgers stop ingestion with a clear error and store no partial ledger', async () => {
  // a stream that jumps from 172628 to 808663
  const blocks = JSON.parse(readFileSync(join(FIXTURES, 'testnet/getLedgers-p22/blocks.json'), 'utf8')).map((b: any) => b.Stellar);
  const gapStream = join(tmp(), 'gap.xdr');
  writeFileSync(gapStream, joinChunks(blocks.map((b: any) => frameRecord(Buffer.from(b.metadataXdr, 'base64')))));
  let node = await follow(['--meta-stream', gapStream, '--network-passphrase', TESTNET]);
  try {
    await waitForLedger(node, 172628);
    await node.outputMatching(/ingestion stopped/, 30_000);
    await node.outputMatching(/808663/);
    assert.equal((await node.rpc('getLatestLedger')).result.sequence, 172628, 'nothing after the gap');
  } finally { await node.stop(); }

  // a datastore whose second file is cut short
  const dir = tmp();
  const src = join(FIXTURES, 'testnet/datastore-p20');
  cpSync(src, dir, { recursive: true });
  const cut = readdirSync(dir).find((f) => f.endsWith('--998.xdr.zst'))!;
  const whole = readFileSync(join(dir, cut));
  writeFileSync(join(dir, cut), whole.subarray(0, whole.length >> 1));
  node = await follow(['--datastore', dir, '--network-passphrase', TESTNET, '--datastore-poll-interval', '50ms']);
  try {
    await waitForLedger(node, 997);
    await node.outputMatching(/ingestion stopped/, 30_000);
    await node.outputMatching(/998/);
    assert.equal((await node.rpc('getLatestLedger')).result.sequence, 997);
    assert.equal((await node.rpc('getLedgers', { startLedger: 997 })).result.ledgers.length, 1);
  } finally { await node.stop(); }

  // pubnet ledgers read as testnet: transaction hashes do not match, nothing is stored
  const wrong = join(tmp(), 'wrong.xdr');
  writeFileSync(wrong, frameRecord(gunzipSync(readFileSync(join(FIXTURES, 'pubnet/ledgers/ledger-63092982.xdr.gz')))));
  node = await follow(['--meta-stream', wrong, '--network-passphrase', TESTNET]);
  try {
    await node.outputMatching(/ingestion stopped/, 30_000);
    await node.outputMatching(/no envelope in the tx set/);
    assert.equal((await node.rpc('getLatestLedger')).error?.code, -32603, 'no ledger stored');
  } finally { await node.stop(); }
});
