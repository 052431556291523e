// RevokeSponsorship: removing a sponsorship back to the owner, transferring it to the account
// sponsoring the source, establishing one on an entry the owner paid for, for every kind of entry
// that carries a reserve and for signers, and every failure code.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import type { xdr } from '../../../src/xdr/xdr.ts';
import { accountKey, type LedgerEntry, type LedgerKey } from '../../../src/xdr/codec.ts';
import { UINT32_MAX } from '../../../src/ledger/ops/accounts.ts';
import { revokeSponsorship } from '../../../src/ledger/ops/revokeSponsorship.ts';
import { BASE_RESERVE, MemoryState, XLM, accountEntry, credit, innerCode, runOp, ledgerContext } from './support.ts';
import { TestLedger, idOf } from './closeSupport.ts';
import {
  begin, changeTrust, countersOf, createAccount, dataKeyOf, ed25519Signer, end, hexOf, manageData, opCodes, revokeEntry,
  revokeSigner, setSigner, sponsorOfEntry, trustKeyOf,
} from './sponsorshipSupport.ts';

const R = BigInt(BASE_RESERVE);

/**
 * A (sponsor), B (owner) and C, where A sponsors B's data entry 'k', trustline to USD and signer S,
 * made by a real transaction. B holds `bBalance`.
 */
function sponsoredByA(bBalance = 10n * XLM) {
  const [a, b, c, issuer, signer] = [Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random()];
  const usd = credit('USD', idOf(issuer));
  const state = new MemoryState([
    accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), bBalance), accountEntry(idOf(c), 100n * XLM), accountEntry(idOf(issuer), 10n * XLM),
  ]);
  const ledger = new TestLedger(state);
  const made = ledger.run(a, [
    { body: begin(b) }, { body: manageData('k', 'v'), source: b }, { body: changeTrust(usd, 100n), source: b },
    { body: setSigner(ed25519Signer(signer), 1), source: b }, { body: end(), source: b },
  ], [a, b]);
  assert.deepEqual(opCodes(made.result), [0, 0, 0, 0, 0]);
  return { a, b, c, signer, usd, state, ledger, data: dataKeyOf(b, 'k'), trust: trustKeyOf(b, usd) };
}

const revokeCode = (state: MemoryState, body: xdr.OperationBodyWire, source: Keypair): number | string => {
  const { outcome } = runOp(state, body, idOf(source));
  return outcome.code !== undefined ? `op${outcome.code}` : innerCode(outcome);
};

