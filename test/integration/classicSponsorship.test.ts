// Sponsored reserves (CAP-33) as a wallet uses them, over HTTP with the official JS SDK: an account
// created with nothing, its reserve sponsored, in one transaction both sign (begin, create, end); a
// sponsored trustline and signer; the sponsorships revoked back to the owner (LOW_RESERVE until it
// can pay), handed over to another sponsor, refused to strangers; a sponsorship left open; a
// sponsored offer, pool-share line and claimable balance through a revocation. Checked
// through numSponsoring/numSponsored, the entries' sponsors (getLedgerEntries' extXdr), balances,
// minimum balances and the results.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, AuthRequiredFlag, AuthRevocableFlag, Claimant, Keypair, LiquidityPoolAsset, Operation, getLiquidityPoolId, xdr, type rpc } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import {
  BASE_RESERVE, accountKey, claimableBalanceKey, manageOfferSuccess, offerEntries, offerIdOf, offerKey, poolShareLineKey, accountView, applied, assetEvent, entrySponsor, feeCharged, fundedAccount, minimumBalance,
  opCodes, readEntry, send, stroops, transactionEvents, transactionResult, trustLineKey, readBackEverything, startClassicNode,
} from './support/classic.ts';

const CHANGE_TRUST_LOW_RESERVE = -4;
const REVOKE_SPONSORSHIP_DOES_NOT_EXIST = -1;
const REVOKE_SPONSORSHIP_NOT_SPONSOR = -2;
const REVOKE_SPONSORSHIP_LOW_RESERVE = -3;
const TX_BAD_SPONSORSHIP = -14;
/** An account entry takes two base reserves; a trustline or a signer one. */
const ACCOUNT_RESERVES = 2;

