// The Rust side of lumen_dumpState (test/run-all.sh runs this): a node deploys the counter and storage
// test contracts and sets their data, dumps its state, and this crate's `cargo test` reads the dump
// with soroban-sdk's Env::from_ledger_snapshot_file (tests/read_dump.rs): the file is in the crate's
// own serde form, the contracts' data is there and their Wasm runs. The snapshot the Env writes back
// after an increment (Env::to_ledger_snapshot_file) is then loaded by a fresh node (--load-state),
// which serves the incremented count.
//
// Cargo builds into the same target folder as the native addon (native/build.ts: outside the clone,
// $LUMEN_NATIVE_TARGET_DIR, else $CARGO_TARGET_DIR, else ${XDG_CACHE_HOME:-~/.cache}/lumen-rpc/target),
// so only the first run on a machine compiles soroban-sdk (measured here: cold 4 min 48 s, 693 MB of
// target/debug; warm: a 0.3 s no-op build, 4 s for this whole step).
// LUMEN_SKIP_NATIVE=1 skips it, as it skips the addon.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { Asset, Claimant, LiquidityPoolAsset, Operation } from '@stellar/stellar-sdk';
import { clientFor, fundedAccount, server, startContractNode, uploadAndDeploy } from '../../integration/support/contracts.ts';
import { applied, issueAssets } from '../../integration/support/classic.ts';
import { cargoTargetDir } from '../cargoTarget.ts';

const crateDir = dirname(fileURLToPath(import.meta.url));

async function main(): Promise<void> {
  if (process.env.LUMEN_SKIP_NATIVE === '1') {
    process.stderr.write('LUMEN_SKIP_NATIVE=1: the ledger snapshot Rust test is skipped\n');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'lumen-snapshot-rs-'));
  const dumpPath = join(dir, 'dump.json');
  const envOut = join(dir, 'env.json');
  const quiet = ['--ledger-close-interval', '600s'];
  // the node writes files only into its --state-dir, by plain name
  const node = await startContractNode([...quiet, '--state-dir', dir]);
  let counterId: string;
  let storageId: string;
  try {
    const s = server(node.url);
    const deployer = await fundedAccount(node.url);
    counterId = (await uploadAndDeploy(s, deployer, 'counter')).contractId;
    storageId = (await uploadAndDeploy(s, deployer, 'storage')).contractId;
    const counter = await clientFor(node.url, counterId, deployer);
    await (await counter.increment({ by: 42 })).signAndSend();
    await (await (await clientFor(node.url, storageId, deployer)).put_persistent({ key: 'kept', value: 7n })).signAndSend();
    // classic entries too, so the crate reads their JSON form: a trustline, an offer, a data entry, ...
    const { assets } = await issueAssets(s, ['USD'], [deployer], [{ to: deployer, code: 'USD', amount: '100' }]);
    await applied(s, deployer, [
      Operation.manageSellOffer({ selling: assets.USD, buying: Asset.native(), amount: '1', price: '2' }),
      Operation.manageData({ name: 'note', value: 'dumped' }),
      // a claimable balance (its id and claim predicates) and a liquidity pool with its pool-share trustline
      Operation.createClaimableBalance({
        asset: Asset.native(), amount: '3',
        claimants: [new Claimant(deployer.publicKey(), Claimant.predicateBeforeAbsoluteTime('4102444800'))],
      }),
      Operation.changeTrust({ asset: new LiquidityPoolAsset(Asset.native(), assets.USD, 30) }),
    ]);
    const dumped = await node.rpc('lumen_dumpState', { file: 'dump.json' });
    assert.ok(dumped.result, JSON.stringify(dumped.error));
    process.stderr.write(`dumped ${dumped.result.entries} entries at ledger ${dumped.result.ledger} to ${dumpPath}\n`);
  } finally {
    await node.stop();
  }

  const started = Date.now();
  const cargo = spawnSync(process.env.CARGO || 'cargo', ['test', '--locked', '--manifest-path', join(crateDir, 'Cargo.toml')], {
    stdio: 'inherit',
    env: {
      ...process.env, CARGO_TARGET_DIR: cargoTargetDir(),
      LUMEN_SNAPSHOT: dumpPath, LUMEN_SNAPSHOT_OUT: envOut,
      LUMEN_COUNTER_ID: counterId, LUMEN_COUNTER_VALUE: '42', LUMEN_STORAGE_ID: storageId, LUMEN_KEPT_VALUE: '7',
    },
  });
  process.stderr.write(`cargo test: ${((Date.now() - started) / 1000).toFixed(1)} s (build and run)\n`);
  if (cargo.error || cargo.status !== 0) throw new Error(`cargo test failed (${cargo.error?.message ?? `exit ${cargo.status}`})`);

  // the snapshot soroban-sdk wrote back, loaded by a new network
  const loaded = await startContractNode(['--load-state', envOut, ...quiet]);
  try {
    const reader = await fundedAccount(loaded.url);
    const count = (await (await clientFor(loaded.url, counterId, reader)).get()).result;
    assert.equal(count, 142, 'the count soroban-sdk left in its snapshot');
    process.stderr.write('a node started from soroban-sdk\'s snapshot serves the count the Env left: ok\n');
  } finally {
    await loaded.stop();
  }
}

await main();
