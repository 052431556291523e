// The classic flows of the standalone network, driven over HTTP by the official JS SDK.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, AuthRequiredFlag, AuthRevocableFlag, Keypair, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, accountEntry, builder, firstOpCode, funded, resultCode, server, submit } from './support/sdk.ts';

const XLM = 10_000_000n;

describe('classic transactions over JSON-RPC (JS SDK)', () => {
  let node: NodeProcess;
  let s: ReturnType<typeof server>;

  before(async () => {
    node = await startNodeProcess({ args: ['--close-mode', 'instant', '--log-level', 'warn'] });
    s = server(node.url);
  });
  after(async () => { await node?.stop(); });

  it('funds from the faucet, and getAccount sees the new account', async () => {
    const kp = Keypair.random();
    const res = await s.fundAddress(kp.publicKey());
    assert.equal(res.status, 'SUCCESS');
    const account = await s.getAccount(kp.publicKey());
    assert.equal(account.accountId(), kp.publicKey());
    assert.equal((await accountEntry(s, kp.publicKey())).balance, 10_000n * XLM);
    // a second funding of the same account is refused as clients expect
    assert.equal((await s.requestAirdrop(kp.publicKey())).accountId(), kp.publicKey(), 'the JS SDK takes it as funded');
    const again = await fetch(`${node.url}/friendbot?addr=${kp.publicKey()}`);
    assert.equal(again.status, 400);
    // the texts stellar-cli and the JS SDK each take for "already funded"
    const { detail } = (await again.json()) as { detail: string };
    assert.match(detail, /account already funded to starting balance/);
    assert.match(detail, /createAccountAlreadyExist/);
  });

  it('creates an account and pays it natively; balances add up', async () => {
    const a = await funded(s);
    const b = Keypair.random();
    const tx = (await builder(s, a)).addOperation(Operation.createAccount({ destination: b.publicKey(), startingBalance: '100' })).build();
    tx.sign(a);
    const { done } = await submit(s, tx);
    assert.equal(done.status, 'SUCCESS');
    const pay = (await builder(s, a)).addOperation(Operation.payment({ destination: b.publicKey(), asset: Asset.native(), amount: '25.5' })).build();
    pay.sign(a);
    const r = await submit(s, pay);
    assert.equal(r.done.status, 'SUCCESS');
    assert.equal((await accountEntry(s, b.publicKey())).balance, 1255n * XLM / 10n);
    // a: 10000 - 100 - 25.5 - two fees of 100 stroops
    assert.equal((await accountEntry(s, a.publicKey())).balance, 10_000n * XLM - 1255n * XLM / 10n - 200n);
  });

  it('issues an asset: auth-required issuer, trustline, authorization, mint and burn, with CAP-67 events', async () => {
    const issuer = await funded(s);
    const holder = await funded(s);
    const asset = new Asset('LUMEN', issuer.publicKey());
    let tx = (await builder(s, issuer)).addOperation(Operation.setOptions({ setFlags: (AuthRequiredFlag | AuthRevocableFlag) as any })).build();
    tx.sign(issuer);
    assert.equal((await submit(s, tx)).done.status, 'SUCCESS');
    tx = (await builder(s, holder)).addOperation(Operation.changeTrust({ asset, limit: '1000' })).build();
    tx.sign(holder);
    assert.equal((await submit(s, tx)).done.status, 'SUCCESS');
    // not authorized yet: the payment fails when applied
    tx = (await builder(s, issuer)).addOperation(Operation.payment({ destination: holder.publicKey(), asset, amount: '10' })).build();
    tx.sign(issuer);
    const refused = await submit(s, tx);
    assert.equal(refused.done.status, 'FAILED');
    assert.equal(firstOpCode(refused.done.resultXdr!.toXdr()), -7 /* PAYMENT_NOT_AUTHORIZED */);
    tx = (await builder(s, issuer)).addOperation(Operation.setTrustLineFlags({ trustor: holder.publicKey(), asset, flags: { authorized: true } })).build();
    tx.sign(issuer);
    assert.equal((await submit(s, tx)).done.status, 'SUCCESS');
    tx = (await builder(s, issuer)).addOperation(Operation.payment({ destination: holder.publicKey(), asset, amount: '10' })).build();
    tx.sign(issuer);
    const mint = await submit(s, tx);
    assert.equal(mint.done.status, 'SUCCESS');
    const mintEvent = mint.done.events!.contractEventsXdr[0][0];
    const topics = xdr.ContractEvent.schema.decode(mintEvent.toXdr()).body.v0.topics;
    assert.equal(String((topics[0] as { sym: unknown }).sym), 'mint');
    tx = (await builder(s, holder)).addOperation(Operation.payment({ destination: issuer.publicKey(), asset, amount: '4' })).build();
    tx.sign(holder);
    const burn = await submit(s, tx);
    assert.equal(burn.done.status, 'SUCCESS');
    const burnTopics = xdr.ContractEvent.schema.decode(burn.done.events!.contractEventsXdr[0][0].toXdr()).body.v0.topics;
    assert.equal(String((burnTopics[0] as { sym: unknown }).sym), 'burn');
    // the trustline holds 6 and is readable through getLedgerEntries
    const tlKey = xdr.LedgerKey.fromXdr(xdr.LedgerKey.schema.encode({
      type: 1, trustLine: { accountId: { type: 0, ed25519: holder.rawPublicKey() }, asset: xdr.TrustLineAsset.schema.decode(asset.toTrustLineXdrObject().toXdr()) },
    }));
    const entries = await s.getLedgerEntries(tlKey);
    assert.equal(entries.entries.length, 1);
    const tl = xdr.LedgerEntryData.schema.decode(entries.entries[0].val.toXdr());
    assert.equal(tl.type, 1);
    if (tl.type === 1) {
      assert.equal(tl.trustLine.balance, 6n * XLM);
      assert.equal(tl.trustLine.limit, 1000n * XLM);
    }
  });

  it('multi-sig: medium threshold 2 needs both signers', async () => {
    const a = await funded(s);
    const cosigner = Keypair.random();
    const dest = await funded(s);
    let tx = (await builder(s, a)).addOperation(Operation.setOptions({
      signer: { ed25519PublicKey: cosigner.publicKey(), weight: 1 }, lowThreshold: 1, medThreshold: 2, highThreshold: 2,
    })).build();
    tx.sign(a);
    assert.equal((await submit(s, tx)).done.status, 'SUCCESS');
    assert.equal((await accountEntry(s, a.publicKey())).numSubEntries, 1);
    tx = (await builder(s, a)).addOperation(Operation.payment({ destination: dest.publicKey(), asset: Asset.native(), amount: '1' })).build();
    tx.sign(a);
    const single = await s.sendTransaction(tx);
    assert.equal(single.status, 'ERROR');
    assert.equal(resultCode(single.errorResult!.toXdr()), -1 /* txFAILED */);
    assert.equal(firstOpCode(single.errorResult!.toXdr()), -1 /* opBAD_AUTH */);
    tx.sign(cosigner);
    assert.equal((await submit(s, tx)).done.status, 'SUCCESS');
  });

  it('fee bump: another account pays; findable by inner and outer hash', async () => {
    const a = await funded(s);
    const sponsor = await funded(s);
    const inner = (await builder(s, a)).addOperation(Operation.payment({ destination: sponsor.publicKey(), asset: Asset.native(), amount: '1' })).build();
    inner.sign(a);
    const bump = TransactionBuilder.buildFeeBumpTransaction(sponsor, '200', inner, PASSPHRASE);
    bump.sign(sponsor);
    const { sent, done } = await submit(s, bump);
    assert.equal(done.status, 'SUCCESS');
    if (done.status !== 'SUCCESS') return;
    assert.equal(done.feeBump, true);
    assert.equal(sent.hash, Buffer.from(bump.hash()).toString('hex'));
    const byInner = await s.getTransaction(Buffer.from(inner.hash()).toString('hex'));
    assert.equal(byInner.status, 'SUCCESS');
    // the sponsor paid 2 ops' fee (inner op + the bump) and got 1 XLM
    assert.equal((await accountEntry(s, sponsor.publicKey())).balance, 10_001n * XLM - 200n);
    assert.equal((await accountEntry(s, a.publicKey())).balance, 9_999n * XLM);
  });

  it('bad sequence is ERROR txBAD_SEQ; an applied transaction sent again is TRY_AGAIN_LATER (banned, as core does); an underfunded payment is FAILED', async () => {
    const a = await funded(s);
    const account = await s.getAccount(a.publicKey());
    account.incrementSequenceNumber(); // now one ahead of what the ledger expects
    const ahead = new TransactionBuilder(account, { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(Operation.bumpSequence({ bumpTo: '0' })).setTimeout(60).build();
    ahead.sign(a);
    const bad = await s.sendTransaction(ahead);
    assert.equal(bad.status, 'ERROR');
    assert.equal(resultCode(bad.errorResult!.toXdr()), -5 /* txBAD_SEQ */);

    const tx = (await builder(s, a)).addOperation(Operation.payment({ destination: Keypair.random().publicKey(), asset: Asset.native(), amount: '1' })).build();
    tx.sign(a);
    const { sent, done } = await submit(s, tx);
    assert.equal(done.status, 'FAILED'); // no such destination
    assert.equal(firstOpCode(done.resultXdr!.toXdr()), -5 /* PAYMENT_NO_DESTINATION */);
    const again = await s.sendTransaction(tx);
    assert.equal(again.status, 'TRY_AGAIN_LATER');
    assert.equal(again.hash, sent.hash);

    const broke = (await builder(s, a)).addOperation(Operation.payment({ destination: (await funded(s)).publicKey(), asset: Asset.native(), amount: '50000' })).build();
    broke.sign(a);
    const r = await submit(s, broke);
    assert.equal(r.done.status, 'FAILED');
    assert.equal(firstOpCode(r.done.resultXdr!.toXdr()), -2 /* PAYMENT_UNDERFUNDED */);
  });

  it('getLatestLedger is decoded by the SDK; getLedgers and getTransactions page to the end', async () => {
    const latest = await s.getLatestLedger();
    assert.equal(typeof latest.sequence, 'number');
    assert.ok(latest.sequence > 5);
    const seen: number[] = [];
    let page = await s.getLedgers({ startLedger: 1, pagination: { limit: 3 } });
    for (;;) {
      seen.push(...page.ledgers.map((l) => l.sequence));
      // as the reference does, a cursor at the latest ledger is out of range: that is the end
      if (Number(page.cursor) >= page.latestLedger) break;
      page = await s.getLedgers({ pagination: { cursor: page.cursor, limit: 3 } });
    }
    assert.deepEqual(seen, Array.from({ length: seen.length }, (_, i) => i + 1));
    assert.ok(seen.length >= latest.sequence);
    const hashes: string[] = [];
    let txs = await s.getTransactions({ startLedger: 1, pagination: { limit: 4 } });
    for (let i = 0; i < 200 && txs.transactions.length > 0; i++) {
      hashes.push(...txs.transactions.map((t) => t.txHash));
      txs = await s.getTransactions({ pagination: { cursor: txs.cursor, limit: 4 } });
    }
    assert.equal(new Set(hashes).size, hashes.length);
    assert.ok(hashes.length >= 10);
    for (const h of hashes.slice(0, 5)) assert.notEqual((await s.getTransaction(h)).status, 'NOT_FOUND');
  });
});
