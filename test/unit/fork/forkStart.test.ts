// --fork-url's configuration and start rules without a running remote: the passphrase is left to the
// remote unless given; a database that is already a fork continues without asking the remote (its
// stored passphrase taken); another URL, a non-fork database, a fork started without --fork-url,
// and the follow options or --load-state together with it are refused; an unreachable remote on an
// empty database stops the start before anything is claimed.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { loadConfig } from '../../../src/config/load.ts';
import { isFollower } from '../../../src/config/config.ts';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { FORK_LEDGER, FORK_PINNED, FORK_URL, ForkStartError, prepareFork } from '../../../src/fork/forkStart.ts';

const config = (flags: Record<string, unknown>) => loadConfig({ flags: { 'db-path': 'x.sqlite', ...flags }, env: {} });
const newStore = () => new SqliteStore(join(mkdtempSync(join(tmpdir(), 'lumen-forkstart-')), 's.sqlite'));
function withLedger(store: SqliteStore): SqliteStore {
  store.ingest({ ledger: { sequence: 50, hash: new Uint8Array(32), closeTime: 1, protocolVersion: 23, header: new Uint8Array(), meta: new Uint8Array() },
    transactions: [], entryWrites: [], feeSamples: [] }, 100);
  return store;
}

it('the passphrase is the remote\'s unless given', () => {
  assert.equal(config({ 'fork-url': 'http://r' }).networkPassphrase, '');
  assert.equal(config({ 'fork-url': 'http://r', 'network-passphrase': 'P' }).networkPassphrase, 'P');
  assert.equal(config({}).networkPassphrase, 'Standalone Network ; February 2017');
});

it('--fork-archive needs a passphrase: --network-passphrase, or --network\'s with its data lake as the datastore', () => {
  assert.equal(config({ 'fork-archive': '/a' }).networkPassphrase, '');
  assert.equal(config({ 'fork-archive': '/a', 'network-passphrase': 'P' }).networkPassphrase, 'P');
  const testnet = config({ 'fork-archive': '/a', network: 'testnet' });
  assert.equal(testnet.networkPassphrase, 'Test SDF Network ; September 2015');
  assert.match(testnet.datastore, /testnet/);
  assert.equal(isFollower(testnet), false);
  assert.equal(config({ 'fork-archive': '/a', network: 'testnet', datastore: '/d' }).datastore, '/d');
});

it('a fork continues on its database without asking the remote; other combinations are refused', async () => {
  const store = withLedger(newStore());
  store.setMetadata(FORK_URL, 'http://127.0.0.1:9');
  store.setMetadata(FORK_LEDGER, '50');
  store.setMetadata('networkPassphrase', 'Remote ; 1');
  const same = config({ 'fork-url': 'http://127.0.0.1:9' });
  assert.equal(await prepareFork(store, same), undefined); // port 9 would not answer: nothing was asked
  assert.equal(same.networkPassphrase, 'Remote ; 1');
  await assert.rejects(prepareFork(store, config({ 'fork-url': 'http://other' })), /is a fork of http:\/\/127\.0\.0\.1:9; a fork continues/);
  await assert.rejects(prepareFork(store, config({})), /holds a fork of http:\/\/127\.0\.0\.1:9: start it with --fork-url/);
  const plain = withLedger(newStore());
  await assert.rejects(prepareFork(plain, config({ 'fork-url': 'http://r' })), /already holds a network that is not a fork/);
  assert.equal(await prepareFork(plain, config({})), undefined);
  await assert.rejects(prepareFork(newStore(), config({ 'fork-url': 'http://r', datastore: '/d' })), ForkStartError);
  await assert.rejects(prepareFork(newStore(), config({ 'fork-url': 'http://r', 'load-state': 's.json' })), /--fork-url and --load-state/);
});

it('an unreachable remote stops the start of a new fork, with nothing claimed', async () => {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  const store = newStore();
  const c = config({ 'fork-url': `http://127.0.0.1:${port}` });
  await assert.rejects(prepareFork(store, c, { retries: 0 }), /--fork-url: the forked network cannot be read: getNetwork at .*: no answer/);
  assert.equal(store.metadata('networkPassphrase'), undefined);
  assert.equal(store.metadata(FORK_URL), undefined);
  assert.equal(c.networkPassphrase, '');
});

it('--fork-ledger: needs --fork-url, a positive integer, and the pinned ledger of a fork that continues', async () => {
  assert.throws(() => config({ 'fork-url': 'http://r', 'fork-ledger': '0' }), /--fork-ledger must be positive/);
  assert.throws(() => config({ 'fork-url': 'http://r', 'fork-ledger': '-1' }), /--fork-ledger must be a non-negative integer/);
  await assert.rejects(prepareFork(newStore(), config({ 'fork-ledger': 5 })), /--fork-ledger 5 pins a fork: it needs --fork-url/);
  const pinned = withLedger(newStore());
  pinned.setMetadata(FORK_URL, 'http://127.0.0.1:9');
  pinned.setMetadata(FORK_LEDGER, '50');
  pinned.setMetadata(FORK_PINNED, 'true');
  await assert.rejects(prepareFork(pinned, config({ 'fork-url': 'http://127.0.0.1:9', 'fork-ledger': 49 })), /is a fork of http:\/\/127\.0\.0\.1:9 at ledger 50/);
  const same = config({ 'fork-url': 'http://127.0.0.1:9', 'fork-ledger': 50 });
  assert.equal(await prepareFork(pinned, same), undefined);
  const without = config({ 'fork-url': 'http://127.0.0.1:9' });
  assert.equal(await prepareFork(pinned, without), undefined);
  assert.equal(without.forkLedger, 50, 'a restart without --fork-ledger stays pinned');
  const latest = withLedger(newStore());
  latest.setMetadata(FORK_URL, 'http://127.0.0.1:9');
  latest.setMetadata(FORK_LEDGER, '50');
  await assert.rejects(prepareFork(latest, config({ 'fork-url': 'http://127.0.0.1:9', 'fork-ledger': 50 })), /reads the remote's latest state \(from ledger 50\)/);
  const unpinned = config({ 'fork-url': 'http://127.0.0.1:9' });
  await prepareFork(latest, unpinned);
  assert.equal(unpinned.forkLedger, 0);
});
