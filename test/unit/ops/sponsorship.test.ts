// Sponsored reserves (CAP-33) through whole transactions: BeginSponsoringFutureReserves and
// EndSponsoringFutureReserves around the operations that create entries and signers, the counters
// they leave, txBAD_SPONSORSHIP, and how merges, one-time signers and validation treat sponsorship.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import type { xdr } from '@stellar/stellar-sdk';
import { accountKey, type Asset, type LedgerEntry, type LedgerKey } from '../../../src/xdr/codec.ts';
import { UINT32_MAX } from '../../../src/ledger/ops/accounts.ts';
import { BASE_RESERVE, MemoryState, XLM, accountEntry, credit, runOp, innerCode, trustLineEntry } from './support.ts';
import { FEE_PER_OP, TestLedger, idOf } from './closeSupport.ts';
import {
  begin, changeTrust, countersOf, createAccount, dataKeyOf, ed25519Signer, end, hexOf, manageData, merge, opCodes,
  revokeEntry, setSigner, sponsorOfEntry, trustKeyOf,
} from './sponsorshipSupport.ts';

const NATIVE: Asset = { type: 0 };

const R = BigInt(BASE_RESERVE);
const fees = (ops: number): bigint => BigInt(FEE_PER_OP * ops);

/** AccountEntry extension with sponsorship counters, for accounts a test starts from. */
function sponsorshipExt(numSponsoring: number, numSponsored: number, signerSponsoringIDs: Array<xdr.PublicKeyWire | null> = []) {
  return {
    v: 1 as const,
    v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2 as const, v2: { numSponsored, numSponsoring, signerSponsoringIDs, ext: { v: 0 as const } } } },
  };
}

describe('sponsored account creation', () => {
  it('begin by A for B, create B with nothing, end by B: A pays both of B\'s reserves', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM)]);
    const ledger = new TestLedger(state);
    const seq = ledger.nextSeq;
    const { result } = ledger.run(a, [{ body: begin(b) }, { body: createAccount(b, 0n) }, { body: end(), source: b }], [a, b]);
    assert.equal(result.result.code, 0);
    assert.deepEqual(opCodes(result), [0, 0, 0]);

    assert.deepEqual(countersOf(state, b), { balance: 0n, numSubEntries: 0, numSponsoring: 0, numSponsored: 2, signerSponsors: [] });
    assert.equal(sponsorOfEntry(state, accountKey(idOf(b))), hexOf(a));
    assert.equal(state.account(idOf(b))!.seqNum, BigInt(seq) << 32n);
    assert.deepEqual(countersOf(state, a), { balance: 100n * XLM - fees(3), numSubEntries: 0, numSponsoring: 2, numSponsored: 0, signerSponsors: [] });
    assert.equal(sponsorOfEntry(state, accountKey(idOf(a))), null);
  });

  it('the starting balance must fit in what the sponsor has left once it holds the new reserve', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    // A's own two reserves, two for B, one lumen to give, and two transactions' fees
    const state = new MemoryState([accountEntry(idOf(a), 4n * R + XLM + 2n * fees(3))]);
    const ledger = new TestLedger(state);
    const ops = (amount: bigint) => [{ body: begin(b) }, { body: createAccount(b, amount) }, { body: end(), source: b }];

    const under = ledger.run(a, ops(XLM + fees(3) + 1n), [a, b]);
    assert.deepEqual(opCodes(under.result), [0, -2, 'opNO_ACCOUNT'], 'UNDERFUNDED; B then does not exist to end the sponsorship');
    assert.equal(state.account(idOf(b)), undefined);

    const exact = ledger.run(a, ops(XLM), [a, b]);
    assert.deepEqual(opCodes(exact.result), [0, 0, 0]);
    assert.equal(countersOf(state, a).balance, 4n * R, 'A is left with exactly its reserve, B\'s included');
    assert.equal(countersOf(state, b).balance, XLM);
  });

  it('LOW_RESERVE when the sponsor cannot afford two more reserves', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 4n * R - 1n + fees(3))]);
    const { result } = new TestLedger(state).run(a, [{ body: begin(b) }, { body: createAccount(b, 0n) }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(result), [0, -3, 'opNO_ACCOUNT']);
    assert.equal(countersOf(state, a).numSponsoring, 0);
  });
});

