// lumen_dumpState and --load-state end to end: a network with accounts, a trustline and deployed
// contracts with data is dumped as a JSON ledger snapshot; a fresh node started from it answers
// getLedgerEntries identically for every key (the entry XDR, lastModifiedLedgerSeq and
// liveUntilLedgerSeq: the genesis ledger IS the snapshot's ledger), and runs transactions on it.
// Bad input (a missing or malformed file, another network's snapshot, a database that already holds
// a network, bad params, an answer over the budget) gets a clear error and changes nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Asset, Keypair, Networks, Operation, contract, hash, rpc, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { clientFor, contractDataKey, fundedAccount, instanceKey, server, startContractNode, uploadAndDeploy } from './support/contracts.ts';
import { applied, issueAssets, manageOfferSuccess, offerIdOf, trustLineView } from './support/classic.ts';
import { encodeLedgerKey, toBase64, toHex } from '../../src/xdr/codec.ts';
import { ledgerKeyOf } from '../../src/xdr/ledgerKeys.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
/** No closes on the cadence while the test looks: only transactions close ledgers (instant mode). */
const QUIET = ['--ledger-close-interval', '600s'];

interface Snapshot {
  protocol_version: number; sequence_number: number; timestamp: number; network_id: string; base_reserve: number;
  min_persistent_entry_ttl: number; min_temp_entry_ttl: number; max_entry_ttl: number;
  ledger_entries: Array<{ entry: unknown; live_until: number | null }>;
}

/** Every entry of a snapshot, as what getLedgerEntries answers for its key. */
async function entriesAsServed(node: NodeProcess, keys: string[]): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  for (let i = 0; i < keys.length; i += 200) {
    const r = await node.rpc('getLedgerEntries', { keys: keys.slice(i, i + 200) });
    assert.ok(r.result, JSON.stringify(r.error));
    for (const e of r.result.entries) {
      out.set(e.key, { xdr: e.xdr, lastModifiedLedgerSeq: e.lastModifiedLedgerSeq, liveUntilLedgerSeq: e.liveUntilLedgerSeq });
    }
  }
  return out;
}

/** The LedgerKey (base64 XDR) of a snapshot entry. */
const ledgerKeyBase64 = (entryJson: unknown): string =>
  toBase64(encodeLedgerKey(ledgerKeyOf(xdr.LedgerEntry.schema.decode(xdr.LedgerEntry.fromJson(entryJson as never).toXdr()).data)));

async function startFails(args: string[], dbPath?: string): Promise<string> {
  await assert.rejects(startNodeProcess({ args: ['--log-level', 'warn', ...args], dbPath, readyTimeoutMs: 15_000 }), (e: Error) => {
    assert.match(e.message, /lumen-rpc exited/);
    failure = e.message;
    return true;
  });
  return failure;
}
let failure = '';

