// Traces over HTTP (lumen_traceTransaction): a stored transaction re-executed on the state before it,
// with the host's trace on. Checked against what the network itself recorded: the re-executed result
// and meta equal the stored ones byte for byte; state diffs against the balances the SDK reads; the
// per-frame instructions against the host's total.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, authorizeEntry, rpc, xdr } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { accountEntry, builder } from './support/sdk.ts';
import {
  PASSPHRASE, addr, fundedAccount, i128, invoke, invokeOp, resourceFeeOf, sendAndPoll, server, startContractNode, u32, uploadAndDeploy,
} from './support/contracts.ts';
import type { TraceFrame, TransactionTrace } from '../../src/trace/types.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHECKPOINT, latest, startA, startB, waitFor } from './support/twoNodes.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const cli = async (...args: string[]): Promise<string> => (await run(process.execPath, ['bin/lumen-rpc.js', ...args], { cwd: ROOT })).stdout;

const XLM = 10_000_000n;

async function traceOf(node: NodeProcess, hash: string): Promise<TransactionTrace> {
  const r = await node.rpc('lumen_traceTransaction', { hash });
  assert.ok(r.result, `lumen_traceTransaction: ${JSON.stringify(r.error)}`);
  return r.result as TransactionTrace;
}

function allFrames(frame: TraceFrame): TraceFrame[] {
  return [frame, ...frame.calls.flatMap(allFrames)];
}

/** The i128 (or i64) balance of an account entry in the xdr JSON form. */
const balanceOf = (entryJson: any): bigint => BigInt(entryJson.data.account.balance);

