// CAP-84 on a protocol-30 network, over HTTP: lumens sent through the native asset's contract to a
// muxed contract address (`W...`: a contract id and a 64-bit id). The JS SDK 17.2 has no such address,
// so the transaction is built, signed and read with the node's own XDR module (generated from the
// stellar-xdr crate); the node simulates, applies and serves it. The transfer event names the plain
// contract (`C...`) in its topics and carries the muxed id beside the amount, as CAP-84 specifies;
// the envelope's JSON shows the `W...` address.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, StrKey } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { fundedAccount, uploadAndDeploy } from './support/contracts.ts';
import { PASSPHRASE, server } from './support/sdk.ts';
import { xdr } from '../../src/xdr/xdr.ts';
import { networkIdOf, sha256, toBase64 } from '../../src/xdr/codec.ts';
import { encodeMuxedContract } from '../../src/xdr/runtime/strkey.ts';

const MUXED_ID = 4242n;
const ENVELOPE_TYPE_TX = 2;

const addressVal = (address: xdr.ScAddressWire): xdr.ScValWire => ({ type: 18, address }) as xdr.ScValWire;

describe('a payment to a muxed contract address (W...) through the native asset contract', () => {
  let node: NodeProcess;
  before(async () => { node = await startNodeProcess({ args: ['--log-level', 'warn', '--close-mode', 'instant'], protocol: 30 }); });
  after(async () => { await node?.stop(); });

  async function result(method: string, params: unknown): Promise<any> {
    const r = await node.rpc(method, params);
    assert.ok(r.result, `${method}: ${JSON.stringify(r.error)}`);
    return r.result;
  }

  /** The envelope of one operation from `source`, signed when `sign` (the network's hash, our encoding). */
  function envelope(source: Keypair, seq: bigint, fee: number, op: xdr.OperationWire, sorobanData?: xdr.SorobanTransactionDataWire, sign = false): string {
    const tx: xdr.TransactionWire = {
      sourceAccount: { type: 0, ed25519: source.rawPublicKey() }, fee, seqNum: seq, cond: { type: 0 }, memo: { type: 0 },
      operations: [op], ext: sorobanData ? { v: 1, sorobanData } : { v: 0 },
    } as xdr.TransactionWire;
    const payload = Buffer.concat([networkIdOf(PASSPHRASE), Buffer.from([0, 0, 0, ENVELOPE_TYPE_TX]), xdr.Transaction.schema.encode(tx)]);
    const signatures = sign ? [{ hint: source.rawPublicKey().subarray(28), signature: source.sign(Buffer.from(sha256(payload))) }] : [];
    return toBase64(xdr.TransactionEnvelope.schema.encode({ type: ENVELOPE_TYPE_TX, v1: { tx, signatures } } as xdr.TransactionEnvelopeWire));
  }

  it('is simulated, applied and served: the event names the contract and carries the muxed id; the envelope shows W...', async () => {
    assert.equal((await result('getLatestLedger', {})).protocolVersion, 30);
    const sender = await fundedAccount(node.url);
    const counter = (await uploadAndDeploy(server(node.url), sender, 'counter')).contractId;
    const counterId = StrKey.decodeContract(counter);
    const sac = Asset.native().contractId(PASSPHRASE);
    // the faucet funds a contract through the native asset contract, deploying it first
    assert.equal((await fetch(`${node.url}/friendbot?addr=${counter}`)).status, 200);

    const muxed = encodeMuxedContract({ id: MUXED_ID, contractId: counterId });
    assert.match(muxed, /^W[A-Z2-7]{68}$/);
    const hostFunction: xdr.HostFunctionWire = {
      type: 0,
      invokeContract: {
        contractAddress: { type: 1, contractId: StrKey.decodeContract(sac) },
        functionName: new xdr.XdrString('transfer'),
        args: [
          addressVal({ type: 0, accountId: { type: 0, ed25519: sender.rawPublicKey() } }),
          addressVal({ type: 5, muxedContract: { id: MUXED_ID, contractId: counterId } } as xdr.ScAddressWire),
          { type: 10, i128: { hi: 0n, lo: 25_000_000n } } as xdr.ScValWire,
        ],
      },
    } as xdr.HostFunctionWire;
    const op = (auth: xdr.SorobanAuthorizationEntryWire[]): xdr.OperationWire =>
      ({ sourceAccount: null, body: { type: 24, invokeHostFunctionOp: { hostFunction, auth } } }) as xdr.OperationWire;
    const account = await server(node.url).getAccount(sender.publicKey());
    const seq = BigInt(account.sequenceNumber()) + 1n;

    const sim = await result('simulateTransaction', { transaction: envelope(sender, seq, 100, op([])) });
    assert.equal(sim.error, undefined, sim.error);
    const sorobanData = xdr.SorobanTransactionData.schema.decode(Buffer.from(sim.transactionData, 'base64'));
    const auth = sim.results[0].auth.map((a: string) => xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(a, 'base64')));
    const signed = envelope(sender, seq, 100 + Number(sim.minResourceFee), op(auth), sorobanData, true);
    const sent = await result('sendTransaction', { transaction: signed });
    assert.equal(sent.status, 'PENDING', JSON.stringify(sent));
    let done: any;
    for (const deadline = Date.now() + 30_000; ; await new Promise((r) => setTimeout(r, 50))) {
      done = await result('getTransaction', { hash: sent.hash, xdrFormat: 'json' });
      if (done.status !== 'NOT_FOUND') break;
      assert.ok(Date.now() < deadline, 'the transfer was not applied');
    }
    assert.equal(done.status, 'SUCCESS', JSON.stringify(done).slice(0, 2000));
    const args = done.envelopeJson.tx.tx.operations[0].body.invoke_host_function.host_function.invoke_contract.args;
    assert.deepEqual(args[1], { address: muxed }, 'the envelope as JSON shows the W... address');

    const events = await result('getEvents', { startLedger: done.ledger, filters: [{ type: 'contract', contractIds: [sac] }], xdrFormat: 'json' });
    const transfer = events.events.find((e: any) => e.txHash === sent.hash && e.topicJson[0]?.symbol === 'transfer');
    assert.ok(transfer, 'the transfer event');
    assert.deepEqual(transfer.topicJson.slice(0, 3), [{ symbol: 'transfer' }, { address: sender.publicKey() }, { address: counter }],
      'the topics name the plain contract (C...), not the muxed address');
    const value = transfer.valueJson;
    assert.ok(value.map, `the value is a map of amount and to_muxed_id: ${JSON.stringify(value)}`);
    const entries = new Map(value.map.map((e: any) => [e.key.symbol, e.val]));
    assert.deepEqual(entries.get('amount'), { i128: '25000000' });
    assert.deepEqual(entries.get('to_muxed_id'), { u64: String(MUXED_ID) });
  });
});
