// getEvents over HTTP with the official JS SDK against events the standalone network emits: the
// CAP-67 events of classic operations (SAC mint/transfer/burn/set_authorized, from the asset's
// Stellar Asset Contract) and the transaction fee events (stage BEFORE_ALL_TXS), paged with cursors
// to the end and through the empty pages past it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, AuthRequiredFlag, AuthRevocableFlag, Keypair, Operation, StrKey, xdr, type rpc } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, builder, funded, server, submit } from './support/sdk.ts';
import { pageToEnd } from './support/events.ts';

const b64 = (v: xdr.ScValWire): string => Buffer.from(xdr.ScVal.schema.encode(v)).toString('base64');
const symbol = (s: string) => b64({ type: 15, sym: new xdr.XdrString(s) } as xdr.ScValWire);
const account = (g: string) => b64({ type: 18, address: { type: 0, accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(g) } } } as xdr.ScValWire);
const topicSymbol = (e: rpc.Api.EventResponse): string => String((xdr.ScVal.schema.decode(e.topic[0].toXdr()) as { sym: unknown }).sym);


describe('getEvents over JSON-RPC (JS SDK)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let start: number;
  let issuer: Keypair;
  let holder: Keypair;
  let other: Keypair;
  let asset: Asset;
  const hashes: string[] = [];

  before(async () => {
    node = await startNodeProcess({ args: ['--close-mode', 'instant', '--log-level', 'warn'] });
    s = server(node.url);
    start = (await s.getLatestLedger()).sequence;
    issuer = await funded(s);
    holder = await funded(s);
    other = await funded(s);
    asset = new Asset('EVT', issuer.publicKey());
    const send = async (source: Keypair, op: xdr.Operation | ReturnType<typeof Operation.payment>) => {
      const tx = (await builder(s, source)).addOperation(op as any).build();
      tx.sign(source);
      const { sent, done } = await submit(s, tx);
      assert.equal(done.status, 'SUCCESS');
      hashes.push(sent.hash);
    };
    await send(issuer, Operation.setOptions({ setFlags: (AuthRequiredFlag | AuthRevocableFlag) as any }));
    for (const kp of [holder, other]) {
      await send(kp, Operation.changeTrust({ asset, limit: '1000' }));
      await send(issuer, Operation.setTrustLineFlags({ trustor: kp.publicKey(), asset, flags: { authorized: true } }));
    }
    await send(issuer, Operation.payment({ destination: holder.publicKey(), asset, amount: '100' }));  // mint
    for (let i = 1; i <= 7; i++) await send(holder, Operation.payment({ destination: other.publicKey(), asset, amount: String(i) })); // transfers
    await send(other, Operation.payment({ destination: issuer.publicKey(), asset, amount: '3' }));   // burn
  });
  after(async () => { await node?.stop(); });

  it('the asset contract\'s events, in order, paged with cursors to the end', async () => {
    const contractId = asset.contractId(PASSPHRASE);
    const filters: rpc.Api.EventFilter[] = [{ type: 'contract', contractIds: [contractId] }];
    const { events, pages, cursor } = await pageToEnd(s, { startLedger: start, filters }, 3);
    assert.deepEqual(events.map(topicSymbol), [
      'set_authorized', 'set_authorized', 'mint', 'transfer', 'transfer', 'transfer', 'transfer', 'transfer', 'transfer', 'transfer', 'burn',
    ]);
    assert.equal(pages, 4);
    for (const e of events) {
      assert.equal(e.type, 'contract');
      assert.equal(e.contractId!.contractId(), contractId);
      assert.equal('inSuccessfulContractCall' in e, false, 'dropped as in stellar-rpc v30');
      assert.ok(hashes.includes(e.txHash), `${e.txHash} is one of ours`);
      assert.equal(e.transactionIndex, 1);
      assert.equal(e.operationIndex, 0);
      assert.match(e.ledgerClosedAt, /Z$/);
    }
    const ids = events.map((e) => e.id);
    assert.deepEqual(ids, [...ids].sort(), 'ascending ids');
    // a transfer: from, to, SEP-11 asset; the amount as i128
    const transfer = events[3];
    assert.equal(transfer.topic.length, 4);
    assert.equal(Buffer.from(transfer.topic[1].toXdr()).toString('base64'), account(holder.publicKey()));
    assert.equal(Buffer.from(transfer.topic[2].toXdr()).toString('base64'), account(other.publicKey()));
    const value = xdr.ScVal.schema.decode(transfer.value.toXdr()) as { type: number; i128: { lo: bigint } };
    assert.equal(value.type, 10);
    assert.equal(value.i128.lo, 10_000_000n);
    // past the end: the end-of-window cursor keeps paging through empty pages
    const latest = (await s.getLatestLedger()).sequence;
    const again = await s.getEvents({ filters, cursor, limit: 3 });
    assert.deepEqual(again.events, []);
    assert.ok(again.cursor.endsWith('-4294967295'), again.cursor);
    assert.ok(BigInt(again.cursor.split('-')[0]) >> 32n >= BigInt(latest), `${again.cursor} reaches ${latest}`);
  });

  it('topic filters: transfers to one account, and the holder\'s fee events (stage BEFORE_ALL_TXS)', async () => {
    const toOther = await pageToEnd(s, { startLedger: start, filters: [{ topics: [[symbol('transfer'), '*', account(other.publicKey()), '**']] }] }, 2);
    assert.equal(toOther.events.length, 8, 'its funding by the faucet (native) and 7 EVT payments');
    const assetString = b64({ type: 14, str: new xdr.XdrString(`EVT:${issuer.publicKey()}`) } as xdr.ScValWire);
    const evtToOther = await pageToEnd(s, { startLedger: start, filters: [{ topics: [[symbol('transfer'), '*', account(other.publicKey()), assetString]] }] }, 2);
    assert.equal(evtToOther.events.length, 7);
    const fees = await pageToEnd(s, { startLedger: start, filters: [{ topics: [[symbol('fee'), account(holder.publicKey())]] }] }, 4);
    // the holder paid: changeTrust + 7 transfers (its funding was paid by the faucet)
    assert.equal(fees.events.length, 8);
    for (const e of fees.events) {
      assert.equal(e.transactionIndex, 0, 'fee events carry the BEFORE_ALL_TXS sentinel');
      assert.equal(e.operationIndex, 0);
      assert.equal(e.contractId!.contractId(), Asset.native().contractId(PASSPHRASE));
      const amount = xdr.ScVal.schema.decode(e.value.toXdr()) as { i128: { lo: bigint } };
      assert.equal(amount.i128.lo, 100n);
    }
    // two filters are ORed
    const both = await s.getEvents({ startLedger: start, filters: [{ topics: [[symbol('mint'), '**']] }, { topics: [[symbol('burn'), '**']] }], limit: 10 });
    assert.deepEqual(both.events.map(topicSymbol), ['mint', 'burn']);
  });

  it('every event from the start, then the raw response shape clients rely on', async () => {
    const all = await pageToEnd(s, { startLedger: start, filters: [] }, 7);
    assert.ok(all.events.length >= 11 + hashes.length, `${all.events.length} events`);
    const raw = await node.rpc('getEvents', { startLedger: start, pagination: { limit: 1 } });
    assert.deepEqual(Object.keys(raw.result), ['events', 'cursor', 'latestLedger', 'oldestLedger', 'latestLedgerCloseTime', 'oldestLedgerCloseTime']);
    assert.equal(typeof raw.result.latestLedgerCloseTime, 'string');
    const bad = await node.rpc('getEvents', { startLedger: start, filters: [{ type: 'diagnostic' }] });
    assert.deepEqual(bad.error, { code: -32602, message: "filter 1 invalid: filter type invalid: if set, type must be either 'system' or 'contract'" });
  });
});
