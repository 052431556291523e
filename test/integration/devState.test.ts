// The developer network's state edits over HTTP with the official JS SDK: each helper's edit is read
// back through getLedgerEntries and used by a transaction (a payment spending a set balance, a
// trustline payment, a SAC transfer onto a set contract balance, the replaced Wasm reading the old
// storage, a contract reading set data, a set TTL, an archived entry restored); bad input gets a
// clear -32602 and the network keeps closing with its data intact.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Address, Asset, Keypair, Operation, StrKey, rpc, scValToNative, xdr } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { accountEntry, builder, submit } from './support/sdk.ts';
import { CHECKPOINT, latest, startA, startB, waitFor } from './support/twoNodes.ts';
import {
  PASSPHRASE, addr, archivedIndexes, contractDataKey, fundedAccount, i128, instanceKey, invoke, invokeOp, server, sha256,
  startContractNode, sym, u32, u64, uploadAndDeploy, wasm,
} from './support/contracts.ts';

const XLM = 10_000_000n;
const ROOT = new URL('../../', import.meta.url).pathname;

const keyB64 = (k: xdr.LedgerKey): string => k.toXdr('base64');
const wireKeyB64 = (k: xdr.LedgerKeyWire): string => Buffer.from(xdr.LedgerKey.schema.encode(k)).toString('base64');
const trustlineKey = (account: string, asset: Asset): xdr.LedgerKey =>
  xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId: Keypair.fromPublicKey(account).xdrAccountId(), asset: asset.toTrustLineXDRObject() }));
const randomContract = (): string => StrKey.encodeContract(randomBytes(32));

/** The ScVal wire value of a contract data entry read through getLedgerEntries. */
function contractVal(data: xdr.LedgerEntryData): xdr.ScValWire {
  const w = data.toXdrObject() as xdr.LedgerEntryDataWire;
  assert.equal(w.type, 6);
  return (w as Extract<xdr.LedgerEntryDataWire, { type: 6 }>).contractData.val;
}
const nativeOf = (v: xdr.ScValWire): unknown => scValToNative(xdr.ScVal.fromXdrObject(v));

