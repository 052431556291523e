// Protocols on the standalone network, end to end over HTTP: a network starts at the protocol asked
// for (--protocol), and lumen_upgradeProtocol votes an upgrade in mid-run while a second node follows
// it (A publishes its datastore and archive, B follows them as it would follow testnet). Across the
// upgrade both nodes hold the same ledgers, transactions and events; contracts deployed before keep
// running; and simulation on the follower runs on the host line of the latest ledger's protocol. The
// evidence for the line is the hosts' own: only a protocol-28 host refuses a contract built for
// protocol 29 ("contract protocol number is newer than host").
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSync, sign } from 'node:crypto';
import { Keypair, Operation, rpc, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, startRefusal, type NodeProcess } from './support/nodeProcess.ts';
import { CHECKPOINT, latest, startA, startB, waitFor } from './support/twoNodes.ts';
import { clientFor, fundedAccount, invoke, invokeOp, uploadAndDeploy, wasm } from './support/contracts.ts';
import { builder, server } from './support/sdk.ts';
import { testContractWasm } from '../unit/host/support.ts';

/** simulateTransaction of uploading `wasm`, as a client sends it, on `node`. */
async function simulateUpload(node: NodeProcess, s: rpc.Server, source: Keypair, wasm: Uint8Array): Promise<any> {
  const tx = (await builder(s, source)).addOperation(Operation.uploadContractWasm({ wasm: Buffer.from(wasm) })).build();
  const r = await node.rpc('simulateTransaction', { transaction: tx.toXDR() });
  assert.ok(r.result, JSON.stringify(r.error));
  return r.result;
}

const protocolOf = async (node: NodeProcess): Promise<number> => (await node.rpc('getLatestLedger')).result.protocolVersion;

describe('--protocol: the protocol a new network starts at', () => {
  it('starts at 30 by default and at 29 when asked, and keeps it on a restart; a protocol it cannot run is refused clearly', async () => {
    let at29 = await startNodeProcess({ args: ['--log-level', 'warn', '--protocol', '29'] });
    try {
      assert.equal(await protocolOf(at29), 29);
      assert.equal((await at29.rpc('getNetwork')).result.protocolVersion, 29);
      assert.equal((await at29.rpc('getVersionInfo')).result.protocolVersion, 29);
      const deployer = await fundedAccount(at29.url);
      const { contractId } = await uploadAndDeploy(server(at29.url), deployer, 'counter');
      const counter = await clientFor(at29.url, contractId, deployer);
      assert.equal((await (await counter.increment({ by: 3 })).signAndSend()).result, 3);
      // a contract for protocol 29 runs here
      const sim = await simulateUpload(at29, server(at29.url), deployer, testContractWasm(29));
      assert.equal(sim.error, undefined, sim.error);
      // a restart keeps the network's protocol whatever --protocol says, and says so
      await at29.stop();
      at29 = await startNodeProcess({ dbPath: at29.dbPath, args: ['--log-level', 'warn', '--protocol', '28'] });
      assert.equal(await protocolOf(at29), 29);
      await at29.outputMatching(/--protocol 28 is ignored: this network runs protocol 29/);
    } finally {
      await at29.stop();
    }
    const plain = await startNodeProcess({ args: ['--log-level', 'warn'], protocol: null });
    try {
      assert.equal(await protocolOf(plain), 30);
    } finally {
      await plain.stop();
    }
    assert.match(await startRefusal({ args: ['--protocol', '31'] }), /--protocol 31: protocol 31 is not one this build runs protocols 28 to 30/);
    assert.match(await startRefusal({ args: ['--protocol', '27'] }), /--protocol 27: protocol 27 is not one this build runs protocols 28 to 30/);
  });
});

/** The close values of ledgers [from, from + count), as getLedgers renders their headers in JSON. */
async function closeValues(node: NodeProcess, from: number, count: number): Promise<Array<{ sequence: number; protocol: number; seconds: bigint; ext: any }>> {
  const r = await node.rpc('getLedgers', { startLedger: from, pagination: { limit: count }, xdrFormat: 'json' });
  assert.ok(r.result, JSON.stringify(r.error));
  return r.result.ledgers.map((l: any) => ({
    sequence: l.sequence, protocol: l.headerJson.header.ledger_version, seconds: BigInt(l.headerJson.header.scp_value.close_time), ext: l.headerJson.header.scp_value.ext,
  }));
}

