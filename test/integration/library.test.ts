// lumen-rpc as a library: startNetwork() runs a standalone network inside this test process, and
// the official JS SDK uses it as any RPC node; snapshot before and revert after isolate a test's
// changes; two networks run side by side in one process; stop removes the temporary database.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { Asset, Keypair, Operation, TransactionBuilder, rpc } from '@stellar/stellar-sdk';
import { startNetwork, NetworkRequestError, type Network } from '../../src/library/startNetwork.ts';
import { CLIENT_PROTOCOL } from './support/nodeProcess.ts';

/** The native balance of `address`, in stroops, as the SDK reads it. */
async function balance(s: rpc.Server, address: string): Promise<bigint> {
  const entry = await s.getAccountEntry(address);
  return BigInt(entry.balance);
}

/** A payment of `stroops` from test account 0 to 1, sent with the SDK and polled to SUCCESS. */
async function pay(net: Network, s: rpc.Server, stroops: bigint): Promise<void> {
  const from = Keypair.fromSecret(net.accounts[0].secret);
  const tx = new TransactionBuilder(await s.getAccount(from.publicKey()), { fee: '100', networkPassphrase: net.passphrase })
    .addOperation(Operation.payment({ destination: net.accounts[1].publicKey, asset: Asset.native(), amount: (Number(stroops) / 1e7).toFixed(7) }))
    .setTimeout(60).build();
  tx.sign(from);
  const sent = await s.sendTransaction(tx);
  assert.equal(sent.status, 'PENDING');
  const done = await s.pollTransaction(sent.hash, { attempts: 100, sleepStrategy: () => 50 });
  assert.equal(done.status, 'SUCCESS');
}

describe('startNetwork: a standalone network inside the test process', () => {
  let net: Network;
  let s: rpc.Server;
  before(async () => {
    net = await startNetwork({ accounts: 3, protocol: CLIENT_PROTOCOL });
    s = new rpc.Server(net.rpcUrl, { allowHttp: true });
  });
  after(() => net?.stop());

  it('serves the SDK: its test accounts are funded and a payment applies', async () => {
    assert.match(net.rpcUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(net.passphrase, (await s.getNetwork()).passphrase);
    assert.equal(net.accounts.length, 3);
    assert.equal((await s.getLatestLedger()).protocolVersion, CLIENT_PROTOCOL);
    assert.equal(Keypair.fromSecret(net.accounts[2].secret).publicKey(), net.accounts[2].publicKey);
    assert.equal(await balance(s, net.accounts[1].publicKey), 10_000n * 10_000_000n);
    await pay(net, s, 5_000_000n);
    assert.equal(await balance(s, net.accounts[1].publicKey), 10_000n * 10_000_000n + 5_000_000n);
  });

  it('snapshot before, revert after: a test\'s changes are undone', async () => {
    const start = await balance(s, net.accounts[1].publicKey);
    const snap = await net.snapshot();
    await pay(net, s, 70_000_000n);
    assert.equal(await balance(s, net.accounts[1].publicKey), start + 70_000_000n);
    await net.revert(snap);
    assert.equal(await balance(s, net.accounts[1].publicKey), start);
    assert.equal((await s.getLatestLedger()).sequence, snap.ledger);
  });

  it('closes ledgers on demand, and says what a refused call was', async () => {
    const latest = (await s.getLatestLedger()).sequence;
    assert.equal(await net.closeLedgers(5), latest + 5);
    await assert.rejects(net.revert('0xffff'), (e: unknown) => e instanceof NetworkRequestError && e.code < 0 && /0xffff/.test(e.message));
  });

  it('runs beside a second network in the same process; stop removes its database', async () => {
    // the node's own default protocol (30): read with plain JSON-RPC, not the SDK
    const other = await startNetwork({ accounts: 1, closeMode: 'manual' });
    try {
      assert.notEqual(other.rpcUrl, net.rpcUrl);
      const { sequence: before, protocolVersion } = await other.request<{ sequence: number; protocolVersion: number }>('getLatestLedger');
      assert.equal(protocolVersion, 30);
      assert.equal(await other.closeLedgers(), before + 1);
      // the first network serves on, unaffected
      await pay(net, s, 1n);
    } finally {
      await other.stop();
    }
    assert.equal(existsSync(other.databasePath), false);
  });
});

it('stop removes the database; a second stop is harmless', async () => {
  const net = await startNetwork({ accounts: 0 });
  assert.ok(existsSync(net.databasePath));
  await net.stop();
  await net.stop();
  assert.equal(existsSync(net.databasePath), false);
  await assert.rejects(fetch(net.rpcUrl));
});
