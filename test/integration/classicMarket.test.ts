// The classic market of the standalone network as a user meets it, over HTTP with the official JS
// SDK: offers crossing, updated, deleted and resting passively (read back as OFFER entries with
// getLedgerEntries), path payments over two hops of the book, revocation pulling a holder's offers,
// and every step checked through balances, liabilities, sub-entries, the decoded operation results
// and the CAP-67 events getEvents serves (path payments: classicPathPayments.test.ts). Then malformed offers and path payments, built with the SDK
// where it lets them through and by hand where it does not, each refused by sendTransaction with
// core's result code, and a path longer than XDR allows refused as invalid XDR.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Asset, AuthRequiredFlag, AuthRevocableFlag, Keypair, Operation, xdr, type Transaction, type rpc } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, builder } from './support/sdk.ts';
import {
  accountView, applied, assetEvent, assetWire, decimal, feeCharged, fundedAccount, issueAssets, manageOfferSuccess, minimumBalance, offerEntries,
  offerIdOf, opCodes, send, stroops, tradeEvents, tradeOf, transactionEvents, transactionResult, trustLineView, type Grant, type Trade, readBackEverything, startClassicNode,
} from './support/classic.ts';

const sha256 = (b: Uint8Array): Uint8Array => createHash('sha256').update(b).digest();
const NETWORK_ID = sha256(Buffer.from(PASSPHRASE));

/** The envelope of `tx` with its transaction changed by `edit` (to what the SDK will not build), signed again. */
function editedEnvelope(tx: Transaction, signer: Keypair, edit: (t: xdr.TransactionWire) => void): string {
  const env = xdr.TransactionEnvelope.schema.decode(tx.toEnvelope().toXdr());
  assert.equal(env.type, 2);
  const v1 = (env as Extract<xdr.TransactionEnvelopeWire, { type: 2 }>).v1;
  edit(v1.tx);
  const payload = xdr.TransactionSignaturePayload.schema.encode({ networkId: NETWORK_ID, taggedTransaction: { type: 2, tx: v1.tx } });
  v1.signatures = [{ hint: signer.signatureHint(), signature: signer.sign(sha256(payload)) }];
  return Buffer.from(xdr.TransactionEnvelope.schema.encode(env)).toString('base64');
}

const MANAGE_OFFER_CREATED = 0;
const MANAGE_OFFER_UPDATED = 1;
const MANAGE_OFFER_DELETED = 2;
const PASSIVE_FLAG = 1;