describe('lumen_traceTransaction', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let deployer: Keypair;
  let counterId: string;
  let callerId: string;

  before(async () => {
    node = await startContractNode();
    s = server(node.url);
    deployer = await fundedAccount(node.url);
    counterId = (await uploadAndDeploy(s, deployer, 'counter')).contractId;
    callerId = (await uploadAndDeploy(s, deployer, 'caller')).contractId;
    await invoke(s, deployer, Operation.createStellarAssetContract({ asset: Asset.native() }) as unknown as xdr.Operation, { flow: 'prepare' });
  });
  after(async () => { await node?.stop(); });

  it('a nested call that fails: the failing frame, its error, its rolled-back write; the caller goes on', async () => {
    const r = await invoke(s, deployer, invokeOp(callerId, 'increment_then_try_failing', addr(counterId), u32(3)));
    assert.equal(r.value, 3, 'the failed increment was rolled back');
    const trace = await traceOf(node, r.hash);
    assert.deepEqual(trace.reproduced, { result: true, meta: true });
    assert.equal(trace.status, 'txSUCCESS');

    const root = trace.operations[0].invocation!;
    assert.equal(root.kind, 'host_function');
    assert.equal(root.function, 'InvokeContract');
    const caller = root.calls[0];
    assert.equal(caller.contract, callerId);
    assert.equal(caller.function, 'increment_then_try_failing');
    assert.deepEqual(caller.args, [{ address: counterId }, { u32: 3 }]);
    assert.deepEqual(caller.result, { u32: 3 });
    assert.equal(caller.rolledBack, false);
    assert.deepEqual(caller.calls.map((c) => [c.contract, c.function]),
      [[counterId, 'increment'], [counterId, 'increment_then_fail'], [counterId, 'get']]);

    const [kept, failed, read] = caller.calls;
    assert.deepEqual(kept.result, { u32: 3 });
    assert.equal(kept.rolledBack, false);
    assert.match(failed.error!, /Contract, #7/);
    assert.equal(failed.rolledBack, true);
    assert.equal(failed.result, undefined);
    assert.ok(failed.storage.some((c) => c.call === 'put_contract_data' && c.access === 'write'), JSON.stringify(failed.storage));
    // its event was emitted, then undone with the frame
    assert.equal(failed.events.length, 1);
    assert.equal(failed.events[0].successful, false);
    assert.equal(kept.events[0].successful, true);
    assert.deepEqual(read.result, { u32: 3 });

    // the counter's instance holds 3, not 6: the failed frame's write is not in the state diff
    const changes = trace.operations[0].stateChanges;
    const instance = changes.find((c: any) => c.key.contract_data?.contract === counterId)!;
    assert.ok(instance, JSON.stringify(changes.map((c) => c.key)));
    const storage = JSON.stringify((instance.after as any).data.contract_data.val);
    assert.match(storage, /"u32":3/);
    assert.doesNotMatch(storage, /"u32":6/);
    assert.deepEqual(instance.frames, allFrames(root).filter((f) => f.contract === counterId).map((f) => f.id));
  });

  it('per-frame instructions add up to what the host metered; the fee parts to what was charged', async () => {
    const r = await invoke(s, deployer, invokeOp(callerId, 'call_increment', addr(counterId), u32(5)));
    const trace = await traceOf(node, r.hash);
    const root = trace.operations[0].invocation!;
    const frames = allFrames(root);
    assert.ok(frames.length >= 3);
    for (const f of frames) {
      assert.ok(f.cpuInstructions.exclusive > 0, `frame ${f.id} ${f.function}: ${JSON.stringify(f.cpuInstructions)}`);
      const callees = f.calls.reduce((n, c) => n + c.cpuInstructions.inclusive, 0);
      assert.equal(f.cpuInstructions.inclusive, f.cpuInstructions.exclusive + callees);
    }
    const exclusiveSum = frames.reduce((n, f) => n + f.cpuInstructions.exclusive, 0);
    assert.equal(exclusiveSum, root.cpuInstructions.inclusive);
    assert.equal(root.cpuInstructions.inclusive + trace.host!.outsideFrames.cpuInstructions, trace.host!.cpuInstructions);
    // within what the transaction declared, as the host enforced it
    const declared = r.simulation!.transactionData.build().resources.instructions;
    assert.ok(trace.host!.cpuInstructions <= declared && trace.host!.cpuInstructions > declared / 2,
      `${trace.host!.cpuInstructions} of ${declared}`);

    const fee = trace.fee!;
    assert.equal(BigInt(fee.charged), r.feeCharged);
    assert.equal(BigInt(fee.inclusion) + BigInt(fee.nonRefundable) + BigInt(fee.refundable), r.feeCharged);
    const parts = Object.values(fee.parts).map(BigInt);
    assert.ok(parts.every((p) => p >= 0n));
    // every non-refundable part, plus the events part, is what the host's fee function charged (up to its rounding per part)
    const nonRefundableParts = parts.reduce((a, b) => a + b, 0n) - BigInt(fee.parts.contractEvents);
    assert.ok(BigInt(fee.nonRefundable) - nonRefundableParts >= 0n && BigInt(fee.nonRefundable) - nonRefundableParts <= 7n,
      `${fee.nonRefundable} vs parts ${nonRefundableParts}`);
  });

  it('a SAC transfer authorized by another account: the auth tree, its frame, the balance diffs', async () => {
    const from = await fundedAccount(node.url);
    const to = Keypair.random();
    await s.fundAddress(to.publicKey());
    const sacId = Asset.native().contractId(PASSPHRASE);
    const amount = 7n * XLM;
    const args = [addr(from.publicKey()), addr(to.publicKey()), i128(amount)];
    const raw = (await builder(s, deployer)).addOperation(invokeOp(sacId, 'transfer', ...args)).build();
    const sim = await s.simulateTransaction(raw);
    assert.ok(rpc.Api.isSimulationSuccess(sim), JSON.stringify(sim));
    const latest = (await s.getLatestLedger()).sequence;
    const signed = await authorizeEntry(sim.result!.auth[0], from, latest + 100, PASSPHRASE);
    const op = Operation.invokeContractFunction({ contract: sacId, function: 'transfer', args, auth: [signed] }) as unknown as xdr.Operation;
    const toBefore = (await accountEntry(s, to.publicKey())).balance;
    const r = await invoke(s, deployer, op);

    const trace = await traceOf(node, r.hash);
    assert.deepEqual(trace.reproduced, { result: true, meta: true });
    const sac = trace.operations[0].invocation!.calls[0];
    assert.equal(sac.kind, 'sac');
    assert.equal(sac.contract, sacId);
    assert.equal(sac.function, 'transfer');
    assert.deepEqual(sac.args, [{ address: from.publicKey() }, { address: to.publicKey() }, { i128: amount.toString() }]);

    assert.equal(trace.auth.length, 1);
    const auth = trace.auth[0];
    assert.equal(auth.address, from.publicKey());
    assert.match(auth.credentials, /^address(_v2)?$/);
    assert.equal(auth.root.contract, sacId);
    assert.equal(auth.root.function, 'transfer');
    assert.deepEqual(auth.root.frames, [sac.id]);
    assert.deepEqual(sac.authorizedBy, [auth.root.id]);

    // balances: the sender's account lost the amount, the receiver's gained it; both are the SAC's
    const accounts = trace.operations[0].stateChanges.filter((c: any) => c.key.account);
    const change = (g: string) => accounts.find((c: any) => c.key.account.account_id === g)!;
    const sent = change(from.publicKey());
    const got = change(to.publicKey());
    assert.equal(balanceOf(sent.before) - balanceOf(sent.after), amount);
    assert.equal(balanceOf(got.after) - balanceOf(got.before), amount);
    assert.equal(balanceOf(got.before), toBefore);
    assert.deepEqual(sent.frames, [sac.id]);
    // the transfer event, tied to the SAC's frame
    assert.ok(sac.events.some((e) => JSON.stringify(e.topics[0]) === JSON.stringify({ symbol: 'transfer' })), JSON.stringify(sac.events));
  });

  it('lumen_resourceReport since a snapshot: calls per function, host costs, and fees equal to those charged, to the stroop', async () => {
    const snap = await node.rpc('lumen_snapshot');
    assert.ok(snap.result?.id, JSON.stringify(snap));
    const sent = [
      await invoke(s, deployer, invokeOp(counterId, 'increment', u32(1))),
      await invoke(s, deployer, invokeOp(counterId, 'increment', u32(2))),
      await invoke(s, deployer, invokeOp(callerId, 'call_increment', addr(counterId), u32(4))),
      await invoke(s, deployer, invokeOp(callerId, 'increment_then_try_failing', addr(counterId), u32(1))),
    ];
    const r = await node.rpc('lumen_resourceReport', { snapshotId: snap.result.id, format: 'markdown' });
    assert.ok(r.result, JSON.stringify(r.error));
    const { report, markdown } = r.result;
    assert.equal(report.transactions, 4);
    assert.equal(report.reproduced, 4);
    assert.equal(BigInt(report.totalFeeCharged), sent.reduce((n, t) => n + t.feeCharged, 0n));
    const row = (contract: string, fn: string) => report.functions.find((f: any) => f.contract === contract && f.function === fn);
    const increment = row(counterId, 'increment');
    // called at the top twice, and by the caller twice
    assert.equal(increment.calls, 4);
    assert.equal(increment.transactions, 2);
    assert.equal(BigInt(increment.feeCharged), sent[0].feeCharged + sent[1].feeCharged);
    assert.ok(increment.cpuInstructions.min > 0 && increment.cpuInstructions.min <= increment.cpuInstructions.median
      && increment.cpuInstructions.median <= increment.cpuInstructions.max);
    assert.equal(row(counterId, 'increment_then_fail').calls, 1);
    assert.equal(row(callerId, 'call_increment').transactions, 1);
    const feeRows = report.functions.reduce((n: bigint, f: any) => n + BigInt(f.feeCharged), 0n);
    assert.equal(feeRows, BigInt(report.totalFeeCharged));
    assert.match(markdown, /\| contract \| function \| calls \|/);
    assert.match(markdown, /\| increment \| 4 \|/);

    const bad = await node.rpc('lumen_resourceReport', {});
    assert.equal(bad.error?.code, -32602);
  });

  it('the command line: `lumen-rpc trace` prints the tree; `dev resource-report` the Markdown table', async () => {
    const r = await invoke(s, deployer, invokeOp(callerId, 'increment_then_try_failing', addr(counterId), u32(1)));
    const text = await cli('trace', r.hash, '--rpc-url', node.url);
    assert.match(text, /re-executed: result and meta reproduced byte for byte/);
    assert.match(text, /\.increment_then_try_failing\(C\w{3}…\w{4}, 1\) → 2?\d+/);
    assert.match(text, /\.increment_then_fail\(1\) ✗ Error\(Contract, #7\).*\[rolled back\]/);
    assert.match(text, /storage write Instance/);
    assert.match(text, /fee charged [\d,]+ = inclusion/);
    const json = JSON.parse(await cli('trace', r.hash, '--json', '--rpc-url', node.url));
    assert.equal(json.hash, r.hash);
    const table = await cli('dev', 'resource-report', '--since-ledger', String(r.done.ledger), '--rpc-url', node.url);
    assert.match(table, /\| increment_then_try_failing \| 1 \|/);
  });

  it('simulateTransaction with trace: true adds the trace of the call as the next ledger would apply it; without, the answer is unchanged', async () => {
    const raw = (await builder(s, deployer)).addOperation(invokeOp(callerId, 'increment_then_try_failing', addr(counterId), u32(5))).build();
    const request = (extra: object) => fetch(node.url, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'simulateTransaction', params: { transaction: raw.toXDR(), ...extra } }),
    }).then((r) => r.text());
    const [plainText, tracedText] = await Promise.all([request({}), request({ trace: true })]);
    assert.doesNotMatch(plainText, /"trace/);
    const plain = JSON.parse(plainText).result, traced = JSON.parse(tracedText).result;
    const { trace, ...rest } = traced;
    assert.deepEqual(rest, plain, 'the members of the answer without trace are the same');
    assert.equal(trace.status, 'txSUCCESS');
    const caller = trace.operations[0].invocation.calls[0];
    assert.equal(caller.function, 'increment_then_try_failing');
    assert.equal(caller.calls[1].rolledBack, true);
    assert.ok(trace.host.cpuInstructions > 0);

    // auth an account has not signed yet: the engine signs for it, the host checks the rest
    const from = await fundedAccount(node.url);
    const sacId = Asset.native().contractId(PASSPHRASE);
    const transfer = (await builder(s, deployer)).addOperation(invokeOp(sacId, 'transfer', addr(from.publicKey()), addr(deployer.publicKey()), i128(XLM))).build();
    const simulated = await node.rpc('simulateTransaction', { transaction: transfer.toXDR(), trace: true });
    assert.ok(simulated.result?.trace, JSON.stringify(simulated.result?.traceError ?? simulated));
    assert.equal(simulated.result.trace.status, 'txSUCCESS');
    assert.equal(simulated.result.trace.auth[0].address, from.publicKey());
    assert.deepEqual(simulated.result.trace.auth[0].root.frames, [simulated.result.trace.operations[0].invocation.calls[0].id]);
  });

  it('a classic payment: its operation\'s state diff, reproduced byte for byte', async () => {
    const to = Keypair.random();
    await s.fundAddress(to.publicKey());
    const tx = (await builder(s, deployer)).addOperation(Operation.payment({ destination: to.publicKey(), asset: Asset.native(), amount: '3' })).build();
    tx.sign(deployer);
    const sent = await sendAndPoll(s, tx);
    assert.equal(sent.done?.status, 'SUCCESS');
    const trace = await traceOf(node, sent.sent.hash);
    assert.deepEqual(trace.reproduced, { result: true, meta: true });
    assert.equal(trace.operations[0].type, 'PAYMENT');
    assert.equal(trace.operations[0].invocation, undefined);
    const got = trace.operations[0].stateChanges.find((c: any) => c.key.account?.account_id === to.publicKey())!;
    assert.equal(balanceOf(got.after) - balanceOf(got.before), 30_000_000n);
    assert.equal(trace.fee, undefined);
  });

  it('refuses what it cannot trace with a clear error', async () => {
    const unknown = await node.rpc('lumen_traceTransaction', { hash: '00'.repeat(32) });
    assert.equal(unknown.error?.code, -32602);
    assert.match(unknown.error.message + JSON.stringify(unknown.error.data ?? ''), /not held/);
    const bad = await node.rpc('lumen_traceTransaction', { hash: 'xyz' });
    assert.equal(bad.error?.code, -32602);
  });
});

