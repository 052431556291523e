// Claimable balances and clawback on the standalone network as a user meets them, over HTTP with
// the official JS SDK: each predicate kind refused too early or too late and claimed in time (against
// the close times of the ledgers the claims land in), balances read with
// rpc.Server.getClaimableBalance, the creator's sponsored reserve, the issuer's clawback of a
// balance and of a trustline, and the CAP-67 events to and from the balance's address.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, AuthClawbackEnabledFlag, AuthRevocableFlag, Claimant, Operation, TransactionBuilder, xdr, type Keypair, type rpc } from '@stellar/stellar-sdk';
import type { NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, builder, submit } from './support/sdk.ts';
import {
  accountView, addressTopic, applied, assetEvent, assetEventOf, assetWire, symbolTopic, feeCharged, fundedAccount, movement, opArm, opCodes, send, stroops,
  transactionEvents, transactionResult, trustLineView, type Done, readBackEverything, startClassicNode,
} from './support/classic.ts';

const CLAIM_SUCCESS = 0;
const CLAIM_DOES_NOT_EXIST = -1;
const CLAIM_CANNOT_CLAIM = -2;
const CLAWBACK_CB_NOT_ISSUER = -2;
const CLAWBACK_CB_NOT_CLAWBACK_ENABLED = -3;
const CLAIMABLE_BALANCE_CLAWBACK_ENABLED_FLAG = 1;
const AUTHORIZED_FLAG = 1;
const TRUSTLINE_CLAWBACK_ENABLED_FLAG = 4;

type Predicate = xdr.ClaimPredicateWire;
const UNCONDITIONAL: Predicate = { type: 0 };
const and = (a: Predicate, b: Predicate): Predicate => ({ type: 1, andPredicates: [a, b] });
const or = (a: Predicate, b: Predicate): Predicate => ({ type: 2, orPredicates: [a, b] });
const not = (a: Predicate): Predicate => ({ type: 3, notPredicate: a });
const beforeAbsolute = (t: bigint): Predicate => ({ type: 4, absBefore: t });
const beforeRelative = (seconds: bigint): Predicate => ({ type: 5, relBefore: seconds });

/** The SDK's own predicate builders for a wire predicate: what a wallet would write. */
function sdkPredicate(p: Predicate): xdr.ClaimPredicate {
  switch (p.type) {
    case 0: return Claimant.predicateUnconditional();
    case 1: return Claimant.predicateAnd(sdkPredicate(p.andPredicates[0]), sdkPredicate(p.andPredicates[1]));
    case 2: return Claimant.predicateOr(sdkPredicate(p.orPredicates[0]), sdkPredicate(p.orPredicates[1]));
    case 3: return Claimant.predicateNot(sdkPredicate(p.notPredicate!));
    case 4: return Claimant.predicateBeforeAbsoluteTime(String(p.absBefore));
    case 5: return Claimant.predicateBeforeRelativeTime(String(p.relBefore));
  }
}

/** The predicate as the network stores it: relative times made absolute from the creating ledger's close time. */
function storedPredicate(p: Predicate, createdAt: bigint): Predicate {
  switch (p.type) {
    case 1: return and(storedPredicate(p.andPredicates[0], createdAt), storedPredicate(p.andPredicates[1], createdAt));
    case 2: return or(storedPredicate(p.orPredicates[0], createdAt), storedPredicate(p.orPredicates[1], createdAt));
    case 3: return not(storedPredicate(p.notPredicate!, createdAt));
    case 5: return beforeAbsolute(createdAt + p.relBefore);
    default: return p;
  }
}

/** Whether a stored predicate holds in a ledger closing at `closeTime` (CAP-23: strictly before). */
function holds(p: Predicate, closeTime: bigint): boolean {
  switch (p.type) {
    case 0: return true;
    case 1: return holds(p.andPredicates[0], closeTime) && holds(p.andPredicates[1], closeTime);
    case 2: return holds(p.orPredicates[0], closeTime) || holds(p.orPredicates[1], closeTime);
    case 3: return !holds(p.notPredicate!, closeTime);
    case 4: return closeTime < p.absBefore;
    case 5: throw new Error('relative predicates are never stored');
  }
}