describe('sponsored sub-entries and signers', () => {
  it('a sponsored trustline, data entry and signer count for the sponsor, and release it when removed', () => {
    const [a, b, issuer, signer] = [Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random()];
    const usd = credit('USD', idOf(issuer));
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10n * XLM), accountEntry(idOf(issuer), 10n * XLM)]);
    const ledger = new TestLedger(state);
    const created = ledger.run(a, [
      { body: begin(b) },
      { body: changeTrust(usd, 1000n), source: b },
      { body: manageData('k', 'v'), source: b },
      { body: setSigner(ed25519Signer(signer), 1), source: b },
      { body: end(), source: b },
    ], [a, b]);
    assert.deepEqual(opCodes(created.result), [0, 0, 0, 0, 0]);
    assert.deepEqual(countersOf(state, b), { balance: 10n * XLM, numSubEntries: 3, numSponsoring: 0, numSponsored: 3, signerSponsors: [hexOf(a)] });
    assert.deepEqual(countersOf(state, a), { balance: 100n * XLM - fees(5), numSubEntries: 0, numSponsoring: 3, numSponsored: 0, signerSponsors: [] });
    assert.equal(sponsorOfEntry(state, trustKeyOf(b, usd)), hexOf(a));
    assert.equal(sponsorOfEntry(state, dataKeyOf(b, 'k')), hexOf(a));

    const removed = ledger.run(b, [{ body: changeTrust(usd, 0n) }, { body: manageData('k', null) }, { body: setSigner(ed25519Signer(signer), 0) }]);
    assert.deepEqual(opCodes(removed.result), [0, 0, 0]);
    assert.deepEqual(countersOf(state, b), { balance: 10n * XLM - fees(3), numSubEntries: 0, numSponsoring: 0, numSponsored: 0, signerSponsors: [] });
    assert.equal(countersOf(state, a).numSponsoring, 0);
  });

  it('what B creates after ending the sponsorship is its own again', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10n * XLM)]);
    const { result } = new TestLedger(state).run(a, [
      { body: begin(b) }, { body: manageData('sponsored', 'x'), source: b }, { body: end(), source: b }, { body: manageData('own', 'y'), source: b },
    ], [a, b]);
    assert.deepEqual(opCodes(result), [0, 0, 0, 0]);
    assert.equal(sponsorOfEntry(state, dataKeyOf(b, 'sponsored')), hexOf(a));
    assert.equal(sponsorOfEntry(state, dataKeyOf(b, 'own')), null);
    assert.deepEqual([countersOf(state, b).numSubEntries, countersOf(state, b).numSponsored, countersOf(state, a).numSponsoring], [2, 1, 1]);
  });

  it('LOW_RESERVE of each operation is the sponsor\'s, however rich the sponsored account', () => {
    const [a, b, issuer, signer] = [Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random()];
    const state = new MemoryState([
      accountEntry(idOf(a), 3n * R - 1n + fees(5)), accountEntry(idOf(b), 1000n * XLM), accountEntry(idOf(issuer), 10n * XLM),
    ]);
    const { result } = new TestLedger(state).run(a, [
      { body: begin(b) },
      { body: manageData('k', 'v'), source: b },
      { body: setSigner(ed25519Signer(signer), 1), source: b },
      { body: changeTrust(credit('USD', idOf(issuer)), 10n), source: b },
      { body: end(), source: b },
    ], [a, b]);
    assert.deepEqual(opCodes(result), [0, -3, -1, -4, 0]);
  });

  it('opTOO_MANY_SPONSORING from every creating operation when the sponsor\'s counters are full', () => {
    const [a, b, d, issuer, signer] = [Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random()];
    const rich = 3n * 10n ** 16n;
    const state = new MemoryState([
      accountEntry(idOf(a), rich, { ext: sponsorshipExt(UINT32_MAX, 0) }),
      accountEntry(idOf(b), 100n * XLM), accountEntry(idOf(issuer), 10n * XLM),
    ]);
    const { result } = new TestLedger(state).run(a, [
      { body: begin(b) },
      { body: manageData('k', 'v'), source: b },
      { body: changeTrust(credit('USD', idOf(issuer)), 10n), source: b },
      { body: setSigner(ed25519Signer(signer), 1), source: b },
      { body: end(), source: b },
      { body: begin(d) },
      { body: createAccount(d, 0n) },
      { body: end(), source: d },
    ], [a, b, d]);
    assert.deepEqual(opCodes(result), [0, 'opTOO_MANY_SPONSORING', 'opTOO_MANY_SPONSORING', 'opTOO_MANY_SPONSORING', 0, 0, 'opTOO_MANY_SPONSORING', 'opNO_ACCOUNT']);
  });

  it('numSponsoring plus the sponsor\'s own sub-entries may not pass 2^32 - 1 either (core\'s protocol 18 rule)', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([
      accountEntry(idOf(a), 3n * 10n ** 16n, { numSubEntries: 5, ext: sponsorshipExt(UINT32_MAX - 5, 0) }),
      accountEntry(idOf(b), 100n * XLM),
    ]);
    const full = new TestLedger(state).run(a, [{ body: begin(b) }, { body: manageData('k', 'v'), source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(full.result), [0, 'opTOO_MANY_SPONSORING', 0]);

    const roomy = new MemoryState([
      accountEntry(idOf(a), 3n * 10n ** 16n, { numSubEntries: 4, ext: sponsorshipExt(UINT32_MAX - 5, 0) }),
      accountEntry(idOf(b), 100n * XLM),
    ]);
    const fits = new TestLedger(roomy).run(a, [{ body: begin(b) }, { body: manageData('k', 'v'), source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(fits.result), [0, 0, 0]);
    assert.equal(countersOf(roomy, a).numSponsoring, UINT32_MAX - 4);
  });

  it('opTOO_MANY_SUBENTRIES counts the sponsored account\'s sub-entries', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10_000n * XLM, { numSubEntries: 1000 })]);
    const { result } = new TestLedger(state).run(a, [{ body: begin(b) }, { body: manageData('k', 'v'), source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(result), [0, 'opTOO_MANY_SUBENTRIES', 0]);
  });
});

