// The developer state edits (src/standalone/stateEdits.ts) over a real LedgerTxn on an in-memory
// state: what each writes, the TTL it keeps with a contract entry, and what it refuses.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '../../../src/xdr/xdr.ts';
import { LedgerTxn } from '../../../src/ledger/ledgerTxn.ts';
import type { UpgradableHeader } from '../../../src/ledger/closeLedger.ts';
import { accountKey, sha256, type LedgerEntry, type LedgerKey, type ScVal } from '../../../src/xdr/codec.ts';
import { ledgerKeyOf, ttlKeyFor } from '../../../src/xdr/ledgerKeys.ts';
import { assetContractId } from '../../../src/ledger/sacEvents.ts';
import { i128Val, symVal, u64Val } from '../../../src/xdr/scVals.ts';
import {
  DEV_EDIT_CONTRACT_ID, StateEditError, changesHash, contractDataKey, deleteLedgerEntry, devEditStep, expireNow, instanceKey,
  sacBalanceKey, sacBalanceValue, setContractData, setContractWasm, setLedgerEntry, setNativeBalance, setSacBalance, setTrustlineBalance, setTtl,
} from '../../../src/standalone/stateEdits.ts';
import { MemoryState, NETWORK_ID, accountEntry, accountId, credit, trustLineEntry } from '../ops/support.ts';

const SEQ = 100;
const MIN_PERSISTENT = 60;
const MIN_TEMPORARY = 30;
const MAX_TTL = 1000;
const MAX_CODE = 4096;
const HEADER: UpgradableHeader = { ledgerVersion: 23, baseFee: 100, baseReserve: 5_000_000, maxTxSetSize: 100 };
const XLM = 10_000_000n;

function configEntries(): LedgerEntry[] {
  const archival: xdr.StateArchivalSettingsWire = {
    maxEntryTtl: MAX_TTL, minTemporaryTtl: MIN_TEMPORARY, minPersistentTtl: MIN_PERSISTENT, persistentRentRateDenominator: 1n,
    tempRentRateDenominator: 1n, maxEntriesToArchive: 100, liveSorobanStateSizeWindowSampleSize: 30, liveSorobanStateSizeWindowSamplePeriod: 64,
    evictionScanSize: 100, startingEvictionScanLevel: 6,
  };
  return [
    { lastModifiedLedgerSeq: 1, data: { type: 8, configSetting: { configSettingID: 10, stateArchivalSettings: archival } }, ext: { v: 0 } },
    { lastModifiedLedgerSeq: 1, data: { type: 8, configSetting: { configSettingID: 0, contractMaxSizeBytes: MAX_CODE } }, ext: { v: 0 } },
  ] as LedgerEntry[];
}

const ttlEntry = (key: LedgerKey, liveUntil: number): LedgerEntry =>
  ({ lastModifiedLedgerSeq: 1, data: { type: 9, ttl: { keyHash: ttlKeyFor(key).ttl.keyHash, liveUntilLedgerSeq: liveUntil } }, ext: { v: 0 } });

function dataEntry(contract: Uint8Array, key: ScVal, val: ScVal, durability = 1): LedgerEntry {
  return { lastModifiedLedgerSeq: 1, data: { type: 6, contractData: { ext: { v: 0 }, contract: { type: 1, contractId: contract }, key, durability, val } }, ext: { v: 0 } };
}

function instanceEntry(contract: Uint8Array, executable: xdr.ContractExecutableWire, storage: xdr.ScMapEntryWire[] | null = null): LedgerEntry {
  return dataEntry(contract, { type: 20 }, { type: 19, instance: { executable, storage } });
}

const WASM = new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
const codeEntry = (code: Uint8Array): LedgerEntry =>
  ({ lastModifiedLedgerSeq: 1, data: { type: 7, contractCode: { ext: { v: 0 }, hash: sha256(code), code } }, ext: { v: 0 } });