describe('claimable balances and clawback over JSON-RPC (JS SDK)', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let firstLedger: number;

  before(async () => { ({ node, s, firstLedger } = await startClassicNode()); });
  after(async () => { await node?.stop(); });

  const latestCloseTime = async () => BigInt((await s.getLatestLedger()).closeTime);
  /** Waits (ledgers close every second besides the transactions) until a ledger has closed at `t` or later. */
  async function closedAtOrAfter(t: bigint): Promise<void> {
    for (let i = 0; i < 300 && await latestCloseTime() < t; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(await latestCloseTime() >= t, `a ledger closed at ${t} or later`);
  }
  const closeTimeOf = (done: Done) => BigInt(done.createdAt);
  const claim = (claimer: Keypair, balanceId: string) => send(s, claimer, [Operation.claimClaimableBalance({ balanceId })]);
  const balanceEntry = async (id: string) => (await s.getClaimableBalance(id)).toXdrObject();

  it('each predicate kind: refused with CANNOT_CLAIM too early or too late, claimed in time; stored absolute; the creator sponsors the reserves', async () => {
    const [creator, claimer, stranger] = [await fundedAccount(s), await fundedAccount(s), await fundedAccount(s)];
    const L = await latestCloseTime();
    const W = L + 8n; // a window that opens a few seconds from now (room for a slow, shared machine before it)
    const predicates: Record<string, Predicate> = {
      unconditional: UNCONDITIONAL,
      expiredAbsolute: beforeAbsolute(L - 1n),
      absolute: beforeAbsolute(L + 3600n),
      relative: beforeRelative(3600n),
      shortRelative: beforeRelative(1n),
      not: not(beforeAbsolute(W)),
      and: and(not(beforeAbsolute(W)), beforeRelative(3600n)),
      or: or(beforeAbsolute(L - 1n), not(beforeAbsolute(W))),
      orEitherHolds: or(beforeAbsolute(L - 1n), beforeRelative(3600n)),
      andNeverHolds: and(beforeRelative(3600n), beforeAbsolute(L - 1n)),
    };
    const names = Object.keys(predicates);
    const amount = stroops('10');
    const creatorBefore = await accountView(s, creator.publicKey());
    const create = await applied(s, creator, names.map((name) => Operation.createClaimableBalance({
      asset: Asset.native(), amount: '10', claimants: [new Claimant(claimer.publicKey(), sdkPredicate(predicates[name]))],
    })));
    const createdAt = closeTimeOf(create.done);
    const ids: Record<string, string> = {};
    names.forEach((name, i) => {
      ids[name] = create.tx.getClaimableBalanceId(i);
      const arm = opArm(transactionResult(create.done), i) as { code: number; balanceId: xdr.ClaimableBalanceIdWire };
      assert.equal(arm.code, 0);
      assert.equal(Buffer.from(xdr.ClaimableBalanceId.schema.encode(arm.balanceId)).toString('hex'), ids[name], 'the result carries the id the SDK derives');
    });
    // the creator paid the amounts and sponsors one reserve per claimant; no sub-entry
    let creatorNow = await accountView(s, creator.publicKey());
    assert.equal(creatorNow.balance, creatorBefore.balance - amount * BigInt(names.length) - feeCharged(create.done));
    assert.deepEqual([creatorNow.numSponsoring, creatorNow.numSubEntries], [names.length, creatorBefore.numSubEntries]);
    assert.deepEqual(await transactionEvents(s, create),
      names.map((name, i) => assetEvent('transfer', [creator.publicKey(), ids[name]], Asset.native(), amount, i)));

    // getClaimableBalance: each balance with its claimant and its predicate made absolute
    const stored: Record<string, Predicate> = {};
    for (const name of names) {
      const entry = await balanceEntry(ids[name]);
      stored[name] = storedPredicate(predicates[name], createdAt);
      assert.deepEqual([entry.amount, entry.asset, entry.ext], [amount, assetWire(Asset.native()), { v: 0 }], name);
      assert.equal(entry.claimants.length, 1);
      assert.deepEqual(entry.claimants[0].v0.destination.ed25519, claimer.rawPublicKey());
      assert.deepEqual(entry.claimants[0].v0.predicate, stored[name], `${name} is stored absolute`);
    }

    // too early for the window predicates (the claims land before W), and never for the expired ones
    for (const name of ['not', 'and', 'or', 'expiredAbsolute', 'andNeverHolds']) {
      const r = await claim(claimer, ids[name]);
      assert.ok(!holds(stored[name], closeTimeOf(r.done)), `${name}: does not hold at ${closeTimeOf(r.done)} (window opens at ${W})`);
      assert.equal(r.done.status, 'FAILED', name);
      assert.deepEqual(opCodes(transactionResult(r.done)), [CLAIM_CANNOT_CLAIM], name);
    }
    // only a claimant may claim
    const notClaimant = await claim(stranger, ids.unconditional);
    assert.deepEqual(opCodes(transactionResult(notClaimant.done)), [CLAIM_CANNOT_CLAIM]);

    // in time: the claimer gets the amount, the creator its reserve back
    const claimOk = async (name: string) => {
      const before = await accountView(s, claimer.publicKey());
      const sponsoring = (await accountView(s, creator.publicKey())).numSponsoring;
      const r = await claim(claimer, ids[name]);
      assert.ok(holds(stored[name], closeTimeOf(r.done)), `${name}: holds at ${closeTimeOf(r.done)}`);
      assert.equal(r.done.status, 'SUCCESS', name);
      assert.deepEqual(opCodes(transactionResult(r.done)), [CLAIM_SUCCESS]);
      assert.equal((await accountView(s, claimer.publicKey())).balance, before.balance + amount - feeCharged(r.done), name);
      assert.equal((await accountView(s, creator.publicKey())).numSponsoring, sponsoring - 1, `${name}: the reserve goes back`);
      assert.deepEqual(await transactionEvents(s, r), [assetEvent('transfer', [ids[name], claimer.publicKey()], Asset.native(), amount)]);
      await assert.rejects(s.getClaimableBalance(ids[name]), /not found/i, `${name} is gone`);
    };
    for (const name of ['unconditional', 'absolute', 'relative', 'orEitherHolds']) await claimOk(name);
    const twice = await claim(claimer, ids.unconditional);
    assert.deepEqual(opCodes(transactionResult(twice.done)), [CLAIM_DOES_NOT_EXIST]);

    // later: the window opened, the one-second relative predicate expired
    await closedAtOrAfter(W > createdAt + 1n ? W : createdAt + 1n);
    const late = await claim(claimer, ids.shortRelative);
    assert.ok(!holds(stored.shortRelative, closeTimeOf(late.done)));
    assert.deepEqual(opCodes(transactionResult(late.done)), [CLAIM_CANNOT_CLAIM], 'too late for the relative predicate');
    for (const name of ['not', 'and', 'or']) await claimOk(name);

    creatorNow = await accountView(s, creator.publicKey());
    assert.equal(creatorNow.numSponsoring, 3, 'expiredAbsolute, andNeverHolds and shortRelative are still there');
    for (const name of ['expiredAbsolute', 'andNeverHolds', 'shortRelative']) assert.equal((await balanceEntry(ids[name])).amount, amount);
  });

  it('credit balances: created clawback-enabled from a clawback-enabled line, clawed back by the issuer; claimed, burned by the issuer claiming, minted by the issuer creating; trustline clawback', async () => {
    const [issuer, holder, claimer, plainIssuer] = [await fundedAccount(s), await fundedAccount(s), await fundedAccount(s), await fundedAccount(s)];
    const CLW = new Asset('CLW', issuer.publicKey());
    const USD = new Asset('USD', plainIssuer.publicKey());
    await applied(s, issuer, [Operation.setOptions({ setFlags: (AuthRevocableFlag | AuthClawbackEnabledFlag) as 10 })]);
    await applied(s, issuer, [
      Operation.changeTrust({ asset: CLW, source: holder.publicKey() }),
      Operation.changeTrust({ asset: CLW, source: claimer.publicKey() }),
      Operation.changeTrust({ asset: USD, source: claimer.publicKey() }),
      Operation.payment({ destination: holder.publicKey(), asset: CLW, amount: '100' }),
    ], [holder, claimer]);
    assert.equal((await trustLineView(s, holder.publicKey(), CLW))!.flags, AUTHORIZED_FLAG | TRUSTLINE_CLAWBACK_ENABLED_FLAG);

    const create = await applied(s, holder, [
      Operation.createClaimableBalance({ asset: CLW, amount: '40', claimants: [new Claimant(claimer.publicKey())] }),
      Operation.createClaimableBalance({ asset: CLW, amount: '30', claimants: [new Claimant(claimer.publicKey())] }),
      Operation.createClaimableBalance({ asset: CLW, amount: '5', claimants: [new Claimant(issuer.publicKey())] }),
    ]);
    const [toClawBack, toClaim, toIssuer] = [0, 1, 2].map((i) => create.tx.getClaimableBalanceId(i));
    assert.deepEqual(await transactionEvents(s, create), [
      assetEvent('transfer', [holder.publicKey(), toClawBack], CLW, stroops('40'), 0),
      assetEvent('transfer', [holder.publicKey(), toClaim], CLW, stroops('30'), 1),
      assetEvent('transfer', [holder.publicKey(), toIssuer], CLW, stroops('5'), 2),
    ]);
    assert.equal((await trustLineView(s, holder.publicKey(), CLW))!.balance, stroops('25'));
    const entry = await balanceEntry(toClawBack);
    assert.deepEqual([entry.asset, entry.amount], [assetWire(CLW), stroops('40')]);
    assert.deepEqual(entry.ext, { v: 1, v1: { ext: { v: 0 }, flags: CLAIMABLE_BALANCE_CLAWBACK_ENABLED_FLAG } }, 'clawback-enabled, as its line was');
    assert.equal((await accountView(s, holder.publicKey())).numSponsoring, 3);

    // only the issuer may claw a balance back
    const notIssuer = await send(s, holder, [Operation.clawbackClaimableBalance({ balanceId: toClawBack })]);
    assert.deepEqual(opCodes(transactionResult(notIssuer.done)), [CLAWBACK_CB_NOT_ISSUER]);
    const clawback = await applied(s, issuer, [Operation.clawbackClaimableBalance({ balanceId: toClawBack })]);
    assert.deepEqual(await transactionEvents(s, clawback), [assetEvent('clawback', [toClawBack], CLW, stroops('40'))]);
    await assert.rejects(s.getClaimableBalance(toClawBack), /not found/i);
    const holderAfter = await accountView(s, holder.publicKey());
    assert.equal(holderAfter.numSponsoring, 2, 'the reserve went back to the creator');
    assert.equal((await trustLineView(s, holder.publicKey(), CLW))!.balance, stroops('25'), 'nothing returns to the holder');

    // claimed by a claimant with a line; claimed by the issuer, it is burned
    const claimed = await applied(s, claimer, [Operation.claimClaimableBalance({ balanceId: toClaim })]);
    assert.deepEqual(await transactionEvents(s, claimed), [assetEvent('transfer', [toClaim, claimer.publicKey()], CLW, stroops('30'))]);
    assert.equal((await trustLineView(s, claimer.publicKey(), CLW))!.balance, stroops('30'));
    // a wallet watching the balance's address finds both movements, into it and out of it
    const watched = await s.getEvents({ startLedger: create.done.ledger, limit: 20, filters: [
      { type: 'contract', topics: [[symbolTopic('transfer'), '*', addressTopic(toClaim, 'claimableBalance'), '**']] },
      { type: 'contract', topics: [[symbolTopic('transfer'), addressTopic(toClaim, 'claimableBalance'), '*', '**']] },
    ] });
    assert.deepEqual(watched.events.map((e) => [e.txHash, assetEventOf(e).addresses]), [
      [create.hash, [holder.publicKey(), toClaim]], [claimed.hash, [toClaim, claimer.publicKey()]],
    ]);
    const burned = await applied(s, issuer, [Operation.claimClaimableBalance({ balanceId: toIssuer })]);
    assert.deepEqual(await transactionEvents(s, burned), [movement(CLW.toString(), toIssuer, issuer.publicKey(), stroops('5'))]);
    assert.equal((await transactionEvents(s, burned))[0].name, 'burn');
    assert.equal((await accountView(s, holder.publicKey())).numSponsoring, 0);

    // the issuer claws back from a trustline too
    const fromLine = await applied(s, issuer, [Operation.clawback({ from: claimer.publicKey(), asset: CLW, amount: '12.5' })]);
    assert.deepEqual(await transactionEvents(s, fromLine), [assetEvent('clawback', [claimer.publicKey()], CLW, stroops('12.5'))]);
    assert.equal((await trustLineView(s, claimer.publicKey(), CLW))!.balance, stroops('17.5'));

    // an issuer creating a balance of its own asset mints it; without clawback it cannot be clawed back
    const minted = await applied(s, plainIssuer, [Operation.createClaimableBalance({ asset: USD, amount: '7', claimants: [new Claimant(claimer.publicKey())] })]);
    const usdBalance = minted.tx.getClaimableBalanceId(0);
    assert.deepEqual(await transactionEvents(s, minted), [assetEvent('mint', [usdBalance], USD, stroops('7'))]);
    assert.deepEqual((await balanceEntry(usdBalance)).ext, { v: 0 });
    const refused = await send(s, plainIssuer, [Operation.clawbackClaimableBalance({ balanceId: usdBalance })]);
    assert.deepEqual(opCodes(transactionResult(refused.done)), [CLAWBACK_CB_NOT_CLAWBACK_ENABLED]);
    await applied(s, claimer, [Operation.claimClaimableBalance({ balanceId: usdBalance })]);
    assert.equal((await trustLineView(s, claimer.publicKey(), USD))!.balance, stroops('7'));
  });

  it('a fee-bumped creation: the balance id comes from the inner transaction; the fee payer pays only the fee', async () => {
    const [creator, feePayer, claimer] = [await fundedAccount(s), await fundedAccount(s), await fundedAccount(s)];
    const inner = (await builder(s, creator)).addOperation(Operation.createClaimableBalance({
      asset: Asset.native(), amount: '2', claimants: [new Claimant(claimer.publicKey())] })).build();
    inner.sign(creator);
    const bump = TransactionBuilder.buildFeeBumpTransaction(feePayer, '400', inner, PASSPHRASE);
    bump.sign(feePayer);
    const [creatorBefore, payerBefore] = [await accountView(s, creator.publicKey()), await accountView(s, feePayer.publicKey())];
    const { sent, done } = await submit(s, bump);
    assert.equal(done.status, 'SUCCESS');
    const result = xdr.TransactionResult.schema.decode((done as Done).resultXdr.toXdr());
    const id = inner.getClaimableBalanceId(0);
    const arm = opArm(result, 0) as { code: number; balanceId: xdr.ClaimableBalanceIdWire };
    assert.equal(Buffer.from(xdr.ClaimableBalanceId.schema.encode(arm.balanceId)).toString('hex'), id);
    assert.equal((await balanceEntry(id)).amount, stroops('2'));
    assert.equal((await accountView(s, feePayer.publicKey())).balance, payerBefore.balance - result.feeCharged);
    const creatorAfter = await accountView(s, creator.publicKey());
    assert.deepEqual([creatorAfter.balance, creatorAfter.numSponsoring], [creatorBefore.balance - stroops('2'), 1], 'the creator pays the amount and the reserve, not the fee');
    assert.deepEqual(await transactionEvents(s, { hash: sent.hash, done: done as Done }), [assetEvent('transfer', [creator.publicKey(), id], Asset.native(), stroops('2'))]);
  });

  it('every ledger and transaction of these flows decodes with the SDK and renders as JSON', async () => {
    const transactions = await readBackEverything(s, node.rpc, firstLedger);
    assert.ok(transactions >= 10, `${transactions} transactions`);
  });
});
