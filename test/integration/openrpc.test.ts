// rpc.discover and the wire format: a node process answers every method it serves with content (a
// realistic flow: funded accounts, payments, a failed and a refused transaction, a contract deployed,
// simulated and invoked, base64 and json XDR), and every live answer is validated with ajv against
// the result schema of its method in the node's own rpc.discover document. Those schemas list every
// member (additionalProperties false) with its JSON type, so a renamed member or a number sent as a
// string fails here. The document lists what this standalone node serves, the developer methods too;
// getVersionInfo's `methods` names the same. When REFERENCE_OPENRPC names the reference's published
// document, ours is also compared with it (scripts/compareOpenRpc.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import {
  Asset, Keypair, Operation, SorobanDataBuilder, TransactionBuilder, rpc, xdr, type Transaction,
} from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, builder, funded, server } from './support/sdk.ts';
import { contractCodeKey, instanceKey, invokeOp, startContractNode, u32, uploadAndDeploy } from './support/contracts.ts';
import { BASE64_FORM_TITLE, JSON_FORM_TITLE, type OpenRpcDocument } from '../../src/rpc/openrpc/document.ts';
import { compareDocuments, formatComparison } from '../../src/rpc/openrpc/compare.ts';
import { KNOWN_DIFFERENCES } from '../../src/rpc/openrpc/knownDifferences.ts';

/** The reference's twelve methods (reference-node.md §1, stellar-rpc v28 `jsonrpc.go`). */
const REFERENCE_METHODS = [
  'getHealth', 'getEvents', 'getNetwork', 'getVersionInfo', 'getLatestLedger', 'getLedgers', 'getLedgerEntries',
  'getTransaction', 'getTransactions', 'sendTransaction', 'simulateTransaction', 'getFeeStats',
];
/** The reference's published document, when REFERENCE_OPENRPC names one (the repository holds none). */
const REFERENCE_DOCUMENT = process.env.REFERENCE_OPENRPC ? new URL(`file://${resolve(process.env.REFERENCE_OPENRPC)}`) : undefined;

/** A copy of a reference result schema whose members with a known type difference accept any type. */
function withoutKnownTypeDifferences(method: string, schema: Record<string, any>): Record<string, any> {
  const copy = structuredClone(schema);
  for (const k of KNOWN_DIFFERENCES.filter((d) => d.method === method && d.where === 'result' && d.kind === 'type')) {
    let node = copy;
    for (const part of k.path.split('.')) {
      const name = part.replace(/\[\]$/, '');
      node = node?.properties?.[name];
      if (part.endsWith('[]')) node = node?.items;
    }
    if (node) delete node.type;
  }
  return copy;
}

interface Answer { method: string; label: string; format: 'base64' | 'json'; result: any }

const accountKey = (kp: Keypair): xdr.LedgerKey => xdr.LedgerKey.fromXdrObject({
  type: 0, account: { accountId: { type: 0, ed25519: kp.rawPublicKey() } },
} as xdr.LedgerKeyWire);

