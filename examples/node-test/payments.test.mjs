// node:test: one network for the file, every test starting from the same state.
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, TransactionBuilder, rpc } from '@stellar/stellar-sdk';
import { useNetwork } from 'lumen-rpc';

describe('payments', () => {
  // started before the first test; a snapshot before each test and a revert after it
  const net = useNetwork({ beforeAll: before, afterAll: after, beforeEach, afterEach }, { accounts: 2, protocol: 28 });

  const server = () => new rpc.Server(net.rpcUrl, { allowHttp: true });
  const balance = async (account) => BigInt((await server().getAccountEntry(account.publicKey)).balance);
  async function pay(amount) {
    const alice = Keypair.fromSecret(net.accounts[0].secret);
    const tx = new TransactionBuilder(await server().getAccount(alice.publicKey()), { fee: '100', networkPassphrase: net.passphrase })
      .addOperation(Operation.payment({ destination: net.accounts[1].publicKey, asset: Asset.native(), amount }))
      .setTimeout(30).build();
    tx.sign(alice);
    const { hash } = await server().sendTransaction(tx);
    return server().pollTransaction(hash, { attempts: 50, sleepStrategy: () => 50 });
  }

  it('a payment reaches bob', async () => {
    assert.equal((await pay('100')).status, 'SUCCESS');
    assert.equal(await balance(net.accounts[1]), 10_100n * 10_000_000n);
  });

  it('the next test starts again from the genesis balances', async () => {
    assert.equal(await balance(net.accounts[1]), 10_000n * 10_000_000n);
  });
});
