// Network settings of the developer network over HTTP with the JS SDK: --limits unlimited against
// testnet's limits on two nodes, lumen_upgradeConfig (read back with getLedgerEntries, in the
// ledger's meta as a config upgrade, enforced both ways), lumen_setBaseFee / lumen_setBaseReserve
// (header, admission, fees, reserves), the start-up banner's accounts (they sign), a restart, and
// bad input that changes nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, rpc, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { builder, resultCode, server } from './support/sdk.ts';
import { contractCodeKey, fundedAccount, paddedWasm, sendAndPoll, sha256, uploadWasm, wasm } from './support/contracts.ts';
import { applied, opCodes, readEntry, send, transactionResult } from './support/classic.ts';
import { sep5Account, TEST_MNEMONIC } from '../../src/standalone/testAccounts.ts';

const XLM = 10_000_000n;
const TOTAL_COINS = 100_000_000_000n * XLM;
const U32_MAX = 0xffff_ffff;
const TX_INSUFFICIENT_FEE = -9;
const CREATE_ACCOUNT_LOW_RESERVE = -3;

const configKey = (id: number): xdr.LedgerKeyWire => ({ type: 8, configSetting: { configSettingId: id } });

async function setting(s: rpc.Server, id: number): Promise<xdr.ConfigSettingEntryWire> {
  const data = await readEntry(s, configKey(id));
  assert.ok(data?.type === 8, `ConfigSetting ${id} missing`);
  return data.configSetting;
}

async function header(node: NodeProcess, ledger?: number): Promise<xdr.LedgerHeaderWire> {
  const seq = ledger ?? (await node.rpc('getLatestLedger')).result.sequence;
  const page = (await node.rpc('getLedgers', { startLedger: seq, pagination: { limit: 1 } })).result;
  return xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from(page.ledgers[0].headerXdr, 'base64')).header;
}

async function closeMeta(node: NodeProcess, ledger: number): Promise<xdr.LedgerCloseMetaV2Wire> {
  const page = (await node.rpc('getLedgers', { startLedger: ledger, pagination: { limit: 1 } })).result;
  const meta = xdr.LedgerCloseMeta.schema.decode(Buffer.from(page.ledgers[0].metadataXdr, 'base64'));
  assert.equal(meta.v, 2);
  return (meta as Extract<xdr.LedgerCloseMetaWire, { v: 2 }>).v2;
}

/** The banner's test accounts: index, address, balance and secret. */
function bannerAccounts(output: string): Array<{ index: number; publicKey: string; balance: string; secret: string }> {
  const re = /\((\d+)\) (G[A-Z2-7]{55})\s+([\d,.]+) XLM\n\s+(S[A-Z2-7]{55})/g;
  return [...output.matchAll(re)].map((m) => ({ index: Number(m[1]), publicKey: m[2], balance: m[3], secret: m[4] }));
}

/** Uploads `code` as the SDK does (simulate, assemble, sign, send); the send's answer and the outcome. */
async function tryUpload(s: rpc.Server, source: Keypair, code: Uint8Array) {
  const raw = (await builder(s, source)).addOperation(Operation.uploadContractWasm({ wasm: code }) as unknown as xdr.Operation).build();
  const sim = await s.simulateTransaction(raw);
  if (!rpc.Api.isSimulationSuccess(sim)) return { simulationError: (sim as rpc.Api.SimulateTransactionErrorResponse).error };
  const tx = rpc.assembleTransaction(raw, sim).build();
  tx.sign(source);
  return { sent: await sendAndPoll(s, tx) };
}

async function codeStored(s: rpc.Server, code: Uint8Array): Promise<boolean> {
  return (await s.getLedgerEntries(contractCodeKey(sha256(code)))).entries.length === 1;
}