describe('RevokeSponsorship of ledger entries', () => {
  it('the sponsor gives a data entry and a trustline back to their owner', () => {
    const { a, b, state, data, trust } = sponsoredByA();
    const run = runOp(state, revokeEntry(data), idOf(a));
    assert.equal(innerCode(run.outcome), 0);
    assert.equal(sponsorOfEntry(state, data), null);
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, b).numSponsored, countersOf(state, b).numSubEntries], [2, 2, 3]);
    assert.equal(run.changes.filter((c) => c.type === 1).length, 3, 'the entry, the sponsor and the owner are updated');

    assert.equal(revokeCode(state, revokeEntry(trust), a), 0);
    assert.equal(sponsorOfEntry(state, trust), null);
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, b).numSponsored, countersOf(state, b).numSubEntries], [1, 1, 3]);
  });

  it('LOW_RESERVE when the owner cannot take the reserve back', () => {
    // B's balance covers its two own reserves and less than one more
    const { a, b, state, data } = sponsoredByA(2n * R + R - 1n);
    assert.equal(revokeCode(state, revokeEntry(data), a), -3);
    assert.equal(sponsorOfEntry(state, data), hexOf(a));
    assert.equal(countersOf(state, b).numSponsored, 3);
  });

  it('transfers to the account sponsoring the source\'s future reserves', () => {
    const { a, b, c, state, ledger, data } = sponsoredByA();
    const { result } = ledger.run(a, [{ body: begin(a), source: c }, { body: revokeEntry(data) }, { body: end() }], [a, c]);
    assert.deepEqual(opCodes(result), [0, 0, 0]);
    assert.equal(sponsorOfEntry(state, data), hexOf(c));
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, c).numSponsoring, countersOf(state, b).numSponsored], [2, 1, 3]);
  });

  it('a transfer needs the new sponsor\'s reserve: LOW_RESERVE, opTOO_MANY_SPONSORING', () => {
    const { a, c, state, ledger, data } = sponsoredByA();
    const poor = Keypair.random();
    state.put(accountEntry(idOf(poor), 3n * R - 1n));
    const low = ledger.run(a, [{ body: begin(a), source: poor }, { body: revokeEntry(data) }, { body: end() }], [a, poor]);
    assert.deepEqual(opCodes(low.result), [0, -3, 0]);

    state.put(accountEntry(idOf(c), 3n * 10n ** 16n, { ext: v2Ext(UINT32_MAX, 0) }));
    const full = ledger.run(a, [{ body: begin(a), source: c }, { body: revokeEntry(data) }, { body: end() }], [a, c]);
    assert.deepEqual(opCodes(full.result), [0, 'opTOO_MANY_SPONSORING', 0]);
    assert.equal(sponsorOfEntry(state, data), hexOf(a));
  });

  it('when the owner sponsors the source, the owner pays again (removal)', () => {
    const { a, b, state, ledger, data } = sponsoredByA();
    const { result } = ledger.run(a, [{ body: begin(a), source: b }, { body: revokeEntry(data) }, { body: end() }], [a, b]);
    assert.deepEqual(opCodes(result), [0, 0, 0]);
    assert.equal(sponsorOfEntry(state, data), null);
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, b).numSponsored], [2, 2]);
  });

  it('the owner hands its own entry to a sponsor (establishment)', () => {
    const { a, b, state, ledger } = sponsoredByA();
    ledger.run(b, [{ body: manageData('own', 'x') }]);
    const own = dataKeyOf(b, 'own');
    assert.equal(sponsorOfEntry(state, own), null);
    const { result } = ledger.run(a, [{ body: begin(b) }, { body: revokeEntry(own), source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(result), [0, 0, 0]);
    assert.equal(sponsorOfEntry(state, own), hexOf(a));
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, b).numSponsored, countersOf(state, b).numSubEntries], [4, 4, 4]);
  });

  it('the owner of an unsponsored entry with no sponsor in sight changes nothing, but the entry is recorded', () => {
    const { b, state, ledger } = sponsoredByA();
    ledger.run(b, [{ body: manageData('own', 'x') }]);
    const own = dataKeyOf(b, 'own');
    const before = countersOf(state, b);
    const run = runOp(state, revokeEntry(own), idOf(b));
    assert.equal(innerCode(run.outcome), 0);
    assert.deepEqual(run.changes.map((c) => c.type), [3, 1]);
    assert.equal(sponsorOfEntry(state, own), null);
    assert.deepEqual(countersOf(state, b), before);
  });

  it('NOT_SPONSOR: neither a third account nor the owner of a sponsored entry, nor anyone but the owner of an unsponsored one', () => {
    const { a, b, c, state, ledger, data } = sponsoredByA();
    assert.equal(revokeCode(state, revokeEntry(data), c), -2);
    assert.equal(revokeCode(state, revokeEntry(data), b), -2);
    ledger.run(b, [{ body: manageData('own', 'x') }]);
    assert.equal(revokeCode(state, revokeEntry(dataKeyOf(b, 'own')), a), -2);
  });

  it('DOES_NOT_EXIST', () => {
    const { a, b, state } = sponsoredByA();
    assert.equal(revokeCode(state, revokeEntry(dataKeyOf(b, 'missing')), a), -1);
    assert.equal(revokeCode(state, revokeEntry(accountKey(idOf(Keypair.random()))), a), -1);
  });

  it('MALFORMED keys are refused when validated', () => {
    const a = Keypair.random();
    const issuer = Keypair.random();
    const usd = credit('USD', idOf(issuer));
    const bad: LedgerKey[] = [
      { type: 1, trustLine: { accountId: idOf(a), asset: { type: 0 } } },
      { type: 1, trustLine: { accountId: idOf(issuer), asset: usd as xdr.TrustLineAssetWire } },
      { type: 1, trustLine: { accountId: idOf(a), asset: { type: 1, alphaNum4: { assetCode: new Uint8Array([0, 0x41, 0, 0]), issuer: idOf(issuer) } } } },
      { type: 2, offer: { sellerId: idOf(a), offerId: 0n } },
      dataKeyOf(a, ''),
      dataKeyOf(a, 'bad\nname'),
      { type: 5, liquidityPool: { liquidityPoolId: new Uint8Array(32) } },
      { type: 8, configSetting: { configSettingId: 0 } },
    ];
    const state = new MemoryState([accountEntry(idOf(a), 10n * XLM)]);
    for (const key of bad) {
      const run = runOp(state, revokeEntry(key), idOf(a));
      assert.equal(run.stage, 'checkValid', `key type ${key.type}`);
      assert.equal(innerCode(run.outcome), -5, `key type ${key.type}`);
    }
    const ctx = { ledger: ledgerContext(), source: idOf(a), sourceMuxed: { type: 0 as const, ed25519: idOf(a).ed25519 } };
    for (const key of [accountKey(idOf(a)), trustKeyOf(a, usd), dataKeyOf(a, 'ok'), { type: 2, offer: { sellerId: idOf(a), offerId: 1n } } as LedgerKey]) {
      assert.equal(revokeSponsorship.checkValid(revokeEntry(key) as Extract<xdr.OperationBodyWire, { type: 18 }>, ctx), null);
    }
  });

  it('is a medium-threshold operation', () => {
    const body = revokeEntry(accountKey(idOf(Keypair.random()))) as Extract<xdr.OperationBodyWire, { type: 18 }>;
    assert.equal(revokeSponsorship.threshold(body), 'medium');
  });
});