describe('a protocol-30 network', () => {
  let node: NodeProcess;
  before(async () => { node = await startNodeProcess({ args: ['--log-level', 'warn', '--protocol', '30', '--ledger-close-interval', '300ms'] }); });
  after(async () => { await node?.stop(); });

  it('closes ledgers with millisecond close times (CAP-88): strictly increasing, sub-second apart, closeTime their whole seconds', async () => {
    assert.equal(await protocolOf(node), 30);
    // on a 300 ms cadence, two ledgers soon share a second: wait for a pair that does
    let pair: [any, any] | undefined;
    await waitFor('two ledgers closed within one second', async () => {
      const latestSeq = await latest(node);
      if (latestSeq < 3) return false;
      const values = await closeValues(node, 2, latestSeq - 1);
      for (let i = 1; i < values.length; i++) {
        const [a, b] = [values[i - 1], values[i]];
        assert.ok(a.ext.signed_ms && b.ext.signed_ms, `ledgers after genesis carry signed_ms values: ${JSON.stringify(b.ext).slice(0, 80)}`);
        const [msA, msB] = [BigInt(a.ext.signed_ms.close_time_ms), BigInt(b.ext.signed_ms.close_time_ms)];
        assert.ok(msB > msA, `close_time_ms grows: ${msA} then ${msB}`);
        assert.equal(b.seconds, msB / 1000n, 'closeTime is closeTimeMs / 1000');
        if (a.seconds === b.seconds) pair = [a, b];
      }
      return pair !== undefined;
    });
  });

  it('runs contracts: the counter, and an ML-DSA-44 signature verified by the CAP-87 host function (simulated and applied)', async () => {
    const deployer = await fundedAccount(node.url);
    const s = server(node.url);
    const { contractId } = await uploadAndDeploy(s, deployer, 'counter');
    assert.equal((await (await (await clientFor(node.url, contractId, deployer)).increment({ by: 4 })).signAndSend()).result, 4);
    // invoked with plain operations: the JS SDK 17.2 cannot read this contract's spec (soroban-sdk 30
    // allows UDT names over 60 bytes), so contract.Client is not used
    const mldsa = (await uploadAndDeploy(s, deployer, 'mldsa')).contractId;
    const { publicKey, privateKey } = generateKeyPairSync('ml-dsa-44' as never);
    const raw = Buffer.from((publicKey.export({ format: 'jwk' }) as { pub: string }).pub, 'base64url');
    const message = Buffer.from('a message for protocol 30');
    const context = Buffer.from('lumen-rpc');
    const signature = sign(null, message, { key: privateKey, context } as never);
    const verifyOp = (msg: Buffer) => invokeOp(mldsa, 'verify_44', xdr.ScVal.scvBytes(raw), xdr.ScVal.scvBytes(msg), xdr.ScVal.scvBytes(signature), xdr.ScVal.scvBytes(context));
    const verified = await invoke(s, deployer, verifyOp(message));
    assert.equal(verified.value, true);
    assert.ok(verified.minResourceFee > 0n);
    await assert.rejects(invoke(s, deployer, verifyOp(Buffer.from('another message'))), /Error\(Crypto, InvalidInput\)/);
  });
});