describe('developer state edits (JS SDK over HTTP)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let issuer: Keypair;
  let usd: Asset;
  let alice: Keypair;
  let bob: Keypair;
  let storageId: string;

  /** A developer method's result; fails the test on an error. */
  async function dev(method: string, params: Record<string, unknown>): Promise<any> {
    const res = await node.rpc(method, params);
    assert.ok(res.result, `${method}: ${JSON.stringify(res.error)}`);
    return res.result;
  }

  /** A developer method's error (-32602). */
  async function devError(method: string, params: Record<string, unknown>): Promise<string> {
    const res = await node.rpc(method, params);
    assert.ok(res.error, `${method} ${JSON.stringify(params)} should be refused, got ${JSON.stringify(res.result)}`);
    assert.equal(res.error.code, -32602, JSON.stringify(res.error));
    return res.error.message as string;
  }

  const balanceOf = async (pub: string): Promise<bigint> => (await accountEntry(s, pub)).balance;

  async function lineBalance(pub: string, asset: Asset): Promise<bigint | undefined> {
    const res = await s.getLedgerEntries(trustlineKey(pub, asset));
    if (res.entries.length === 0) return undefined;
    return (res.entries[0].val.toXdrObject() as xdr.LedgerEntryDataWire & { type: 1 }).trustLine.balance;
  }

  /** The return value of a simulated read-only call. */
  async function simulated(source: Keypair, contractId: string, fn: string, ...args: xdr.ScVal[]): Promise<unknown> {
    const raw = (await builder(s, source)).addOperation(invokeOp(contractId, fn, ...args)).build();
    const sim = await s.simulateTransaction(raw);
    assert.ok(rpc.Api.isSimulationSuccess(sim), `simulation of ${fn}: ${(sim as { error?: string }).error}`);
    return scValToNative(sim.result!.retval);
  }

  before(async () => {
    node = await startContractNode();
    s = server(node.url);
    issuer = await fundedAccount(node.url);
    usd = new Asset('USD', issuer.publicKey());
    alice = Keypair.random();
    bob = Keypair.random();
    ({ contractId: storageId } = await uploadAndDeploy(s, issuer, 'storage'));
  });
  after(async () => { await node?.stop(); });

  it('lumen_setBalance creates an account whose balance a payment spends, and sets it again', async () => {
    const set = await dev('lumen_setBalance', { account: alice.publicKey(), balance: String(1000n * XLM) });
    assert.equal(set.created, true);
    const read = await s.getLedgerEntries(xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: alice.xdrAccountId() })));
    assert.equal(read.entries[0].lastModifiedLedgerSeq, set.ledger, 'written in the ledger the method answers with');
    assert.equal(await balanceOf(alice.publicKey()), 1000n * XLM);

    const pay = (await builder(s, alice)).addOperation(Operation.payment({ destination: issuer.publicKey(), asset: Asset.native(), amount: '400' })).build();
    pay.sign(alice);
    assert.equal((await submit(s, pay)).done.status, 'SUCCESS');
    assert.equal(await balanceOf(alice.publicKey()), 600n * XLM - 100n);

    const again = await dev('lumen_setBalance', { account: alice.publicKey(), balance: Number(5000n * XLM) });
    assert.equal(again.created, false);
    assert.equal(await balanceOf(alice.publicKey()), 5000n * XLM);
    await dev('lumen_setBalance', { account: bob.publicKey(), balance: 100 * 10_000_000 });
  });

  it('lumen_setTrustlineBalance creates an authorized trustline that pays another', async () => {
    const a = await dev('lumen_setTrustlineBalance', { account: alice.publicKey(), asset: `USD:${issuer.publicKey()}`, balance: String(1000n * XLM) });
    assert.deepEqual([a.created, a.limit], [true, '9223372036854775807']);
    const b = await dev('lumen_setTrustlineBalance', { account: bob.publicKey(), asset: `USD:${issuer.publicKey()}`, balance: 0 });
    assert.equal(b.created, true);
    assert.equal(await lineBalance(alice.publicKey(), usd), 1000n * XLM);
    assert.equal((await accountEntry(s, alice.publicKey())).numSubEntries, 1);

    const pay = (await builder(s, alice)).addOperation(Operation.payment({ destination: bob.publicKey(), asset: usd, amount: '250' })).build();
    pay.sign(alice);
    assert.equal((await submit(s, pay)).done.status, 'SUCCESS');
    assert.equal(await lineBalance(bob.publicKey(), usd), 250n * XLM);
    assert.equal(await lineBalance(alice.publicKey(), usd), 750n * XLM);
  });

  it('lumen_setSacBalance sets a contract\'s SAC balance that a SAC transfer adds to, and an account\'s trustline', async () => {
    await invoke(s, issuer, Operation.createStellarAssetContract({ asset: usd }) as unknown as xdr.Operation);
    const sacId = usd.contractId(PASSPHRASE);
    const holder = randomContract();
    const set = await dev('lumen_setSacBalance', { asset: `USD:${issuer.publicKey()}`, address: holder, amount: '5000' });
    assert.equal(set.contract, sacId);
    assert.equal(set.created, true);

    const balanceKey = contractDataKey(sacId, xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Balance'), Address.fromString(holder).toScVal()]), 'persistent');
    const read = await s.getLedgerEntries(balanceKey);
    assert.equal(read.entries.length, 1);
    assert.equal(read.entries[0].liveUntilLedgerSeq, set.liveUntilLedgerSeq);
    assert.deepEqual(nativeOf(contractVal(read.entries[0].val)), { amount: 5000n, authorized: true, clawback: false });
    assert.equal(await simulated(alice, sacId, 'balance', addr(holder)), 5000n);

    // a transfer onto the set balance, by alice through the SAC
    await invoke(s, alice, invokeOp(sacId, 'transfer', addr(alice.publicKey()), addr(holder), i128(100)));
    assert.equal(await simulated(alice, sacId, 'balance', addr(holder)), 5100n);

    // an account holder: its trustline, which is what the SAC reads
    const g = await dev('lumen_setSacBalance', { contract: sacId, asset: `USD:${issuer.publicKey()}`, address: bob.publicKey(), amount: 777 });
    assert.equal(g.created, false);
    assert.equal(await lineBalance(bob.publicKey(), usd), 777n);
    assert.equal(await simulated(bob, sacId, 'balance', addr(bob.publicKey())), 777n);

    assert.match(await devError('lumen_setSacBalance', { contract: storageId, asset: `USD:${issuer.publicKey()}`, address: holder, amount: 1 }), /is not the Stellar Asset Contract of USD/);
    assert.match(await devError('lumen_setSacBalance', { asset: `EUR:${issuer.publicKey()}`, address: holder, amount: 1 }), /Stellar Asset Contract of EUR:G.* is not deployed/);
  });

  it('lumen_setContractWasm runs new code over the old storage, and back', async () => {
    const { contractId: counterId, wasmHash: counterHash } = await uploadAndDeploy(s, issuer, 'counter');
    assert.equal((await invoke(s, issuer, invokeOp(counterId, 'increment', u32(5)))).value, 5);
    const codeB64 = (name: 'counter' | 'auth') => wasm(name).toString('base64');

    const swapped = await dev('lumen_setContractWasm', { contract: counterId, wasm: codeB64('auth') });
    assert.equal(swapped.uploaded, true);
    assert.equal(swapped.previousWasmHash, counterHash.toString('hex'));
    assert.equal(swapped.wasmHash, sha256(wasm('auth')).toString('hex'));
    const instance = contractVal((await s.getLedgerEntries(instanceKey(counterId))).entries[0].val);
    assert.ok(instance.type === 19 && instance.instance.executable.type === 0);
    if (instance.type === 19 && instance.instance.executable.type === 0) assert.equal(Buffer.from(instance.instance.executable.wasmHash).toString('hex'), swapped.wasmHash);
    // the auth contract's functions now answer at the counter's address
    assert.equal((await invoke(s, issuer, invokeOp(counterId, 'set', addr(issuer.publicKey()), u32(42)))).value, 42);
    assert.equal(await simulated(issuer, counterId, 'get', addr(issuer.publicKey())), 42);

    const back = await dev('lumen_setContractWasm', { contract: counterId, wasm: codeB64('counter') });
    assert.equal(back.uploaded, false, 'the counter code is already on the network');
    // the instance storage the counter left (COUNT = 5) is still there
    assert.equal((await invoke(s, issuer, invokeOp(counterId, 'increment', u32(1)))).value, 6);
  });

  it('lumen_setContractData sets entries (XDR or JSON ScVals) a contract reads', async () => {
    const p = await dev('lumen_setContractData', { contract: storageId, key: { symbol: 'x' }, value: u64(77).toXDR('base64') });
    assert.equal(p.created, true);
    assert.equal(p.key, keyB64(contractDataKey(storageId, sym('x'), 'persistent')));
    const read = await s.getContractData(storageId, sym('x'), rpc.Durability.Persistent);
    assert.equal(read.liveUntilLedgerSeq, p.liveUntilLedgerSeq);
    assert.equal(nativeOf(contractVal(read.val)), 77n);
    assert.equal((await invoke(s, issuer, invokeOp(storageId, 'get_persistent', sym('x')))).value, 77n);

    const t = await dev('lumen_setContractData', { contract: storageId, key: sym('y').toXDR('base64'), value: { u64: '5' }, durability: 'temporary' });
    assert.ok(t.liveUntilLedgerSeq < p.liveUntilLedgerSeq, 'the minimum temporary TTL is shorter');
    assert.equal((await invoke(s, issuer, invokeOp(storageId, 'get_temporary', sym('y')))).value, 5n);
  });

  it('lumen_setTtl sets a TTL (liveUntilLedger or extendTo) getLedgerEntries shows', async () => {
    const key = keyB64(contractDataKey(storageId, sym('x'), 'persistent'));
    const latest = (await s.getLatestLedger()).sequence;
    const set = await dev('lumen_setTtl', { key, liveUntilLedger: latest + 5000 });
    assert.equal(set.liveUntilLedgerSeq, latest + 5000);
    assert.equal((await s.getContractData(storageId, sym('x'), rpc.Durability.Persistent)).liveUntilLedgerSeq, latest + 5000);
    const ext = await dev('lumen_setTtl', { key, extendTo: 100 });
    assert.deepEqual([ext.liveUntilLedgerSeq, ext.previous], [ext.ledger + 100, latest + 5000]);
    assert.equal((await s.getContractData(storageId, sym('x'), rpc.Durability.Persistent)).liveUntilLedgerSeq, ext.ledger + 100);
    // a transaction still reads it
    assert.equal((await invoke(s, issuer, invokeOp(storageId, 'get_persistent', sym('x')))).value, 77n);
    assert.match(await devError('lumen_setTtl', { key, liveUntilLedger: latest + 10, extendTo: 5 }), /one of liveUntilLedger and extendTo/);
    assert.match(await devError('lumen_setTtl', { key, liveUntilLedger: 4_000_000_000 }), /above the network's maximum/);
  });

  it('lumen_archiveEntry evicts through the network\'s eviction: a persistent entry needs restoring, a temporary one is gone', async () => {
    const key = contractDataKey(storageId, sym('x'), 'persistent');
    const r = await dev('lumen_archiveEntry', { key: keyB64(key) });
    assert.equal(r.evictedIn, r.ledger + 1);
    const ledger = (await node.rpc('getLedgers', { startLedger: r.evictedIn, pagination: { limit: 1 } })).result.ledgers[0];
    const lcm = xdr.LedgerCloseMeta.schema.decode(Buffer.from(ledger.metadataXdr, 'base64'));
    const evicted = lcm.v === 2 ? lcm.v2.evictedKeys.map(wireKeyB64) : [];
    const ttlKey = wireKeyB64({ type: 9, ttl: { keyHash: sha256(key.toXdr()) } });
    assert.deepEqual(evicted, [ttlKey, keyB64(key)]);
    const archived = await s.getLedgerEntries(key);
    assert.equal(archived.entries[0].liveUntilLedgerSeq, 0, 'archived, as the reference reports it');

    // an invocation reading it: the simulation marks it for restore, and the restoring transaction reads the value
    const raw = (await builder(s, issuer)).addOperation(invokeOp(storageId, 'get_persistent', sym('x'))).build();
    const sim = await s.simulateTransaction(raw);
    assert.ok(rpc.Api.isSimulationSuccess(sim));
    const readWrite = sim.transactionData.getReadWrite().map(keyB64);
    assert.deepEqual(archivedIndexes(sim.transactionData.build()).map((i) => readWrite[i]), [keyB64(key)]);
    assert.equal((await invoke(s, issuer, invokeOp(storageId, 'get_persistent', sym('x')))).value, 77n);
    assert.ok((await s.getContractData(storageId, sym('x'), rpc.Durability.Persistent)).liveUntilLedgerSeq! > r.evictedIn);

    const temp = contractDataKey(storageId, sym('y'), 'temporary');
    const t = await dev('lumen_archiveEntry', { key: keyB64(temp) });
    assert.equal(t.evictedIn, t.ledger + 1);
    assert.equal((await s.getLedgerEntries(temp)).entries.length, 0);
    assert.equal(await simulated(issuer, storageId, 'get_temporary', sym('y')), null);
    assert.match(await devError('lumen_archiveEntry', { key: keyB64(temp) }), /no such entry/);
  });

  it('lumen_setLedgerEntry and lumen_deleteLedgerEntry take entries and keys as XDR or JSON', async () => {
    // an account from getLedgerEntries' JSON form, with a new balance
    const accountKeyB64 = keyB64(xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: bob.xdrAccountId() })));
    const json = (await node.rpc('getLedgerEntries', { keys: [accountKeyB64], xdrFormat: 'json' })).result.entries[0].dataJson;
    json.account.balance = String(321n * XLM);
    const set = await dev('lumen_setLedgerEntry', { entry: json });
    assert.deepEqual([set.created, set.key], [false, accountKeyB64]);
    assert.equal(await balanceOf(bob.publicKey()), 321n * XLM);

    // a whole LedgerEntry as base64 XDR: a contract data entry the contract reads, given a TTL
    const entry = xdr.LedgerEntry.schema.encode({
      lastModifiedLedgerSeq: 0,
      data: {
        type: 6,
        contractData: {
          ext: { v: 0 }, contract: Address.fromString(storageId).toScAddress().toXdrObject(), key: sym('z').toXdrObject(),
          durability: 1, val: u64(9).toXdrObject(),
        },
      },
      ext: { v: 0 },
    });
    const z = await dev('lumen_setLedgerEntry', { entry: Buffer.from(entry).toString('base64') });
    assert.equal(z.created, true);
    assert.ok(z.liveUntilLedgerSeq >= z.ledger);
    assert.equal((await invoke(s, issuer, invokeOp(storageId, 'get_persistent', sym('z')))).value, 9n);

    // deleted by its key in JSON form
    const zKey = contractDataKey(storageId, sym('z'), 'persistent');
    await dev('lumen_deleteLedgerEntry', { key: zKey.toJson() });
    assert.equal((await s.getLedgerEntries(zKey)).entries.length, 0);
    assert.equal(await simulated(issuer, storageId, 'get_persistent', sym('z')), null);
  });

  it('bad input: a clear -32602 each time, and the network keeps closing with its data intact', async () => {
    const before = await balanceOf(alice.publicKey());
    const asset = `USD:${issuer.publicKey()}`;
    const accountKeyB64 = keyB64(xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: alice.xdrAccountId() })));
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['lumen_setLedgerEntry', { entry: '!!not base64!!' }, /entry does not parse as a LedgerEntry .*neither valid base64 XDR nor its JSON form/],
      ['lumen_setLedgerEntry', { entry: 'AAAA' }, /base64 that is not a valid XDR value/],
      ['lumen_setLedgerEntry', { entry: accountKeyB64 }, /entry does not parse as a LedgerEntry/],
      ['lumen_setLedgerEntry', { entry: { account: 5 } }, /JSON that is not a valid value/],
      ['lumen_setLedgerEntry', { entry: '{"account": ' }, /neither valid base64 XDR nor JSON/],
      ['lumen_setLedgerEntry', { entry: { ttl: { key_hash: '00'.repeat(32), live_until_ledger_seq: 5 } } }, /lumen_setTtl/],
      ['lumen_setLedgerEntry', { entry: 'AAAA', extra: 1 }, /./],
      ['lumen_deleteLedgerEntry', { key: keyB64(xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.random().xdrAccountId() }))) }, /no such entry/],
      ['lumen_deleteLedgerEntry', { key: 'AAAA' }, /key does not parse as a LedgerKey/],
      ['lumen_setBalance', { account: alice.publicKey(), balance: 9_999_999 }, /below G.*'s minimum of 15000000 stroops/],
      ['lumen_setBalance', { account: alice.publicKey(), balance: -1 }, /cannot be negative/],
      ['lumen_setBalance', { account: 'GABC', balance: 1 }, /not an account address/],
      ['lumen_setBalance', { account: alice.publicKey(), balance: '12abc' }, /not a whole number/],
      ['lumen_setTrustlineBalance', { account: alice.publicKey(), asset: `EUR:${Keypair.random().publicKey()}`, balance: 1 }, /unknown asset EUR:G.*issuer account does not exist/],
      ['lumen_setTrustlineBalance', { account: alice.publicKey(), asset: 'native', balance: 1 }, /lumen_setBalance/],
      ['lumen_setTrustlineBalance', { account: alice.publicKey(), asset: 'USD', balance: 1 }, /CODE:ISSUER/],
      ['lumen_setTrustlineBalance', { account: alice.publicKey(), asset, balance: -5 }, /cannot be negative/],
      ['lumen_setSacBalance', { asset, address: randomContract(), amount: -1 }, /cannot be negative/],
      ['lumen_setSacBalance', { asset, address: 'CNOPE', amount: 1 }, /not an account \(G\.\.\.\) or contract \(C\.\.\.\) address/],
      ['lumen_setContractWasm', { contract: randomContract(), wasm: wasm('counter').toString('base64') }, /unknown contract C/],
      ['lumen_setContractWasm', { contract: storageId, wasm: 'AAAA' }, /not a WebAssembly module/],
      ['lumen_setContractWasm', { contract: storageId, wasm: 'not base64' }, /wasm is not base64/],
      ['lumen_setContractData', { contract: randomContract(), key: { symbol: 'a' }, value: { u64: '1' } }, /unknown contract/],
      ['lumen_setContractData', { contract: storageId, key: { nope: 1 }, value: { u64: '1' } }, /key does not parse as an ScVal/],
      ['lumen_setContractData', { contract: storageId, key: { symbol: 'a' }, value: 'AAAA' }, /value does not parse as an ScVal/],
      ['lumen_setTtl', { key: accountKeyB64, liveUntilLedger: 100 }, /contract data and contract code/],
      ['lumen_archiveEntry', { key: keyB64(contractDataKey(storageId, sym('never'), 'persistent')) }, /no such entry/],
    ];
    for (const [method, params, pattern] of cases) {
      assert.match(await devError(method, params), pattern, `${method} ${JSON.stringify(params)}`);
    }
    assert.equal(await balanceOf(alice.publicKey()), before, 'nothing changed');
    const latest = (await s.getLatestLedger()).sequence;
    const closed = await dev('lumen_closeLedgers', { count: 1 });
    assert.ok(closed.latestLedger > latest);
    const pay = (await builder(s, alice)).addOperation(Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: '1' })).build();
    pay.sign(alice);
    assert.equal((await submit(s, pay)).done.status, 'SUCCESS');
  });

  it('`lumen-rpc dev set-balance` does the same from a shell', () => {
    const carol = Keypair.random().publicKey();
    const out = spawnSync(process.execPath, ['bin/lumen-rpc.js', 'dev', 'set-balance', carol, '250000000', '--rpc-url', node.url], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    assert.equal(JSON.parse(out.stdout).created, true);
  });
});