describe('RevokeSponsorship of an account entry', () => {
  it('the sponsor of a new account hands it its two reserves once it can hold them', () => {
    const [a, b] = [Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM)]);
    const ledger = new TestLedger(state);
    ledger.run(a, [{ body: begin(b) }, { body: createAccount(b, 0n) }, { body: end(), source: b }], [a, b]);
    assert.equal(revokeCode(state, revokeEntry(accountKey(idOf(b))), a), -3, 'B holds nothing');

    const pay: xdr.OperationBodyWire = { type: 1, paymentOp: { destination: { type: 0, ed25519: idOf(b).ed25519 }, asset: { type: 0 }, amount: 2n * R } };
    assert.deepEqual(opCodes(ledger.run(a, [{ body: pay }]).result), [0]);
    assert.equal(revokeCode(state, revokeEntry(accountKey(idOf(b))), a), 0);
    assert.equal(sponsorOfEntry(state, accountKey(idOf(b))), null);
    assert.deepEqual(countersOf(state, b), { balance: 2n * R, numSubEntries: 0, numSponsoring: 0, numSponsored: 0, signerSponsors: [] });
    assert.equal(countersOf(state, a).numSponsoring, 0);
  });
});

describe('RevokeSponsorship of a claimable balance', () => {
  function withBalance() {
    const [a, c, x, y] = [Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random()];
    const balanceId: xdr.ClaimableBalanceIdWire = { type: 0, v0: new Uint8Array(32).fill(9) };
    const balance: LedgerEntry = {
      lastModifiedLedgerSeq: 1,
      data: {
        type: 4,
        claimableBalance: {
          balanceId,
          claimants: [x, y].map((k) => ({ type: 0 as const, v0: { destination: idOf(k), predicate: { type: 0 as const } } })),
          asset: { type: 0 }, amount: 10n, ext: { v: 0 },
        },
      },
      ext: { v: 1, v1: { sponsoringId: idOf(a), ext: { v: 0 } } },
    };
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM, { ext: v2Ext(2, 0) }), accountEntry(idOf(c), 100n * XLM), balance]);
    const key: LedgerKey = { type: 4, claimableBalance: { balanceId } };
    return { a, c, state, key };
  }

  it('ONLY_TRANSFERABLE: no owner to hand it back to; NOT_SPONSOR for anyone but its sponsor', () => {
    const { a, c, state, key } = withBalance();
    assert.equal(revokeCode(state, revokeEntry(key), a), -4);
    assert.equal(revokeCode(state, revokeEntry(key), c), -2);
  });

  it('transfers to the source\'s sponsor, with a reserve per claimant', () => {
    const { a, c, state, key } = withBalance();
    const { result } = new TestLedger(state).run(a, [{ body: begin(a), source: c }, { body: revokeEntry(key) }, { body: end() }], [a, c]);
    assert.deepEqual(opCodes(result), [0, 0, 0]);
    assert.equal(sponsorOfEntry(state, key), hexOf(c));
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, c).numSponsoring], [0, 2]);
  });
});

