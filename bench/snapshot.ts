// lumen_snapshot and lumen_revert with 100,000 entries in the state (issue 16: < 1 s each).
//
// In process, on the node's own parts: a StandaloneNetwork over a SqliteStore and the LedgerWriter,
// and the very functions the two methods call (src/standalone/snapshots.ts). The state is seeded
// through ledger closes (developer upgrade steps creating the entries, the data path the set-state
// methods use): accounts, plus persistent contract data with their TTLs, so the revert's reload of
// the Soroban state index has contract entries to read. Each round takes a snapshot, closes some
// ledgers that change, create and delete entries, then reverts to the snapshot and checks the
// entries read back as they were. Baselines measured in the same run: closing one ledger of those
// changes, closing an empty ledger, and one getLedgerEntries call of 200 keys.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { xdr } from '@stellar/stellar-sdk';
import { defaultConfig, type Config } from '../src/config/config.ts';
import { LedgerFeed } from '../src/ingest/ledgerFeed.ts';
import { LedgerWriter } from '../src/ingest/ledgerWriter.ts';
import type { LedgerUpgradeStep } from '../src/ledger/closeLedger.ts';
import { getLedgerEntries } from '../src/rpc/methods/getLedgerEntries.ts';
import { revert, takeSnapshot } from '../src/standalone/snapshots.ts';
import { StandaloneNetwork } from '../src/standalone/standaloneNetwork.ts';
import { SqliteStore } from '../src/store/sqlite/sqliteStore.ts';
import { encodeLedgerKey, toBase64, type LedgerEntry, type LedgerKey } from '../src/xdr/codec.ts';
import { ledgerKeyOf, ttlKeyFor } from '../src/xdr/ledgerKeys.ts';
import { contextFor, testCall } from '../test/unit/methods/support/pubnet.ts';
import type { Row } from './report.ts';
import { fmt, median } from './stats.ts';

export interface SnapshotBenchOptions {
  /** Entries in the state: accounts, and as many contract data entries as TTLs make up `contractShare` of them. */
  entries: number;
  contractShare: number;
  /** Entries created per seeding ledger. */
  seedPerLedger: number;
  rounds: number;
  /** Ledgers closed between a snapshot and its revert, and entries each one changes. */
  ledgersBetween: number;
  changesPerLedger: number;
}
export const DEFAULT_SNAPSHOT_OPTIONS: SnapshotBenchOptions = { entries: 100_000, contractShare: 0.4, seedPerLedger: 10_000, rounds: 5, ledgersBetween: 10, changesPerLedger: 1000 };
export const QUICK_SNAPSHOT_OPTIONS: SnapshotBenchOptions = { entries: 20_000, contractShare: 0.4, seedPerLedger: 10_000, rounds: 2, ledgersBetween: 3, changesPerLedger: 500 };

const TARGET_MS = 1000;
const CONTRACT = { type: 1 as const, contractId: new Uint8Array(32).fill(7) };
/** A header value every step sets to what it already is: the upgrade only carries the entry edits. */
const CARRIER: LedgerUpgradeStep['upgrade'] = { type: 3, newMaxTxSetSize: defaultConfig.maxTxSetSize };

const account = (seed: Uint8Array, balance: bigint): LedgerEntry => ({
  lastModifiedLedgerSeq: 0,
  data: { type: 0, account: {
    accountId: { type: 0, ed25519: seed }, balance, seqNum: 1n << 32n, numSubEntries: 0, inflationDest: null, flags: 0,
    homeDomain: new xdr.XdrString(''), thresholds: new Uint8Array([1, 0, 0, 0]), signers: [], ext: { v: 0 },
  } },
  ext: { v: 0 },
});

const contractData = (n: number, value: bigint): LedgerEntry => ({
  lastModifiedLedgerSeq: 0,
  data: { type: 6, contractData: { ext: { v: 0 }, contract: CONTRACT, key: { type: 3, u32: n }, durability: 1, val: { type: 5, u64: value } } },
  ext: { v: 0 },
});
const ttlOf = (key: LedgerKey, liveUntilLedgerSeq: number): LedgerEntry =>
  ({ lastModifiedLedgerSeq: 0, data: { type: 9, ttl: { keyHash: ttlKeyFor(key).ttl.keyHash, liveUntilLedgerSeq } }, ext: { v: 0 } });