describe('the classic market over JSON-RPC (JS SDK)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let firstLedger: number;

  before(async () => { ({ node, s, firstLedger } = await startClassicNode()); });
  after(async () => { await node?.stop(); });

  const issue = (codes: string[], holders: Keypair[], grants: Grant[] = []) => issueAssets(s, codes, holders, grants);

  const xlmOf = async (kp: Keypair) => (await accountView(s, kp.publicKey())).balance;
  const heldOf = async (kp: Keypair, asset: Asset) => (await trustLineView(s, kp.publicKey(), asset))!.balance;

  it('two accounts trade: an offer rests, is crossed partly, updated, crossed fully; a buy offer rests and is deleted; a passive offer rests against one at its price', async () => {
    const [maker, taker] = [await fundedAccount(s), await fundedAccount(s)];
    const { assets: { USD } } = await issue(['USD'], [maker, taker], [{ to: maker, code: 'USD', amount: '1000' }]);
    const makerXlm0 = await xlmOf(maker);
    const takerXlm0 = await xlmOf(taker);

    // maker sells 100 USD at 2 XLM each: nothing to cross, the offer rests
    const offerA = await applied(s, maker, [Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '100', price: '2' })]);
    let r = manageOfferSuccess(offerA.done);
    assert.deepEqual(r.offersClaimed, []);
    assert.equal(r.offer.effect, MANAGE_OFFER_CREATED);
    const idA = offerIdOf(r);
    let [storedA] = await offerEntries(s, maker.publicKey(), [idA]);
    assert.deepEqual(storedA, (r.offer as { offer: unknown }).offer, 'getLedgerEntries serves the offer the result reported');
    assert.equal(storedA!.amount, stroops('100'));
    assert.deepEqual(storedA!.price, { n: 2, d: 1 });
    assert.deepEqual(storedA!.selling, assetWire(USD));
    assert.deepEqual(storedA!.buying, assetWire(Asset.native()));
    assert.equal(storedA!.flags, 0);
    let makerAccount = await accountView(s, maker.publicKey());
    assert.equal(makerAccount.numSubEntries, 2, 'the USD trustline and the offer');
    assert.equal(makerAccount.buying, stroops('200'), 'the XLM the offer would receive');
    assert.equal(makerAccount.selling, 0n);
    let makerUsd = (await trustLineView(s, maker.publicKey(), USD))!;
    assert.deepEqual([makerUsd.selling, makerUsd.buying], [stroops('100'), 0n]);
    assert.deepEqual(await transactionEvents(s, offerA), [], 'a resting offer moves nothing');

    // taker sells 60 XLM at 0.5 USD each: takes 30 USD of A at A's price, nothing of it rests
    const cross1 = await applied(s, taker, [Operation.manageSellOffer({ selling: Asset.native(), buying: USD, amount: '60', price: '0.5' })]);
    r = manageOfferSuccess(cross1.done);
    assert.equal(r.offer.effect, MANAGE_OFFER_DELETED);
    const trade1: Trade = { seller: maker.publicKey(), offerId: idA, sold: USD.toString(), amountSold: stroops('30'), bought: 'native', amountBought: stroops('60') };
    assert.deepEqual(r.offersClaimed.map(tradeOf), [trade1]);
    [storedA] = await offerEntries(s, maker.publicKey(), [idA]);
    assert.equal(storedA!.amount, stroops('70'), 'A shrank by what it sold');
    makerAccount = await accountView(s, maker.publicKey());
    assert.equal(makerAccount.balance, makerXlm0 - feeCharged(offerA.done) + stroops('60'));
    assert.equal(makerAccount.buying, stroops('140'));
    makerUsd = (await trustLineView(s, maker.publicKey(), USD))!;
    assert.deepEqual([makerUsd.balance, makerUsd.selling], [stroops('970'), stroops('70')]);
    assert.equal(await heldOf(taker, USD), stroops('30'));
    assert.equal(await xlmOf(taker), takerXlm0 - stroops('60') - feeCharged(cross1.done));
    assert.equal((await accountView(s, taker.publicKey())).numSubEntries, 1, 'nothing of the taker rests');
    assert.deepEqual(await transactionEvents(s, cross1), tradeEvents(taker.publicKey(), trade1));

    // maker updates A: 50 USD at 3 XLM; its liabilities follow
    const update = await applied(s, maker, [Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '50', price: '3', offerId: idA.toString() })]);
    r = manageOfferSuccess(update.done);
    assert.deepEqual(r.offersClaimed, []);
    assert.equal(r.offer.effect, MANAGE_OFFER_UPDATED);
    assert.equal(offerIdOf(r), idA);
    [storedA] = await offerEntries(s, maker.publicKey(), [idA]);
    assert.deepEqual([storedA!.amount, storedA!.price], [stroops('50'), { n: 3, d: 1 }]);
    makerAccount = await accountView(s, maker.publicKey());
    assert.deepEqual([makerAccount.numSubEntries, makerAccount.buying], [2, stroops('150')]);
    assert.equal((await trustLineView(s, maker.publicKey(), USD))!.selling, stroops('50'));

    // taker buys 80 USD paying up to 4 XLM each: takes all of A (50 at 3), 30 USD rest as a buy offer
    const buy = await applied(s, taker, [Operation.manageBuyOffer({ selling: Asset.native(), buying: USD, buyAmount: '80', price: '4' })]);
    r = manageOfferSuccess(buy.done);
    const trade2: Trade = { seller: maker.publicKey(), offerId: idA, sold: USD.toString(), amountSold: stroops('50'), bought: 'native', amountBought: stroops('150') };
    assert.deepEqual(r.offersClaimed.map(tradeOf), [trade2]);
    assert.equal(r.offer.effect, MANAGE_OFFER_CREATED);
    const idB = offerIdOf(r);
    assert.ok(idB > idA, 'offer ids grow');
    assert.deepEqual(await offerEntries(s, maker.publicKey(), [idA]), [undefined], 'A was taken whole and left the book');
    const [storedB] = await offerEntries(s, taker.publicKey(), [idB]);
    // a buy offer rests as a sell offer of XLM at the inverse price: 30 USD at 4 XLM = 120 XLM
    assert.deepEqual([storedB!.amount, storedB!.price, storedB!.selling, storedB!.buying],
      [stroops('120'), { n: 1, d: 4 }, assetWire(Asset.native()), assetWire(USD)]);
    makerAccount = await accountView(s, maker.publicKey());
    assert.deepEqual([makerAccount.numSubEntries, makerAccount.buying, makerAccount.selling], [1, 0n, 0n], 'the maker holds no offer now');
    makerUsd = (await trustLineView(s, maker.publicKey(), USD))!;
    assert.deepEqual([makerUsd.balance, makerUsd.selling, makerUsd.buying], [stroops('920'), 0n, 0n]);
    let takerAccount = await accountView(s, taker.publicKey());
    assert.deepEqual([takerAccount.numSubEntries, takerAccount.selling, takerAccount.buying], [2, stroops('120'), 0n]);
    let takerUsd = (await trustLineView(s, taker.publicKey(), USD))!;
    assert.deepEqual([takerUsd.balance, takerUsd.buying], [stroops('80'), stroops('30')]);
    assert.deepEqual(await transactionEvents(s, buy), tradeEvents(taker.publicKey(), trade2));

    // taker deletes B (amount 0): liabilities and the sub-entry go with it
    const del = await applied(s, taker, [Operation.manageBuyOffer({ selling: Asset.native(), buying: USD, buyAmount: '0', price: '4', offerId: idB.toString() })]);
    r = manageOfferSuccess(del.done);
    assert.deepEqual([r.offersClaimed, r.offer.effect], [[], MANAGE_OFFER_DELETED]);
    assert.deepEqual(await offerEntries(s, taker.publicKey(), [idB]), [undefined]);
    takerAccount = await accountView(s, taker.publicKey());
    assert.deepEqual([takerAccount.numSubEntries, takerAccount.selling, takerAccount.buying], [1, 0n, 0n]);
    takerUsd = (await trustLineView(s, taker.publicKey(), USD))!;
    assert.equal(takerUsd.buying, 0n);

    // a passive offer at exactly the resting offer's price does not take it: both rest
    const offerC = await applied(s, maker, [Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '10', price: '2' })]);
    const idC = offerIdOf(manageOfferSuccess(offerC.done));
    const passive = await applied(s, taker, [Operation.createPassiveSellOffer({ selling: Asset.native(), buying: USD, amount: '20', price: '0.5' })]);
    r = manageOfferSuccess(passive.done);
    assert.deepEqual(r.offersClaimed, [], 'the passive offer took nothing at its own price');
    const idD = offerIdOf(r);
    const [storedC] = await offerEntries(s, maker.publicKey(), [idC]);
    const [storedD] = await offerEntries(s, taker.publicKey(), [idD]);
    assert.deepEqual([storedC!.amount, storedC!.price, storedC!.flags], [stroops('10'), { n: 2, d: 1 }, 0]);
    assert.deepEqual([storedD!.amount, storedD!.price, storedD!.flags], [stroops('20'), { n: 1, d: 2 }, PASSIVE_FLAG]);
    // ...but an ordinary offer at that price takes the passive one
    const takePassive = await applied(s, maker, [Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '5', price: '2' })]);
    r = manageOfferSuccess(takePassive.done);
    const trade3: Trade = { seller: taker.publicKey(), offerId: idD, sold: 'native', amountSold: stroops('10'), bought: USD.toString(), amountBought: stroops('5') };
    assert.deepEqual(r.offersClaimed.map(tradeOf), [trade3]);
    assert.equal(r.offer.effect, MANAGE_OFFER_DELETED);
    assert.equal((await offerEntries(s, taker.publicKey(), [idD]))[0]!.amount, stroops('10'));
    assert.deepEqual(await transactionEvents(s, takePassive), tradeEvents(maker.publicKey(), trade3));
    // the maker's C was on the same side and was never touched
    assert.deepEqual((await offerEntries(s, maker.publicKey(), [idC]))[0], storedC);
  });

  it('one transaction, several operations and two signers: offers made and taken inside it with ids from the header\'s idPool; a failing operation undoes every other, ids included', async () => {
    const [maker, taker] = [await fundedAccount(s), await fundedAccount(s)];
    const { issuer, assets: { USD } } = await issue(['USD'], [maker, taker], [{ to: maker, code: 'USD', amount: '100' }]);
    const idPool = async () => (await s.getLatestLedger()).headerXdr.toXdrObject().idPool;
    const pool0 = await idPool();

    // an offer made, then a payment the taker cannot afford: the whole transaction fails
    const failing = await send(s, maker, [
      Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '10', price: '2' }),
      Operation.payment({ source: taker.publicKey(), destination: issuer.publicKey(), asset: USD, amount: '1' }),
    ], [taker]);
    assert.equal(failing.done.status, 'FAILED');
    assert.deepEqual(opCodes(transactionResult(failing.done)), [0, -2 /* PAYMENT_UNDERFUNDED */]);
    assert.equal(await idPool(), pool0, 'the id the failed offer took is given back');
    assert.deepEqual(await offerEntries(s, maker.publicKey(), [pool0 + 1n]), [undefined]);
    assert.deepEqual(await transactionEvents(s, failing), []);

    const [idA, idB] = [pool0 + 1n, pool0 + 2n];
    const r = await applied(s, maker, [
      Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '10', price: '2' }),
      Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '10', price: '1.5' }),
      Operation.manageBuyOffer({ source: taker.publicKey(), selling: Asset.native(), buying: USD, buyAmount: '15', price: '2' }),
      Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '0', price: '2', offerId: idA.toString() }),
    ], [taker]);
    assert.deepEqual([0, 1].map((i) => offerIdOf(manageOfferSuccess(r.done, i))), [idA, idB]);
    const taken = manageOfferSuccess(r.done, 2);
    const trades: Trade[] = [
      { seller: maker.publicKey(), offerId: idB, sold: USD.toString(), amountSold: stroops('10'), bought: 'native', amountBought: stroops('15') },
      { seller: maker.publicKey(), offerId: idA, sold: USD.toString(), amountSold: stroops('5'), bought: 'native', amountBought: stroops('10') },
    ];
    assert.deepEqual(taken.offersClaimed.map(tradeOf), trades, 'the better offer made later is taken first');
    assert.equal(taken.offer.effect, MANAGE_OFFER_DELETED);
    const deleted = manageOfferSuccess(r.done, 3);
    assert.deepEqual([deleted.offersClaimed, deleted.offer.effect], [[], MANAGE_OFFER_DELETED]);
    assert.equal(await idPool(), pool0 + 2n);
    assert.deepEqual(await offerEntries(s, maker.publicKey(), [idA, idB]), [undefined, undefined]);
    const makerAccount = await accountView(s, maker.publicKey());
    assert.deepEqual([makerAccount.numSubEntries, makerAccount.buying, makerAccount.selling], [1, 0n, 0n]);
    assert.equal((await trustLineView(s, maker.publicKey(), USD))!.selling, 0n);
    assert.equal((await trustLineView(s, taker.publicKey(), USD))!.balance, stroops('15'));
    assert.deepEqual(await transactionEvents(s, r), trades.flatMap((t) => tradeEvents(taker.publicKey(), t, 2)));
  });

  it('offers refused when applied (NOT_FOUND, CROSS_SELF, UNDERFUNDED, SELL_NO_TRUST, LINE_FULL) change nothing but the fee', async () => {
    const [trader, other] = [await fundedAccount(s), await fundedAccount(s)];
    const { assets: { USD, EUR } } = await issue(['USD', 'EUR'], [trader], [{ to: trader, code: 'USD', amount: '100' }]);
    const resting = await applied(s, trader, [
      Operation.manageSellOffer({ selling: Asset.native(), buying: USD, amount: '10', price: '1' }),
      Operation.changeTrust({ asset: EUR, limit: '50' }),
    ]);
    const idResting = offerIdOf(manageOfferSuccess(resting.done));
    const before = { account: await accountView(s, trader.publicKey()), usd: await trustLineView(s, trader.publicKey(), USD) };

    const refusals: [string, number, ReturnType<typeof Operation.manageSellOffer>, Keypair][] = [
      ['MANAGE_SELL_OFFER_NOT_FOUND', -11, Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '1', price: '1', offerId: String(idResting + 1000n) }), trader],
      ['MANAGE_SELL_OFFER_CROSS_SELF', -8, Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '1', price: '1' }), trader],
      ['MANAGE_SELL_OFFER_UNDERFUNDED', -7, Operation.manageSellOffer({ selling: USD, buying: EUR, amount: '101', price: '0.1' }), trader],
      ['MANAGE_SELL_OFFER_SELL_NO_TRUST', -2, Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '1', price: '1' }), other],
      // 60 USD at 1 EUR each: 60 EUR do not fit the EUR line's limit of 50
      ['MANAGE_SELL_OFFER_LINE_FULL', -6, Operation.manageSellOffer({ selling: USD, buying: EUR, amount: '60', price: '1' }), trader],
    ];
    for (const [name, code, op, source] of refusals) {
      const before2 = await accountView(s, source.publicKey());
      const r = await send(s, source, [op]);
      assert.equal(r.done.status, 'FAILED', name);
      assert.deepEqual(opCodes(transactionResult(r.done)), [code], name);
      assert.equal((await accountView(s, source.publicKey())).balance, before2.balance - feeCharged(r.done), `${name}: only the fee`);
      assert.deepEqual(await transactionEvents(s, r), [], `${name}: no movement`);
    }
    const after = await accountView(s, trader.publicKey());
    assert.deepEqual({ ...after, balance: 0n }, { ...before.account, balance: 0n }, 'sub-entries and liabilities unchanged');
    assert.deepEqual(await trustLineView(s, trader.publicKey(), USD), before.usd);
    assert.equal((await offerEntries(s, trader.publicKey(), [idResting]))[0]!.amount, stroops('10'));
  });

  it('liabilities bind: what offers sell cannot be paid away, what they buy keeps its room in the line, the XLM they sell stays above the reserve', async () => {
    const trader = await fundedAccount(s);
    const { issuer, assets: { USD, EUR } } = await issue(['USD', 'EUR'], [trader], [{ to: trader, code: 'USD', amount: '100' }]);
    await applied(s, trader, [
      Operation.changeTrust({ asset: EUR, limit: '50' }),
      Operation.manageSellOffer({ selling: USD, buying: EUR, amount: '80', price: '0.5' }),          // sells 80 USD, buys 40 EUR
      Operation.manageSellOffer({ selling: Asset.native(), buying: EUR, amount: '10', price: '0.1' }), // sells 10 XLM, buys 1 EUR
    ]);
    const usd = (await trustLineView(s, trader.publicKey(), USD))!;
    const eur = (await trustLineView(s, trader.publicKey(), EUR))!;
    assert.deepEqual([usd.balance, usd.selling, eur.limit, eur.buying], [stroops('100'), stroops('80'), stroops('50'), stroops('41')]);
    const freeUsd = usd.balance - usd.selling;
    const eurRoom = eur.limit - eur.balance - eur.buying;

    const refused = async (name: string, source: Keypair, op: xdr.Operation, code: number) => {
      const r = await send(s, source, [op]);
      assert.deepEqual(opCodes(transactionResult(r.done)), [code], name);
      return r;
    };
    await refused('USD beyond what is free of offers', trader, Operation.payment({ destination: issuer.publicKey(), asset: USD, amount: decimal(freeUsd + 1n) }), -2 /* PAYMENT_UNDERFUNDED */);
    await refused('EUR beyond the room the offers leave', issuer, Operation.payment({ destination: trader.publicKey(), asset: EUR, amount: decimal(eurRoom + 1n) }), -8 /* PAYMENT_LINE_FULL */);
    const account = await accountView(s, trader.publicKey());
    const fee = 100n; // the transaction's fee leaves the balance before its operation runs
    const freeXlm = account.balance - fee - minimumBalance(account) - account.selling;
    const xlmRefused = await refused('XLM beyond the reserve and what offers sell', trader, Operation.payment({ destination: issuer.publicKey(), asset: Asset.native(), amount: decimal(freeXlm + 1n) }), -2 /* PAYMENT_UNDERFUNDED */);
    assert.equal(feeCharged(xlmRefused.done), fee);
    // exactly what is free goes through, each of the three
    await applied(s, trader, [Operation.payment({ destination: issuer.publicKey(), asset: USD, amount: decimal(freeUsd) })]);
    await applied(s, issuer, [Operation.payment({ destination: trader.publicKey(), asset: EUR, amount: decimal(eurRoom) })]);
    const now = await accountView(s, trader.publicKey());
    await applied(s, trader, [Operation.payment({ destination: issuer.publicKey(), asset: Asset.native(), amount: decimal(now.balance - fee - minimumBalance(now) - now.selling) })]);
    const drained = await accountView(s, trader.publicKey());
    assert.equal(drained.balance, minimumBalance(drained) + drained.selling);
    assert.equal((await trustLineView(s, trader.publicKey(), USD))!.balance, usd.selling);
    assert.equal((await trustLineView(s, trader.publicKey(), EUR))!.balance, eur.limit - eur.buying);
  });

  it('the issuer\'s own offers: selling its asset mints it to the taker, buying it back burns it; no trustline, liabilities on its account only', async () => {
    const taker = await fundedAccount(s);
    const { issuer, assets: { USD } } = await issue(['USD'], [taker]);
    const ask = await applied(s, issuer, [Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '100', price: '2' })]);
    const askId = offerIdOf(manageOfferSuccess(ask.done));
    let issuerAccount = await accountView(s, issuer.publicKey());
    assert.deepEqual([issuerAccount.numSubEntries, issuerAccount.buying, issuerAccount.selling], [1, stroops('200'), 0n], 'USD is unlimited for its issuer');

    const bought = await applied(s, taker, [Operation.manageBuyOffer({ selling: Asset.native(), buying: USD, buyAmount: '10', price: '2' })]);
    const buyTrade: Trade = { seller: issuer.publicKey(), offerId: askId, sold: USD.toString(), amountSold: stroops('10'), bought: 'native', amountBought: stroops('20') };
    assert.deepEqual(manageOfferSuccess(bought.done).offersClaimed.map(tradeOf), [buyTrade]);
    const mintEvents = await transactionEvents(s, bought);
    assert.deepEqual(mintEvents, tradeEvents(taker.publicKey(), buyTrade));
    assert.deepEqual(mintEvents.map((e) => e.name), ['transfer', 'mint']);
    assert.equal((await trustLineView(s, taker.publicKey(), USD))!.balance, stroops('10'));
    issuerAccount = await accountView(s, issuer.publicKey());
    assert.equal(issuerAccount.buying, stroops('180'));

    // the issuer bids for its asset below its ask; the taker sells into the bid
    const bid = await applied(s, issuer, [Operation.manageBuyOffer({ selling: Asset.native(), buying: USD, buyAmount: '5', price: '1' })]);
    const bidId = offerIdOf(manageOfferSuccess(bid.done));
    assert.equal((await accountView(s, issuer.publicKey())).selling, stroops('5'));
    const sold = await applied(s, taker, [Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '5', price: '1' })]);
    const sellTrade: Trade = { seller: issuer.publicKey(), offerId: bidId, sold: 'native', amountSold: stroops('5'), bought: USD.toString(), amountBought: stroops('5') };
    assert.deepEqual(manageOfferSuccess(sold.done).offersClaimed.map(tradeOf), [sellTrade]);
    const burnEvents = await transactionEvents(s, sold);
    assert.deepEqual(burnEvents, tradeEvents(taker.publicKey(), sellTrade));
    assert.deepEqual(burnEvents.map((e) => e.name), ['burn', 'transfer']);
    issuerAccount = await accountView(s, issuer.publicKey());
    assert.deepEqual([issuerAccount.numSubEntries, issuerAccount.buying, issuerAccount.selling], [1, stroops('180'), 0n]);
    assert.equal((await trustLineView(s, taker.publicKey(), USD))!.balance, stroops('5'));
  });

  it('a cross at an awkward price (7/3): what changes hands is conserved and each side trades within its price', async () => {
    const [maker, taker] = [await fundedAccount(s), await fundedAccount(s)];
    const { assets: { USD } } = await issue(['USD'], [maker, taker], [{ to: maker, code: 'USD', amount: '10' }]);
    const ask = await applied(s, maker, [Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '10', price: { n: 7, d: 3 } })]);
    const askId = offerIdOf(manageOfferSuccess(ask.done));
    const before = { makerXlm: await xlmOf(maker), takerXlm: await xlmOf(taker) };
    const offered = stroops('1.2345678');
    const cross = await applied(s, taker, [Operation.manageSellOffer({ selling: Asset.native(), buying: USD, amount: '1.2345678', price: { n: 3, d: 7 } })]);
    const r = manageOfferSuccess(cross.done);
    assert.equal(r.offersClaimed.length, 1);
    const t = tradeOf(r.offersClaimed[0]);
    assert.deepEqual([t.seller, t.offerId, t.sold, t.bought], [maker.publicKey(), askId, USD.toString(), 'native']);
    assert.ok(t.amountSold > 0n && t.amountBought > 0n && t.amountBought <= offered);
    // the maker gets at least 7/3 XLM per USD; the taker pays at most 1% more than that
    assert.ok(t.amountBought * 3n >= t.amountSold * 7n, `${t.amountBought} XLM for ${t.amountSold} USD`);
    assert.ok(t.amountBought * 3n * 100n <= t.amountSold * 7n * 101n, `${t.amountBought} XLM for ${t.amountSold} USD`);
    assert.equal(await xlmOf(maker), before.makerXlm + t.amountBought);
    assert.equal(await xlmOf(taker), before.takerXlm - t.amountBought - feeCharged(cross.done));
    assert.equal(await heldOf(maker, USD), stroops('10') - t.amountSold);
    assert.equal(await heldOf(taker, USD), t.amountSold);
    assert.equal((await offerEntries(s, maker.publicKey(), [askId]))[0]!.amount, stroops('10') - t.amountSold);
    if (r.offer.effect !== MANAGE_OFFER_DELETED) {
      const [rest] = await offerEntries(s, taker.publicKey(), [offerIdOf(r)]);
      assert.ok(rest!.amount <= offered - t.amountBought, 'what rests is at most what was not sold');
    }
    assert.deepEqual(await transactionEvents(s, cross), tradeEvents(taker.publicKey(), t));
  });

  it('revoking authorization pulls the holder\'s offers in that asset (at AUTHORIZED_TO_MAINTAIN_LIABILITIES they stay, can be taken, not changed): liabilities to 0, sub-entries back', async () => {
    const [holder, regulator, taker] = [await fundedAccount(s), await fundedAccount(s), await fundedAccount(s)];
    const RVK = new Asset('RVK', regulator.publicKey());
    await applied(s, regulator, [Operation.setOptions({ setFlags: (AuthRequiredFlag | AuthRevocableFlag) as 3 })]);
    const { assets: { USD } } = await issue(['USD'], [holder], [{ to: holder, code: 'USD', amount: '100' }]);
    for (const kp of [holder, taker]) {
      await applied(s, regulator, [
        Operation.changeTrust({ asset: RVK, source: kp.publicKey() }),
        Operation.setTrustLineFlags({ trustor: kp.publicKey(), asset: RVK, flags: { authorized: true } }),
      ], [kp]);
    }
    await applied(s, regulator, [Operation.payment({ destination: holder.publicKey(), asset: RVK, amount: '100' })]);

    const placed = await applied(s, holder, [
      Operation.manageSellOffer({ selling: RVK, buying: Asset.native(), amount: '50', price: '1' }),   // sells RVK
      Operation.manageSellOffer({ selling: Asset.native(), buying: RVK, amount: '30', price: '2' }),   // buys 60 RVK, below the ask
      Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '40', price: '1' }),   // no RVK
    ]);
    const [sellsRvk, buysRvk, usdOffer] = [0, 1, 2].map((i) => offerIdOf(manageOfferSuccess(placed.done, i)));
    let account = await accountView(s, holder.publicKey());
    assert.deepEqual([account.numSubEntries, account.buying, account.selling], [5, stroops('90'), stroops('30')]);
    let line = (await trustLineView(s, holder.publicKey(), RVK))!;
    assert.deepEqual([line.selling, line.buying], [stroops('50'), stroops('60')]);

    // down to AUTHORIZED_TO_MAINTAIN_LIABILITIES: the offers stay
    const maintain = await applied(s, regulator, [Operation.setTrustLineFlags({
      trustor: holder.publicKey(), asset: RVK, flags: { authorized: false, authorizedToMaintainLiabilities: true } })]);
    assert.deepEqual(await transactionEvents(s, maintain), [assetEvent('set_authorized', [holder.publicKey()], RVK, false)]);
    assert.equal((await offerEntries(s, holder.publicKey(), [sellsRvk, buysRvk, usdOffer])).filter(Boolean).length, 3);
    // ...and can still be taken, but the holder can neither change them nor make new ones in RVK
    const taken = await applied(s, taker, [Operation.manageBuyOffer({ selling: Asset.native(), buying: RVK, buyAmount: '5', price: '1' })]);
    const takenTrade: Trade = { seller: holder.publicKey(), offerId: sellsRvk, sold: RVK.toString(), amountSold: stroops('5'), bought: 'native', amountBought: stroops('5') };
    assert.deepEqual(manageOfferSuccess(taken.done).offersClaimed.map(tradeOf), [takenTrade]);
    assert.equal(manageOfferSuccess(taken.done).offer.effect, MANAGE_OFFER_DELETED);
    const change = await send(s, holder, [Operation.manageSellOffer({ selling: RVK, buying: Asset.native(), amount: '45', price: '2', offerId: sellsRvk.toString() })]);
    assert.deepEqual(opCodes(transactionResult(change.done)), [-4 /* MANAGE_SELL_OFFER_SELL_NOT_AUTHORIZED */]);
    const newBid = await send(s, holder, [Operation.manageSellOffer({ selling: USD, buying: RVK, amount: '1', price: '1' })]);
    assert.deepEqual(opCodes(transactionResult(newBid.done)), [-5 /* MANAGE_SELL_OFFER_BUY_NOT_AUTHORIZED */]);
    line = (await trustLineView(s, holder.publicKey(), RVK))!;
    assert.deepEqual([line.balance, line.selling, line.buying], [stroops('95'), stroops('45'), stroops('60')]);

    // fully revoked: the two RVK offers leave the book with their liabilities and reserves
    const revoke = await applied(s, regulator, [Operation.setTrustLineFlags({
      trustor: holder.publicKey(), asset: RVK, flags: { authorizedToMaintainLiabilities: false } })]);
    assert.deepEqual(await transactionEvents(s, revoke), [assetEvent('set_authorized', [holder.publicKey()], RVK, false)]);
    const [a, b, c] = await offerEntries(s, holder.publicKey(), [sellsRvk, buysRvk, usdOffer]);
    assert.deepEqual([a, b], [undefined, undefined]);
    assert.equal(c!.amount, stroops('40'), 'the USD offer is not the regulator\'s business');
    account = await accountView(s, holder.publicKey());
    assert.deepEqual([account.numSubEntries, account.buying, account.selling], [3, stroops('40'), 0n]);
    line = (await trustLineView(s, holder.publicKey(), RVK))!;
    assert.deepEqual(line, { balance: stroops('95'), limit: line.limit, flags: 0, buying: 0n, selling: 0n, poolUseCount: 0 });
    assert.equal((await trustLineView(s, holder.publicKey(), USD))!.selling, stroops('40'));

    // AllowTrust (the older operation) revokes the same way
    const again = await applied(s, regulator, [Operation.setTrustLineFlags({ trustor: holder.publicKey(), asset: RVK, flags: { authorized: true } })]);
    assert.deepEqual(await transactionEvents(s, again), [assetEvent('set_authorized', [holder.publicKey()], RVK, true)]);
    const reoffer = offerIdOf(manageOfferSuccess((await applied(s, holder, [Operation.manageSellOffer({ selling: RVK, buying: USD, amount: '10', price: '1' })])).done));
    assert.equal((await trustLineView(s, holder.publicKey(), USD))!.buying, stroops('10'));
    const allowTrust = await applied(s, regulator, [Operation.allowTrust({ trustor: holder.publicKey(), assetCode: 'RVK', authorize: 0 })]);
    assert.deepEqual(await transactionEvents(s, allowTrust), [assetEvent('set_authorized', [holder.publicKey()], RVK, false)]);
    assert.deepEqual(await offerEntries(s, holder.publicKey(), [reoffer]), [undefined]);
    assert.equal((await trustLineView(s, holder.publicKey(), USD))!.buying, 0n, 'the USD it would have bought is released too');
    assert.equal((await accountView(s, holder.publicKey())).numSubEntries, 3);
  });

  it('malformed offers and path payments get core\'s MALFORMED from sendTransaction, a path of 6 is not XDR, and the node keeps serving', async () => {
    const trader = await fundedAccount(s);
    const { assets: { USD, EUR } } = await issue(['USD', 'EUR'], [trader], [{ to: trader, code: 'USD', amount: '100' }]);
    const sequenceBefore = (await s.getAccount(trader.publicKey())).sequenceNumber();
    const latestBefore = (await s.getLatestLedger()).sequence;
    const oneOp = async (op: xdr.Operation) => (await builder(s, trader)).addOperation(op).build();
    /** sendTransaction's answer as JSON-RPC gives it, with the result decoded. */
    const sendRaw = async (envelope: string) => {
      const res = await node.rpc('sendTransaction', { transaction: envelope });
      assert.equal(res.result?.status, 'ERROR', JSON.stringify(res));
      const result = xdr.TransactionResult.schema.decode(Buffer.from(res.result.errorResultXdr, 'base64'));
      assert.equal(result.result.code, -1, 'txFAILED');
      assert.equal((await s.getTransaction(res.result.hash)).status, 'NOT_FOUND', 'refused, never applied');
      return opCodes(result);
    };
    const signed = (tx: Transaction) => { tx.sign(trader); return tx.toEnvelope().toXdr('base64'); };

    // the SDK builds these; the network refuses them
    const sdkBuilt: [string, number, xdr.Operation][] = [
      ['a new sell offer of 0', -1, Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '0', price: '1' })],
      ['a price of 0/1', -1, Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '1', price: { n: 0, d: 1 } })],
      ['the same asset on both sides', -1, Operation.manageSellOffer({ selling: USD, buying: USD, amount: '1', price: '1' })],
      ['a new buy offer of 0', -1, Operation.manageBuyOffer({ selling: USD, buying: EUR, buyAmount: '0', price: '1' })],
      ['a buy offer of one asset for itself', -1, Operation.manageBuyOffer({ selling: EUR, buying: EUR, buyAmount: '1', price: '1' })],
    ];
    for (const [name, code, op] of sdkBuilt) assert.deepEqual(await sendRaw(signed(await oneOp(op))), [code], name);

    // the SDK refuses to build these: sent by hand, the network refuses them too
    assert.throws(() => Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '-1', price: '1' }), /amount argument must be/);
    assert.throws(() => Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '1', price: '-1' }), /price must be positive/);
    assert.throws(() => Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '1', price: { n: 1, d: 0 } }), /price must be positive/);
    assert.throws(() => Operation.createPassiveSellOffer({ selling: USD, buying: Asset.native(), amount: '0', price: '1' }), /amount argument must be/);
    assert.throws(() => Operation.pathPaymentStrictSend({ sendAsset: USD, sendAmount: '-1', destination: trader.publicKey(), destAsset: EUR, destMin: '1', path: [] }), /sendAmount argument must be/);
    const template = await oneOp(Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '1', price: '1' }));
    const passiveTemplate = await oneOp(Operation.createPassiveSellOffer({ selling: USD, buying: Asset.native(), amount: '1', price: '1' }));
    const sendTemplate = await oneOp(Operation.pathPaymentStrictSend({ sendAsset: USD, sendAmount: '1', destination: trader.publicKey(), destAsset: EUR, destMin: '1', path: [] }));
    const receiveTemplate = await oneOp(Operation.pathPaymentStrictReceive({ sendAsset: USD, sendMax: '1', destination: trader.publicKey(), destAsset: EUR, destAmount: '1', path: [] }));
    type Body<T extends number> = Extract<xdr.OperationBodyWire, { type: T }>;
    const handBuilt: [string, number, Transaction, (t: xdr.TransactionWire) => void][] = [
      ['a negative sell amount', -1, template, (t) => { (t.operations[0].body as Body<3>).manageSellOfferOp.amount = -1n; }],
      ['a negative price', -1, template, (t) => { (t.operations[0].body as Body<3>).manageSellOfferOp.price = { n: -1, d: 1 }; }],
      ['a price of 1/0', -1, template, (t) => { (t.operations[0].body as Body<3>).manageSellOfferOp.price = { n: 1, d: 0 }; }],
      ['a negative offer id', -1, template, (t) => { (t.operations[0].body as Body<3>).manageSellOfferOp.offerId = -5n; }],
      ['a passive offer of 0', -1, passiveTemplate, (t) => { (t.operations[0].body as Body<4>).createPassiveSellOfferOp.amount = 0n; }],
      ['a strict send of -1', -1, sendTemplate, (t) => { (t.operations[0].body as Body<13>).pathPaymentStrictSendOp.sendAmount = -1n; }],
      ['a strict send with destMin 0', -1, sendTemplate, (t) => { (t.operations[0].body as Body<13>).pathPaymentStrictSendOp.destMin = 0n; }],
      ['a strict receive of 0', -1, receiveTemplate, (t) => { (t.operations[0].body as Body<2>).pathPaymentStrictReceiveOp.destAmount = 0n; }],
    ];
    for (const [name, code, tx, edit] of handBuilt) assert.deepEqual(await sendRaw(editedEnvelope(tx, trader, edit)), [code], name);

    // paths: XDR bounds them at 5 assets. The SDK will not encode 6...
    const hops = Array.from({ length: 6 }, (_, i) => new Asset(`HOP${i}`, trader.publicKey()));
    const pathOf = (n: number) => Operation.pathPaymentStrictSend({
      sendAsset: Asset.native(), sendAmount: '1', destination: trader.publicKey(), destAsset: USD, destMin: '1', path: hops.slice(0, n) });
    await assert.rejects(async () => signed(await oneOp(pathOf(6))), /array length 6 exceeds maximum 5/);
    // ...and 6 written by hand (a 5-asset path's count made 6 and one more asset appended, signed again) is not XDR
    const five = await oneOp(pathOf(5));
    five.sign(trader);
    const bytes = Buffer.from(five.toEnvelope().toXdr());
    const encodedPath = Buffer.concat([Buffer.from([0, 0, 0, 5]), ...hops.slice(0, 5).map((a) => Buffer.from(xdr.Asset.schema.encode(assetWire(a))))]);
    const at = bytes.indexOf(encodedPath);
    assert.ok(at > 0 && bytes.indexOf(encodedPath, at + 1) < 0, 'the path is found once');
    const six = Buffer.concat([bytes.subarray(0, at), Buffer.from([0, 0, 0, 6]), encodedPath.subarray(4),
      Buffer.from(xdr.Asset.schema.encode(assetWire(hops[5]))), bytes.subarray(at + encodedPath.length)]);
    const signatureBytes = 4 + 4 + 4 + 64; // one DecoratedSignature: count, hint, length, signature
    const txBytes = six.subarray(4, six.length - signatureBytes);
    six.set(trader.sign(sha256(Buffer.concat([NETWORK_ID, Buffer.from([0, 0, 0, 2]), txBytes]))), six.length - 64);
    const refused = await node.rpc('sendTransaction', { transaction: six.toString('base64') });
    assert.deepEqual(refused.error, { code: -32602, message: 'invalid_xdr' });
    // 5 is a path: valid, applied, and failing for want of offers in those books
    const fiveSent = await send(s, trader, [pathOf(5)]);
    assert.deepEqual(opCodes(transactionResult(fiveSent.done)), [-10 /* PATH_PAYMENT_STRICT_SEND_TOO_FEW_OFFERS */]);

    // the refusals consumed nothing; the node kept closing ledgers and serving
    assert.equal((await s.getAccount(trader.publicKey())).sequenceNumber(), String(BigInt(sequenceBefore) + 1n), 'only the 5-hop payment used a sequence number');
    assert.equal((await s.getHealth()).status, 'healthy');
    const payment = await applied(s, trader, [Operation.payment({ destination: (await fundedAccount(s)).publicKey(), asset: Asset.native(), amount: '1' })]);
    assert.ok(payment.done.ledger > latestBefore);
  });

  it('every ledger and transaction of these flows decodes with the SDK and renders as JSON', async () => {
    const transactions = await readBackEverything(s, node.rpc, firstLedger);
    assert.ok(transactions >= 10, `${transactions} transactions`);
  });
});