describe('sponsored offers', () => {
  const sell = (selling: Asset, buying: Asset, amount: bigint): xdr.OperationBodyWire =>
    ({ type: 3, manageSellOfferOp: { selling, buying, amount, price: { n: 1, d: 1 }, offerId: 0n } });

  /** B's offer selling 10 USD for lumens, its reserve paid by A. */
  function sponsoredOffer() {
    const [a, b, c, issuer] = [Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random()];
    const usd = credit('USD', idOf(issuer));
    const state = new MemoryState([
      accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(issuer), 100n * XLM),
      accountEntry(idOf(b), 100n * XLM, { numSubEntries: 1 }), trustLineEntry(idOf(b), usd, 100n * XLM, 1000n * XLM, 1),
      accountEntry(idOf(c), 100n * XLM, { numSubEntries: 1 }), trustLineEntry(idOf(c), usd, 0n, 1000n * XLM, 1),
    ]);
    const ledger = new TestLedger(state);
    const { result } = ledger.run(a, [{ body: begin(b) }, { body: sell(usd, NATIVE, 10n * XLM), source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(result), [0, 0, 0]);
    const [offer] = state.offers(usd, NATIVE).map((e) => (e.data as Extract<LedgerEntry['data'], { type: 2 }>).offer);
    const key: LedgerKey = { type: 2, offer: { sellerId: idOf(b), offerId: offer.offerId } };
    assert.equal(sponsorOfEntry(state, key), hexOf(a));
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, b).numSponsored, countersOf(state, b).numSubEntries], [1, 1, 2]);
    return { a, b, c, usd, state, ledger, key };
  }

  it('the sponsor of an offer can hand its reserve back to the seller', () => {
    const { a, b, state, key } = sponsoredOffer();
    assert.equal(innerCode(runOp(state, revokeEntry(key), idOf(a)).outcome), 0);
    assert.equal(sponsorOfEntry(state, key), null);
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, b).numSponsored, countersOf(state, b).numSubEntries], [0, 0, 2]);
  });

  it('an offer taken in full releases its sponsor\'s reserve', () => {
    const { a, b, c, usd, state, ledger, key } = sponsoredOffer();
    const { result } = ledger.run(c, [{ body: sell(NATIVE, usd, 10n * XLM) }]);
    assert.deepEqual(opCodes(result), [0]);
    assert.equal(state.get(key), undefined);
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, b).numSponsored, countersOf(state, b).numSubEntries], [0, 0, 1]);
  });
});