describe('RevokeSponsorship of signers', () => {
  it('transfer, removal and establishment of a signer\'s sponsorship', () => {
    const { a, b, c, signer, state, ledger } = sponsoredByA();
    const key = ed25519Signer(signer);
    assert.equal(revokeCode(state, revokeSigner(b, key), c), -2, 'C does not pay for it');
    assert.equal(revokeCode(state, revokeSigner(b, key), b), -2, 'nor does B');

    const moved = ledger.run(a, [{ body: begin(a), source: c }, { body: revokeSigner(b, key) }, { body: end() }], [a, c]);
    assert.deepEqual(opCodes(moved.result), [0, 0, 0]);
    assert.deepEqual(countersOf(state, b).signerSponsors, [hexOf(c)]);
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, c).numSponsoring, countersOf(state, b).numSponsored], [2, 1, 3]);

    assert.equal(revokeCode(state, revokeSigner(b, key), c), 0);
    assert.deepEqual(countersOf(state, b).signerSponsors, [null]);
    assert.deepEqual([countersOf(state, c).numSponsoring, countersOf(state, b).numSponsored, countersOf(state, b).numSubEntries], [0, 2, 3]);

    const back = ledger.run(a, [{ body: begin(b) }, { body: revokeSigner(b, key), source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(back.result), [0, 0, 0]);
    assert.deepEqual(countersOf(state, b).signerSponsors, [hexOf(a)]);
    assert.deepEqual([countersOf(state, a).numSponsoring, countersOf(state, b).numSponsored], [3, 3]);
  });

  it('an account that never had sponsorship counters hands its signer to a sponsor', () => {
    const [a, b, s1, s2] = [Keypair.random(), Keypair.random(), Keypair.random(), Keypair.random()];
    const state = new MemoryState([accountEntry(idOf(a), 100n * XLM), accountEntry(idOf(b), 10n * XLM)]);
    const ledger = new TestLedger(state);
    ledger.run(b, [{ body: setSigner(ed25519Signer(s1), 1) }, { body: setSigner(ed25519Signer(s2), 1) }]);
    assert.equal(countersOf(state, b).numSponsored, 0);
    const { result } = ledger.run(a, [{ body: begin(b) }, { body: revokeSigner(b, ed25519Signer(s2)), source: b }, { body: end(), source: b }], [a, b]);
    assert.deepEqual(opCodes(result), [0, 0, 0]);
    const sponsors = countersOf(state, b).signerSponsors;
    const s2At = state.account(idOf(b))!.signers.findIndex((s) => s.key.type === 0 && Buffer.from(s.key.ed25519).equals(s2.rawPublicKey()));
    assert.deepEqual(sponsors, sponsors.map((_, i) => (i === s2At ? hexOf(a) : null)));
  });

  it('LOW_RESERVE when the account cannot take its signer\'s reserve back; DOES_NOT_EXIST', () => {
    const { a, b, signer, state } = sponsoredByA(2n * R + R - 1n);
    assert.equal(revokeCode(state, revokeSigner(b, ed25519Signer(signer)), a), -3);
    assert.equal(revokeCode(state, revokeSigner(b, ed25519Signer(Keypair.random())), a), -1);
    assert.equal(revokeCode(state, revokeSigner(Keypair.random(), ed25519Signer(signer)), a), -1);
  });
});

function v2Ext(numSponsoring: number, numSponsored: number) {
  return {
    v: 1 as const,
    v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2 as const, v2: { numSponsored, numSponsoring, signerSponsoringIDs: [], ext: { v: 0 as const } } } },
  };
}