describe('rpc.discover, and every live answer against its result schema', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let doc: OpenRpcDocument;
  const answers: Answer[] = [];

  /** A JSON-RPC call that must answer a result; recorded for validation. */
  const call = async (method: string, params: Record<string, unknown>, label = ''): Promise<any> => {
    const r = await node.rpc(method, params);
    assert.ok(r.result !== undefined, `${method} ${label}: ${JSON.stringify(r.error)}`);
    answers.push({ method, label, format: params.xdrFormat === 'json' ? 'json' : 'base64', result: r.result });
    return r.result;
  };
  /** Both XDR formats; returns the base64 answer. */
  const callBoth = async (method: string, params: Record<string, unknown>, label = ''): Promise<any> => {
    const base64 = await call(method, params, label);
    await call(method, { ...params, xdrFormat: 'json' }, label);
    return base64;
  };
  const signed = async (source: Keypair, op: xdr.Operation): Promise<Transaction> => {
    const tx = (await builder(s, source)).addOperation(op).build();
    tx.sign(source);
    return tx;
  };
  /** Sends raw (recorded), then polls until applied; answers the hash. */
  const sendAndWait = async (tx: Transaction, label: string): Promise<string> => {
    const sent = await call('sendTransaction', { transaction: tx.toXdr() }, label);
    assert.equal(sent.status, 'PENDING', JSON.stringify(sent));
    const done = await s.pollTransaction(sent.hash, { attempts: 200, sleepStrategy: () => 50 });
    assert.notEqual(done.status, 'NOT_FOUND');
    return sent.hash;
  };

  before(async () => {
    node = await startContractNode();
    s = server(node.url);
    doc = (await node.rpc('rpc.discover')).result;
    const first = (await s.getLatestLedger()).sequence;

    const alice = await funded(s);
    const bob = await funded(s);
    const payment = (to: string, amount = '10') =>
      Operation.payment({ destination: to, asset: Asset.native(), amount }) as unknown as xdr.Operation;

    // a payment: PENDING, then SUCCESS; sent again once applied: TRY_AGAIN_LATER
    const paid = await signed(alice, payment(bob.publicKey()));
    const paidHash = await sendAndWait(paid, 'PENDING');
    await callBoth('getTransaction', { hash: paidHash }, 'SUCCESS payment');
    await call('sendTransaction', { transaction: paid.toXdr() }, 'resent');
    // a sequence number one ahead of the next: ERROR (txBAD_SEQ) with the TransactionResult
    const ahead = await s.getAccount(alice.publicKey());
    ahead.incrementSequenceNumber();
    const early = new TransactionBuilder(ahead, { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(payment(bob.publicKey())).setTimeout(60).build();
    early.sign(alice);
    await callBoth('sendTransaction', { transaction: early.toXdr() }, 'ERROR');
    // applied but failed: a payment to an account that does not exist
    const failedHash = await sendAndWait(await signed(alice, payment(Keypair.random().publicKey())), 'PENDING (will fail)');
    await callBoth('getTransaction', { hash: failedHash }, 'FAILED');
    await call('getTransaction', { hash: randomBytes(32).toString('hex') }, 'NOT_FOUND');

    // a contract: deployed (through the SDK), simulated and invoked (raw calls, recorded)
    const { contractId, wasmHash } = await uploadAndDeploy(s, alice, 'counter');
    const invokeTx = (await builder(s, alice)).addOperation(invokeOp(contractId, 'increment', u32(3))).build();
    await callBoth('simulateTransaction', { transaction: invokeTx.toXdr() }, 'invoke');
    const simulated = await s.simulateTransaction(invokeTx);
    assert.ok(rpc.Api.isSimulationSuccess(simulated));
    const assembled = rpc.assembleTransaction(invokeTx, simulated).build();
    assembled.sign(alice);
    const invokedHash = await sendAndWait(assembled, 'PENDING invoke');
    await callBoth('getTransaction', { hash: invokedHash }, 'SUCCESS invoke');
    const missingFn = (await builder(s, alice)).addOperation(invokeOp(contractId, 'no_such_function')).build();
    await callBoth('simulateTransaction', { transaction: missingFn.toXdr() }, 'host error');
    await call('simulateTransaction', { transaction: 'AAAA' }, 'bad envelope');
    const extend = (await builder(s, alice))
      .setSorobanData(new SorobanDataBuilder().setReadOnly([instanceKey(contractId)]).build())
      .addOperation(Operation.extendFootprintTtl({ extendTo: 10_000 }) as unknown as xdr.Operation).build();
    await callBoth('simulateTransaction', { transaction: extend.toXdr() }, 'extend footprint');

    // reads over everything above
    const latest = (await s.getLatestLedger()).sequence;
    await callBoth('getEvents', { startLedger: first, pagination: { limit: 100 } }, 'all');
    await callBoth('getEvents', { startLedger: first, filters: [{ type: 'contract', contractIds: [contractId] }] }, 'the contract');
    await callBoth('queryEvents', { minLedger: first, limit: 1000 }, 'all, waiting at the tip');
    await callBoth('queryEvents', { order: 'desc', minLedger: first, maxLedger: latest, filters: [{ contractId }] }, 'the contract, newest first, complete');
    await callBoth('getLedgers', { startLedger: latest - 2, pagination: { limit: 3 } });
    await callBoth('getTransactions', { startLedger: first, pagination: { limit: 20 } });
    const keys = [accountKey(alice), accountKey(bob), instanceKey(contractId), contractCodeKey(wasmHash), accountKey(Keypair.random())];
    await callBoth('getLedgerEntries', { keys: keys.map((k) => k.toXdr('base64')) });
    for (const method of ['getHealth', 'getNetwork', 'getVersionInfo', 'getLatestLedger', 'getFeeStats', 'rpc.discover']) {
      await call(method, {});
    }

    // developer methods, documented where they are served (this standalone network): a sample of
    // them, last, undone by the revert
    const saved = await call('lumen_snapshot', {});
    await call('lumen_closeLedgers', { count: 2 });
    await call('lumen_advanceTime', { seconds: 60 });
    await call('lumen_impersonateAccount', { account: alice.publicKey() });
    await call('lumen_impersonatedAccounts', {});
    await call('lumen_stopImpersonatingAccount', { account: alice.publicKey() });
    await call('lumen_setBalance', { account: bob.publicKey(), balance: '123456789' });
    await call('lumen_revert', { id: saved.id });
  });
  after(async () => { await node?.stop(); });

  const validators = new Map<string, ValidateFunction>();
  /** The validator of a method's result in one form (methods without XDR have one form for both). */
  const validatorOf = (method: string, format: Answer['format'] = 'base64'): ValidateFunction => {
    let v = validators.get(`${method} ${format}`);
    if (!v) {
      const m = doc.methods.find((x) => x.name === method);
      assert.ok(m, `${method} is not in rpc.discover's document`);
      const forms = m.result.schema.anyOf as Array<Record<string, unknown>> | undefined;
      const title = format === 'json' ? JSON_FORM_TITLE : BASE64_FORM_TITLE;
      const schema = forms ? forms.find((f) => f.title === title) : m.result.schema;
      assert.ok(schema, `${method} documents its ${format} form`);
      v = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true }).compile(schema);
      validators.set(`${method} ${format}`, v);
    }
    return v;
  };

  it('rpc.discover answers an OpenRPC 1.3.2 document of every method served, itself included', async () => {
    assert.equal(doc.openrpc, '1.3.2');
    assert.equal(typeof doc.info.version, 'string');
    const names = doc.methods.map((m) => m.name);
    assert.ok(names.includes('rpc.discover'));
    for (const name of REFERENCE_METHODS) assert.ok(names.includes(name), `${name} is documented`);
    assert.ok(names.includes('lumen_closeLedgers'), 'the developer methods, served by this standalone network');
    assert.deepEqual((await node.rpc('getVersionInfo')).result.methods, names, 'getVersionInfo names the same methods');
    for (const m of doc.methods) {
      assert.equal(m.paramStructure, 'by-name', m.name);
      assert.ok(m.result.name && m.result.schema, `${m.name} has a result schema`);
    }
  });

  it('every live answer matches its method\'s result schema', (t) => {
    const failures: string[] = [];
    for (const a of answers) {
      const validate = validatorOf(a.method, a.format);
      if (!validate(a.result)) {
        const why = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`
          + ('additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''));
        failures.push(`${a.method} ${a.label} (${a.format}): ${why.join('; ')}\n  ${JSON.stringify(a.result).slice(0, 400)}`);
      }
    }
    t.diagnostic(`${answers.length} answers of ${new Set(answers.map((x) => x.method)).size} methods validated`);
    assert.deepEqual(failures, [], failures.join('\n'));
  });

  it('the answers cover every documented method and every method of the reference, with content', () => {
    const answered = new Set(answers.map((a) => a.method));
    // the developer methods: the sample above (each has its own integration test)
    const unanswered = doc.methods.map((m) => m.name).filter((n) => !answered.has(n));
    assert.deepEqual(unanswered.filter((n) => !n.startsWith('lumen_')), [], 'documented methods without a validated answer');
    assert.ok(answered.has('lumen_revert'), 'a sample of the developer methods');
    assert.deepEqual(REFERENCE_METHODS.filter((n) => !answered.has(n)), []);
    const results = (method: string) => answers.filter((a) => a.method === method).map((a) => a.result);
    const statuses = (method: string) => new Set(results(method).map((r) => r.status));
    assert.deepEqual([...statuses('getTransaction')].sort(), ['FAILED', 'NOT_FOUND', 'SUCCESS']);
    assert.deepEqual([...statuses('sendTransaction')].sort(), ['ERROR', 'PENDING', 'TRY_AGAIN_LATER']);
    assert.ok(results('sendTransaction').some((r) => r.errorResultXdr) && results('sendTransaction').some((r) => r.errorResultJson));
    assert.ok(results('getTransaction').some((r) => r.events?.contractEventsXdr?.some((op: unknown[]) => op.length > 0)), 'contract events');
    assert.ok(results('getTransaction').some((r) => r.events?.transactionEventsJson?.length > 0), 'transaction events as JSON');
    const sims = results('simulateTransaction');
    assert.ok(sims.some((r) => r.results && r.stateChanges && r.cost && r.transactionData), 'a successful invocation');
    assert.ok(sims.some((r) => r.results?.[0]?.returnValueJson !== undefined && r.stateChanges?.[0]?.keyJson), 'and as JSON');
    assert.ok(sims.some((r) => typeof r.error === 'string' && r.events?.length > 0), 'a host error with its events');
    assert.ok(sims.some((r) => r.transactionData && !r.results && r.minResourceFee), 'a footprint simulation');
    assert.ok(results('getEvents').every((r) => r.events.length > 0));
    assert.ok(results('getEvents').some((r) => r.events.some((e: any) => e.type === 'contract' && e.topic.length === 2)));
    assert.ok(results('getEvents').some((r) => r.events.some((e: any) => e.topicJson && e.valueJson !== undefined)));
    assert.ok(results('queryEvents').every((r) => r.events.length > 0));
    assert.deepEqual(new Set(results('queryEvents').map((r) => r.scanStatus)), new Set(['WAITING_FOR_LEDGERS', 'COMPLETE']));
    assert.ok(results('getLedgers').every((r) => r.ledgers.length === 3));
    assert.ok(results('getTransactions').every((r) => r.transactions.length >= 5));
    for (const r of results('getLedgerEntries')) {
      assert.equal(r.entries.length, 4, 'four of the five keys exist');
      assert.ok(r.entries.some((e: any) => e.liveUntilLedgerSeq > 0), 'contract entries carry their TTL');
    }
    assert.ok(results('getFeeStats')[0].inclusionFee.transactionCount !== '0');
  });

  it('a member renamed or sent with another JSON type fails validation', () => {
    const tx = answers.find((a) => a.method === 'getTransaction' && a.result.status === 'SUCCESS')!.result;
    // as a plain predicate: ajv's type guard would narrow `tx`
    const validate = (v: unknown): boolean => validatorOf('getTransaction')(v);
    assert.ok(validate(tx));
    assert.ok(!validate({ ...tx, latestLedgerCloseTime: Number(tx.latestLedgerCloseTime) }), 'number for string');
    const { txHash, ...renamed } = tx;
    assert.ok(!validate({ ...renamed, transactionHash: txHash }), 'renamed member');
    const events = answers.find((a) => a.method === 'getEvents')!.result;
    assert.ok(!validatorOf('getEvents')({ ...events, events: [{ ...events.events[0], ledger: String(events.events[0].ledger) }] }), 'string for number');
  });

  it('agrees with the reference\'s published OpenRPC document (when present)', (t) => {
    if (REFERENCE_DOCUMENT === undefined || !existsSync(REFERENCE_DOCUMENT)) {
      t.diagnostic(`skipped only the comparison with the reference's document: ${REFERENCE_DOCUMENT?.pathname ?? 'REFERENCE_OPENRPC is not set'}`);
      return;
    }
    const reference = JSON.parse(readFileSync(REFERENCE_DOCUMENT, 'utf8')) as OpenRpcDocument;
    const comparison = compareDocuments(reference, doc);
    const report = formatComparison(comparison, [...new Set([...reference.methods, ...doc.methods].map((m) => m.name))]);
    t.diagnostic(report);
    assert.deepEqual(comparison.failures, [], report);

    // The live base64 answers against the reference's own result schemas too (they list members and
    // types but allow others), less the members where its document is known to lag its node.
    const failures: string[] = [];
    for (const a of answers.filter((x) => x.format === 'base64')) {
      const method = reference.methods.find((m) => m.name === a.method);
      if (!method) continue;
      const schema = withoutKnownTypeDifferences(a.method, method.result.schema);
      const validate = new Ajv({ strict: false, allowUnionTypes: true, allErrors: true }).compile(schema);
      if (!validate(a.result)) failures.push(`${a.method} ${a.label}: ${new Ajv().errorsText(validate.errors)}`);
    }
    assert.deepEqual(failures, []);
  });
});
