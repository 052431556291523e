// The standalone faucet as friendbot's clients see it, against the real server and the official JS
// SDK: contract (C...) addresses funded through the native asset contract (`fundAddress("C...")`,
// then the balance through getAssetBalance / getSACBalance), and friendbot's problem answers for a
// request without an address, with a bad one, and for an address funded already.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Asset, Keypair, StrKey, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, accountEntry, server } from './support/sdk.ts';
import { fundedAccount, instanceKey, uploadAndDeploy } from './support/contracts.ts';

/** The address with its last character changed: the checksum no longer holds. */
const badChecksum = (address: string): string => address.slice(0, -1) + (address.endsWith('A') ? 'B' : 'A');

const STARTING_BALANCE = 10_000n * 10_000_000n;
const randomContract = () => StrKey.encodeContract(randomBytes(32));
const FRIENDBOT_ERRORS = 'https://stellar.org/friendbot-errors/';

describe('faucet: contract addresses and friendbot problems', () => {
  let node: NodeProcess;
  let s: rpc.Server;

  before(async () => {
    node = await startNodeProcess({ args: ['--close-mode', 'instant', '--log-level', 'warn'] });
    s = server(node.url);
  });
  after(async () => { await node?.stop(); });

  it('fundAddress of a contract address: a native SAC transfer, read back with getAssetBalance and getSACBalance', async () => {
    const nativeSac = Asset.native().contractId(PASSPHRASE);
    assert.deepEqual((await s.getLedgerEntries(instanceKey(nativeSac))).entries, [], 'a new network has no native asset contract');
    const contract = randomContract(); // any contract address, deployed or not, as friendbot funds them

    const funded = await s.fundAddress(contract);
    assert.equal(funded.status, rpc.Api.GetTransactionStatus.SUCCESS);
    // the transaction is a transfer(root, contract, 10,000 XLM) of the native SAC, sent by the root account
    const tx = TransactionBuilder.fromXDR(funded.envelopeXdr.toXDR('base64'), PASSPHRASE);
    assert.equal(tx.operations.length, 1);
    const op = tx.operations[0];
    assert.equal(op.type, 'invokeHostFunction');
    const fn = (op as any).func.toXdrObject() as xdr.HostFunctionWire;
    assert.equal(fn.type, 0);
    if (fn.type !== 0) return;
    assert.equal(StrKey.encodeContract(Buffer.from((fn.invokeContract.contractAddress as { contractId: Uint8Array }).contractId)), nativeSac);
    assert.equal(fn.invokeContract.functionName.toString(), 'transfer');
    const [from, to, amount] = fn.invokeContract.args;
    assert.equal(from.type === 18 && from.address.type === 0 && StrKey.encodeEd25519PublicKey(Buffer.from(from.address.accountId.ed25519)), ROOT);
    assert.equal(to.type === 18 && to.address.type === 1 && StrKey.encodeContract(Buffer.from(to.address.contractId)), contract);
    assert.equal(amount.type === 10 && (amount.i128.hi << 64n) + amount.i128.lo, STARTING_BALANCE);
    // the fee is what the network computed: the simulated resource fee plus the base fee, less the refund
    const declared = (tx.toEnvelope().toXdrObject() as any).v1.tx.ext.sorobanData.resourceFee as bigint;
    assert.equal(BigInt(tx.fee), declared + 100n);
    assert.ok(BigInt(funded.resultXdr.toXdrObject().feeCharged) <= BigInt(tx.fee));

    // the deployment of the native SAC came first, in its own transaction of the root account
    assert.equal((await s.getLedgerEntries(instanceKey(nativeSac))).entries.length, 1);

    const viaAsset = await s.getAssetBalance(contract, Asset.native(), PASSPHRASE);
    assert.equal(BigInt(viaAsset.balanceEntry!.amount), STARTING_BALANCE);
    assert.equal(viaAsset.balanceEntry!.authorized, true);
    const viaSac = await s.getSACBalance(contract, Asset.native());
    assert.equal(BigInt(viaSac.balanceEntry!.amount), STARTING_BALANCE);
    assert.ok(viaSac.latestLedger >= funded.ledger);

    // holding the starting balance, it is funded already: friendbot's answer, which fundAddress throws
    await assert.rejects(s.fundAddress(contract), { message: 'account already funded to starting balance' });
    const again = await fetch(`${node.url}/friendbot?addr=${contract}`);
    assert.equal(again.status, 400);
    assert.match(again.headers.get('content-type') ?? '', /^application\/problem\+json/);
    assert.deepEqual(await again.json(), {
      type: `${FRIENDBOT_ERRORS}bad_request`, title: 'Bad Request', status: 400, detail: 'account already funded to starting balance',
    });
  });

  it('funds a deployed contract, and contract and account requests sent together all succeed', async () => {
    const { contractId: counter } = await uploadAndDeploy(s, await fundedAccount(node.url), 'counter');
    const contracts = [counter, randomContract(), randomContract()];
    const accounts = [Keypair.random(), Keypair.random(), Keypair.random()];
    const answers = await Promise.all([
      ...contracts.map((c) => s.fundAddress(c)),
      ...accounts.map((k) => s.fundAddress(k.publicKey())),
    ]);
    for (const a of answers) assert.equal(a.status, rpc.Api.GetTransactionStatus.SUCCESS);
    for (const c of contracts) assert.equal(BigInt((await s.getSACBalance(c, Asset.native(), PASSPHRASE)).balanceEntry!.amount), STARTING_BALANCE);
    for (const k of accounts) assert.equal((await accountEntry(s, k.publicKey())).balance, STARTING_BALANCE);
  });

  it('the same contract asked for twice at once: one transfer; the later request sees its balance', async () => {
    const contract = randomContract();
    const answers = await Promise.all([1, 2].map(() => fetch(`${node.url}/friendbot?addr=${contract}`)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 400]);
    assert.equal(BigInt((await s.getSACBalance(contract, Asset.native(), PASSPHRASE)).balanceEntry!.amount), STARTING_BALANCE);
  });

  it('a POST with addr as a form field funds that address (Go\'s Request.Form, which friendbot reads)', async () => {
    const contract = randomContract();
    const res = await fetch(`${node.url}/friendbot`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `addr=${contract}`,
    });
    assert.equal(res.status, 200, await res.clone().text());
    assert.match(res.headers.get('content-type') ?? '', /^application\/hal\+json/);
    const body = (await res.json()) as { hash: string; successful: boolean; ledger: number };
    assert.equal(body.successful, true);
    assert.equal((await s.getTransaction(body.hash)).status, rpc.Api.GetTransactionStatus.SUCCESS);
    assert.equal(BigInt((await s.getSACBalance(contract, Asset.native(), PASSPHRASE)).balanceEntry!.amount), STARTING_BALANCE);
  });

  it('no addr, or a bad one: HTTP 400 with friendbot\'s invalid_field problem (what CI health checks grep for)', async () => {
    const expected = {
      type: `${FRIENDBOT_ERRORS}bad_request`, title: 'Bad Request', status: 400,
      detail: 'The request you sent was invalid in some way.',
      extras: { invalid_field: 'addr', reason: 'invalid address: must be a valid G or C address' },
    };
    const bad = [
      fetch(`${node.url}/friendbot`),
      fetch(`${node.url}/friendbot/`, { method: 'POST' }),
      fetch(`${node.url}/friendbot?addr=`),
      fetch(`${node.url}/friendbot?addr=CINVALIDCONTRACTADDRESS12345`),
      fetch(`${node.url}/friendbot?addr=${badChecksum(Keypair.random().publicKey())}`),
      fetch(`${node.url}/friendbot?addr=${Keypair.random().secret()}`),
      fetch(`${node.url}/friendbot?addr=${StrKey.encodeMed25519PublicKey(randomBytes(40))}`), // a muxed account
    ];
    for (const res of await Promise.all(bad)) {
      assert.equal(res.status, 400);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      const text = await res.text();
      assert.match(text, /"invalid_field":\s*"addr"/);
      assert.deepEqual(JSON.parse(text), expected);
    }
  });
});

const ROOT = 'GBZXN7PIRZGNMHGA7MUUUF4GWPY5AYPV6LY4UV2GL6VJGIQRXFDNMADI';
