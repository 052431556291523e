// Ledgers and time on the developer network, over HTTP with the official JS SDK: lumen_closeLedgers
// fast-forwards past TTLs (a temporary entry expires, persistent ones are archived and come back
// through the SDK's restore flow), lumen_advanceTime opens a time-locked claimable balance,
// lumen_setNextCloseTime sets a ledger's close time, getLedgers chains across a fast-forward, manual
// mode closes nothing until asked, and bad input is refused with the network running on.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Asset, Claimant, Keypair, Operation, rpc, xdr } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { builder, builderTimeout } from './support/sdk.ts';
import {
  contractCodeKey, contractDataKey, fundedAccount, instanceKey, invoke, invokeOp, server, startContractNode, sym, u64, uploadAndDeploy,
} from './support/contracts.ts';
import { send, opCodes, transactionResult } from './support/classic.ts';

const ARGS = ['--min-temporary-ttl', '50', '--min-persistent-ttl', '3000'];
const CLAIM_CANNOT_CLAIM = -2;

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();

describe('ledgers and time (developer network)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let user: Keypair;

  const dev = async (method: string, params: unknown) => {
    const r = await node.rpc(method, params);
    assert.ok(r.result, `${method} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
    return r.result;
  };
  const latest = async () => (await s.getLatestLedger()).sequence;
  const header = (l: { headerXdr: string }) => xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from(l.headerXdr, 'base64'));
  /** Runs `fn` in manual mode (no ledger closes but those asked for), then goes back to instant mode. */
  const manually = async <T>(fn: () => Promise<T>): Promise<T> => {
    await dev('lumen_setCloseMode', { mode: 'manual' });
    try { return await fn(); } finally { await dev('lumen_setCloseMode', { mode: 'instant' }); }
  };
  const latestCloseTime = async () => {
    const r = await node.rpc('getLedgers', { startLedger: await latest(), pagination: { limit: 1 } });
    return header(r.result.ledgers[0]).header.scpValue.closeTime;
  };

  before(async () => {
    // the network's time runs ahead of this machine's once ledgers are fast-forwarded: transactions
    // timed out from this machine's clock would be too late, so they carry no upper time bound
    builderTimeout.seconds = 0;
    node = await startContractNode(ARGS);
    s = server(node.url);
    user = await fundedAccount(node.url);
  });
  after(async () => { builderTimeout.seconds = 60; await node?.stop(); });

  it('bad input is refused with a clear error, and the network keeps running', async () => {
    const before = await latest();
    const refused = [
      ['lumen_closeLedgers', { count: 0 }, 'count'],
      ['lumen_closeLedgers', { count: 10_000_001 }, 'count'],
      ['lumen_closeLedgers', { count: 2, closeTimeStep: 0 }, 'closeTimeStep'],
      ['lumen_closeLedgers', { count: 1.5 }, 'count'],
      ['lumen_advanceTime', { seconds: -1 }, 'seconds'],
      ['lumen_advanceTime', {}, 'seconds'],
      ['lumen_setNextCloseTime', { closeTime: 1000 }, 'not later than the latest ledger'],
      ['lumen_setNextCloseTime', { closeTime: 'tomorrow' }, 'closeTime'],
    ] as const;
    for (const [method, params, words] of refused) {
      const r = await node.rpc(method, params);
      assert.equal(r.error?.code, -32602, `${method} ${JSON.stringify(params)}: ${JSON.stringify(r)}`);
      assert.ok(JSON.stringify(r.error).includes(words), `${method} ${JSON.stringify(params)}: ${JSON.stringify(r.error)}`);
    }
    await manually(async () => {
      const from = await latest();
      assert.ok(from >= before);
      const closed = await dev('lumen_closeLedgers', { count: 3 });
      assert.equal(closed.latestLedger, from + 3);
      assert.equal(await latest(), closed.latestLedger);
    });
  });

  it('a fast-forward past TTLs: a temporary entry expires, persistent ones are archived, then restored by the SDK', async () => {
    const { contractId, wasmHash } = await uploadAndDeploy(s, user, 'storage');
    await invoke(s, user, invokeOp(contractId, 'put_temporary', sym('t'), u64(7)));
    await invoke(s, user, invokeOp(contractId, 'put_persistent', sym('p'), u64(11)));
    const temp = contractDataKey(contractId, sym('t'), 'temporary');
    const persistent = [contractDataKey(contractId, sym('p'), 'persistent'), instanceKey(contractId), contractCodeKey(wasmHash)];
    const live = await s.getLedgerEntries(temp, ...persistent);
    assert.equal(live.entries.length, 4);
    const lastLiveUntil = Math.max(...live.entries.map((e) => e.liveUntilLedgerSeq!));

    await manually(async () => {
      const from = await latest();
      const closed = await dev('lumen_closeLedgers', { count: lastLiveUntil + 2 - from });
      assert.equal(closed.latestLedger, lastLiveUntil + 2);
    });

    assert.equal((await s.getLedgerEntries(temp)).entries.length, 0, 'the expired temporary entry is gone');
    const archived = await s.getLedgerEntries(...persistent);
    assert.equal(archived.entries.length, 3, 'archived entries stay readable');
    for (const e of archived.entries) assert.equal(e.liveUntilLedgerSeq, 0, 'archived: live until 0');
    // each was evicted in the ledger after its TTL ended, as a one-by-one close evicts it
    for (const e of live.entries) {
      const r = await node.rpc('getLedgers', { startLedger: e.liveUntilLedgerSeq! + 1, pagination: { limit: 1 } });
      const lcm = xdr.LedgerCloseMeta.schema.decode(Buffer.from(r.result.ledgers[0].metadataXdr, 'base64'));
      assert.equal(lcm.v, 2);
      const evicted = lcm.v === 2 ? lcm.v2.evictedKeys.map((k) => Buffer.from(xdr.LedgerKey.schema.encode(k)).toString('base64')) : [];
      assert.ok(evicted.includes(e.key.toXDR('base64')), `ledger ${e.liveUntilLedgerSeq! + 1} evicted the entry`);
    }

    // the SDK's flow: the simulation marks the archived entries for restore, the invocation restores them
    const restored = await invoke(s, user, invokeOp(contractId, 'get_persistent', sym('p')));
    assert.equal(restored.value, 11n);
    const back = await s.getLedgerEntries(...persistent);
    for (const e of back.entries) assert.ok(e.liveUntilLedgerSeq! > restored.done.ledger, 'live again');
  });

  it('a time-locked claimable balance is refused before its time and claimed after lumen_advanceTime', async () => {
    const claimer = await fundedAccount(node.url);
    const unlock = await latestCloseTime() + 86_400n * 30n;     // claimable from 30 days on
    const predicate = Claimant.predicateNot(Claimant.predicateBeforeAbsoluteTime(String(unlock)));
    const create = await send(s, user, [Operation.createClaimableBalance({ asset: Asset.native(), amount: '10', claimants: [new Claimant(claimer.publicKey(), predicate)] })]);
    assert.equal(create.done.status, 'SUCCESS');
    const balanceId = create.tx.getClaimableBalanceId(0);

    const early = await send(s, claimer, [Operation.claimClaimableBalance({ balanceId })]);
    assert.equal(early.done.status, 'FAILED');
    assert.deepEqual(opCodes(transactionResult(early.done)), [CLAIM_CANNOT_CLAIM]);

    const moved = await dev('lumen_advanceTime', { seconds: 86_400 * 30 + 60 });
    assert.ok(BigInt(moved.now) >= unlock);
    const claimed = await send(s, claimer, [Operation.claimClaimableBalance({ balanceId })]);
    assert.equal(claimed.done.status, 'SUCCESS');
    const ledger = await node.rpc('getLedgers', { startLedger: claimed.done.ledger, pagination: { limit: 1 } });
    assert.ok(header(ledger.result.ledgers[0]).header.scpValue.closeTime >= unlock, 'claimed in a ledger closing after the unlock time');
  });

  it('lumen_setNextCloseTime sets the next ledger\'s close time; later ledgers close later still', async () => {
    await manually(async () => {
      const target = await latestCloseTime() + 100_000n;
      const set = await dev('lumen_setNextCloseTime', { closeTime: Number(target) });
      assert.equal(set.nextCloseTime, Number(target));
      const closed = await dev('lumen_closeLedgers', { count: 1 });
      assert.equal(closed.closeTime, Number(target));
      // the first of these closes at the clock's time (the clock moved up to the target), the others 7 s apart
      const next = await dev('lumen_closeLedgers', { count: 3, closeTimeStep: 7 });
      const three = (await node.rpc('getLedgers', { startLedger: next.latestLedger - 2, pagination: { limit: 3 } })).result.ledgers
        .map((l: { headerXdr: string }) => Number(header(l).header.scpValue.closeTime));
      assert.ok(three[0] >= Number(target) + 1 && three[0] < Number(target) + 60, `${three[0]} right after ${target}`);
      assert.deepEqual(three, [three[0], three[0] + 7, three[0] + 14]);
      assert.equal(next.closeTime, three[2]);
      const after = await dev('lumen_closeLedgers', { count: 1 });
      assert.ok(after.closeTime > next.closeTime, 'the clock runs past the last close time');
    });
  });

  it('getLedgers is contiguous across a fast-forward: every header hashes to its hash and names the previous one', async () => {
    const { start, closed } = await manually(async () => {
      const start = await latest();
      return { start, closed: await dev('lumen_closeLedgers', { count: 1000, closeTimeStep: 5 }) };
    });
    assert.equal(closed.latestLedger, start + 1000);
    let prev: Buffer | undefined;
    let prevClose = 0n;
    for (let from = start - 2; from <= closed.latestLedger; from += 200) {
      const r = await node.rpc('getLedgers', { startLedger: from, pagination: { limit: 200 } });
      // (the cadence may have closed ledgers after it meanwhile: not part of the fast-forward)
      for (const l of r.result.ledgers.filter((x: { sequence: number }) => x.sequence <= closed.latestLedger)) {
        const h = header(l);
        assert.equal(l.hash, Buffer.from(h.hash).toString('hex'));
        assert.deepEqual(sha256(xdr.LedgerHeader.schema.encode(h.header)), Buffer.from(h.hash), `ledger ${l.sequence} hashes to its hash`);
        if (prev) assert.deepEqual(Buffer.from(h.header.previousLedgerHash), prev, `ledger ${l.sequence} follows the one before`);
        assert.ok(h.header.scpValue.closeTime >= prevClose);
        if (l.sequence > start + 1) assert.equal(h.header.scpValue.closeTime - prevClose, 5n);
        prev = Buffer.from(h.hash);
        prevClose = h.header.scpValue.closeTime;
      }
    }
  });

  it('manual mode: nothing closes until asked; the first ledger asked for holds what is queued', async () => {
    await dev('lumen_setCloseMode', { mode: 'manual' });
    const start = await latest();
    const tx = (await builder(s, user)).addOperation(Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '5' }))
      .build();
    // a payment to an account that does not exist fails when applied: what matters is where it lands
    tx.sign(user);
    const sent = await s.sendTransaction(tx);
    assert.equal(sent.status, 'PENDING');
    await new Promise((r) => setTimeout(r, 2500));   // past two ticks of the 1 s cadence
    assert.equal(await latest(), start, 'no ledger closed in manual mode');
    assert.equal((await s.getTransaction(sent.hash)).status, 'NOT_FOUND');
    const closed = await dev('lumen_closeLedgers', { count: 10 });
    assert.equal(closed.latestLedger, start + 10);
    const got = await s.getTransaction(sent.hash);
    assert.notEqual(got.status, 'NOT_FOUND');
    if (got.status !== 'NOT_FOUND') assert.equal(got.ledger, start + 1, 'in the first ledger closed');
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await latest(), start + 10);
    await dev('lumen_setCloseMode', { mode: 'instant' });
  });
});