describe('lumen_traceTransaction on a follower', () => {
  it('B, following A, re-executes A\'s transactions on its own state and reproduces them byte for byte; the trace is A\'s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lumen-trace-two-'));
    const a = await startA(dir);
    let b: NodeProcess | undefined;
    try {
      await waitFor('A to publish its first checkpoint', async () => (await latest(a)) > CHECKPOINT + 1);
      b = await startB(dir, a);
      await waitFor('B to catch up with A', async () => (await latest(b!)) >= (await latest(a)) - 2);
      const s = server(a.url);
      const deployer = await fundedAccount(a.url);
      const counterId = (await uploadAndDeploy(s, deployer, 'counter')).contractId;
      const callerId = (await uploadAndDeploy(s, deployer, 'caller')).contractId;
      const r = await invoke(s, deployer, invokeOp(callerId, 'increment_then_try_failing', addr(counterId), u32(2)));
      await waitFor('B to hold the transaction', async () => (await b!.rpc('getTransaction', { hash: r.hash })).result?.status === 'SUCCESS');

      const [onA, onB] = await Promise.all([traceOf(a, r.hash), traceOf(b, r.hash)]);
      assert.deepEqual(onB.reproduced, { result: true, meta: true });
      assert.deepEqual(onA.reproduced, { result: true, meta: true });
      assert.deepEqual(onB, onA, 'the same trace from the network and from its follower');
      assert.equal(onB.operations[0].invocation!.calls[0].calls[1].rolledBack, true);
    } finally {
      await b?.stop();
      await a.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--print-traces', () => {
  it('the standalone network prints the trace of a transaction that fails', async () => {
    const node = await startContractNode(['--print-traces']);
    try {
      const s = server(node.url);
      const deployer = await fundedAccount(node.url);
      const counterId = (await uploadAndDeploy(s, deployer, 'counter')).contractId;
      // simulation fails for a call that always fails: sent with the resources of a successful call
      const ok = await invoke(s, deployer, invokeOp(counterId, 'increment', u32(1)));
      const data = ok.simulation!.transactionData.build();
      const b = await builder(s, deployer, String(100n + resourceFeeOf(ok.tx)));
      b.setSorobanData(data);
      const tx = b.addOperation(invokeOp(counterId, 'increment_then_fail', u32(1))).build();
      tx.sign(deployer);
      const sent = await sendAndPoll(s, tx);
      assert.equal(sent.done?.status, 'FAILED');
      await node.outputMatching(/\.increment_then_fail\(1\) ✗ Error\(Contract, #7\)/, 30_000);
      await node.outputMatching(/transaction [0-9a-f]{64} · ledger \d+ · txFAILED · re-executed: result and meta reproduced byte for byte/);
    } finally {
      await node.stop();
    }
  });
});

describe('lumen_traceTransaction on a fork', () => {
  it('B, forked from A, traces the transactions it applied, reading what it fetched from A', async () => {
    const a = await startContractNode();
    let b: NodeProcess | undefined;
    try {
      const sA = server(a.url);
      const deployer = await fundedAccount(a.url);
      const counterId = (await uploadAndDeploy(sA, deployer, 'counter')).contractId;
      const callerId = (await uploadAndDeploy(sA, deployer, 'caller')).contractId;
      await invoke(sA, deployer, invokeOp(counterId, 'increment', u32(40)));
      b = await startContractNode(['--fork-url', a.url]);
      const sB = server(b.url);
      const user = await fundedAccount(b.url);
      const r = await invoke(sB, user, invokeOp(callerId, 'increment_then_try_failing', addr(counterId), u32(2)));
      assert.equal(r.value, 42, 'the count A left, plus 2');
      const trace = await traceOf(b, r.hash);
      assert.deepEqual(trace.reproduced, { result: true, meta: true });
      const caller = trace.operations[0].invocation!.calls[0];
      assert.deepEqual(caller.calls.map((c) => [c.function, c.rolledBack]), [['increment', false], ['increment_then_fail', true], ['get', false]]);
    } finally {
      await b?.stop();
      await a.stop();
    }
  });
});