describe('lumen_upgradeProtocol with a follower', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lumen-upgrade-'));
  let a: NodeProcess;
  let b: NodeProcess;
  let deployer: Keypair;
  let counterId: string;
  before(async () => {
    a = await startA(dir);
    deployer = await fundedAccount(a.url);
    counterId = (await uploadAndDeploy(server(a.url), deployer, 'counter')).contractId;
    await waitFor('A to pass its first checkpoint', async () => await latest(a) > CHECKPOINT + 2);
    b = await startB(dir, a);
    await waitFor('B to follow A', async () => await latest(b) >= await latest(a) - 1);
  });
  after(async () => { await b?.stop(); await a?.stop(); });

  it('moves the network from 28 to 29 at the next close; the follower ingests it without a gap, its simulation switching host lines', async () => {
    const sB = server(b.url);
    const p29Contract = testContractWasm(29);
    // before: the follower's latest ledger is at 28, so its simulation runs on the protocol-28 host
    assert.equal(await protocolOf(b), 28);
    const before = await simulateUpload(b, sB, deployer, p29Contract);
    assert.match(before.error ?? '', /contract protocol number is newer than host/);

    const counter = await clientFor(a.url, counterId, deployer);
    assert.equal((await (await counter.increment({ by: 1 })).signAndSend()).result, 1);
    const r = await a.rpc('lumen_upgradeProtocol', { protocol: 29 });
    assert.ok(r.result, JSON.stringify(r.error));
    assert.deepEqual({ protocol: r.result.protocol, previous: r.result.previous }, { protocol: 29, previous: 28 });
    const upgradeLedger: number = r.result.ledger;
    // the upgrade ledger says so in its header and carries the upgrade in its value
    const ledgers = await a.rpc('getLedgers', { startLedger: upgradeLedger - 1, pagination: { limit: 2 }, xdrFormat: 'json' });
    const [beforeIt, it29] = ledgers.result.ledgers;
    assert.equal(beforeIt.headerJson.header.ledger_version, 28);
    assert.equal(it29.headerJson.header.ledger_version, 29);
    assert.deepEqual(it29.headerJson.header.scp_value.upgrades.length, 1);
    // contracts deployed before keep running, now on the protocol-29 host
    assert.equal((await (await counter.increment({ by: 2 })).signAndSend()).result, 3);
    const afterUpgrade = await latest(a);

    await waitFor('B to store the ledgers past the upgrade', async () => await latest(b) >= afterUpgrade);
    assert.equal(await protocolOf(b), 29);
    assert.equal((await b.rpc('getVersionInfo')).result.protocolVersion, 29);
    const after = await simulateUpload(b, sB, deployer, p29Contract);
    assert.equal(after.error, undefined, `the follower simulates on the protocol-29 host now: ${after.error}`);

    // the same ledgers, transactions and events on both nodes across the upgrade
    const from = upgradeLedger - 5;
    const count = afterUpgrade - from + 1;
    for (const method of ['getLedgers', 'getTransactions']) {
      const [la, lb] = await Promise.all([a, b].map((n) => n.rpc(method, { startLedger: from, pagination: { limit: count } })));
      assert.ok(la.result && lb.result, JSON.stringify([la.error, lb.error]));
      const items = method === 'getLedgers' ? 'ledgers' : 'transactions';
      assert.ok(la.result[items].length > 0);
      assert.deepEqual(lb.result[items], la.result[items], method);
    }
    const events = await Promise.all([a, b].map((n) => n.rpc('getEvents', { startLedger: from, endLedger: afterUpgrade + 1, filters: [], pagination: { limit: 1000 } })));
    assert.ok(events[0].result.events.length >= 2, 'the increments\' events');
    assert.deepEqual(events[1].result.events, events[0].result.events);
  });

  it('moves it on from 29 to 30: the upgrade ledger closes with a seconds value, the next with milliseconds; the follower switches to the protocol-30 host', async () => {
    const sB = server(b.url);
    const p30Contract = wasm('mldsa');
    assert.match((await simulateUpload(b, sB, deployer, p30Contract)).error ?? '', /contract protocol number is newer than host/);
    const r = await a.rpc('lumen_upgradeProtocol', { protocol: 30 });
    assert.ok(r.result, JSON.stringify(r.error));
    const upgradeLedger: number = r.result.ledger;
    const counter = await clientFor(a.url, counterId, deployer);
    assert.equal((await (await counter.increment({ by: 4 })).signAndSend()).result, 7);
    const afterUpgrade = await latest(a);
    const [at, next] = await closeValues(a, upgradeLedger, 2);
    assert.equal(at.protocol, 30);
    assert.ok(at.ext.signed && !at.ext.signed_ms, 'the upgrade ledger closes at 29: a seconds value');
    assert.ok(next.ext.signed_ms, 'the next one closes at 30: a millisecond value');
    await waitFor('B to store the ledgers past the upgrade to 30', async () => await latest(b) >= afterUpgrade);
    assert.equal(await protocolOf(b), 30);
    const after = await simulateUpload(b, sB, deployer, p30Contract);
    assert.equal(after.error, undefined, `the follower simulates on the protocol-30 host now: ${after.error}`);
    const [la, lb] = await Promise.all([a, b].map((n) => n.rpc('getTransactions', { startLedger: upgradeLedger - 2, pagination: { limit: 50 } })));
    assert.deepEqual(lb.result.transactions, la.result.transactions);
  });

  it('refuses a protocol that is not newer, or that this build does not run, changing nothing', async () => {
    const before = await protocolOf(a);
    for (const [protocol, reason] of [[before, /must be newer than the network's/], [28, /must be newer/], [31, /not one this build runs/]] as const) {
      const r = await a.rpc('lumen_upgradeProtocol', { protocol });
      assert.equal(r.error?.code, -32602, JSON.stringify(r));
      assert.match(r.error.data ?? r.error.message, reason);
    }
    assert.equal(await protocolOf(a), before);
  });
});