/** Runs `edit` in a LedgerTxn of ledger SEQ over `entries`; returns the state after and the edit's result. */
function run<T>(entries: LedgerEntry[], edit: (ltx: LedgerTxn) => T): { state: MemoryState; result: T } {
  const state = new MemoryState([...configEntries(), ...entries]);
  const root = new LedgerTxn(state, SEQ);
  const result = edit(root);
  state.absorb(root);
  return { state, result };
}

const refused = (fn: () => unknown, pattern: RegExp) => assert.throws(fn, (e: unknown) => e instanceof StateEditError && pattern.test(e.message));
const liveUntil = (state: MemoryState, key: LedgerKey) => {
  const e = state.get(ttlKeyFor(key));
  return e?.data.type === 9 ? e.data.ttl.liveUntilLedgerSeq : undefined;
};

const alice = accountId('alice');
const issuer = accountId('issuer');
const usd = credit('USD', issuer);
const contract = sha256(new TextEncoder().encode('contract'));

describe('setNativeBalance', () => {
  it('creates a missing account with the ledger\'s starting sequence number', () => {
    const { state, result } = run([], (ltx) => setNativeBalance(ltx, HEADER, alice, 50n * XLM));
    assert.deepEqual(result, { created: true });
    const acc = state.account(alice)!;
    assert.equal(acc.balance, 50n * XLM);
    assert.equal(acc.seqNum, BigInt(SEQ) << 32n);
    assert.deepEqual([...acc.thresholds], [1, 0, 0, 0]);
  });

  it('sets an existing balance down to the reserve plus selling liabilities, and no lower', () => {
    const acc = accountEntry(alice, 100n * XLM, { numSubEntries: 3, ext: { v: 1, v1: { liabilities: { buying: 0n, selling: 7n }, ext: { v: 0 } } } });
    const minimum = 5n * 5_000_000n + 7n;
    const { state } = run([acc], (ltx) => setNativeBalance(ltx, HEADER, alice, minimum));
    assert.equal(state.account(alice)!.balance, minimum);
    refused(() => run([acc], (ltx) => setNativeBalance(ltx, HEADER, alice, minimum - 1n)), /below .* minimum of 25000007 stroops/);
    refused(() => run([], (ltx) => setNativeBalance(ltx, HEADER, alice, 2n * 5_000_000n - 1n)), /below/);
    refused(() => run([acc], (ltx) => setNativeBalance(ltx, HEADER, alice, -1n)), /negative/);
  });
});

describe('setTrustlineBalance', () => {
  const issuerEntry = accountEntry(issuer, 100n * XLM, { flags: 0x8 /* clawback enabled */ });

  it('creates an authorized line (clawback as the issuer has it) with the largest limit, one more subentry', () => {
    const { state, result } = run([issuerEntry, accountEntry(alice, 100n * XLM)], (ltx) => setTrustlineBalance(ltx, HEADER, alice, usd as never, 500n));
    assert.equal(result.created, true);
    const line = state.trustLine(alice, usd)!;
    assert.equal(line.balance, 500n);
    assert.equal(line.limit, 0x7fff_ffff_ffff_ffffn);
    assert.equal(line.flags, 0x1 | 0x4);
    assert.equal(state.account(alice)!.numSubEntries, 1);
  });

  it('raises the limit of an existing line to the balance', () => {
    const line = trustLineEntry(alice, usd, 10n, 100n, 1);
    const { state, result } = run([issuerEntry, accountEntry(alice, 100n * XLM, { numSubEntries: 1 }), line], (ltx) => setTrustlineBalance(ltx, HEADER, alice, usd as never, 250n));
    assert.deepEqual(result, { created: false, limit: 250n });
    assert.equal(state.trustLine(alice, usd)!.balance, 250n);
    assert.equal(state.account(alice)!.numSubEntries, 1);
  });

  it('refuses an unknown issuer, a missing account, the issuer itself and a reserve the account cannot hold', () => {
    refused(() => run([accountEntry(alice, 100n * XLM)], (ltx) => setTrustlineBalance(ltx, HEADER, alice, usd as never, 1n)), /unknown asset USD:G.*issuer account does not exist/);
    refused(() => run([issuerEntry], (ltx) => setTrustlineBalance(ltx, HEADER, alice, usd as never, 1n)), /does not exist/);
    refused(() => run([issuerEntry], (ltx) => setTrustlineBalance(ltx, HEADER, issuer, usd as never, 1n)), /issuer holds no trustline/);
    refused(() => run([issuerEntry, accountEntry(alice, 2n * 5_000_000n)], (ltx) => setTrustlineBalance(ltx, HEADER, alice, usd as never, 1n)), /reserve of a new trustline/);
  });
});

