// SIGKILL while ledgers close under load, then restart on the same database: every ledger a client
// saw is still there, sequences are contiguous, and all lumens are accounted for.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, TransactionBuilder, xdr, hash } from '@stellar/stellar-sdk';
import { startNodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, accountEntry, server } from './support/sdk.ts';
import { testAccounts } from '../../src/standalone/testAccounts.ts';

const TOTAL_COINS = 1_000_000_000_000_000_000n;

describe('crash recovery', () => {
  it('loses no acknowledged ledger or transaction after kill -9, and balances add up', async () => {
    const args = ['--ledger-close-interval', '100ms', '--log-level', 'warn'];
    let node = await startNodeProcess({ args });
    const dbPath = node.dbPath;
    let s = server(node.url);
    const root = Keypair.fromRawEd25519Seed(hash(Buffer.from(PASSPHRASE)));
    const accounts = await Promise.all(Array.from({ length: 8 }, async () => {
      const kp = Keypair.random();
      await s.fundAddress(kp.publicKey());
      return kp;
    }));
    const seenLedgers = new Set<number>();
    const confirmed: string[] = [];
    let stop = false;
    // each account pays the next one in a loop until the kill
    const workers = accounts.map(async (kp, i) => {
      const dest = accounts[(i + 1) % accounts.length].publicKey();
      while (!stop) {
        try {
          const acc = await s.getAccount(kp.publicKey());
          const tx = new TransactionBuilder(acc, { fee: '100', networkPassphrase: PASSPHRASE })
            .addOperation(Operation.payment({ destination: dest, asset: Asset.native(), amount: '0.0000123' })).setTimeout(60).build();
          tx.sign(kp);
          const sent = await s.sendTransaction(tx);
          if (sent.status !== 'PENDING') continue;
          for (let k = 0; k < 100 && !stop; k++) {
            const r = await s.getTransaction(sent.hash);
            if (r.status === 'NOT_FOUND') { await new Promise((res) => setTimeout(res, 20)); continue; }
            seenLedgers.add(r.ledger);
            if (r.status === 'SUCCESS') confirmed.push(sent.hash);
            break;
          }
        } catch { /* the node is being killed */ }
      }
    });
    await new Promise((r) => setTimeout(r, 2500));
    const latestSeen = (await s.getLatestLedger()).sequence;
    seenLedgers.add(latestSeen);
    node.child.kill('SIGKILL');
    stop = true;
    await Promise.all(workers);
    await new Promise((r) => node.child.exitCode !== null || node.child.signalCode ? r(null) : node.child.once('exit', r));
    assert.ok(confirmed.length > 10, `only ${confirmed.length} payments confirmed before the kill`);

    node = await startNodeProcess({ args, dbPath });
    s = server(node.url);
    try {
      const latest = (await s.getLatestLedger()).sequence;
      assert.ok(latest >= Math.max(...seenLedgers), `restarted at ${latest}, but a client saw ${Math.max(...seenLedgers)}`);
      // contiguous from genesis to the latest ledger
      const seqs: number[] = [];
      let page = await s.getLedgers({ startLedger: 1, pagination: { limit: 200 } });
      for (;;) {
        seqs.push(...page.ledgers.map((l) => l.sequence));
        if (Number(page.cursor) >= page.latestLedger) break;
        page = await s.getLedgers({ pagination: { cursor: page.cursor, limit: 200 } });
      }
      assert.deepEqual(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1));
      // the chain of header hashes is unbroken
      const headers = (await s.getLedgers({ startLedger: 1, pagination: { limit: 200 } })).ledgers;
      for (let i = 1; i < headers.length; i++) {
        assert.equal(Buffer.from(headers[i].headerXdr.header.previousLedgerHash.value).toString('hex'), headers[i - 1].hash);
      }
      for (const h of confirmed) assert.equal((await s.getTransaction(h)).status, 'SUCCESS');
      // root + genesis test accounts (--accounts, default 10) + funded accounts + fee pool hold every lumen
      const header = xdr.LedgerHeader.schema.decode(Buffer.from((await node.rpc('getLatestLedger')).result.headerXdr, 'base64'));
      let sum = header.feePool;
      const holders = [root.publicKey(), ...testAccounts(10).map((a) => a.publicKey), ...accounts.map((kp) => kp.publicKey())];
      for (const g of holders) sum += (await accountEntry(s, g)).balance;
      assert.equal(sum, TOTAL_COINS);
      // and it keeps closing ledgers
      await new Promise((r) => setTimeout(r, 400));
      assert.ok((await s.getLatestLedger()).sequence > latest);
    } finally {
      await node.stop();
    }
  });
});
