// Smart contracts end to end over HTTP with the official JS SDK: Wasm upload, deploy and invocation of
// every test contract through the SDK's own flows (simulateTransaction + assembleTransaction,
// prepareTransaction, contract.Client.deploy / Client.from and AssembledTransaction), authorization
// by a second account, the Stellar Asset Contract, contract errors, and an oversized upload.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  Address, Asset, Keypair, Memo, Operation, SorobanDataBuilder, authorizeEntry, contract, rpc, scValToNative, xdr,
} from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { accountEntry, builder, submit } from './support/sdk.ts';
import {
  CONTRACT_NAMES, PASSPHRASE, addr, clientFor, clientOptions, contractCodeKey, contractDataKey, deployContract, eventsHaveContractError,
  eventsJson, fundedAccount, i128, i64, instanceKey, invoke, invokeOp, opInnerCode, paddedWasm, resourceFeeOf, sendAndPoll, sentFees,
  server, sha256, startContractNode, sym, u32, u64, uploadAndDeploy, uploadWasm, wasm, type ContractName,
} from './support/contracts.ts';

const XLM = 10_000_000n;
const INVOKE_HOST_FUNCTION_TRAPPED = -2;

describe('smart contracts over JSON-RPC (JS SDK)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let deployer: Keypair;
  const deployments = new Map<ContractName, Promise<{ contractId: string; wasmHash: Buffer }>>();
  /** Each test contract uploaded and deployed once per file (simulate + assemble flow). */
  const deployed = (name: ContractName) => {
    if (!deployments.has(name)) deployments.set(name, uploadAndDeploy(s, deployer, name));
    return deployments.get(name)!;
  };

  before(async () => {
    node = await startContractNode();
    s = server(node.url);
    deployer = await fundedAccount(node.url);
  });
  after(async () => { await node?.stop(); });

  it('uploads each test contract and deploys it; hash and address come back as return values and are readable', async () => {
    for (const name of CONTRACT_NAMES) {
      const code = wasm(name);
      // upload with prepareTransaction, deploy with simulate + assemble
      const wasmHash = await uploadWasm(s, deployer, code, { flow: 'prepare' });
      const contractId = await deployContract(s, deployer, wasmHash);
      deployments.set(name, Promise.resolve({ contractId, wasmHash }));
      const codeEntry = await s.getLedgerEntries(contractCodeKey(wasmHash));
      assert.equal(codeEntry.entries.length, 1, `${name}: contract code entry`);
      const codeData = codeEntry.entries[0].val.toXdrObject() as any;
      assert.equal(codeData.type, 7);
      assert.deepEqual(Buffer.from(codeData.contractCode.code), code);
      assert.ok(codeEntry.entries[0].liveUntilLedgerSeq! > codeEntry.latestLedger);
      // the SDK's own lookups: instance -> executable -> code
      assert.deepEqual(Buffer.from(await s.getContractWasmByContractId(contractId)), code);
      const inst = await s.getLedgerEntries(instanceKey(contractId));
      assert.equal(inst.entries.length, 1, `${name}: contract instance entry`);
    }
  });

  it('re-uploading the same Wasm returns the same hash; a second deploy of it is a new contract', async () => {
    const { contractId, wasmHash } = await deployed('counter');
    assert.deepEqual(await uploadWasm(s, deployer, wasm('counter')), wasmHash);
    const again = await deployContract(s, deployer, wasmHash, { flow: 'prepare' });
    assert.notEqual(again, contractId);
  });

  it('counter: contract.Client.deploy, increments through AssembledTransaction and prepareTransaction, events, read-only get', async () => {
    const { wasmHash } = await deployed('counter');
    const user = await fundedAccount(node.url);
    const deployTx = await contract.Client.deploy(null, { ...clientOptions(node.url, user), wasmHash: wasmHash.toString('hex') });
    const deployedTx = await deployTx.signAndSend();
    const fees0 = sentFees(deployedTx);
    assert.ok(fees0.feeCharged <= fees0.simulatedFee);
    const client = deployedTx.result as contract.Client & Record<string, any>;
    const contractId: string = client.options.contractId;
    assert.match(contractId, /^C/);

    const first = await (await client.increment({ by: 3 })).signAndSend();
    assert.equal(first.result, 3);
    const fees1 = sentFees(first);
    assert.ok(fees1.feeCharged <= fees1.simulatedFee, `fee charged ${fees1.feeCharged} > simulated ${fees1.simulatedFee}`);

    const second = await invoke(s, user, invokeOp(contractId, 'increment', u32(4)), { flow: 'prepare' });
    assert.equal(second.value, 7);
    // the contract's event: topics ["counter", "incr"], data = the new count
    const events = second.done.events.contractEventsXdr.flat();
    assert.equal(events.length, 1);
    const ev = events[0].toXdrObject() as any;
    assert.deepEqual(ev.body.v0.topics.map((t: any) => String(t.sym)), ['counter', 'incr']);
    assert.equal(ev.body.v0.data.u32, 7);
    assert.equal(Address.contract(ev.contractId).toString(), contractId);

    // a read-only call is answered by simulation alone
    const get = await client.get();
    assert.equal(get.isReadCall, true);
    assert.equal(get.result, 7);

    // getEvents sees both increments
    const found = await s.getEvents({ startLedger: Math.max(1, second.done.ledger - 5), filters: [{ type: 'contract', contractIds: [contractId] }] });
    assert.deepEqual(found.events.map((e) => scValToNative(e.value)), [3, 7]);
  });

  it('caller: a cross-contract call through contract.Client.from', async () => {
    const counter = (await deployed('counter')).contractId;
    const caller = (await deployed('caller')).contractId;
    const user = await fundedAccount(node.url);
    const counterClient = await clientFor(node.url, counter, user);
    const before = (await counterClient.get()).result as number;
    const callerClient = await clientFor(node.url, caller, user);
    const tx = await callerClient.call_increment({ counter, by: 5 });
    assert.equal(tx.result, before + 5); // simulated
    const sent = await tx.signAndSend();
    assert.equal(sent.result, before + 5);
    const fees = sentFees(sent);
    assert.ok(fees.feeCharged <= fees.simulatedFee);
    assert.equal((await callerClient.call_get({ counter })).result, before + 5);
    assert.equal((await counterClient.get()).result, before + 5);
  });

  it('auth: set(owner) authorized by a second account with authorizeEntry; unsigned, it fails', async () => {
    const authId = (await deployed('auth')).contractId;
    const source = await fundedAccount(node.url);
    const owner = await fundedAccount(node.url);

    // recording simulation: one auth entry, for the owner's address
    const raw = (await builder(s, source)).addOperation(invokeOp(authId, 'set', addr(owner.publicKey()), u32(42))).build();
    const sim = await s.simulateTransaction(raw);
    assert.ok(rpc.Api.isSimulationSuccess(sim), `simulation: ${(sim as any).error}`);
    assert.equal(scValToNative(sim.result!.retval), 42);
    assert.equal(sim.result!.auth.length, 1);
    const latest = (await s.getLatestLedger()).sequence;
    const signed = await authorizeEntry(sim.result!.auth[0], owner, latest + 1000, PASSPHRASE);

    // the op with the signed entry: simulated again (enforcing the given auth), assembled, sent unchanged
    const op = Operation.invokeContractFunction({
      contract: authId, function: 'set', args: [addr(owner.publicKey()), u32(42)], auth: [signed],
    }) as unknown as xdr.Operation;
    const r = await invoke(s, source, op);
    assert.equal(r.value, 42);
    const stored = await s.getContractData(authId, addr(owner.publicKey()), rpc.Durability.Persistent);
    assert.equal((stored.val.toXdrObject() as any).contractData.val.u32, 42);

    // without the owner's signature: simulation in enforcing mode refuses, and a transaction sent
    // anyway with the unsigned entry fails when applied; the stored value is unchanged
    const unsignedOp = Operation.invokeContractFunction({
      contract: authId, function: 'set', args: [addr(owner.publicKey()), u32(7)], auth: [sim.result!.auth[0]],
    }) as unknown as xdr.Operation;
    const rawUnsigned = (await builder(s, source)).addOperation(unsignedOp).build();
    const enforced = await s.simulateTransaction(rawUnsigned);
    assert.ok(rpc.Api.isSimulationError(enforced), 'enforcing simulation of an unsigned entry must fail');
    assert.match(enforced.error, /Auth/);
    const sendable = rpc.assembleTransaction(rawUnsigned, sim).build();
    sendable.sign(source);
    const failed = await sendAndPoll(s, sendable);
    assert.equal(failed.sent.status, 'PENDING');
    assert.equal(failed.done!.status, 'FAILED');
    if (failed.done!.status === 'FAILED') {
      assert.equal(opInnerCode(failed.done!.resultXdr).inner, INVOKE_HOST_FUNCTION_TRAPPED);
      assert.ok(failed.done!.resultXdr.feeCharged <= BigInt(sendable.fee));
    }
    const get = await (await clientFor(node.url, authId, source)).get({ owner: owner.publicKey() });
    assert.equal(get.result, 42);
  });

  it('auth: transfer(from, to) signed by both owners with AssembledTransaction.signAuthEntries', async () => {
    const authId = (await deployed('auth')).contractId;
    const source = await fundedAccount(node.url);
    const b = await fundedAccount(node.url);
    const c = await fundedAccount(node.url);
    const client = await clientFor(node.url, authId, source);
    const signerOf = (kp: Keypair) => contract.basicNodeSigner(kp, PASSPHRASE).signAuthEntry;

    const set = await client.set({ owner: b.publicKey(), value: 50 });
    assert.deepEqual(set.needsNonInvokerSigningBy(), [b.publicKey()]);
    await assert.rejects(set.signAndSend(), /requires signatures|NeedsMoreSignatures/);
    await set.signAuthEntries({ address: b.publicKey(), signAuthEntry: signerOf(b) });
    assert.deepEqual(set.needsNonInvokerSigningBy(), []);
    const setSent = await set.signAndSend();
    assert.equal(setSent.result, 50);
    const f1 = sentFees(setSent);
    assert.ok(f1.feeCharged <= f1.simulatedFee);

    const transfer = await client.transfer({ from: b.publicKey(), to: c.publicKey(), amount: 12 });
    assert.deepEqual([...transfer.needsNonInvokerSigningBy()].sort(), [b.publicKey(), c.publicKey()].sort());
    await transfer.signAuthEntries({ address: b.publicKey(), signAuthEntry: signerOf(b) });
    await transfer.signAuthEntries({ address: c.publicKey(), signAuthEntry: signerOf(c) });
    const sent = await transfer.signAndSend();
    const f2 = sentFees(sent);
    assert.ok(f2.feeCharged <= f2.simulatedFee);
    assert.equal((await client.get({ owner: b.publicKey() })).result, 38);
    assert.equal((await client.get({ owner: c.publicKey() })).result, 12);
  });

  it('errors: Error(Contract, #N) from simulation, through contract.Client and the raw response', async () => {
    const errorsId = (await deployed('errors')).contractId;
    const user = await fundedAccount(node.url);
    const client = await clientFor(node.url, errorsId, user);

    const ok = await client.check({ value: 50n });
    assert.ok(ok.result.isOk());
    assert.equal(ok.result.unwrap(), 50n);
    const negative = await client.check({ value: -1n });
    assert.ok(negative.result.isErr(), 'check(-1) is an Err');
    assert.match(String((negative.simulation as any).error), /Error\(Contract, #1\)/);
    const tooBig = await client.check({ value: 101n });
    assert.match(String((tooBig.simulation as any).error), /Error\(Contract, #2\)/);

    // the raw JSON-RPC answer, as the SDK parses it
    for (const [fn, args, code] of [['check', [i64(-1)], 1], ['fail', [], 3]] as const) {
      const raw = (await builder(s, user)).addOperation(invokeOp(errorsId, fn, ...args)).build();
      const sim = await s.simulateTransaction(raw);
      assert.ok(rpc.Api.isSimulationError(sim), `${fn}: simulation must fail`);
      assert.match(sim.error, new RegExp(`Error\\(Contract, #${code}\\)`));
      assert.ok(eventsHaveContractError(sim.events, code), `${fn}: diagnostic events carry the error: ${eventsJson(sim.events)}`);
    }
    // fail() through the Client is an Err too (#3 is in the contract's error enum)
    const fail = await client.fail();
    assert.ok(fail.result.isErr());

    // spin() runs out of budget
    const spin = (await builder(s, user)).addOperation(invokeOp(errorsId, 'spin', u64(1))).build();
    const spun = await s.simulateTransaction(spin);
    assert.ok(rpc.Api.isSimulationError(spun));
    assert.match(spun.error, /Error\(Budget, ExceededLimit\)/);
  });

  it('errors: a transaction sent anyway with a hand-set footprint fails with Error(Contract, #N) in its diagnostics', async () => {
    const { contractId: errorsId, wasmHash } = await deployed('errors');
    const user = await fundedAccount(node.url);
    for (const [fn, args, code] of [['fail', [], 3], ['check', [i64(-1)], 1]] as const) {
      const resourceFee = 1_000_000n;
      const data = new SorobanDataBuilder()
        .setReadOnly([instanceKey(errorsId), contractCodeKey(wasmHash)])
        .setResources(20_000_000, 10_000, 0)
        .setResourceFee(resourceFee)
        .build();
      const tx = (await builder(s, user)).setSorobanData(data).addOperation(invokeOp(errorsId, fn, ...args)).build();
      assert.equal(resourceFeeOf(tx), resourceFee);
      tx.sign(user);
      const r = await sendAndPoll(s, tx);
      assert.equal(r.sent.status, 'PENDING', `${fn}: sendTransaction ${r.sent.status}`);
      const done = r.done!;
      assert.equal(done.status, 'FAILED', `${fn}: ${done.status}`);
      if (done.status !== 'FAILED') continue;
      assert.deepEqual(opInnerCode(done.resultXdr), { tx: -1, op: 0, inner: INVOKE_HOST_FUNCTION_TRAPPED });
      assert.ok(eventsHaveContractError(done.diagnosticEventsXdr, code), `${fn}: diagnostic events carry Error(Contract, #${code}): ${eventsJson(done.diagnosticEventsXdr)}`);
      assert.ok(done.resultXdr.feeCharged > 0n && done.resultXdr.feeCharged <= BigInt(tx.fee));
    }
  });

  it('submission: a short resource fee is refused with core\'s diagnostic; a memo is refused only with another account\'s authorization', async () => {
    const { contractId: counterId } = await deployed('counter');
    const authId = (await deployed('auth')).contractId;
    const source = await fundedAccount(node.url);
    const other = await fundedAccount(node.url);

    // a resource fee below what the network computes for the declared resources: ERROR,
    // txSOROBAN_INVALID, and one diagnostic event with core's text, the declared and the needed fee
    const raw = (await builder(s, source)).addOperation(invokeOp(counterId, 'increment', u32(1))).build();
    const sim = await s.simulateTransaction(raw);
    assert.ok(rpc.Api.isSimulationSuccess(sim), `simulation: ${(sim as any).error}`);
    const shortData = new SorobanDataBuilder(sim.transactionData.build()).setResourceFee(1n).build();
    const short = (await builder(s, source)).setSorobanData(shortData).addOperation(invokeOp(counterId, 'increment', u32(1))).build();
    short.sign(source);
    const refused = await s.sendTransaction(short);
    assert.equal(refused.status, 'ERROR');
    assert.deepEqual(opInnerCode(refused.errorResult!), { tx: -17 /* txSOROBAN_INVALID */ });
    assert.equal(refused.diagnosticEvents?.length, 1, eventsJson(refused.diagnosticEvents));
    const event = (refused.diagnosticEvents![0].toXdrObject() as xdr.DiagnosticEventWire).event;
    assert.equal(event.type, 2 /* diagnostic */);
    assert.ok(event.body.v === 0);
    const [topic, error] = event.body.v0.topics;
    assert.deepEqual([topic.type === 15 && String(topic.sym), error.type === 2 && error.error], ['error', { type: 3, code: 5 } /* Storage, ExceededLimit */]);
    const data = event.body.v0.data;
    assert.ok(data.type === 16 && data.vec, 'data: [message, declared, needed]');
    const [message, declared, needed] = data.vec;
    assert.equal(message.type === 14 && String(message.str), 'transaction `sorobanData.resourceFee` is lower than the actual Soroban resource fee');
    assert.equal(declared.type === 5 && declared.u64, 1n);
    assert.ok(needed.type === 5 && needed.u64 > 1n && needed.u64 <= BigInt(sim.minResourceFee), 'the needed fee is at most what simulation asked for');

    // the same call with a memo: only source-account authorization (here: none), so it is accepted
    const withMemo = async (op: xdr.Operation) => {
      const plain = (await builder(s, source)).addOperation(op).build();
      const simulated = await s.simulateTransaction(plain); // simulation refuses memos, as the reference does
      assert.ok(rpc.Api.isSimulationSuccess(simulated), `simulation: ${(simulated as any).error}`);
      const tx = rpc.assembleTransaction((await builder(s, source)).addOperation(op).addMemo(Memo.text('deposit 42')).build(), simulated).build();
      tx.sign(source);
      return sendAndPoll(s, tx);
    };
    const counted = await withMemo(invokeOp(counterId, 'increment', u32(1)));
    assert.equal(counted.done?.status, 'SUCCESS', `memo with no authorization: ${counted.sent.status}`);
    // the source authorizing for itself (source-account credentials): accepted too
    const own = await withMemo(invokeOp(authId, 'set', addr(source.publicKey()), u32(3)));
    assert.equal(own.done?.status, 'SUCCESS', `memo with the source's own authorization: ${own.sent.status}`);
    // another account's (address) authorization with a memo: refused at submission, as core's queue does
    const foreign = await withMemo(invokeOp(authId, 'set', addr(other.publicKey()), u32(4)));
    assert.equal(foreign.sent.status, 'ERROR');
    assert.deepEqual(opInnerCode(foreign.sent.errorResult!), { tx: -17 });
    assert.ok(eventsJson(foreign.sent.diagnosticEvents).includes('non-source auth Soroban tx uses memo or muxed source account'), eventsJson(foreign.sent.diagnosticEvents));
  });

  it('apply: a resource fee that passes submission but cannot pay the rent fails with core\'s diagnostic', async () => {
    const storageId = (await deployed('storage')).contractId;
    const user = await fundedAccount(node.url);
    const op = () => invokeOp(storageId, 'put_persistent', sym('rent'), u64(5)); // a new persistent entry: rent is due
    const sim = await s.simulateTransaction((await builder(s, user)).addOperation(op()).build());
    assert.ok(rpc.Api.isSimulationSuccess(sim), `simulation: ${(sim as any).error}`);
    const withFee = async (fee: bigint) => {
      const data = new SorobanDataBuilder(sim.transactionData.build()).setResourceFee(fee).build();
      const tx = (await builder(s, user)).setSorobanData(data).addOperation(op()).build();
      tx.sign(user);
      return sendAndPoll(s, tx);
    };
    // the submission check names the fee the declared resources need before rent and events
    const probe = await withFee(1n);
    assert.equal(probe.sent.status, 'ERROR');
    const args = ((probe.sent.diagnosticEvents![0].toXdrObject() as xdr.DiagnosticEventWire).event.body as any).v0.data.vec;
    const preApply: bigint = args[2].u64;
    assert.ok(preApply < BigInt(sim.minResourceFee), 'simulation adds the rent on top');

    const r = await withFee(preApply);
    assert.equal(r.sent.status, 'PENDING');
    assert.equal(r.done?.status, 'FAILED');
    if (r.done?.status !== 'FAILED') return;
    assert.deepEqual(opInnerCode(r.done.resultXdr), { tx: -1, op: 0, inner: -5 /* INSUFFICIENT_REFUNDABLE_FEE */ });
    const events = r.done.diagnosticEventsXdr ?? [];
    assert.ok(eventsJson(events).includes('refundable resource fee was not sufficient to cover the ledger storage rent: {} > {}'), eventsJson(events));
    assert.equal((await s.getLedgerEntries(contractDataKey(storageId, sym('rent'), 'persistent'))).entries.length, 0, 'nothing written');
  });

  it('storage: temporary and persistent values, removal and TTL extension', async () => {
    const storageId = (await deployed('storage')).contractId;
    const user = await fundedAccount(node.url);
    const client = await clientFor(node.url, storageId, user);

    const put = await invoke(s, user, invokeOp(storageId, 'put_persistent', sym('p'), u64(11)));
    assert.equal((await client.get_persistent({ key: 'p' })).result, 11n);
    const entry = await s.getContractData(storageId, sym('p'), rpc.Durability.Persistent);
    assert.ok(entry.liveUntilLedgerSeq! >= put.done.ledger);

    const ext = await invoke(s, user, invokeOp(storageId, 'extend_persistent', sym('p'), u32(500_000), u32(500_000)), { flow: 'prepare' });
    const extended = await s.getContractData(storageId, sym('p'), rpc.Durability.Persistent);
    assert.equal(extended.liveUntilLedgerSeq, ext.done.ledger + 500_000);

    await invoke(s, user, invokeOp(storageId, 'put_temporary', sym('t'), u64(5)));
    assert.equal((await client.get_temporary({ key: 't' })).result, 5n);
    const temp = await s.getContractData(storageId, sym('t'), rpc.Durability.Temporary);
    assert.ok(temp.liveUntilLedgerSeq! > temp.lastModifiedLedgerSeq!);
    // a temporary and a persistent entry under the same key are different entries
    assert.equal((await client.get_persistent({ key: 't' })).result ?? undefined, undefined);

    await invoke(s, user, invokeOp(storageId, 'remove_persistent', sym('p')));
    assert.equal((await client.get_persistent({ key: 'p' })).result ?? undefined, undefined);
    const gone = await s.getLedgerEntries(contractDataKey(storageId, sym('p'), 'persistent'));
    assert.equal(gone.entries.length, 0);
  });

  it('Stellar Asset Contract of the native asset: deploy, transfer, balance; classic balances follow', async () => {
    const a = await fundedAccount(node.url);
    const b = await fundedAccount(node.url);
    const native = Asset.native();
    const deploy = await invoke(s, a, Operation.createStellarAssetContract({ asset: native }) as unknown as xdr.Operation, { flow: 'prepare' });
    const sacId = native.contractId(PASSPHRASE);
    assert.equal(deploy.value, sacId);

    const sac = await clientFor(node.url, sacId, a);
    const aBefore = (await accountEntry(s, a.publicKey())).balance;
    const bBefore = (await accountEntry(s, b.publicKey())).balance;
    assert.equal((await sac.balance({ id: a.publicKey() })).result, aBefore);
    assert.equal((await sac.symbol()).result, 'native');

    const amount = 25n * XLM;
    const sent = await (await sac.transfer({ from: a.publicKey(), to: b.publicKey(), amount })).signAndSend();
    const fees = sentFees(sent);
    assert.ok(fees.feeCharged <= fees.simulatedFee);
    assert.equal((await accountEntry(s, b.publicKey())).balance, bBefore + amount);
    assert.equal((await accountEntry(s, a.publicKey())).balance, aBefore - amount - fees.feeCharged);
    assert.equal((await sac.balance({ id: b.publicKey() })).result, bBefore + amount);

    // to a contract address: a balance entry in the SAC's storage
    const counter = (await deployed('counter')).contractId;
    const toContract = await invoke(s, a, invokeOp(sacId, 'transfer', addr(a.publicKey()), addr(counter), i128(3n * XLM)));
    assert.equal(toContract.returnValue?.toXdrObject().type, 1 /* void */);
    assert.equal((await sac.balance({ id: counter })).result, 3n * XLM);
    const viaRpc = await s.getSACBalance(counter, native, PASSPHRASE);
    assert.equal(BigInt(viaRpc.balanceEntry!.amount), 3n * XLM);
  });

  it('Stellar Asset Contract of an issued asset: deploy, mint, transfer between trustlines', async () => {
    const issuer = await fundedAccount(node.url);
    const h1 = await fundedAccount(node.url);
    const h2 = await fundedAccount(node.url);
    const asset = new Asset('LUMEN', issuer.publicKey());
    for (const h of [h1, h2]) {
      const tx = (await builder(s, h)).addOperation(Operation.changeTrust({ asset, limit: '1000' })).build();
      tx.sign(h);
      assert.equal((await submit(s, tx)).done.status, 'SUCCESS');
    }
    const deploy = await invoke(s, issuer, Operation.createStellarAssetContract({ asset }) as unknown as xdr.Operation);
    const sacId = asset.contractId(PASSPHRASE);
    assert.equal(deploy.value, sacId);

    const asIssuer = await clientFor(node.url, sacId, issuer);
    assert.equal((await asIssuer.admin()).result, issuer.publicKey());
    const mint = await (await asIssuer.mint({ to: h1.publicKey(), amount: 100n * XLM })).signAndSend();
    const mintFees = sentFees(mint);
    assert.ok(mintFees.feeCharged <= mintFees.simulatedFee);
    assert.equal((await s.getTrustline(h1.publicKey(), asset) as any).balance, 100n * XLM);

    const asH1 = await clientFor(node.url, sacId, h1);
    const sent = await (await asH1.transfer({ from: h1.publicKey(), to: h2.publicKey(), amount: 30n * XLM })).signAndSend();
    const fees = sentFees(sent);
    assert.ok(fees.feeCharged <= fees.simulatedFee);
    assert.equal((await s.getTrustline(h1.publicKey(), asset) as any).balance, 70n * XLM);
    assert.equal((await s.getTrustline(h2.publicKey(), asset) as any).balance, 30n * XLM);
    assert.equal((await asH1.balance({ id: h2.publicKey() })).result, 30n * XLM);
    // a holder without a trustline cannot receive: the simulation says so
    const stranger = await fundedAccount(node.url);
    const refused = await asH1.transfer({ from: h1.publicKey(), to: stranger.publicKey(), amount: 1n });
    assert.ok(rpc.Api.isSimulationError(refused.simulation!), 'transfer to an account without a trustline must fail in simulation');
  });

  it('every test contract: the simulated transaction sent unchanged succeeds and costs at most the simulated fee', async () => {
    const user = await fundedAccount(node.url);
    const id = async (n: ContractName) => (await deployed(n)).contractId;
    const calls: Array<[ContractName, xdr.Operation]> = [
      ['counter', invokeOp(await id('counter'), 'increment', u32(1))],
      ['auth', invokeOp(await id('auth'), 'set', addr(user.publicKey()), u32(9))], // source-account auth
      ['caller', invokeOp(await id('caller'), 'call_increment', addr(await id('counter')), u32(2))],
      ['errors', invokeOp(await id('errors'), 'check', i64(100))],
      ['storage', invokeOp(await id('storage'), 'put_persistent', sym('fee'), u64(1))],
      ['storage', invokeOp(await id('storage'), 'put_temporary', sym('fee'), u64(2))],
    ];
    for (const [name, op] of calls) {
      for (const flow of ['simulate', 'prepare'] as const) {
        const r = await invoke(s, user, op, { flow });
        assert.ok(r.feeCharged <= r.simulatedFee, `${name}/${flow}: fee charged ${r.feeCharged} > ${r.simulatedFee}`);
        assert.ok(r.feeCharged >= r.inclusionFee, `${name}/${flow}: fee charged ${r.feeCharged} below the inclusion fee`);
        if (name === 'errors') assert.equal(r.value, 100n);
        if (name === 'auth') assert.equal(r.value, 9);
      }
    }
  });

  it('an oversized Wasm upload (> 131072 bytes) gets the reference answers and the node keeps serving', async () => {
    const user = await fundedAccount(node.url);
    const maxContractSize = 131072;

    // garbage Wasm: the host cannot parse it, simulation fails
    const garbage = Buffer.alloc(maxContractSize + 100, 0x42);
    const g = (await builder(s, user)).addOperation(Operation.uploadContractWasm({ wasm: garbage }) as unknown as xdr.Operation).build();
    const gsim = await s.simulateTransaction(g);
    assert.ok(rpc.Api.isSimulationError(gsim), 'garbage wasm upload must fail in simulation');
    assert.match(gsim.error, /Error\(WasmVm, InvalidAction\)/);

    // valid Wasm over the network's size limit: the reference's simulation runs the host, which has
    // no size limit of its own, so it succeeds; stellar-core refuses the transaction at submission
    // (txFAILED, INVOKE_HOST_FUNCTION_MALFORMED: "uploaded Wasm size exceeds network config maximum
    // contract size")
    const big = paddedWasm(wasm('counter'), maxContractSize + 200);
    const raw = (await builder(s, user)).addOperation(Operation.uploadContractWasm({ wasm: big }) as unknown as xdr.Operation).build();
    const sim = await s.simulateTransaction(raw);
    assert.ok(rpc.Api.isSimulationSuccess(sim), `simulation: ${(sim as any).error}`);
    const tx = rpc.assembleTransaction(raw, sim).build();
    tx.sign(user);
    const r = await sendAndPoll(s, tx);
    assert.equal(r.sent.status, 'ERROR');
    assert.deepEqual(opInnerCode(r.sent.errorResult!), { tx: -1, op: 0, inner: -1 /* MALFORMED */ });
    // sent anyway with a hand-set footprint and resources: refused the same way
    const data = new SorobanDataBuilder().setReadWrite([contractCodeKey(sha256(big))])
      .setResources(50_000_000, 0, maxContractSize + 1000).setResourceFee(50_000_000n).build();
    const manual = (await builder(s, user)).setSorobanData(data).addOperation(Operation.uploadContractWasm({ wasm: big }) as unknown as xdr.Operation).build();
    manual.sign(user);
    const m = await s.sendTransaction(manual);
    assert.equal(m.status, 'ERROR');
    assert.deepEqual(opInnerCode(m.errorResult!), { tx: -1, op: 0, inner: -1 });
    const code = await s.getLedgerEntries(contractCodeKey(sha256(big)));
    assert.equal(code.entries.length, 0, 'the oversized code must not be stored');

    // still serving: health, and a normal upload of a fresh (valid, small) Wasm
    assert.equal((await s.getHealth()).status, 'healthy');
    const small = paddedWasm(wasm('counter'), wasm('counter').length + 64);
    assert.deepEqual(await uploadWasm(s, user, small), sha256(small));
  });
});
