// ForkedState over a real store and a real HTTP server standing in for the forked network's RPC:
// what it fetches lands in the state with its TTL (archived persistent: no TTL, expired temporary:
// absent), every asked key is resolved once (found or not, also across a reopen), a local value is
// never overwritten, concurrent readers of a key share one fetch, and a failing remote is a
// ForkFetchError that resolves nothing.
import { it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { xdr } from '../../../src/xdr/xdr.ts';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { ForkFetchError, RemoteForkedState, markResolved } from '../../../src/fork/forkedState.ts';
import { RemoteRpc } from '../../../src/fork/remoteRpc.ts';
import { decodeLedgerEntry, encodeLedgerEntry, encodeLedgerKey, toBase64, type LedgerEntry } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf, ttlKeyFor } from '../../../src/xdr/ledgerKeys.ts';
import { account, contractData } from '../archive/helpers.ts';

const FORK_LEDGER = 100;
/** What the remote holds: base64 key -> entry and liveUntil. */
const remoteState = new Map<string, { entry: LedgerEntry; liveUntil?: number }>();
let requests = 0;
let failing = false;
let hold: Promise<void> = Promise.resolve();
const server = createServer((req, res: ServerResponse) => {
  let text = '';
  req.on('data', (c) => { text += c; });
  req.on('end', async () => {
    requests++;
    await hold;
    const body = JSON.parse(text);
    if (failing) { res.statusCode = 503; return res.end(); }
    const entries = (body.params.keys as string[]).flatMap((k) => {
      const e = remoteState.get(k);
      if (!e) return [];
      return [{
        key: k, xdr: toBase64(xdr.LedgerEntryData.schema.encode(e.entry.data)), lastModifiedLedgerSeq: e.entry.lastModifiedLedgerSeq,
        ...(e.liveUntil !== undefined ? { liveUntilLedgerSeq: e.liveUntil } : {}),
      }];
    });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { entries, latestLedger: 120 } }));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
after(() => { server.closeAllConnections(); server.close(); });

const keyOf = (e: LedgerEntry) => encodeLedgerKey(ledgerKeyOf(e.data));
const ttlOf = (e: LedgerEntry) => encodeLedgerKey(ttlKeyFor(ledgerKeyOf(e.data)));
function onRemote(e: LedgerEntry, liveUntil?: number): Uint8Array {
  remoteState.set(toBase64(keyOf(e)), { entry: e, ...(liveUntil !== undefined ? { liveUntil } : {}) });
  return keyOf(e);
}
const newStore = () => new SqliteStore(join(mkdtempSync(join(tmpdir(), 'lumen-fork-')), 's.sqlite'));
const forked = (store: SqliteStore, stored: unknown[] = []) => new RemoteForkedState({
  store, remote: new RemoteRpc(url, { timeoutMs: 500, retries: 1, backoffMs: 10 }), forkLedger: FORK_LEDGER,
  onStored: (w) => stored.push(...w),
});

it('stores what the remote has with its TTL, resolves every key asked once, also after a reopen', async () => {
  const store = newStore();
  const stored: unknown[] = [];
  const fork = forked(store, stored);
  const acct = account(1, 500n, 90);
  const live = contractData(1, 1, 95, 1);
  const archived = contractData(2, 2, 60, 1);
  const expiredTemp = contractData(3, 3, 60, 0);
  const liveTemp = contractData(4, 4, 99, 0);
  const late = account(2, 7n, 115); // changed on the remote after the fork ledger
  const keys = [onRemote(acct), onRemote(live, 200), onRemote(archived, 80), onRemote(expiredTemp, 80), onRemote(liveTemp, 150), onRemote(late)];
  const absent = keyOf(account(3, 1n));
  assert.equal(fork.isResolved(keys[0]), false);
  requests = 0;
  await fork.resolve([...keys, absent]);
  assert.equal(requests, 1);
  for (const k of [...keys, absent]) assert.equal(fork.isResolved(k), true);
  assert.equal(fork.isResolved(ttlOf(live)), true, 'TTL keys come with their entries');
  assert.deepEqual(decodeLedgerEntry(store.entry(keys[0])!.entry), acct);
  const ttl = decodeLedgerEntry(store.entry(ttlOf(live))!.entry).data;
  assert.equal(ttl.type === 9 && ttl.ttl.liveUntilLedgerSeq, 200);
  assert.ok(store.entry(keys[2]), 'an archived persistent entry is kept');
  assert.equal(store.entry(ttlOf(archived)), undefined, '... without a TTL entry');
  assert.equal(store.entry(keys[3]), undefined, 'an expired temporary entry is absent');
  assert.ok(store.entry(keys[4]) && store.entry(ttlOf(liveTemp)));
  assert.equal(store.entry(keys[5])!.lastModified, FORK_LEDGER, 'pre-fork state: lastModified at most the fork ledger');
  assert.equal(store.entry(absent), undefined);
  assert.equal(stored.length, 7, 'the writes made are reported: 5 entries and 2 TTL entries');
  requests = 0;
  await fork.resolve([...keys, absent]);
  assert.equal(requests, 0, 'nothing is asked twice');
  const path = (store as unknown as { db: { location(): string } }).db.location();
  store.close();
  const reopened = new SqliteStore(path);
  assert.equal(forked(reopened).isResolved(absent), true, 'the resolved keys survive a reopen');
  reopened.close();
});

it('a local value is never replaced; what genesis wrote is resolved without asking', async () => {
  const store = newStore();
  const fork = forked(store);
  const remote = account(10, 1n, 50);
  const key = onRemote(remote);
  const local = account(10, 999n, 101);
  store.ingest({ ledger: { sequence: 101, hash: new Uint8Array(32), closeTime: 1, protocolVersion: 23, header: new Uint8Array(), meta: new Uint8Array() },
    transactions: [], entryWrites: [{ key, entry: encodeLedgerEntry(local), lastModified: 101 }], feeSamples: [] }, 100);
  await fork.resolve([key]);
  assert.deepEqual(decodeLedgerEntry(store.entry(key)!.entry), local);
  const genesisKey = onRemote(account(11, 5n, 50));
  markResolved(store, [genesisKey]);
  requests = 0;
  await fork.resolve([genesisKey]);
  assert.equal(requests, 0);
  assert.equal(store.entry(genesisKey), undefined);
  store.close();
});

it('concurrent readers of a key share one fetch; a failing remote resolves nothing', async () => {
  const store = newStore();
  const fork = forked(store);
  const key = onRemote(account(20, 3n, 40));
  let release!: () => void;
  hold = new Promise((r) => { release = r; });
  requests = 0;
  const both = Promise.all([fork.resolve([key]), fork.resolve([key])]);
  await new Promise((r) => setTimeout(r, 50));
  release();
  await both;
  hold = Promise.resolve();
  assert.equal(requests, 1);
  failing = true;
  const other = onRemote(account(21, 3n, 40));
  await assert.rejects(fork.resolve([other]), (e: unknown) => {
    assert.ok(e instanceof ForkFetchError);
    assert.match(e.message, new RegExp(`^could not read ledger entries from the forked network ${url}: getLedgerEntries at ${url}: HTTP 503`));
    return true;
  });
  assert.equal(fork.isResolved(other), false);
  failing = false;
  await fork.resolve([other]);
  assert.ok(store.entry(other));
  store.close();
});