describe('developer edits reach a follower through the published datastore and archive', () => {
  it('B, following A, answers getLedgerEntries and getLedgers for edited entries as A does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lumen-devstate-'));
    const a = await startA(dir);
    let b: NodeProcess | undefined;
    const call = async (n: NodeProcess, method: string, params: Record<string, unknown>): Promise<any> => {
      const res = await n.rpc(method, params);
      assert.ok(res.result, `${method}: ${JSON.stringify(res.error)}`);
      return res.result;
    };
    try {
      const early = Keypair.random().publicKey();
      const beforeCheckpoint = await call(a, 'lumen_setBalance', { account: early, balance: 700_000_000 });
      assert.ok(beforeCheckpoint.ledger < CHECKPOINT, 'state from the archive carries it');
      await waitFor('A to publish its first checkpoint', async () => (await latest(a)) > CHECKPOINT + 1);
      b = await startB(dir, a);
      await waitFor('B to catch up with A', async () => (await latest(b!)) >= (await latest(a)) - 2);

      const late = Keypair.random().publicKey();
      const contract = randomContract();
      const entry = (key: string) => ({ contract_data: { ext: 'v0', contract, key: { symbol: key }, durability: 'persistent', val: { u64: '1' } } });
      const edits = [
        await call(a, 'lumen_setBalance', { account: late, balance: 800_000_000 }),
        await call(a, 'lumen_setLedgerEntry', { entry: entry('kept') }),
        await call(a, 'lumen_setLedgerEntry', { entry: entry('archived') }),
      ];
      const archived = await call(a, 'lumen_archiveEntry', { key: { contract_data: { contract, key: { symbol: 'archived' }, durability: 'persistent' } } });
      assert.equal(archived.evictedIn, archived.ledger + 1);
      await waitFor('B to reach the edits', async () => (await latest(b!)) >= archived.evictedIn);

      const keys = [
        ...[early, late].map((g) => keyB64(xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(g).xdrAccountId() })))),
        ...['kept', 'archived'].map((k) => keyB64(contractDataKey(contract, sym(k), 'persistent'))),
      ];
      const [ea, eb]: any[] = await Promise.all([a, b!].map((n) => call(n, 'getLedgerEntries', { keys })));
      assert.equal(ea.entries.length, 4);
      assert.deepEqual(eb.entries, ea.entries);
      assert.equal(ea.entries[3].liveUntilLedgerSeq, 0, 'archived on both');
      for (const ledger of [...edits.map((e) => e.ledger), archived.ledger, archived.evictedIn]) {
        const [la, lb]: any[] = await Promise.all([a, b!].map((n) => call(n, 'getLedgers', { startLedger: ledger, pagination: { limit: 1 } })));
        assert.deepEqual(lb.ledgers[0], la.ledgers[0], `ledger ${ledger}`);
      }
    } finally {
      await b?.stop();
      await a.stop();
    }
  });
});
