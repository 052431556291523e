// getLedgerEntries' `ledger` parameter over HTTP, against a node process: a series of payments,
// account creation and merge, a trustline, and contract writes (persistent and temporary data,
// created, updated, deleted, re-created, expired, archived and restored), with the current answer
// for every key the series touches recorded as each ledger closes. Then every ledger of the series
// is asked for again with `ledger` and must answer exactly what was recorded.
//
// The network has short minimum TTLs (8 ledgers temporary, 16 persistent) so expiry and archival
// happen within the series, and closes a ledger only for a transaction (instant mode, an hour's
// interval), so each step is one ledger and every ledger gets recorded.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Address, Asset, Keypair, Operation, StrKey, xdr, type rpc } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, builder, submit } from './support/sdk.ts';
import {
  contractCodeKey, contractDataKey, instanceKey, invoke, invokeOp, server, sha256, startContractNode, sym, u64, uploadWasm, wasm,
} from './support/contracts.ts';
import { accountKey, trustLineKey } from './support/classic.ts';

const ARGS = ['--min-temporary-ttl', '8', '--min-persistent-ttl', '16', '--ledger-close-interval', '3600s'];
const ROOT = Keypair.fromRawEd25519Seed(sha256(Buffer.from(PASSPHRASE)));

const wireKey = (k: xdr.LedgerKeyWire): string => Buffer.from(xdr.LedgerKey.schema.encode(k)).toString('base64');

/** The contract id CreateContract gives `deployer`'s address with `salt` on this network. */
function contractIdFor(deployer: Keypair, salt: Uint8Array): string {
  const preimage = xdr.HashIdPreimage.schema.encode({
    type: 8,
    contractId: {
      networkId: sha256(Buffer.from(PASSPHRASE)),
      contractIdPreimage: { type: 0, fromAddress: { address: { type: 0, accountId: { type: 0, ed25519: deployer.rawPublicKey() } }, salt } },
    },
  });
  return StrKey.encodeContract(sha256(preimage));
}

interface Answer { entries: Array<{ key: string; liveUntilLedgerSeq?: number; lastModifiedLedgerSeq: number }>; latestLedger: number }