describe('sponsored claimable balances', () => {
  it('a balance created under a sponsorship holds the sponsor\'s reserves, one per claimant, until claimed', () => {
    const [a, b, x, y] = [Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 100n * XLM), accountEntry(idOf(x), 10n * XLM)]);
    const ledger = new TestLedger(state);
    const create: xdr.OperationBodyWire = {
      type: 14,
      createClaimableBalanceOp: {
        asset: NATIVE, amount: 5n * XLM,
        claimants: [x, y].map((k) => ({ type: 0 as const, v0: { destination: idOf(k), predicate: { type: 0 as const } } })),
      },
    };
    const made = ledger.run(a, [{ body: begin(b) }, { body: create, source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(made.result), [0, 0, 0]);
    const body = made.result.result;
    if (body.code !== 0) throw new Error('success expected');
    const tr = body.results[1].code === 0 ? body.results[1].tr : undefined;
    if (tr?.type !== 14 || tr.createClaimableBalanceResult.code !== 0) throw new Error('a balance id expected');
    const balanceId = tr.createClaimableBalanceResult.balanceId;
    const key: LedgerKey = { type: 4, claimableBalance: { balanceId } };
    assert.equal(sponsorOfEntry(state, key), hexOf(a));
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, b).numSponsoring, countersOf(state, b).numSponsored], [2, 0, 0]);
    assert.equal(countersOf(state, b).balance, 95n * XLM);

    const claimed = ledger.run(x, [{ body: { type: 15, claimClaimableBalanceOp: { balanceId } } }]);
    assert.deepEqual(opCodes(claimed.result), [0]);
    assert.equal(state.get(key), undefined);
    assert.equal(countersOf(state, a).numSponsoring, 0);
    assert.equal(countersOf(state, x).balance, 15n * XLM - fees(1));
  });
});