const step = (edit: LedgerUpgradeStep['apply']): LedgerUpgradeStep => ({ upgrade: CARRIER, apply: edit });

export async function runSnapshotBench(o: SnapshotBenchOptions, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-bench-snapshot-'));
  const store = new SqliteStore(join(dir, 'snapshot.sqlite'));
  const config: Config = { ...defaultConfig, closeMode: 'manual' };
  const network = new StandaloneNetwork({ writer: new LedgerWriter(store, new LedgerFeed(), config.historyRetentionWindow), config, logger: pino({ level: 'silent' }) });
  try {
    network.init();
    // ---- seeding: accounts and contract data with their TTLs, created by ledger closes
    const contracts = Math.floor((o.entries * o.contractShare) / 2);
    const accounts = o.entries - 2 * contracts;
    const seeds = Array.from({ length: accounts }, () => randomBytes(32));
    const acct = (i: number, balance: bigint): LedgerEntry => account(seeds[i], balance);
    const t0 = performance.now();
    const creations: Array<() => LedgerEntry[]> = [];
    for (let i = 0; i < accounts; i++) creations.push(() => [acct(i, 1_000_000_000n)]);
    for (let n = 0; n < contracts; n++) {
      creations.push(() => {
        const data = contractData(n, 1n);
        return [data, ttlOf(ledgerKeyOf(data.data), 10_000_000)];
      });
    }
    for (let from = 0; from < creations.length;) {
      const batch: LedgerEntry[] = [];
      while (from < creations.length && batch.length < o.seedPerLedger) batch.push(...creations[from++]());
      await network.closeNextLedger([step((ltx) => { for (const e of batch) ltx.create(e); })]);
    }
    const seedSec = (performance.now() - t0) / 1000;
    log(`  state: ${accounts.toLocaleString('en-US')} accounts, ${contracts.toLocaleString('en-US')} contract data entries and their TTLs, seeded in ${fmt(seedSec, 1)} s`);

    // 200 keys to read back: accounts and contract data spread over the state
    const keys: string[] = [];
    for (let i = 0; i < 100; i++) keys.push(toBase64(encodeLedgerKey(ledgerKeyOf(acct(Math.floor(i * accounts / 100), 0n).data))));
    for (let i = 0; i < 100; i++) keys.push(toBase64(encodeLedgerKey(ledgerKeyOf(contractData(Math.floor(i * contracts / 100), 0n).data))));
    const ctx = contextFor(store);
    const read = async () => JSON.stringify(await getLedgerEntries.handler({ keys }, ctx, testCall()));

    const snapshotMs: number[] = [], revertMs: number[] = [], changeCloseMs: number[] = [], emptyCloseMs: number[] = [], readMs: number[] = [];
    let state = 12345;
    const rand = (n: number) => { state = (state * 1103515245 + 12345) >>> 0; return state % n; };
    for (let round = 0; round < o.rounds; round++) {
      const before = await read();
      let t = performance.now();
      const snap = await takeSnapshot(network, store, config);
      snapshotMs.push(performance.now() - t);
      for (let l = 0; l < o.ledgersBetween; l++) {
        // changes: balances and contract values updated, a few accounts created and contract entries deleted
        const edits: LedgerEntry[] = [];
        for (let c = 0; c < o.changesPerLedger * 0.6; c++) edits.push(acct(rand(accounts), BigInt(1 + rand(1 << 30))));
        for (let c = 0; c < o.changesPerLedger * 0.3; c++) edits.push(contractData(rand(contracts), BigInt(rand(1 << 30))));
        const fresh = Array.from({ length: Math.floor(o.changesPerLedger * 0.05) }, () => account(randomBytes(32), 5_000_000_000n));
        const gone = Array.from({ length: Math.floor(o.changesPerLedger * 0.05) }, () => ledgerKeyOf(contractData(rand(contracts), 0n).data));
        t = performance.now();
        await network.closeNextLedger([step((ltx) => {
          for (const e of edits) { if (ltx.load(ledgerKeyOf(e.data))) ltx.update(e); }
          for (const e of fresh) ltx.create(e);
          for (const k of gone) { if (ltx.load(k)) { ltx.erase(k); ltx.erase(ttlKeyFor(k)); } }
        })]);
        changeCloseMs.push(performance.now() - t);
      }
      t = performance.now();
      await network.closeNextLedger();
      emptyCloseMs.push(performance.now() - t);
      t = performance.now();
      await read();
      readMs.push(performance.now() - t);
      if (await read() === before) throw new Error('the changes did not change the entries read back');
      t = performance.now();
      const r = await revert(network, store, config, { id: snap.id });
      revertMs.push(performance.now() - t);
      if (r.ledger !== snap.ledger) throw new Error(`reverted to ${r.ledger}, not ${snap.ledger}`);
      if (await read() !== before) throw new Error('after the revert the entries differ from the snapshot');
    }
    log(`  snapshot ms: ${snapshotMs.map((x) => fmt(x, 2)).join(', ')}; revert ms: ${revertMs.map((x) => fmt(x, 0)).join(', ')}`);
    log(`  baselines (median ms): close a ledger of ${o.changesPerLedger} entry changes ${fmt(median(changeCloseMs), 1)}, `
      + `close an empty ledger ${fmt(median(emptyCloseMs), 1)}, getLedgerEntries of 200 keys ${fmt(median(readMs), 2)}`);
    const snapMed = median(snapshotMs), revMed = median(revertMs);
    const changes = o.ledgersBetween * o.changesPerLedger;
    const metric = `Snapshot and revert, ${o.entries.toLocaleString('en-US')} entries in the state, ${changes.toLocaleString('en-US')} entry changes reverted`;
    return {
      rows: [{
        metric,
        value: `snapshot ${fmt(snapMed, 2)} ms, revert ${fmt(revMed, 0)} ms`,
        target: `< ${TARGET_MS} ms each`,
        verdict: snapMed < TARGET_MS && revMed < TARGET_MS ? 'PASS' : 'FAIL',
      }],
      details: [
        '### Snapshot and revert', '',
        `In process (src/standalone/snapshots.ts, the functions lumen_snapshot and lumen_revert call) on a SqliteStore with `
        + `${accounts.toLocaleString('en-US')} accounts and ${contracts.toLocaleString('en-US')} persistent contract data entries with their TTLs `
        + `(${o.entries.toLocaleString('en-US')} entries, seeded by ledger closes in ${fmt(seedSec, 1)} s). ${o.rounds} rounds: snapshot, `
        + `${o.ledgersBetween} ledgers of ${o.changesPerLedger.toLocaleString('en-US')} entry changes each (updates, creations, deletions) `
        + 'and one empty ledger, revert to the snapshot; 200 entries read back equal to the snapshot\'s after every revert.', '',
        '| | median ms |', '|---|---|',
        `| lumen_snapshot | ${fmt(snapMed, 2)} |`,
        `| lumen_revert (store revert, engine state reload, queue) | ${fmt(revMed, 1)} |`,
        `| baseline: close one ledger of ${o.changesPerLedger.toLocaleString('en-US')} entry changes | ${fmt(median(changeCloseMs), 1)} |`,
        `| baseline: close one empty ledger | ${fmt(median(emptyCloseMs), 1)} |`,
        `| baseline: getLedgerEntries, 200 keys (in process) | ${fmt(median(readMs), 2)} |`, '',
        `Snapshot ms per round: ${snapshotMs.map((x) => fmt(x, 2)).join(', ')}; revert ms per round: ${revertMs.map((x) => fmt(x, 1)).join(', ')}.`, '',
      ],
    };
  } finally {
    await network.stop();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