describe('lumen_dumpState and --load-state', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'lumen-dump-')));
  /** The node writes files only into its --state-dir, by plain name. */
  const stateDir = join(dir, 'state');
  const dumpPath = join(stateDir, 'snapshot.json');
  let a: NodeProcess;
  let b: NodeProcess | undefined;
  let s: rpc.Server;
  let deployer: Keypair;
  let holder: Keypair;
  let usd: Asset;
  let firstOfferId: bigint;
  const sellUsd = () => Operation.manageSellOffer({ selling: usd, buying: Asset.native(), amount: '1', price: '3' });
  let counterId: string;
  let storageId: string;
  let dumped: { path: string; entries: number; ledger: number };

  before(async () => {
    a = await startContractNode([...QUIET, '--state-dir', stateDir]);
    s = server(a.url);
    deployer = await fundedAccount(a.url);
    holder = await fundedAccount(a.url);
    usd = (await issueAssets(s, ['USD'], [holder], [{ to: holder, code: 'USD', amount: '12.5' }])).assets.USD;
    firstOfferId = offerIdOf(manageOfferSuccess((await applied(s, holder, [sellUsd()])).done));
    counterId = (await uploadAndDeploy(s, deployer, 'counter')).contractId;
    storageId = (await uploadAndDeploy(s, deployer, 'storage')).contractId;
    const counter = await clientFor(a.url, counterId, deployer);
    for (const by of [2, 3]) await (await counter.increment({ by })).signAndSend();
    const storage = await clientFor(a.url, storageId, deployer);
    await (await storage.put_persistent({ key: 'kept', value: 7n })).signAndSend();
    await (await storage.put_temporary({ key: 'brief', value: 9n })).signAndSend();
    // an archived persistent entry: dumped with live_until 0, loaded back archived
    await (await storage.put_persistent({ key: 'shelved', value: 5n })).signAndSend();
    const archived = await a.rpc('lumen_archiveEntry', { key: contractDataKey(storageId, xdr.ScVal.scvSymbol('shelved'), 'persistent').toXDR('base64') });
    assert.ok(archived.result?.evictedIn > 0, JSON.stringify(archived));
  });
  after(async () => { await a?.stop(); await b?.stop(); });

  it('writes the whole state to a file in --state-dir: every entry but TTLs, contract entries with their live-until, the latest ledger\'s values', async () => {
    const r = await a.rpc('lumen_dumpState', { file: 'snapshot.json' });
    assert.ok(r.result, JSON.stringify(r.error));
    dumped = r.result;
    const latest = (await a.rpc('getLatestLedger')).result;
    assert.deepEqual(dumped, { path: dumpPath, entries: dumped.entries, ledger: latest.sequence });
    const snap = JSON.parse(readFileSync(dumpPath, 'utf8')) as Snapshot;
    assert.equal(snap.ledger_entries.length, dumped.entries);
    assert.equal(snap.sequence_number, latest.sequence);
    assert.equal(snap.protocol_version, latest.protocolVersion);
    assert.equal(snap.network_id, (await a.rpc('getNetwork')).result.passphrase === 'Standalone Network ; February 2017'
      ? 'baefd734b8d3e48472cff83912375fedbc7573701912fe308af730180f97d74a' : '?');
    assert.equal(snap.base_reserve, 5_000_000);
    assert.ok(snap.min_persistent_entry_ttl > 0 && snap.min_temp_entry_ttl > 0 && snap.max_entry_ttl > snap.min_persistent_entry_ttl);
    const types = new Map<string, number>();
    for (const { entry, live_until } of snap.ledger_entries) {
      const type = Object.keys((entry as { data: Record<string, unknown> }).data)[0];
      types.set(type, (types.get(type) ?? 0) + 1);
      const soroban = type === 'contract_data' || type === 'contract_code';
      assert.equal(live_until === null, !soroban, `${type}: live_until ${live_until}`);
      if (soroban) assert.ok(live_until! >= snap.sequence_number || live_until === 0);
    }
    assert.equal(snap.ledger_entries.filter((e) => e.live_until === 0).length, 1, 'the archived entry, expired');
    assert.equal(types.get('ttl'), undefined, 'TTL entries are carried as live_until');
    assert.ok(types.get('account')! >= 4, 'root, deployer, holder, issuer');
    assert.equal(types.get('trustline'), 1);
    assert.equal(types.get('offer'), 1);
    assert.equal(types.get('contract_code'), 2);
    assert.ok(types.get('contract_data')! >= 4, 'two instances, a persistent and a temporary entry');
    assert.ok(types.get('config_setting')! > 10);
  });

  it('answers the same snapshot without a file; `lumen-rpc dev dump-state FILE` writes that answer on the caller\'s side', async () => {
    const r = await a.rpc('lumen_dumpState', {});
    assert.deepEqual(r.result, JSON.parse(readFileSync(dumpPath, 'utf8')));
    const cliPath = join(dir, 'cli.json');
    const cli = spawnSync(process.execPath, ['bin/lumen-rpc.js', 'dev', 'dump-state', cliPath, '--rpc-url', a.url], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(cli.stdout, '');
    assert.deepEqual(JSON.parse(readFileSync(cliPath, 'utf8')), JSON.parse(readFileSync(dumpPath, 'utf8')));
  });

  it('a fresh node started from the snapshot answers getLedgerEntries identically for every key', async () => {
    b = await startContractNode(['--load-state', dumpPath, ...QUIET]);
    const snap = JSON.parse(readFileSync(dumpPath, 'utf8')) as Snapshot;
    const keys = snap.ledger_entries.map((e) => ledgerKeyBase64(e.entry));
    const [fromA, fromB] = [await entriesAsServed(a, keys), await entriesAsServed(b, keys)];
    assert.equal(fromA.size, keys.length);
    assert.deepEqual(fromB, fromA);
    const shelved = [...fromA.values()].filter((e) => (e as { liveUntilLedgerSeq?: number }).liveUntilLedgerSeq === 0);
    assert.equal(shelved.length, 1, 'the archived entry is served archived by both');
    // the genesis is the snapshot's ledger: the sequence continues from it
    const latest = (await b.rpc('getLatestLedger')).result;
    assert.equal(latest.sequence, dumped.ledger);
    assert.equal(latest.protocolVersion, snap.protocol_version);
    assert.ok((await b.rpc('getLedgers', { startLedger: dumped.ledger, pagination: { limit: 1 } })).result.ledgers[0].ledgerCloseTime >= String(snap.timestamp));
  });

  it('the loaded network runs transactions: the contracts are invoked, their data read, a trustline pays, offer ids continue, the faucet funds', async () => {
    assert.ok(b);
    const counter = await clientFor(b.url, counterId, deployer);
    assert.equal((await (await counter.increment({ by: 10 })).signAndSend()).result, 15);
    const storage = await clientFor(b.url, storageId, deployer);
    assert.equal((await storage.get_persistent({ key: 'kept' })).result, 7n);
    assert.equal((await storage.get_temporary({ key: 'brief' })).result, 9n);
    await applied(server(b.url), holder, [Operation.payment({ destination: usd.getIssuer()!, asset: usd, amount: '2.5' })]);
    assert.equal((await trustLineView(server(b.url), holder.publicKey(), usd))?.balance, 100_000_000n);
    // offer ids continue after the snapshot's
    const nextOfferId = offerIdOf(manageOfferSuccess((await applied(server(b.url), holder, [sellUsd()])).done));
    assert.ok(nextOfferId > firstOfferId, `offer ${nextOfferId} after ${firstOfferId}`);
    const newcomer = await fundedAccount(b.url);
    assert.ok(newcomer.publicKey());
    assert.ok((await b.rpc('getLatestLedger')).result.sequence > dumped.ledger);
    // the source network is unchanged by all this
    assert.equal((await (await clientFor(a.url, counterId, deployer)).get()).result, 5);
  });

  it('a snapshot cut elsewhere (as `stellar snapshot create` writes one) loads with its own passphrase: some entries, live_until u32::MAX, no configuration', async () => {
    // as `stellar snapshot create --address <contract> --address <account>` cuts one from testnet: the
    // contract's instance, code and data and the account, every entry with live_until u32::MAX, at
    // testnet's sequence, the close time 0 when the CLI could not read the header; and here without
    // the network's configuration (soroban-sdk's own snapshots have none)
    const snap = JSON.parse(readFileSync(dumpPath, 'utf8')) as Snapshot;
    const kept = snap.ledger_entries.filter(({ entry }) => {
      const data = (entry as { data: Record<string, any> }).data;
      return data.contract_code || data.contract_data?.contract === counterId || data.account?.account_id === deployer.publicKey();
    }).map(({ entry }) => ({ entry, live_until: 0xffff_ffff }));
    assert.equal(kept.length, 4);
    const elsewhere = join(dir, 'testnet.json');
    writeFileSync(elsewhere, JSON.stringify({
      ...snap, network_id: toHex(hash(Buffer.from(Networks.TESTNET))), sequence_number: 1_234_567, timestamp: 0, ledger_entries: kept,
    }, null, 2));
    const t = await startContractNode(['--load-state', elsewhere, '--network-passphrase', Networks.TESTNET, ...QUIET]);
    try {
      assert.equal((await t.rpc('getNetwork')).result.passphrase, Networks.TESTNET);
      assert.equal((await t.rpc('getLatestLedger')).result.sequence, 1_234_567);
      const counter = await contract.Client.from({
        contractId: counterId, rpcUrl: t.url, allowHttp: true, networkPassphrase: Networks.TESTNET, publicKey: deployer.publicKey(),
        ...contract.basicNodeSigner(deployer, Networks.TESTNET),
      }) as contract.Client & Record<string, any>;
      assert.equal((await counter.get()).result, 5);
      assert.equal((await (await counter.increment({ by: 1 })).signAndSend()).result, 6);
      const instance = await t.rpc('getLedgerEntries', { keys: [instanceKey(counterId).toXDR('base64')] });
      assert.equal(instance.result.entries[0].liveUntilLedgerSeq, 0xffff_ffff);
      // the faucet pays from this passphrase's root account, which the snapshot lacked
      const res = await fetch(`${t.url}/friendbot?addr=${Keypair.random().publicKey()}`);
      assert.equal(res.status, 200, await res.text());
    } finally {
      await t.stop();
    }
  });

  it('refuses bad params clearly and keeps serving', async () => {
    const bad = await a.rpc('lumen_dumpState', { file: 5 });
    assert.equal(bad.error?.code, -32602);
    const path = await a.rpc('lumen_dumpState', { path: dumpPath });
    assert.equal(path.error?.code, -32602, 'a path is no param of it any more');
    assert.match(JSON.stringify(path.error), /path/);
    const again = await a.rpc('lumen_dumpState', { file: 'snapshot.json' });
    assert.equal(again.error?.code, -32602);
    assert.match(JSON.stringify(again.error), /exists in the state folder: give overwrite: true/);
    const lone = await a.rpc('lumen_dumpState', { overwrite: true });
    assert.equal(lone.error?.code, -32602);
    assert.ok((await a.rpc('getLatestLedger')).result.sequence >= dumped.ledger);
  });

  it('an answer over the budget is refused with a pointer to --state-dir and `file`', async () => {
    const small = await startNodeProcess({ args: ['--log-level', 'warn', '--max-response-body-bytes', '4000', '--state-dir', join(dir, 'small'), ...QUIET] });
    try {
      const r = await small.rpc('lumen_dumpState', {});
      assert.equal(r.error?.code, -32005);
      assert.match(r.error.data, /start the node with --state-dir and give `file`/);
      const toFile = await small.rpc('lumen_dumpState', { file: 'small.json' });
      assert.ok(toFile.result.entries > 0, JSON.stringify(toFile));
      assert.equal(toFile.result.path, join(dir, 'small', 'small.json'));
    } finally {
      await small.stop();
    }
  });

  it('--load-state refuses a missing file, malformed JSON, a bad entry, a follower, another network and a database in use; a refused start claims nothing', async () => {
    assert.match(await startFails(['--load-state', join(dir, 'absent.json')]), /cannot read the ledger snapshot .*absent\.json/);
    const malformed = join(dir, 'malformed.json');
    writeFileSync(malformed, '{"protocol_version": 28, ');
    assert.match(await startFails(['--load-state', malformed]), /malformed\.json is not a ledger snapshot: malformed JSON/);
    const snap = JSON.parse(readFileSync(dumpPath, 'utf8')) as Snapshot;
    const badEntry = join(dir, 'bad-entry.json');
    writeFileSync(badEntry, JSON.stringify({ ...snap, ledger_entries: [...snap.ledger_entries.slice(0, 2), { entry: { last_modified_ledger_seq: 1, data: { nonsense: {} } }, live_until: null }] }));
    assert.match(await startFails(['--load-state', badEntry]), /ledger_entries\[2\]: .*unknown case nonsense/);
    const noSeq = join(dir, 'no-seq.json');
    writeFileSync(noSeq, JSON.stringify({ ...snap, sequence_number: 'x' }));
    assert.match(await startFails(['--load-state', noSeq]), /"sequence_number" must be a 32-bit unsigned integer/);
    assert.match(await startFails(['--load-state', dumpPath, '--datastore', dir]), /--load-state starts a standalone network; it cannot be used while following/);
    // another network: refused before the database is claimed, so the same database then starts fine
    const dbPath = join(mkdtempSync(join(tmpdir(), 'lumen-dump-db-')), 'node.sqlite');
    const other = await startFails(['--load-state', dumpPath, '--network-passphrase', 'Another Network ; 2026'], dbPath);
    assert.match(other, /the snapshot is of network id baefd734.*not of this network's passphrase "Another Network ; 2026".*--network-passphrase/s);
    const right = await startContractNode(['--load-state', dumpPath, ...QUIET], { dbPath });
    assert.equal((await right.rpc('getLatestLedger')).result.sequence, dumped.ledger);
    await right.stop();
    // a database that already holds a network
    const inUse = await startFails(['--load-state', dumpPath], dbPath);
    assert.match(inUse, /already holds a network; a snapshot only starts a new one/);
    const again = await startContractNode(QUIET, { dbPath });
    assert.equal((await again.rpc('getLatestLedger')).result.sequence, dumped.ledger, 'the data is intact');
    await again.stop();
  });
});