describe('BeginSponsoringFutureReserves and EndSponsoringFutureReserves', () => {
  it('one account may sponsor several at once; each ends its own', () => {
    const [a, b, c] = [Keypair.random(), Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10n * XLM), accountEntry(idOf(c), 10n * XLM)]);
    const { result } = new TestLedger(state).run(a, [
      { body: begin(b) }, { body: begin(c) },
      { body: manageData('b', '1'), source: b }, { body: manageData('c', '1'), source: c },
      { body: end(), source: b }, { body: end(), source: c },
    ], [a, b, c]);
    assert.equal(result.result.code, 0);
    assert.equal(countersOf(state, a).numSponsoring, 2);
    assert.equal(sponsorOfEntry(state, dataKeyOf(c, 'c')), hexOf(a));
  });

  it('ALREADY_SPONSORED, RECURSIVE both ways, NOT_SPONSORED', () => {
    const [a, b, c] = [Keypair.random(), Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10n * XLM), accountEntry(idOf(c), 10n * XLM)]);
    const ledger = new TestLedger(state);
    const twice = ledger.run(a, [{ body: begin(b) }, { body: begin(b), source: c }, { body: end(), source: b }], [a, b, c]);
    assert.deepEqual(opCodes(twice.result), [0, -2, 0]);
    const sponsoredSponsors = ledger.run(a, [{ body: begin(b) }, { body: begin(c), source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(sponsoredSponsors.result), [0, -3, 0]);
    const sponsorSponsored = ledger.run(a, [{ body: begin(b) }, { body: begin(a), source: c }, { body: end(), source: b }], [a, b, c]);
    assert.deepEqual(opCodes(sponsorSponsored.result), [0, -3, 0]);
    const notSponsored = ledger.run(a, [{ body: end() }]);
    assert.deepEqual(opCodes(notSponsored.result), [-1]);
    // a second end finds nothing to end
    const endTwice = ledger.run(a, [{ body: begin(b) }, { body: end(), source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(endTwice.result), [0, 0, -1]);
  });

  it('MALFORMED: an account cannot sponsor itself (refused when validated)', () => {
    const a = Keypair.random();
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM)]);
    const checked = runOp(state, begin(a), idOf(a));
    assert.equal(checked.stage, 'checkValid');
    assert.equal(innerCode(checked.outcome), -1);
    const { result } = new TestLedger(state).run(a, [{ body: begin(a) }]);
    assert.deepEqual(opCodes(result), [-1]);
  });

  it('both are medium-threshold operations', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    // master weight 1 reaches low (1) but not medium (2)
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM, { thresholds: new Uint8Array([1, 1, 2, 2]) }), accountEntry(idOf(b), 10n * XLM)]);
    const { result } = new TestLedger(state).run(a, [{ body: begin(b) }, { body: end() }]);
    assert.deepEqual(opCodes(result), ['opBAD_AUTH', 'opBAD_AUTH']);
  });
});

describe('txBAD_SPONSORSHIP', () => {
  it('a sponsorship left open fails the transaction: no operation results, no changes beyond fee and sequence', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10n * XLM)]);
    const ledger = new TestLedger(state);
    const seqBefore = state.account(idOf(a))!.seqNum;
    const { result, meta } = ledger.run(a, [{ body: begin(b) }, { body: manageData('k', 'v'), source: b }], [a, b]);
    assert.deepEqual(result.result, { code: -14 });
    assert.equal(result.feeCharged, fees(2));
    assert.equal(meta.v === 4 && meta.v4.operations.length, 0);
    assert.equal(state.data(idOf(b), 'k'), undefined);
    assert.deepEqual(countersOf(state, a), { balance: 100n * XLM - fees(2), numSubEntries: 0, numSponsoring: 0, numSponsored: 0, signerSponsors: [] });
    assert.equal(state.account(idOf(a))!.seqNum, seqBefore + 1n);
    assert.equal(countersOf(state, b).numSponsored, 0);
  });

  it('inside a fee bump: txFEE_BUMP_INNER_FAILED around txBAD_SPONSORSHIP', () => {
    const [a, b, payer] = [Keypair.random(), Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10n * XLM), accountEntry(idOf(payer), 10n * XLM)]);
    const ledger = new TestLedger(state);
    const inner = ledger.tx(a, [{ body: begin(b) }, { body: manageData('k', 'v'), source: b }], [a, b]);
    const closed = ledger.close([ledger.feeBump(inner, payer)]);
    const { result } = closed.meta.v2.txProcessing[0].result;
    assert.equal(result.result.code, -13);
    if (result.result.code !== -13) return;
    assert.deepEqual(result.result.innerResultPair.result.result, { code: -14 });
    assert.equal(state.data(idOf(b), 'k'), undefined);
    assert.equal(countersOf(state, payer).balance, 10n * XLM - fees(3));
  });

  it('an operation failing first makes it txFAILED; a sponsorship ended in time does not count', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10n * XLM)]);
    const ledger = new TestLedger(state);
    const failed = ledger.run(a, [{ body: begin(b) }, { body: manageData('missing', null), source: b }], [a, b]);
    assert.equal(failed.result.result.code, -1);
    assert.deepEqual(opCodes(failed.result), [0, -2]);
    const opened = ledger.run(a, [{ body: begin(b) }, { body: end(), source: b }, { body: begin(b) }], [a, b]);
    assert.deepEqual(opened.result.result, { code: -14 }, 'the last sponsorship is still open');
    const closed = ledger.run(a, [{ body: begin(b) }, { body: end(), source: b }], [a, b]);
    assert.equal(closed.result.result.code, 0);
  });
});