describe('sponsored reserves over JSON-RPC (JS SDK)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let firstLedger: number;

  before(async () => { ({ node, s, firstLedger } = await startClassicNode()); });
  after(async () => { await node?.stop(); });

  const counters = async (kp: Keypair) => {
    const a = await accountView(s, kp.publicKey());
    return { numSponsoring: a.numSponsoring, numSponsored: a.numSponsored, numSubEntries: a.numSubEntries };
  };

  it('a wallet creates an account with 0 XLM in one transaction signed by both (begin, create, end), sponsors its trustline and signer, then revokes, hands over and ends the sponsorships', async () => {
    const sponsor = await fundedAccount(s);
    const newcomer = Keypair.random();
    const cosigner = Keypair.random();
    const issuer = await fundedAccount(s);
    const USD = new Asset('USD', issuer.publicKey());
    let sponsorBalance = (await accountView(s, sponsor.publicKey())).balance;
    /** The sponsor's balance moves only by its fees and what it pays. */
    const sponsorPaid = async (fee: bigint, paid = 0n) => {
      sponsorBalance -= fee + paid;
      const view = await accountView(s, sponsor.publicKey());
      assert.equal(view.balance, sponsorBalance, 'the sponsor pays fees and reserves, never the sponsored amounts');
      assert.ok(view.balance >= minimumBalance(view));
      return view;
    };

    // one transaction: the sponsor begins, creates the account with nothing, the newcomer ends it
    const create = await applied(s, sponsor, [
      Operation.beginSponsoringFutureReserves({ sponsoredId: newcomer.publicKey() }),
      Operation.createAccount({ destination: newcomer.publicKey(), startingBalance: '0' }),
      Operation.endSponsoringFutureReserves({ source: newcomer.publicKey() }),
    ], [newcomer]);
    assert.deepEqual(opCodes(transactionResult(create.done)), [0, 0, 0]);
    let view = await sponsorPaid(feeCharged(create.done));
    assert.equal(view.numSponsoring, ACCOUNT_RESERVES);
    assert.equal(minimumBalance(view), BigInt(2 + view.numSubEntries + ACCOUNT_RESERVES) * BASE_RESERVE, 'the sponsor\'s own reserve grew by two');
    const newcomerView = await accountView(s, newcomer.publicKey());
    assert.deepEqual([newcomerView.balance, newcomerView.numSponsored, newcomerView.numSponsoring, newcomerView.numSubEntries], [0n, ACCOUNT_RESERVES, 0, 0]);
    assert.equal(minimumBalance(newcomerView), 0n, 'an account that needs no XLM of its own');
    assert.equal(await entrySponsor(node.rpc, accountKey(newcomer.publicKey())), sponsor.publicKey());
    assert.deepEqual(await transactionEvents(s, create), [assetEvent('transfer', [sponsor.publicKey(), newcomer.publicKey()], Asset.native(), 0n, 1)]);

    // its trustline and a second signer, sponsored the same way (the sponsor pays the fee)
    const extras = await applied(s, sponsor, [
      Operation.beginSponsoringFutureReserves({ sponsoredId: newcomer.publicKey() }),
      Operation.changeTrust({ asset: USD, source: newcomer.publicKey() }),
      Operation.setOptions({ signer: { ed25519PublicKey: cosigner.publicKey(), weight: 1 }, source: newcomer.publicKey() }),
      Operation.endSponsoringFutureReserves({ source: newcomer.publicKey() }),
    ], [newcomer]);
    view = await sponsorPaid(feeCharged(extras.done));
    assert.equal(view.numSponsoring, ACCOUNT_RESERVES + 2);
    assert.deepEqual(await counters(newcomer), { numSponsoring: 0, numSponsored: ACCOUNT_RESERVES + 2, numSubEntries: 2 });
    assert.deepEqual((await accountView(s, newcomer.publicKey())).signerSponsors, [sponsor.publicKey()]);
    assert.equal(await entrySponsor(node.rpc, trustLineKey(newcomer.publicKey(), USD)), sponsor.publicKey());

    // unsponsored, the newcomer cannot afford a sub-entry of its own
    const unsponsored = await send(s, sponsor, [Operation.changeTrust({ asset: new Asset('EUR', issuer.publicKey()), source: newcomer.publicKey() })], [newcomer]);
    assert.deepEqual(opCodes(transactionResult(unsponsored.done)), [CHANGE_TRUST_LOW_RESERVE]);
    await sponsorPaid(feeCharged(unsponsored.done));

    // revoking the trustline's sponsorship hands its reserve to the owner: refused while it has nothing
    const revokeLine = () => send(s, sponsor, [Operation.revokeTrustlineSponsorship({ account: newcomer.publicKey(), asset: USD })]);
    const tooPoor = await revokeLine();
    assert.deepEqual(opCodes(transactionResult(tooPoor.done)), [REVOKE_SPONSORSHIP_LOW_RESERVE]);
    await sponsorPaid(feeCharged(tooPoor.done));
    const pay = await applied(s, sponsor, [Operation.payment({ destination: newcomer.publicKey(), asset: Asset.native(), amount: '10' })]);
    await sponsorPaid(feeCharged(pay.done), stroops('10'));
    const revoked = await revokeLine();
    assert.deepEqual(opCodes(transactionResult(revoked.done)), [0]);
    view = await sponsorPaid(feeCharged(revoked.done));
    assert.equal(view.numSponsoring, ACCOUNT_RESERVES + 1);
    assert.deepEqual(await counters(newcomer), { numSponsoring: 0, numSponsored: ACCOUNT_RESERVES + 1, numSubEntries: 2 });
    assert.equal(await entrySponsor(node.rpc, trustLineKey(newcomer.publicKey(), USD)), null, 'the owner carries the trustline now');
    assert.equal(minimumBalance(await accountView(s, newcomer.publicKey())), BASE_RESERVE);
    assert.deepEqual(await transactionEvents(s, revoked), [], 'revoking moves no asset');

    // strangers cannot revoke; there is nothing to revoke on an entry that does not exist
    const stranger = await fundedAccount(s);
    const notSponsor = await send(s, stranger, [Operation.revokeAccountSponsorship({ account: newcomer.publicKey() })]);
    assert.deepEqual(opCodes(transactionResult(notSponsor.done)), [REVOKE_SPONSORSHIP_NOT_SPONSOR]);
    const missing = await send(s, sponsor, [Operation.revokeDataSponsorship({ account: newcomer.publicKey(), name: 'nothing' })]);
    assert.deepEqual(opCodes(transactionResult(missing.done)), [REVOKE_SPONSORSHIP_DOES_NOT_EXIST]);
    await sponsorPaid(feeCharged(missing.done));

    // another wallet takes over the account's sponsorship: the revoke runs inside its sponsorship of the sponsor
    const successor = await fundedAccount(s);
    const handOver = await applied(s, successor, [
      Operation.beginSponsoringFutureReserves({ sponsoredId: sponsor.publicKey() }),
      Operation.revokeAccountSponsorship({ account: newcomer.publicKey(), source: sponsor.publicKey() }),
      Operation.endSponsoringFutureReserves({ source: sponsor.publicKey() }),
    ], [sponsor]);
    assert.deepEqual(opCodes(transactionResult(handOver.done)), [0, 0, 0]);
    assert.equal(await entrySponsor(node.rpc, accountKey(newcomer.publicKey())), successor.publicKey());
    assert.equal((await counters(successor)).numSponsoring, ACCOUNT_RESERVES);
    view = await sponsorPaid(0n);
    assert.equal(view.numSponsoring, 1, 'the sponsor keeps only the signer');
    assert.deepEqual(await counters(newcomer), { numSponsoring: 0, numSponsored: ACCOUNT_RESERVES + 1, numSubEntries: 2 });

    // the signer's sponsorship revoked, then the account's: the newcomer pays for everything it has
    const signer = await applied(s, sponsor, [Operation.revokeSignerSponsorship({ account: newcomer.publicKey(), signer: { ed25519PublicKey: cosigner.publicKey() } })]);
    view = await sponsorPaid(feeCharged(signer.done));
    assert.deepEqual([view.numSponsoring, view.numSponsored], [0, 0]);
    assert.deepEqual((await accountView(s, newcomer.publicKey())).signerSponsors, [null]);
    await applied(s, successor, [Operation.revokeAccountSponsorship({ account: newcomer.publicKey() })]);
    assert.equal((await counters(successor)).numSponsoring, 0);
    assert.equal(await entrySponsor(node.rpc, accountKey(newcomer.publicKey())), null);
    const alone = await accountView(s, newcomer.publicKey());
    assert.deepEqual([alone.numSponsored, alone.numSubEntries, alone.balance], [0, 2, stroops('10')]);
    assert.equal(minimumBalance(alone), BigInt(2 + 2) * BASE_RESERVE);
  });

  it('a sponsorship left open fails the transaction with txBAD_SPONSORSHIP; nothing but the fee changes', async () => {
    const sponsor = await fundedAccount(s);
    const newcomer = Keypair.random();
    const before = await accountView(s, sponsor.publicKey());
    const r = await send(s, sponsor, [
      Operation.beginSponsoringFutureReserves({ sponsoredId: newcomer.publicKey() }),
      Operation.createAccount({ destination: newcomer.publicKey(), startingBalance: '0' }),
    ]);
    assert.equal(r.done.status, 'FAILED');
    assert.equal(transactionResult(r.done).result.code, TX_BAD_SPONSORSHIP);
    assert.equal(await readEntry(s, accountKey(newcomer.publicKey())), undefined, 'no account was created');
    const after = await accountView(s, sponsor.publicKey());
    assert.deepEqual({ ...after, balance: after.balance + feeCharged(r.done) }, before);
    assert.deepEqual(await transactionEvents(s, r), []);
  });

  it('sponsored offer, pool-share line and claimable balance; revocation removes the offer and redeems the shares into balances the same sponsor backs; a sponsor cannot merge away', async () => {
    const [sponsor, trader, regulator, friend] = [await fundedAccount(s), await fundedAccount(s), await fundedAccount(s), await fundedAccount(s)];
    const RVK = new Asset('RVK', regulator.publicKey());
    const poolAsset = new LiquidityPoolAsset(Asset.native(), RVK, 30);
    const poolId = Buffer.from(getLiquidityPoolId('constant_product', poolAsset.getLiquidityPoolParameters())).toString('hex');
    await applied(s, regulator, [Operation.setOptions({ setFlags: (AuthRequiredFlag | AuthRevocableFlag) as 3 })]);
    const sandwich = (ops: xdr.Operation[]) => applied(s, sponsor, [
      Operation.beginSponsoringFutureReserves({ sponsoredId: trader.publicKey() }), ...ops,
      Operation.endSponsoringFutureReserves({ source: trader.publicKey() }),
    ], [trader]);
    await sandwich([Operation.changeTrust({ asset: RVK, source: trader.publicKey() })]);
    await applied(s, regulator, [
      Operation.setTrustLineFlags({ trustor: trader.publicKey(), asset: RVK, flags: { authorized: true } }),
      Operation.payment({ destination: trader.publicKey(), asset: RVK, amount: '100' }),
    ]);
    const setUp = await sandwich([
      Operation.manageSellOffer({ source: trader.publicKey(), selling: RVK, buying: Asset.native(), amount: '10', price: '1' }),
      Operation.changeTrust({ source: trader.publicKey(), asset: poolAsset }),
      Operation.liquidityPoolDeposit({ source: trader.publicKey(), liquidityPoolId: poolId, maxAmountA: '40', maxAmountB: '10', minPrice: '4', maxPrice: '4' }),
      Operation.createClaimableBalance({ source: trader.publicKey(), asset: RVK, amount: '5', claimants: [new Claimant(friend.publicKey())] }),
    ]);
    const offerId = offerIdOf(manageOfferSuccess(setUp.done, 1));
    const friendsBalance = setUp.tx.getClaimableBalanceId(4);
    // the sponsor backs: the RVK line (1), the offer (1), the share line (2), the balance's claimant (1)
    assert.equal((await accountView(s, sponsor.publicKey())).numSponsoring, 5);
    assert.deepEqual(await counters(trader), { numSponsoring: 0, numSponsored: 4, numSubEntries: 4 });
    assert.equal(await entrySponsor(node.rpc, offerKey(trader.publicKey(), offerId)), sponsor.publicKey());
    assert.equal(await entrySponsor(node.rpc, poolShareLineKey(trader.publicKey(), poolId)), sponsor.publicKey());
    assert.equal(await entrySponsor(node.rpc, claimableBalanceKey(friendsBalance)), sponsor.publicKey());

    // revoked: the offer leaves, the shares become two balances the sponsor backs in the share line's place
    const revoke = await applied(s, regulator, [Operation.setTrustLineFlags({ trustor: trader.publicKey(), asset: RVK, flags: { authorized: false } })]);
    assert.deepEqual(await offerEntries(s, trader.publicKey(), [offerId]), [undefined]);
    assert.equal(await readEntry(s, poolShareLineKey(trader.publicKey(), poolId)), undefined);
    const events = await transactionEvents(s, revoke);
    assert.deepEqual(events.map((e) => [e.name, e.asset]), [['transfer', 'native'], ['transfer', RVK.toString()], ['set_authorized', RVK.toString()]]);
    const redeemed = events.slice(0, 2).map((e) => e.addresses[1]);
    for (const id of redeemed) assert.equal(await entrySponsor(node.rpc, claimableBalanceKey(id)), sponsor.publicKey());
    assert.equal((await accountView(s, sponsor.publicKey())).numSponsoring, 5 - 1 - 2 + 2);
    assert.deepEqual(await counters(trader), { numSponsoring: 0, numSponsored: 1, numSubEntries: 1 });

    // claiming releases the sponsor's reserve; a sponsor cannot merge while it backs anything
    await applied(s, trader, [Operation.claimClaimableBalance({ balanceId: redeemed[0] })]);
    assert.equal((await accountView(s, sponsor.publicKey())).numSponsoring, 3);
    const merge = await send(s, sponsor, [Operation.accountMerge({ destination: friend.publicKey() })]);
    assert.deepEqual(opCodes(transactionResult(merge.done)), [-7 /* ACCOUNT_MERGE_IS_SPONSOR */]);
  });

  it('every ledger and transaction of these flows decodes with the SDK and renders as JSON', async () => {
    const transactions = await readBackEverything(s, node.rpc, firstLedger);
    assert.ok(transactions >= 10, `${transactions} transactions`);
  });
});