describe('setLedgerEntry and deleteLedgerEntry', () => {
  it('gives a new contract entry the minimum TTL of its durability, keeps an existing one, and revives an archived one', () => {
    const persistent = dataEntry(contract, symVal('p'), u64Val(1));
    const temporary = dataEntry(contract, symVal('t'), u64Val(2), 0);
    const { state, result } = run([], (ltx) => [setLedgerEntry(ltx, persistent), setLedgerEntry(ltx, temporary)]);
    assert.deepEqual(result, [{ created: true, liveUntilLedgerSeq: SEQ + MIN_PERSISTENT - 1 }, { created: true, liveUntilLedgerSeq: SEQ + MIN_TEMPORARY - 1 }]);
    assert.equal(liveUntil(state, ledgerKeyOf(temporary.data)), SEQ + MIN_TEMPORARY - 1);

    const key = ledgerKeyOf(persistent.data);
    const kept = run([persistent, ttlEntry(key, 500)], (ltx) => setLedgerEntry(ltx, dataEntry(contract, symVal('p'), u64Val(9))));
    assert.deepEqual(kept.result, { created: false, liveUntilLedgerSeq: 500 });
    const archived = run([persistent], (ltx) => setLedgerEntry(ltx, persistent));
    assert.equal(liveUntil(archived.state, key), SEQ + MIN_PERSISTENT - 1);
  });

  it('sets any other entry as given; refuses TTLs, settings, negative balances and a code hash that is not the code\'s', () => {
    const { state } = run([], (ltx) => setLedgerEntry(ltx, accountEntry(alice, 3n)));
    assert.equal(state.account(alice)!.balance, 3n, 'no reserve check for a raw entry');
    refused(() => run([], (ltx) => setLedgerEntry(ltx, ttlEntry(instanceKey(contract), 5))), /lumen_setTtl/);
    refused(() => run([], (ltx) => setLedgerEntry(ltx, configEntries()[0])), /ConfigSetting/);
    refused(() => run([], (ltx) => setLedgerEntry(ltx, accountEntry(alice, -1n))), /negative/);
    const bad = codeEntry(WASM);
    if (bad.data.type === 7) bad.data.contractCode.hash = new Uint8Array(32);
    refused(() => run([], (ltx) => setLedgerEntry(ltx, bad)), /sha256 of its code/);
  });

  it('deletes a contract entry with its TTL; refuses a missing entry, a TTL key and a setting', () => {
    const entry = dataEntry(contract, symVal('p'), u64Val(1));
    const key = ledgerKeyOf(entry.data);
    const { state } = run([entry, ttlEntry(key, 500)], (ltx) => deleteLedgerEntry(ltx, key));
    assert.equal(state.get(key), undefined);
    assert.equal(state.get(ttlKeyFor(key)), undefined);
    refused(() => run([], (ltx) => deleteLedgerEntry(ltx, key)), /no such entry/);
    refused(() => run([], (ltx) => deleteLedgerEntry(ltx, ttlKeyFor(key))), /TTL/);
    refused(() => run([], (ltx) => deleteLedgerEntry(ltx, { type: 8, configSetting: { configSettingId: 10 } })), /cannot be deleted/);
  });
});

