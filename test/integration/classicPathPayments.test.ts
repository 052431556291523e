// Path payments on the standalone network as a user meets them, over HTTP with the official JS SDK:
// two hops of the book strict send and strict receive (claim atoms, last payment, balances, offers
// and CAP-67 events), the failures that leave every balance as it was, several offers taken in one
// hop in price order, a muxed destination, payments to and from an issuer, a path naming the send
// asset, and a path through the sender's own offer.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, MuxedAccount, Operation, type rpc } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import {
  accountView, applied, assetWire, decimal, feeCharged, fundedAccount, issueAssets, manageOfferSuccess, movement,
  offerEntries, offerIdOf, opCodes, pathPaymentSuccess, send, stroops, tradeEvents, tradeOf, transactionEvents,
  transactionResult, trustLineView, type Grant, type Trade, readBackEverything, startClassicNode,
} from './support/classic.ts';

describe('path payments over JSON-RPC (JS SDK)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let firstLedger: number;

  before(async () => { ({ node, s, firstLedger } = await startClassicNode()); });
  after(async () => { await node?.stop(); });

  const issue = (codes: string[], holders: Keypair[], grants: Grant[] = []) => issueAssets(s, codes, holders, grants);
  const xlmOf = async (kp: Keypair) => (await accountView(s, kp.publicKey())).balance;
  const heldOf = async (kp: Keypair, asset: Asset) => (await trustLineView(s, kp.publicKey(), asset))!.balance;
  const sell = async (seller: Keypair, selling: Asset, buying: Asset, amount: string, price: { n: number; d: number }) =>
    offerIdOf(manageOfferSuccess((await applied(s, seller, [Operation.manageSellOffer({ selling, buying, amount, price })])).done));

  it('path payments over two hops of the book (XLM → USD → EUR), strict send and strict receive; failures leave every balance unchanged', async () => {
    const [mmUsd, mmEur, sender, receiver] = [await fundedAccount(s), await fundedAccount(s), await fundedAccount(s), await fundedAccount(s)];
    const { assets: { USD, EUR, GBP } } = await issue(['USD', 'EUR', 'GBP'], [mmUsd, mmEur, receiver], [
      { to: mmUsd, code: 'USD', amount: '1000' }, { to: mmEur, code: 'EUR', amount: '1000' },
    ]);
    // the book: 100 USD at 2 XLM each, 100 EUR at 1.25 USD each
    const usdPrice = { n: 2n, d: 1n };
    const eurPrice = { n: 5n, d: 4n };
    const o1 = offerIdOf(manageOfferSuccess((await applied(s, mmUsd, [Operation.manageSellOffer({ selling: USD, buying: Asset.native(), amount: '100', price: { n: 2, d: 1 } })])).done));
    const o2 = offerIdOf(manageOfferSuccess((await applied(s, mmEur, [Operation.manageSellOffer({ selling: EUR, buying: USD, amount: '100', price: { n: 5, d: 4 } })])).done));

    const snapshot = async () => ({
      senderXlm: await xlmOf(sender), receiverEur: await heldOf(receiver, EUR),
      mmUsdXlm: await xlmOf(mmUsd), mmUsdUsd: await heldOf(mmUsd, USD), mmEurUsd: await heldOf(mmEur, USD), mmEurEur: await heldOf(mmEur, EUR),
      o1: (await offerEntries(s, mmUsd.publicKey(), [o1]))[0]!.amount, o2: (await offerEntries(s, mmEur.publicKey(), [o2]))[0]!.amount,
    });

    // strict send: exactly 40 XLM buy 40/2 = 20 USD, which buy 20/1.25 = 16 EUR
    let before = await snapshot();
    const sendAmount = stroops('40');
    const usdBought = sendAmount * usdPrice.d / usdPrice.n;
    const eurBought = usdBought * eurPrice.d / eurPrice.n;
    const strictSend = await applied(s, sender, [Operation.pathPaymentStrictSend({
      sendAsset: Asset.native(), sendAmount: decimal(sendAmount), destination: receiver.publicKey(), destAsset: EUR, destMin: decimal(eurBought), path: [USD],
    })]);
    let ok = pathPaymentSuccess(strictSend.done);
    let trades: Trade[] = [
      { seller: mmUsd.publicKey(), offerId: o1, sold: USD.toString(), amountSold: usdBought, bought: 'native', amountBought: sendAmount },
      { seller: mmEur.publicKey(), offerId: o2, sold: EUR.toString(), amountSold: eurBought, bought: USD.toString(), amountBought: usdBought },
    ];
    assert.deepEqual(ok.offers.map(tradeOf), trades);
    assert.deepEqual(ok.last, { destination: { type: 0, ed25519: receiver.rawPublicKey() }, asset: assetWire(EUR), amount: eurBought });
    assert.deepEqual(await snapshot(), {
      senderXlm: before.senderXlm - sendAmount - feeCharged(strictSend.done), receiverEur: before.receiverEur + eurBought,
      mmUsdXlm: before.mmUsdXlm + sendAmount, mmUsdUsd: before.mmUsdUsd - usdBought, mmEurUsd: before.mmEurUsd + usdBought, mmEurEur: before.mmEurEur - eurBought,
      o1: before.o1 - usdBought, o2: before.o2 - eurBought,
    });
    assert.deepEqual(await transactionEvents(s, strictSend), [
      ...trades.flatMap((t) => tradeEvents(sender.publicKey(), t)),
      movement(EUR.toString(), sender.publicKey(), receiver.publicKey(), eurBought),
    ]);

    // strict receive: exactly 8 EUR cost 8*1.25 = 10 USD, which cost 10*2 = 20 XLM
    before = await snapshot();
    const destAmount = stroops('8');
    const usdNeeded = destAmount * eurPrice.n / eurPrice.d;
    const xlmNeeded = usdNeeded * usdPrice.n / usdPrice.d;
    const strictReceive = await applied(s, sender, [Operation.pathPaymentStrictReceive({
      sendAsset: Asset.native(), sendMax: decimal(xlmNeeded), destination: receiver.publicKey(), destAsset: EUR, destAmount: decimal(destAmount), path: [USD],
    })]);
    ok = pathPaymentSuccess(strictReceive.done);
    trades = [
      { seller: mmUsd.publicKey(), offerId: o1, sold: USD.toString(), amountSold: usdNeeded, bought: 'native', amountBought: xlmNeeded },
      { seller: mmEur.publicKey(), offerId: o2, sold: EUR.toString(), amountSold: destAmount, bought: USD.toString(), amountBought: usdNeeded },
    ];
    assert.deepEqual(ok.offers.map(tradeOf), trades, 'the offers in path order');
    assert.deepEqual(ok.last, { destination: { type: 0, ed25519: receiver.rawPublicKey() }, asset: assetWire(EUR), amount: destAmount });
    assert.deepEqual(await snapshot(), {
      senderXlm: before.senderXlm - xlmNeeded - feeCharged(strictReceive.done), receiverEur: before.receiverEur + destAmount,
      mmUsdXlm: before.mmUsdXlm + xlmNeeded, mmUsdUsd: before.mmUsdUsd - usdNeeded, mmEurUsd: before.mmEurUsd + usdNeeded, mmEurEur: before.mmEurEur - destAmount,
      o1: before.o1 - usdNeeded, o2: before.o2 - destAmount,
    });
    assert.deepEqual(await transactionEvents(s, strictReceive), [
      ...trades.flatMap((t) => tradeEvents(sender.publicKey(), t)),
      movement(EUR.toString(), sender.publicKey(), receiver.publicKey(), destAmount),
    ]);

    // failures: one stroop short of the bound, more than the book holds, a hop with no book
    const bookEur = (await snapshot()).o2;
    const failures: [string, number, ReturnType<typeof Operation.pathPaymentStrictSend>][] = [
      ['PATH_PAYMENT_STRICT_SEND_UNDER_DESTMIN', -12, Operation.pathPaymentStrictSend({
        sendAsset: Asset.native(), sendAmount: decimal(sendAmount), destination: receiver.publicKey(), destAsset: EUR, destMin: decimal(eurBought + 1n), path: [USD] })],
      ['PATH_PAYMENT_STRICT_RECEIVE_OVER_SENDMAX', -12, Operation.pathPaymentStrictReceive({
        sendAsset: Asset.native(), sendMax: decimal(xlmNeeded - 1n), destination: receiver.publicKey(), destAsset: EUR, destAmount: decimal(destAmount), path: [USD] })],
      ['PATH_PAYMENT_STRICT_RECEIVE_TOO_FEW_OFFERS (more than the book)', -10, Operation.pathPaymentStrictReceive({
        sendAsset: Asset.native(), sendMax: '100000', destination: receiver.publicKey(), destAsset: EUR, destAmount: decimal(bookEur + 1n), path: [USD] })],
      ['PATH_PAYMENT_STRICT_SEND_TOO_FEW_OFFERS (no GBP book)', -10, Operation.pathPaymentStrictSend({
        sendAsset: Asset.native(), sendAmount: '40', destination: receiver.publicKey(), destAsset: EUR, destMin: '1', path: [GBP] })],
    ];
    for (const [name, code, op] of failures) {
      before = await snapshot();
      const r = await send(s, sender, [op]);
      assert.equal(r.done.status, 'FAILED', name);
      assert.deepEqual(opCodes(transactionResult(r.done)), [code], name);
      assert.deepEqual(await snapshot(), { ...before, senderXlm: before.senderXlm - feeCharged(r.done) }, `${name}: only the fee`);
      assert.deepEqual(await transactionEvents(s, r), [], `${name}: no movement`);
    }
  });

  it('one hop takes several offers, best price first and the older of two at one price first', async () => {
    const [early, cheap, late, buyer, receiver] = [await fundedAccount(s), await fundedAccount(s), await fundedAccount(s), await fundedAccount(s), await fundedAccount(s)];
    const grants = [early, cheap, late].map((to) => ({ to, code: 'USD', amount: '100' }));
    const { assets: { USD } } = await issue(['USD'], [early, cheap, late, receiver], grants);
    const atTwo = await sell(early, USD, Asset.native(), '10', { n: 2, d: 1 });
    const atOneAndHalf = await sell(cheap, USD, Asset.native(), '10', { n: 3, d: 2 });
    const atTwoLater = await sell(late, USD, Asset.native(), '10', { n: 2, d: 1 });
    // 25 USD: 10 at 1.5, 10 at 2 from the older offer, 5 at 2 from the later one
    const legs = [
      { seller: cheap, offerId: atOneAndHalf, usd: stroops('10'), price: { n: 3n, d: 2n } },
      { seller: early, offerId: atTwo, usd: stroops('10'), price: { n: 2n, d: 1n } },
      { seller: late, offerId: atTwoLater, usd: stroops('5'), price: { n: 2n, d: 1n } },
    ];
    const cost = legs.reduce((sum, l) => sum + l.usd * l.price.n / l.price.d, 0n);
    const buyerXlm = await xlmOf(buyer);
    const r = await applied(s, buyer, [Operation.pathPaymentStrictReceive({
      sendAsset: Asset.native(), sendMax: decimal(cost), destination: receiver.publicKey(), destAsset: USD, destAmount: '25', path: [] })]);
    const trades: Trade[] = legs.map((l) => ({ seller: l.seller.publicKey(), offerId: l.offerId, sold: USD.toString(), amountSold: l.usd,
      bought: 'native', amountBought: l.usd * l.price.n / l.price.d }));
    assert.deepEqual(pathPaymentSuccess(r.done).offers.map(tradeOf), trades);
    assert.equal(await xlmOf(buyer), buyerXlm - cost - feeCharged(r.done));
    assert.equal(await heldOf(receiver, USD), stroops('25'));
    assert.deepEqual(await offerEntries(s, cheap.publicKey(), [atOneAndHalf]), [undefined]);
    assert.deepEqual(await offerEntries(s, early.publicKey(), [atTwo]), [undefined]);
    assert.equal((await offerEntries(s, late.publicKey(), [atTwoLater]))[0]!.amount, stroops('5'));
    for (const l of legs.slice(0, 2)) assert.equal((await accountView(s, l.seller.publicKey())).numSubEntries, 1, 'a taken offer frees its reserve');
    assert.deepEqual(await transactionEvents(s, r), [
      ...trades.flatMap((t) => tradeEvents(buyer.publicKey(), t)),
      movement(USD.toString(), buyer.publicKey(), receiver.publicKey(), stroops('25')),
    ]);
  });

  it('a muxed destination gets to_muxed_id in the payment\'s event (not the trades\'); an issuer paid is a burn, an issuer paying a mint; a path naming the send asset; the sender\'s own offer is CROSS_SELF', async () => {
    const [mm, sender, receiver] = [await fundedAccount(s), await fundedAccount(s), await fundedAccount(s)];
    const { issuer, assets: { USD, EUR } } = await issue(['USD', 'EUR'], [mm, receiver], [{ to: mm, code: 'USD', amount: '500' }, { to: mm, code: 'EUR', amount: '500' }]);
    const usdOffer = await sell(mm, USD, Asset.native(), '100', { n: 1, d: 1 });
    const eurOffer = await sell(mm, EUR, USD, '100', { n: 1, d: 1 });

    // strict send to a muxed receiver: the trade moves nothing muxed, the payment carries the id
    const muxedReceiver = new MuxedAccount(await s.getAccount(receiver.publicKey()), '42');
    const toMuxed = await applied(s, sender, [Operation.pathPaymentStrictSend({
      sendAsset: Asset.native(), sendAmount: '3', destination: muxedReceiver.accountId(), destAsset: USD, destMin: '3', path: [] })]);
    const ok = pathPaymentSuccess(toMuxed.done);
    assert.deepEqual(ok.last, { destination: { type: 0, ed25519: receiver.rawPublicKey() }, asset: assetWire(USD), amount: stroops('3') });
    const trade: Trade = { seller: mm.publicKey(), offerId: usdOffer, sold: USD.toString(), amountSold: stroops('3'), bought: 'native', amountBought: stroops('3') };
    assert.deepEqual(ok.offers.map(tradeOf), [trade]);
    assert.deepEqual(await transactionEvents(s, toMuxed), [
      ...tradeEvents(sender.publicKey(), trade),
      { ...movement(USD.toString(), sender.publicKey(), receiver.publicKey(), stroops('3')), toMuxedId: { type: 5, u64: 42n } },
    ]);
    assert.equal(await heldOf(receiver, USD), stroops('3'));

    // strict receive paid to the issuer: bought from the book, burned on arrival
    const issuerXlm = await xlmOf(issuer);
    const toIssuer = await applied(s, sender, [Operation.pathPaymentStrictReceive({
      sendAsset: Asset.native(), sendMax: '2', destination: issuer.publicKey(), destAsset: USD, destAmount: '2', path: [] })]);
    const burnTrade: Trade = { ...trade, amountSold: stroops('2'), amountBought: stroops('2') };
    assert.deepEqual(await transactionEvents(s, toIssuer), [
      ...tradeEvents(sender.publicKey(), burnTrade),
      movement(USD.toString(), sender.publicKey(), issuer.publicKey(), stroops('2')),
    ]);
    assert.equal((await transactionEvents(s, toIssuer))[2].name, 'burn');
    assert.equal(await xlmOf(issuer), issuerXlm, 'the issuer\'s XLM does not move');

    // the issuer pays with its own USD through the EUR book: a mint to the seller
    const mmUsd = await heldOf(mm, USD);
    const fromIssuer = await applied(s, issuer, [Operation.pathPaymentStrictSend({
      sendAsset: USD, sendAmount: '4', destination: receiver.publicKey(), destAsset: EUR, destMin: '4', path: [] })]);
    const mintTrade: Trade = { seller: mm.publicKey(), offerId: eurOffer, sold: EUR.toString(), amountSold: stroops('4'), bought: USD.toString(), amountBought: stroops('4') };
    assert.deepEqual(pathPaymentSuccess(fromIssuer.done).offers.map(tradeOf), [mintTrade]);
    const issuerEvents = await transactionEvents(s, fromIssuer);
    assert.deepEqual(issuerEvents, [...tradeEvents(issuer.publicKey(), mintTrade), movement(EUR.toString(), issuer.publicKey(), receiver.publicKey(), stroops('4'))]);
    assert.deepEqual(issuerEvents.map((e) => e.name), ['mint', 'burn', 'mint'], 'USD minted to the seller, EUR back to its issuer, EUR minted to the receiver');
    assert.equal(await heldOf(mm, USD), mmUsd + stroops('4'));
    assert.equal(await heldOf(receiver, EUR), stroops('4'));

    // a path that names the send and the destination asset is the direct conversion
    const named = await applied(s, sender, [Operation.pathPaymentStrictSend({
      sendAsset: Asset.native(), sendAmount: '1', destination: receiver.publicKey(), destAsset: USD, destMin: '1', path: [Asset.native(), USD] })]);
    assert.deepEqual(pathPaymentSuccess(named.done).offers.map(tradeOf), [{ ...trade, amountSold: stroops('1'), amountBought: stroops('1') }]);

    // the book's best USD offer is the market maker's own: it cannot pay through it
    const mmXlm = await xlmOf(mm);
    const crossSelf = await send(s, mm, [Operation.pathPaymentStrictSend({
      sendAsset: Asset.native(), sendAmount: '1', destination: receiver.publicKey(), destAsset: USD, destMin: '1', path: [] })]);
    assert.deepEqual(opCodes(transactionResult(crossSelf.done)), [-11 /* PATH_PAYMENT_STRICT_SEND_OFFER_CROSS_SELF */]);
    assert.equal(await xlmOf(mm), mmXlm - feeCharged(crossSelf.done));
  });

  it('every ledger and transaction of these flows decodes with the SDK and renders as JSON', async () => {
    const transactions = await readBackEverything(s, node.rpc, firstLedger);
    assert.ok(transactions >= 10, `${transactions} transactions`);
  });
});