describe('getLedgerEntries at a past ledger (HTTP)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  /** The answer for every key, recorded as each ledger of the series closed. */
  const recorded = new Map<number, Answer>();
  let keys: string[];
  const named = new Map<string, string>();

  const entriesNow = async (params: Record<string, unknown> = {}): Promise<Answer> => {
    const res = await node.rpc('getLedgerEntries', { keys, ...params });
    assert.ok(res.result, `getLedgerEntries: ${JSON.stringify(res.error)}`);
    return res.result;
  };
  const record = async () => {
    const answer = await entriesNow();
    assert.ok(!recorded.has(answer.latestLedger) || recorded.get(answer.latestLedger)!.entries.length === answer.entries.length);
    recorded.set(answer.latestLedger, answer);
  };
  /** A step of the series: one transaction, hence one ledger, then the record of that ledger. */
  const step = async (what: string, fn: () => Promise<unknown>) => {
    const before = (await s.getLatestLedger()).sequence;
    try {
      await fn();
    } catch (e) {
      throw new Error(`${what}: ${(e as Error).message}`);
    }
    await record();
    assert.equal(Math.max(...recorded.keys()), before + 1, `${what} closed exactly one ledger`);
  };

  before(async () => {
    node = await startContractNode(ARGS);
    s = server(node.url);
  });
  after(async () => { await node?.stop(); });

  it('answers every ledger of the series as it was recorded when that ledger closed', { timeout: 240_000 }, async () => {
    const alice = Keypair.random(), bob = Keypair.random(), carol = Keypair.random();
    const hist = new Asset('HIST', alice.publicKey());
    const salt = randomBytes(32);
    const contractId = contractIdFor(alice, salt);
    const code = wasm('storage');
    const data = (name: string, durability: 'temporary' | 'persistent') => contractDataKey(contractId, sym(name), durability).toXdr('base64');
    const keyList: Array<[string, string]> = [
      ['root', wireKey(accountKey(ROOT.publicKey()))], ['alice', wireKey(accountKey(alice.publicKey()))],
      ['bob', wireKey(accountKey(bob.publicKey()))], ['carol', wireKey(accountKey(carol.publicKey()))],
      ['bob HIST', wireKey(trustLineKey(bob.publicKey(), hist))],
      ['code', contractCodeKey(sha256(code)).toXdr('base64')], ['instance', instanceKey(contractId).toXdr('base64')],
      ['p', data('p', 'persistent')], ['q', data('q', 'persistent')], ['t', data('t', 'temporary')],
    ];
    keys = keyList.map(([, k]) => k);
    for (const [name, k] of keyList) named.set(k, name);

    const signed = async (from: Keypair, op: xdr.Operation) => {
      const tx = (await builder(s, from)).addOperation(op).build();
      tx.sign(from);
      const { done } = await submit(s, tx);
      assert.equal(done.status, 'SUCCESS');
    };
    const pay = (from: Keypair, to: string, amount: string, asset = Asset.native()) => () =>
      signed(from, Operation.payment({ destination: to, asset, amount }) as never);
    const fund = (kp: Keypair) => async () => {
      const res = await fetch(`${node.url}/friendbot?addr=${kp.publicKey()}`);
      assert.equal(res.status, 200, `friendbot: ${await res.text()}`);
    };
    const call = (fn: string, name: string, ...args: xdr.ScVal[]) => () => invoke(s, alice, invokeOp(contractId, fn, sym(name), ...args));

    await record(); // the genesis ledger, before the series
    await step('fund alice', fund(alice));
    await step('fund bob', fund(bob));
    await step('alice pays bob', pay(alice, bob.publicKey(), '10'));
    await step('alice creates carol', () => signed(alice, Operation.createAccount({ destination: carol.publicKey(), startingBalance: '100' }) as never));
    await step('carol pays bob', pay(carol, bob.publicKey(), '5'));
    await step('carol merges into bob', () => signed(carol, Operation.accountMerge({ destination: bob.publicKey() }) as never));
    await step('bob trusts HIST', () => signed(bob, Operation.changeTrust({ asset: hist }) as never));
    await step('alice pays bob HIST', pay(alice, bob.publicKey(), '50', hist));
    await step('upload the storage contract', () => uploadWasm(s, alice, code));
    await step('deploy it', async () => {
      const op = Operation.createCustomContract({ address: Address.fromString(alice.publicKey()), wasmHash: sha256(code), salt });
      const r = await invoke(s, alice, op as unknown as xdr.Operation);
      assert.equal(r.value, contractId);
    });
    await step('put temporary t = 1', call('put_temporary', 't', u64(1)));
    await step('put persistent p = 1', call('put_persistent', 'p', u64(1)));
    await step('put persistent p = 2', call('put_persistent', 'p', u64(2)));
    await step('put persistent q = 5', call('put_persistent', 'q', u64(5)));
    await step('remove q', call('remove_persistent', 'q'));
    await step('put persistent q = 6 again', call('put_persistent', 'q', u64(6)));

    // payments until t has expired and p, q, the instance and the code are archived
    const liveUntil = (answer: Answer, name: string) => answer.entries.find((e) => named.get(e.key) === name)?.liveUntilLedgerSeq;
    for (let i = 0; i < 40; i++) {
      const now = recorded.get(Math.max(...recorded.keys()))!;
      if (['p', 'q', 'instance', 'code'].every((n) => liveUntil(now, n) === 0) && liveUntil(now, 't') === undefined) break;
      await step(`payment ${i} while entries expire`, pay(bob, alice.publicKey(), '1'));
    }
    await step('put temporary t = 2 after it expired', call('put_temporary', 't', u64(2)));
    await step('put p = 3: restores p, the instance and the code', call('put_persistent', 'p', u64(3)));
    await step('bob pays alice HIST back', pay(bob, alice.publicKey(), '50', hist));
    await step('bob removes the trustline', () => signed(bob, Operation.changeTrust({ asset: hist, limit: '0' }) as never));

    // the series holds what it is meant to: each kind of change, seen in the recorded answers
    const seq = [...recorded.keys()].sort((a, b) => a - b);
    assert.deepEqual(seq, Array.from({ length: seq.length }, (_, i) => seq[0] + i), 'every ledger of the series is recorded');
    const states = (name: string) => seq.map((l) => {
      const e = recorded.get(l)!.entries.find((x) => named.get(x.key) === name);
      return !e ? 'absent' : e.liveUntilLedgerSeq === 0 ? 'archived' : 'live';
    }).filter((st, i, all) => i === 0 || all[i - 1] !== st);
    assert.deepEqual(states('carol'), ['absent', 'live', 'absent'], 'carol created, then merged');
    assert.deepEqual(states('bob HIST'), ['absent', 'live', 'absent'], 'a trustline created, then removed');
    assert.deepEqual(states('q'), ['absent', 'live', 'absent', 'live', 'archived'], 'q created, removed, re-created, archived');
    assert.deepEqual(states('t'), ['absent', 'live', 'absent', 'live'], 't created, expired, re-created');
    for (const n of ['p', 'instance', 'code']) assert.deepEqual(states(n), ['absent', 'live', 'archived', 'live'], `${n} created, archived, restored`);

    // every ledger, asked again with `ledger`, answers what was recorded then
    const latest = seq[seq.length - 1];
    for (const l of seq) {
      const past = await entriesNow({ ledger: l });
      assert.equal(past.latestLedger, latest);
      assert.deepEqual(past.entries, recorded.get(l)!.entries, `ledger ${l}`);
    }
    // and in JSON, the same entries
    for (const l of [seq[0] + 6, latest - 3]) {
      const json = await entriesNow({ ledger: l, xdrFormat: 'json' });
      assert.deepEqual(json.entries.map((e) => [e.lastModifiedLedgerSeq, e.liveUntilLedgerSeq]),
        recorded.get(l)!.entries.map((e) => [e.lastModifiedLedgerSeq, e.liveUntilLedgerSeq]));
    }
  });

  it('refuses a ledger outside the history with -32602 naming the range, and a ledger that is not an integer', async () => {
    const latest = (await s.getLatestLedger()).sequence;
    const above = await node.rpc('getLedgerEntries', { keys: keys.slice(0, 1), ledger: latest + 5 });
    assert.equal(above.error?.code, -32602);
    assert.equal(above.error?.message,
      `ledger (${latest + 5}) must be between the oldest ledger with entry history: 1 and the latest ledger: ${latest} for this rpc instance`);
    const text = await node.rpc('getLedgerEntries', { keys: keys.slice(0, 1), ledger: '5' });
    assert.equal(text.error?.code, -32602);
    assert.equal(text.error?.data, 'params.ledger must be integer');
  });
});