describe('setSacBalance', () => {
  const sac = assetContractId(NETWORK_ID, usd);
  const sacInstance = instanceEntry(sac, { type: 1 });
  const holder: xdr.ScAddressWire = { type: 1, contractId: contract };

  it('writes a contract holder\'s Balance entry ({amount, authorized, clawback}) with a TTL', () => {
    const issuerEntry = accountEntry(issuer, 100n * XLM, { flags: 0x8 });
    const { state, result } = run([sacInstance, issuerEntry], (ltx) => setSacBalance(ltx, HEADER, NETWORK_ID, usd, holder, 1n << 70n));
    assert.equal(result.created, true);
    const key = sacBalanceKey(sac, holder);
    const entry = state.get(key)!;
    assert.equal(entry.data.type, 6);
    if (entry.data.type === 6) assert.deepEqual(entry.data.contractData.val, sacBalanceValue(1n << 70n, true, true));
    assert.deepEqual(sacBalanceValue(5n, true, false), {
      type: 17, map: [
        { key: symVal('amount'), val: i128Val(5n) }, { key: symVal('authorized'), val: { type: 0, b: true } }, { key: symVal('clawback'), val: { type: 0, b: false } },
      ],
    });
    assert.equal(liveUntil(state, key), SEQ + MIN_PERSISTENT - 1);
  });

  it('keeps an existing entry\'s flags; sets an account holder\'s native balance; refuses an undeployed SAC', () => {
    const key = sacBalanceKey(sac, holder);
    const existing = dataEntry(sac, key.type === 6 ? key.contractData.key : symVal('x'), sacBalanceValue(1n, false, true));
    const { state } = run([sacInstance, existing, ttlEntry(key, 400)], (ltx) => setSacBalance(ltx, HEADER, NETWORK_ID, usd, holder, 9n));
    const after = state.get(key)!;
    if (after.data.type === 6) assert.deepEqual(after.data.contractData.val, sacBalanceValue(9n, false, true));
    assert.equal(liveUntil(state, key), 400);

    const native = assetContractId(NETWORK_ID, { type: 0 });
    const g = run([instanceEntry(native, { type: 1 })], (ltx) => setSacBalance(ltx, HEADER, NETWORK_ID, { type: 0 }, { type: 0, accountId: alice }, 20n * XLM));
    assert.equal(g.state.account(alice)!.balance, 20n * XLM);
    refused(() => run([], (ltx) => setSacBalance(ltx, HEADER, NETWORK_ID, usd, holder, 1n)), /not deployed/);
  });
});