describe('AccountMerge and sponsorship', () => {
  it('IS_SPONSOR while the source has a sponsorship open in the transaction', () => {
    const [a, b, c] = [Keypair.random(), Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10n * XLM), accountEntry(idOf(c), 10n * XLM)]);
    const { result } = new TestLedger(state).run(a, [{ body: begin(b) }, { body: merge(c) }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(result), [0, -7, 0]);
  });

  it('IS_SPONSOR while the source sponsors an entry', () => {
    const [a, b, c] = [Keypair.random(), Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10n * XLM), accountEntry(idOf(c), 10n * XLM)]);
    const ledger = new TestLedger(state);
    ledger.run(a, [{ body: begin(b) }, { body: manageData('k', 'v'), source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(ledger.run(a, [{ body: merge(c) }]).result), [-7]);
  });

  it('merging a sponsored account into its sponsor releases the account\'s and its signers\' reserves', () => {
    const [a, b, signer] = [Keypair.random(), Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM)]);
    const ledger = new TestLedger(state);
    const made = ledger.run(a, [
      { body: begin(b) }, { body: createAccount(b, 5n * XLM) }, { body: setSigner(ed25519Signer(signer), 1), source: b }, { body: end(), source: b },
    ], [a, b]);
    assert.deepEqual(opCodes(made.result), [0, 0, 0, 0]);
    assert.deepEqual(countersOf(state, b), { balance: 5n * XLM, numSubEntries: 1, numSponsoring: 0, numSponsored: 3, signerSponsors: [hexOf(a)] });
    assert.equal(countersOf(state, a).numSponsoring, 3);

    const aBefore = countersOf(state, a).balance;
    const merged = ledger.run(b, [{ body: merge(a) }]);
    assert.deepEqual(opCodes(merged.result), [0]);
    assert.equal(state.account(idOf(b)), undefined);
    assert.deepEqual(countersOf(state, a), { balance: aBefore + 5n * XLM - fees(1), numSubEntries: 0, numSponsoring: 0, numSponsored: 0, signerSponsors: [] });
  });
});

describe('one-time signers', () => {
  it('a sponsored pre-authorized signer is removed with its sponsorship once its transaction applies', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM, { ext: sponsorshipExt(1, 0) }), accountEntry(idOf(b), 10n * XLM)]);
    const ledger = new TestLedger(state);
    // authorized by its hash alone: a signature besides would go unused (txBAD_AUTH_EXTRA)
    const frame = ledger.tx(b, [{ body: manageData('k', 'v') }], []);
    state.put(accountEntry(idOf(b), 10n * XLM, {
      numSubEntries: 1, signers: [{ key: { type: 1, preAuthTx: frame.innerHash }, weight: 1 }], ext: sponsorshipExt(0, 1, [idOf(a)]),
    }));
    const closed = ledger.close([frame]);
    assert.equal(closed.meta.v2.txProcessing[0].result.result.result.code, 0);
    assert.deepEqual(countersOf(state, b), { balance: 10n * XLM - fees(1), numSubEntries: 1, numSponsoring: 0, numSponsored: 0, signerSponsors: [] });
    assert.equal(countersOf(state, a).numSponsoring, 0);
  });
});

describe('validation of operations whose source an earlier operation creates', () => {
  it('the new account\'s key must have signed', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM)]);
    const { result } = new TestLedger(state).run(a, [{ body: begin(b) }, { body: createAccount(b, 0n) }, { body: end(), source: b }], [a]);
    assert.deepEqual(opCodes(result), [0, 0, 'opBAD_AUTH']);
    assert.equal(state.account(idOf(b)), undefined);
  });

  it('and if nothing creates it, applying finds no account', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM)]);
    const { result } = new TestLedger(state).run(a, [{ body: begin(b) }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(result), [0, 'opNO_ACCOUNT']);
  });
});