describe('developer network settings (--limits, lumen_upgradeConfig, base fee and reserve, test accounts)', () => {
  let testnet: NodeProcess;     // default limits, default 10 test accounts
  let unlimited: NodeProcess;   // --limits unlimited, 2 test accounts
  let t: rpc.Server;
  let u: rpc.Server;

  before(async () => {
    [testnet, unlimited] = await Promise.all([
      startNodeProcess({ args: ['--close-mode', 'instant', '--log-level', 'warn'] }),
      startNodeProcess({ args: ['--close-mode', 'instant', '--log-level', 'warn', '--limits', 'unlimited', '--accounts', '2'] }),
    ]);
    t = server(testnet.url);
    u = server(unlimited.url);
  });

  after(async () => {
    await Promise.all([testnet?.stop(), unlimited?.stop()]);
  });

  it('the banner lists the RPC URL, passphrase, friendbot, root and the SEP-5 test accounts, funded at genesis from the root', async () => {
    const out = testnet.output();
    assert.match(out, new RegExp(`RPC URL\\s+${testnet.url.replace(/[.]/g, '\\.')}`));
    assert.match(out, /Network passphrase\s+Standalone Network ; February 2017/);
    assert.match(out, new RegExp(`Friendbot\\s+${testnet.url.replace(/[.]/g, '\\.')}/friendbot`));
    assert.ok(out.includes(TEST_MNEMONIC));
    const root = /Root account[^\n]*\n\s+(G[A-Z2-7]{55})\s+[\d,.]+ XLM\n\s+(S[A-Z2-7]{55})/.exec(out);
    assert.ok(root, out);
    assert.equal(Keypair.fromSecret(root[2]).publicKey(), root[1]);

    const accounts = bannerAccounts(out);
    assert.deepEqual(accounts.map((a) => a.index), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const a of accounts) {
      const derived = sep5Account(TEST_MNEMONIC, a.index);
      assert.equal(a.publicKey, derived.publicKey);
      assert.equal(a.secret, derived.secret);
      assert.equal(a.balance, '10,000');
    }
    // on the unlimited node, before any transaction: root + its 2 accounts hold every lumen
    const uAccounts = bannerAccounts(unlimited.output());
    assert.equal(uAccounts.length, 2);
    const uRoot = /Root account[^\n]*\n\s+(G[A-Z2-7]{55})/.exec(unlimited.output())![1];
    const balances = await Promise.all([uRoot, ...uAccounts.map((a) => a.publicKey)].map(async (g) => {
      const d = await readEntry(u, { type: 0, account: { accountId: { type: 0, ed25519: Keypair.fromPublicKey(g).rawPublicKey() } } });
      assert.ok(d?.type === 0);
      return d.account.balance;
    }));
    assert.equal(balances[1], 10_000n * XLM);
    assert.equal(balances.reduce((x, y) => x + y, 0n) + (await header(unlimited, 1)).feePool, TOTAL_COINS);
    assert.equal((await header(unlimited, 1)).totalCoins, TOTAL_COINS);
  });

  it('a banner account\'s secret signs a payment that succeeds', async () => {
    const [, , , from, to] = bannerAccounts(testnet.output());
    const sender = Keypair.fromSecret(from.secret);
    const r = await applied(t, sender, [Operation.payment({ destination: to.publicKey, asset: Asset.native(), amount: '25' })]);
    assert.equal(r.done.status, 'SUCCESS');
    const d = await readEntry(t, { type: 0, account: { accountId: { type: 0, ed25519: Keypair.fromPublicKey(to.publicKey).rawPublicKey() } } });
    assert.ok(d?.type === 0);
    assert.equal(d.account.balance, 10_025n * XLM);
  });

  it('--limits unlimited admits a Wasm upload larger than testnet\'s contract and transaction size limits; testnet refuses it', async () => {
    const max = await setting(t, 0);
    assert.ok(max.configSettingID === 0);
    assert.equal(max.contractMaxSizeBytes, 131_072);
    const uMax = await setting(u, 0);
    assert.ok(uMax.configSettingID === 0);
    assert.equal(uMax.contractMaxSizeBytes, U32_MAX);
    const compute = await setting(u, 1);
    assert.ok(compute.configSettingID === 1);
    assert.equal(compute.contractCompute.txMaxInstructions, 2n ** 61n - 1n);

    const big = paddedWasm(wasm('counter'), 140_000);
    // unlimited: a test account of the banner uploads it
    const uploader = Keypair.fromSecret(bannerAccounts(unlimited.output())[0].secret);
    assert.deepEqual(await uploadWasm(u, uploader, big), sha256(big));
    assert.ok(await codeStored(u, big));

    // testnet: refused (by simulation or at sendTransaction), nothing stored
    const user = await fundedAccount(testnet.url);
    const r = await tryUpload(t, user, big);
    if (r.sent) {
      assert.equal(r.sent.sent.status, 'ERROR', 'testnet must refuse the upload');
    } else {
      assert.ok(r.simulationError);
    }
    assert.equal(await codeStored(t, big), false);
  });

  it('lumen_upgradeConfig: a config upgrade in the ledger meta, read back by getLedgerEntries, and enforced', async () => {
    const user = await fundedAccount(testnet.url);
    // JSON form (stellar-xdr's, as Quickstart's files): contract size down to 4,000 bytes
    const res = await testnet.rpc('lumen_upgradeConfig', { configUpgradeSet: { updated_entry: [{ contract_max_size_bytes: 4000 }] } });
    assert.ok(res.result, JSON.stringify(res.error));
    assert.deepEqual(res.result.updatedSettings, [0]);
    const setXdr = Buffer.from(res.result.configUpgradeSet, 'base64');
    assert.equal(res.result.contentHash, sha256(setXdr).toString('hex'));
    const max = await setting(t, 0);
    assert.ok(max.configSettingID === 0);
    assert.equal(max.contractMaxSizeBytes, 4000);

    // the ledger records it as the network does: a LEDGER_UPGRADE_CONFIG in the header's value and its meta
    const meta = await closeMeta(testnet, res.result.ledger);
    assert.equal(meta.upgradesProcessing.length, 1);
    const { upgrade, changes } = meta.upgradesProcessing[0];
    assert.ok(upgrade.type === 6);
    assert.equal(Buffer.from(upgrade.newConfig.contentHash).toString('hex'), res.result.contentHash);
    assert.deepEqual(changes.map((c) => c.type), [3, 1], 'STATE then UPDATED');
    const updated = changes[1];
    assert.ok(updated.type === 1 && updated.updated.data.type === 8);
    assert.deepEqual(updated.updated.data.configSetting, { configSettingID: 0, contractMaxSizeBytes: 4000 });
    assert.equal(updated.updated.lastModifiedLedgerSeq, res.result.ledger);
    const h = await header(testnet, res.result.ledger);
    assert.equal(h.scpValue.upgrades.length, 1);
    assert.deepEqual(xdr.LedgerUpgrade.schema.decode(h.scpValue.upgrades[0]), upgrade);

    // enforced: a 4,800-byte Wasm is now refused, nothing stored
    const code = paddedWasm(wasm('counter'), 4_800);
    const refused = await tryUpload(t, user, code);
    if (refused.sent) assert.equal(refused.sent.sent.status, 'ERROR');
    else assert.ok(refused.simulationError);
    assert.equal(await codeStored(t, code), false);

    // base64 XDR form, back to testnet's 131,072: the same upload is admitted
    const back = xdr.ConfigUpgradeSet.schema.encode({ updatedEntry: [{ configSettingID: 0, contractMaxSizeBytes: 131_072 }] });
    const res2 = await testnet.rpc('lumen_upgradeConfig', { configUpgradeSet: Buffer.from(back).toString('base64') });
    assert.ok(res2.result, JSON.stringify(res2.error));
    assert.equal(res2.result.contentHash, sha256(back).toString('hex'));
    assert.deepEqual(await uploadWasm(t, user, code), sha256(code));
  });

  it('lumen_upgradeConfig: several settings at once, given out of order, sorted and applied', async () => {
    const before = await setting(t, 10);
    assert.ok(before.configSettingID === 10);
    const archival = { ...before.stateArchivalSettings, liveSorobanStateSizeWindowSampleSize: 20 };
    const res = await testnet.rpc('lumen_upgradeConfig', {
      configUpgradeSet: Buffer.from(xdr.ConfigUpgradeSet.schema.encode({
        updatedEntry: [{ configSettingID: 10, stateArchivalSettings: archival }, { configSettingID: 4, contractEvents: { txMaxContractEventsSizeBytes: 20_000, feeContractEvents1Kb: 5000n } }],
      })).toString('base64'),
    });
    assert.ok(res.result, JSON.stringify(res.error));
    assert.deepEqual(res.result.updatedSettings, [4, 10]);
    const events = await setting(t, 4);
    assert.ok(events.configSettingID === 4);
    assert.equal(events.contractEvents.txMaxContractEventsSizeBytes, 20_000);
    // the state size window follows the new sample size, as core resizes it
    const window = await setting(t, 12);
    assert.ok(window.configSettingID === 12);
    assert.equal(window.liveSorobanStateSizeWindow.length, 20);
  });

  it('lumen_upgradeConfig: simulation and apply price with the new fee rates at once', async () => {
    const user = await fundedAccount(testnet.url);
    const code = paddedWasm(wasm('counter'), 6_000);
    const minResourceFee = async () => {
      const raw = (await builder(t, user)).addOperation(Operation.uploadContractWasm({ wasm: code }) as unknown as xdr.Operation).build();
      const sim = await t.simulateTransaction(raw);
      assert.ok(rpc.Api.isSimulationSuccess(sim));
      return BigInt(sim.minResourceFee);
    };
    const bandwidth = await setting(t, 5);
    assert.ok(bandwidth.configSettingID === 5);
    const before = await minResourceFee();
    const pricier = { ...bandwidth.contractBandwidth, feeTxSize1Kb: bandwidth.contractBandwidth.feeTxSize1Kb * 100n };
    const res = await testnet.rpc('lumen_upgradeConfig', {
      configUpgradeSet: Buffer.from(xdr.ConfigUpgradeSet.schema.encode({ updatedEntry: [{ configSettingID: 5, contractBandwidth: pricier }] })).toString('base64'),
    });
    assert.ok(res.result, JSON.stringify(res.error));
    const after = await minResourceFee();
    // ~6.3 KB of transaction at 99 x 406 stroops more per KB
    assert.ok(after - before > 200_000n, `minResourceFee ${before} -> ${after}`);
    // applied at the new rates: the simulated fee covers it (uploadWasm checks fee charged <= simulated)
    assert.deepEqual(await uploadWasm(t, user, code), sha256(code));
    const reset = await testnet.rpc('lumen_upgradeConfig', {
      configUpgradeSet: Buffer.from(xdr.ConfigUpgradeSet.schema.encode({ updatedEntry: [{ configSettingID: 5, contractBandwidth: bandwidth.contractBandwidth }] })).toString('base64'),
    });
    assert.ok(reset.result, JSON.stringify(reset.error));
  });

  it('lumen_setBaseFee: header, admission (the old minimum refused), fees charged, getFeeStats, the faucet', async () => {
    const sender = await fundedAccount(testnet.url);
    const res = await testnet.rpc('lumen_setBaseFee', { baseFee: 500 });
    assert.ok(res.result, JSON.stringify(res.error));
    assert.equal(res.result.previous, 100);
    assert.equal(res.result.baseFee, 500);
    assert.equal((await header(testnet, res.result.ledger)).baseFee, 500);
    const meta = await closeMeta(testnet, res.result.ledger);
    assert.deepEqual(meta.upgradesProcessing.map((p) => p.upgrade), [{ type: 2, newBaseFee: 500 }]);

    // a bid of the old minimum is refused with txINSUFFICIENT_FEE
    const low = (await builder(t, sender, '100')).addOperation(Operation.payment({ destination: sender.publicKey(), asset: Asset.native(), amount: '1' })).build();
    low.sign(sender);
    const refused = await t.sendTransaction(low);
    assert.equal(refused.status, 'ERROR');
    assert.equal(resultCode(refused.errorResult!.toXdr()), TX_INSUFFICIENT_FEE);

    // a fee window of only new ledgers, then a bid of 500 is charged 500
    await testnet.rpc('lumen_closeLedgers', { count: 10 });
    const ok = (await builder(t, sender, '500')).addOperation(Operation.payment({ destination: sender.publicKey(), asset: Asset.native(), amount: '1' })).build();
    ok.sign(sender);
    const done = await sendAndPoll(t, ok);
    assert.equal(done.done?.status, 'SUCCESS');
    assert.equal(transactionResult(done.done as rpc.Api.GetSuccessfulTransactionResponse).feeCharged, 500n);
    const stats = await t.getFeeStats();
    assert.equal(stats.inclusionFee.min, '500');
    assert.equal(stats.inclusionFee.max, '500');
    // the faucet pays the new base fee
    await fundedAccount(testnet.url);

    const reset = await testnet.rpc('lumen_setBaseFee', { baseFee: 100 });
    assert.equal(reset.result.previous, 500);
  });

  it('lumen_setBaseReserve: header, and a createAccount below the new minimum balance fails', async () => {
    const sender = await fundedAccount(testnet.url);
    const res = await testnet.rpc('lumen_setBaseReserve', { baseReserve: 10_000_000 });
    assert.ok(res.result, JSON.stringify(res.error));
    assert.equal(res.result.previous, 5_000_000);
    assert.equal((await header(testnet)).baseReserve, 10_000_000);
    // 2 reserves of 1 XLM: 1.5 XLM no longer opens an account (it did at 0.5 XLM reserves)
    const low = await send(t, sender, [Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '1.5' })]);
    assert.equal(low.done.status, 'FAILED');
    assert.deepEqual(opCodes(transactionResult(low.done)), [CREATE_ACCOUNT_LOW_RESERVE]);
    await applied(t, sender, [Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '2' })]);
    await testnet.rpc('lumen_setBaseReserve', { baseReserve: 5_000_000 });
  });

  it('bad input: a clear -32602, no ledger closed, the settings and the network unchanged', async () => {
    const latest = async () => (await testnet.rpc('getLatestLedger')).result.sequence as number;
    await testnet.rpc('lumen_setCloseMode', { mode: 'manual' });
    try {
      const before = await latest();
      const cases: Array<[string, unknown, RegExp]> = [
        ['lumen_upgradeConfig', { configUpgradeSet: 'not base64!' }, /not base64/],
        ['lumen_upgradeConfig', { configUpgradeSet: Buffer.from('garbage bytes').toString('base64') }, /not a ConfigUpgradeSet XDR/],
        ['lumen_upgradeConfig', { configUpgradeSet: { updated_entry: [{ no_such_setting: 1 }] } }, /not a ConfigUpgradeSet in JSON/],
        ['lumen_upgradeConfig', { configUpgradeSet: { updated_entry: [] } }, /no entries/],
        ['lumen_upgradeConfig', { configUpgradeSet: { updated_entry: [{ contract_max_size_bytes: 100 }] } }, /ConfigSetting 0 .*contractMaxSizeBytes 100 is below the minimum 2000/],
        ['lumen_upgradeConfig', { configUpgradeSet: { updated_entry: [{ contract_max_size_bytes: 5000 }, { contract_max_size_bytes: 6000 }] } }, /ConfigSetting 0 appears twice/],
        ['lumen_upgradeConfig', { configUpgradeSet: { updated_entry: [{ contract_compute_v0: { ledger_max_instructions: '3000000', tx_max_instructions: '4000000', fee_rate_per_instructions_increment: '7', tx_memory_limit: 41943040 } }] } }, /ledgerMaxInstructions 3000000 is below the minimum 4000000/],
        ['lumen_upgradeConfig', { configUpgradeSet: { updated_entry: [{ live_soroban_state_size_window: ['1'] }] } }, /ConfigSetting 12 .* is not upgradeable/],
        ['lumen_upgradeConfig', {}, /configUpgradeSet/],
        ['lumen_setBaseFee', { baseFee: 0 }, /baseFee/],
        ['lumen_setBaseReserve', { baseReserve: -5 }, /baseReserve/],
        ['lumen_setBaseFee', { baseFee: 'cheap' }, /baseFee/],
      ];
      for (const [method, params, message] of cases) {
        const r = await testnet.rpc(method, params);
        assert.ok(r.error, `${method} ${JSON.stringify(params)} answered ${JSON.stringify(r.result)}`);
        assert.equal(r.error.code, -32602, `${method} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
        assert.match(`${r.error.message} ${JSON.stringify(r.error.data ?? '')}`, message);
      }
      assert.equal(await latest(), before, 'no ledger closed');
      const max = await setting(t, 0);
      assert.ok(max.configSettingID === 0);
      assert.equal(max.contractMaxSizeBytes, 131_072);
      assert.equal((await header(testnet)).baseFee, 100);
    } finally {
      await testnet.rpc('lumen_setCloseMode', { mode: 'instant' });
    }
    // still serving and closing
    assert.equal((await t.getHealth()).status, 'healthy');
    const closed = await testnet.rpc('lumen_closeLedgers', { count: 1 });
    assert.ok(closed.result.latestLedger > 0);
    await fundedAccount(testnet.url);
  });

  it('bad flags stop the start with the reason', async () => {
    await assert.rejects(startNodeProcess({ args: ['--accounts', '5000'] }), /--accounts 5000: at most 1000 test accounts/);
    await assert.rejects(startNodeProcess({ args: ['--limits', 'infinite'] }), /--limits must be one of testnet, unlimited, got "infinite"/);
  });

  it('a restarted network keeps its stored limits and accounts; another --limits is warned about, not applied', async () => {
    const port = Number(new URL(unlimited.url).port);
    await unlimited.stop();
    unlimited = await startNodeProcess({ port, dbPath: unlimited.dbPath, args: ['--close-mode', 'instant', '--log-level', 'warn'] });
    u = server(unlimited.url);
    await unlimited.outputMatching(/--limits testnet is ignored: this network was created with \\?"unlimited\\?" limits/);
    const max = await setting(u, 0);
    assert.ok(max.configSettingID === 0);
    assert.equal(max.contractMaxSizeBytes, U32_MAX);
    // --accounts 10 by default, but only the 2 that exist are listed
    assert.equal(bannerAccounts(unlimited.output()).length, 2);
    assert.match(unlimited.output(), /Soroban limits\s+unlimited/);
  });
});