describe('contract code, data and TTLs', () => {
  const oldCode = new Uint8Array([...WASM, 1]);
  const storage: xdr.ScMapEntryWire[] = [{ key: symVal('COUNT'), val: { type: 3, u32: 5 } }];

  it('setContractWasm writes the missing code (live as long as the instance) and repoints the instance, keeping its storage', () => {
    const inst = instanceEntry(contract, { type: 0, wasmHash: sha256(oldCode) }, storage);
    const { state, result } = run([inst, ttlEntry(instanceKey(contract), 700), codeEntry(oldCode)], (ltx) => setContractWasm(ltx, contract, 'C', WASM));
    assert.equal(result.uploaded, true);
    assert.deepEqual(result.previousWasmHash, sha256(oldCode));
    const codeKey: LedgerKey = { type: 7, contractCode: { hash: sha256(WASM) } };
    assert.ok(state.get(codeKey));
    assert.equal(liveUntil(state, codeKey), 700);
    const after = state.get(instanceKey(contract))!;
    assert.ok(after.data.type === 6 && after.data.contractData.val.type === 19);
    if (after.data.type === 6 && after.data.contractData.val.type === 19) {
      assert.deepEqual(after.data.contractData.val.instance, { executable: { type: 0, wasmHash: sha256(WASM) }, storage });
    }
  });

  it('setContractWasm refuses non-Wasm, oversized code, an unknown contract and a built-in one', () => {
    const inst = instanceEntry(contract, { type: 0, wasmHash: sha256(oldCode) });
    refused(() => run([inst], (ltx) => setContractWasm(ltx, contract, 'C', new Uint8Array([1, 2, 3]))), /not a WebAssembly module/);
    refused(() => run([inst], (ltx) => setContractWasm(ltx, contract, 'C', new Uint8Array([...WASM, ...new Uint8Array(MAX_CODE)]))), /above the network's limit/);
    refused(() => run([], (ltx) => setContractWasm(ltx, contract, 'C', WASM)), /unknown contract C/);
    refused(() => run([instanceEntry(contract, { type: 1 })], (ltx) => setContractWasm(ltx, contract, 'C', WASM)), /does not run Wasm/);
  });

  it('setContractData needs the contract and is not the instance', () => {
    const inst = instanceEntry(contract, { type: 0, wasmHash: sha256(oldCode) });
    const { state, result } = run([inst], (ltx) => setContractData(ltx, contract, 'C', symVal('k'), u64Val(7), 0));
    assert.deepEqual(result, { created: true, liveUntilLedgerSeq: SEQ + MIN_TEMPORARY - 1 });
    assert.ok(state.get(contractDataKey(contract, symVal('k'), 0)));
    refused(() => run([], (ltx) => setContractData(ltx, contract, 'C', symVal('k'), u64Val(7), 1)), /unknown contract/);
    refused(() => run([inst], (ltx) => setContractData(ltx, contract, 'C', { type: 20 }, u64Val(7), 1)), /instance key/);
  });

  it('setTtl moves a TTL within [this ledger, the maximum]; expireNow ends it with this ledger; archived entries are refused', () => {
    const entry = dataEntry(contract, symVal('p'), u64Val(1));
    const key = ledgerKeyOf(entry.data);
    const { state, result } = run([entry, ttlEntry(key, 150)], (ltx) => setTtl(ltx, key, 900));
    assert.deepEqual(result, { liveUntilLedgerSeq: 900, previous: 150 });
    assert.equal(liveUntil(state, key), 900);
    refused(() => run([entry, ttlEntry(key, 150)], (ltx) => setTtl(ltx, key, SEQ - 1)), /lumen_archiveEntry/);
    refused(() => run([entry, ttlEntry(key, 150)], (ltx) => setTtl(ltx, key, SEQ + MAX_TTL)), /maximum \(1099/);
    refused(() => run([entry], (ltx) => setTtl(ltx, key, 900)), /archived/);
    refused(() => run([], (ltx) => setTtl(ltx, accountKey(alice), 900)), /contract data and contract code/);
    const expired = run([entry, ttlEntry(key, 150)], (ltx) => expireNow(ltx, key));
    assert.equal(liveUntil(expired.state, key), SEQ);
  });
});

describe('devEditStep', () => {
  it('is a config upgrade naming the developer-edit contract, hashing the changes it made', () => {
    const state = new MemoryState(configEntries());
    const root = new LedgerTxn(state, SEQ);
    const step = devEditStep((ltx, header) => { setNativeBalance(ltx, header, alice, 10n * XLM); });
    const ltx = root.nest();
    step.apply!(ltx, { ...HEADER });
    const changes = ltx.commit();
    assert.equal(changes.length, 1);
    assert.equal(step.upgrade.type, 6);
    if (step.upgrade.type === 6) {
      assert.deepEqual(step.upgrade.newConfig.contractId, sha256(new TextEncoder().encode('lumen-rpc developer edit')));
      assert.deepEqual(step.upgrade.newConfig.contractId, DEV_EDIT_CONTRACT_ID);
      assert.deepEqual(step.upgrade.newConfig.contentHash, changesHash(changes));
    }
  });

  it('a refused edit leaves nothing behind', () => {
    const state = new MemoryState([...configEntries(), accountEntry(alice, 100n * XLM)]);
    const root = new LedgerTxn(state, SEQ);
    const ltx = root.nest();
    const step = devEditStep((l, header) => { setNativeBalance(l, header, alice, 50n * XLM); setNativeBalance(l, header, alice, 1n); });
    assert.throws(() => step.apply!(ltx, { ...HEADER }), StateEditError);
    assert.deepEqual(ltx.commit(), []);
    assert.equal(state.account(alice)!.balance, 100n * XLM);
  });
});



