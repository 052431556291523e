import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import {
  MemoryState, NETWORK_ID, XLM, accountEntry, accountId, credit, innerCode, muxed, runOp, trustLineEntry,
} from './support.ts';
import { accountAddress, clawbackEvent } from '../../../src/ledger/sacEvents.ts';
import { numSponsoring } from '../../../src/ledger/ops/accounts.ts';
import { opHandlers } from '../../../src/ledger/ops/index.ts';
import type { AccountId, Asset, MuxedAccount } from '../../../src/xdr/codec.ts';

const issuer = accountId('issuer');
const alice = accountId('alice');
const bob = accountId('bob');
const USD = credit('USD', issuer);
const NATIVE: Asset = { type: 0 };
const AUTHORIZED = 1, TL_CLAWBACK = 4;
const AUTH_REVOCABLE = 2, AUTH_CLAWBACK_ENABLED = 8;

const clawbackOp = (from: MuxedAccount, asset: Asset, amount: bigint): xdr.OperationBodyWire =>
  ({ type: 19, clawbackOp: { asset, from, amount } });
const clawbackCb = (balanceId: xdr.ClaimableBalanceIdWire): xdr.OperationBodyWire =>
  ({ type: 20, clawbackClaimableBalanceOp: { balanceId } });
const createCb = (asset: Asset, amount: bigint, claimants: AccountId[]): xdr.OperationBodyWire => ({
  type: 14,
  createClaimableBalanceOp: { asset, amount, claimants: claimants.map((destination) => ({ type: 0, v0: { destination, predicate: { type: 0 } } })) },
});
const cbAddress = (balanceId: xdr.ClaimableBalanceIdWire): xdr.ScAddressWire => ({ type: 3, claimableBalanceId: balanceId });
const withLiabilities = (buying: bigint, selling: bigint) => ({ ext: { v: 1 as const, v1: { liabilities: { buying, selling }, ext: { v: 0 as const } } } });

function world() {
  return new MemoryState([
    accountEntry(issuer, 100n * XLM, { flags: AUTH_REVOCABLE | AUTH_CLAWBACK_ENABLED }),
    accountEntry(alice, 100n * XLM, { numSubEntries: 1 }),
    accountEntry(bob, 100n * XLM, { numSubEntries: 1 }),
    trustLineEntry(alice, USD, 500n, 1000n, AUTHORIZED | TL_CLAWBACK),
    trustLineEntry(bob, USD, 500n, 1000n, AUTHORIZED),
  ]);
}

function createdBalance(state: MemoryState, creator: AccountId, asset: Asset, amount: bigint, claimants: AccountId[], txSeqNum = 0n) {
  const r = runOp(state, createCb(asset, amount, claimants), creator, { txSeqNum });
  const tr = r.outcome.tr;
  if (tr.type !== 14 || tr.createClaimableBalanceResult.code !== 0) assert.fail('balance not created');
  return tr.createClaimableBalanceResult.balanceId;
}

// ---------------------------------------------------------------------------------------------
// Clawback

test('clawback burns from a clawback-enabled line and emits a clawback event without mux info', () => {
  const state = world();
  const r = runOp(state, clawbackOp(muxed(alice, 5n), USD, 120n), issuer);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.balance, 380n);
  assert.deepEqual(r.events, [clawbackEvent(NETWORK_ID, USD, accountAddress(alice), 120n)]);
  assert.equal(r.changes.filter((c) => c.type === 1).length, 1, 'only the trustline is written');
});

test('clawback needs no authorization: a deauthorized line is clawed back too, down to zero', () => {
  const state = world();
  state.put(trustLineEntry(alice, USD, 500n, 1000n, TL_CLAWBACK));
  assert.equal(innerCode(runOp(state, clawbackOp(muxed(alice), USD, 500n), issuer).outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.balance, 0n);
  assert.equal(innerCode(runOp(state, clawbackOp(muxed(alice), USD, 1n), issuer).outcome), -4);
});

test('clawback leaves selling liabilities in place: UNDERFUNDED past them', () => {
  const state = world();
  state.put(trustLineEntry(alice, USD, 500n, 1000n, AUTHORIZED | TL_CLAWBACK, withLiabilities(200n, 150n)));
  assert.equal(innerCode(runOp(state, clawbackOp(muxed(alice), USD, 351n), issuer).outcome), -4);
  assert.equal(innerCode(runOp(state, clawbackOp(muxed(alice), USD, 501n), issuer).outcome), -4);
  assert.equal(state.trustLine(alice, USD)!.balance, 500n);
  assert.equal(innerCode(runOp(state, clawbackOp(muxed(alice), USD, 350n), issuer).outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.balance, 150n);
});

test('clawback MALFORMED: from the issuer itself, amount below 1, native, invalid asset, source not the issuer', () => {
  const state = world();
  const malformed = (body: xdr.OperationBodyWire, source: AccountId, why: string) => {
    const r = runOp(state, body, source);
    assert.equal(r.stage, 'checkValid', why);
    assert.equal(innerCode(r.outcome), -1, why);
  };
  malformed(clawbackOp(muxed(issuer), USD, 1n), issuer, 'from the issuer');
  malformed(clawbackOp(muxed(alice), USD, 0n), issuer, 'zero');
  malformed(clawbackOp(muxed(alice), USD, -5n), issuer, 'negative');
  malformed(clawbackOp(muxed(alice), NATIVE, 1n), issuer, 'native');
  malformed(clawbackOp(muxed(alice), { type: 1, alphaNum4: { assetCode: new Uint8Array(4), issuer } }, 1n), issuer, 'empty asset code');
  malformed(clawbackOp(muxed(alice), USD, 1n), bob, 'not the issuer');
  malformed(clawbackOp(muxed(alice), credit('EUR', bob), 1n), issuer, 'another issuer\'s asset');
  // core compares MuxedAccounts: the muxed form of the issuer's own key passes, and has no trustline
  const self = runOp(state, clawbackOp(muxed(issuer, 1n), USD, 1n), issuer);
  assert.equal(self.stage, 'apply');
  assert.equal(innerCode(self.outcome), -3);
});

test('clawback NO_TRUST and NOT_CLAWBACK_ENABLED', () => {
  const state = world();
  assert.equal(innerCode(runOp(state, clawbackOp(muxed(accountId('nobody')), USD, 1n), issuer).outcome), -3);
  assert.equal(innerCode(runOp(state, clawbackOp(muxed(bob), USD, 1n), issuer).outcome), -2);
  assert.equal(state.trustLine(bob, USD)!.balance, 500n);
  assert.equal(opHandlers[19]!.threshold(clawbackOp(muxed(bob), USD, 1n)), 'medium');
});

// ---------------------------------------------------------------------------------------------
// ClawbackClaimableBalance

test('clawing back a claimable balance erases it, returns the creator\'s reserve and emits a clawback from the balance', () => {
  const state = world();
  const id = createdBalance(state, alice, USD, 200n, [bob, issuer]);
  assert.equal(numSponsoring(state.account(alice)!), 2);
  const r = runOp(state, clawbackCb(id), issuer);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.get({ type: 4, claimableBalance: { balanceId: id } }), undefined);
  assert.equal(numSponsoring(state.account(alice)!), 0);
  assert.equal(state.trustLine(alice, USD)!.balance, 300n, 'the amount is burnt, not returned');
  assert.deepEqual(r.events, [clawbackEvent(NETWORK_ID, USD, cbAddress(id), 200n)]);
  // like core, the issuer's account is loaded to release the reserve and so written
  const updatedAccounts = r.changes.flatMap((c) => (c.type === 1 && c.updated.data.type === 0 ? [c.updated.data.account.accountId] : []));
  assert.deepEqual(new Set(updatedAccounts.map((a) => Buffer.from(a.ed25519).toString('hex'))),
    new Set([alice, issuer].map((a) => Buffer.from(a.ed25519).toString('hex'))));
  assert.equal(innerCode(runOp(state, { type: 15, claimClaimableBalanceOp: { balanceId: id } }, bob).outcome), -1, 'nothing left to claim');
});

test('the issuer claws back a balance it created itself, releasing its own reserve', () => {
  const state = world();
  const id = createdBalance(state, issuer, USD, 1000n, [bob]);
  assert.equal(numSponsoring(state.account(issuer)!), 1);
  assert.equal(innerCode(runOp(state, clawbackCb(id), issuer).outcome), 0);
  assert.equal(numSponsoring(state.account(issuer)!), 0);
});

test('ClawbackClaimableBalance failures: DOES_NOT_EXIST, NOT_ISSUER (native, or another account), NOT_CLAWBACK_ENABLED', () => {
  const state = world();
  assert.equal(innerCode(runOp(state, clawbackCb({ type: 0, v0: new Uint8Array(32).fill(3) }), issuer).outcome), -1);
  const lumens = createdBalance(state, alice, NATIVE, XLM, [bob]);
  assert.equal(innerCode(runOp(state, clawbackCb(lumens), issuer).outcome), -2);
  assert.equal(innerCode(runOp(state, clawbackCb(lumens), alice).outcome), -2, 'not even the creator');
  const clawable = createdBalance(state, alice, USD, 10n, [bob], 1n);
  assert.equal(innerCode(runOp(state, clawbackCb(clawable), bob).outcome), -2);
  const fromPlainLine = createdBalance(state, bob, USD, 10n, [alice], 2n);
  assert.equal(innerCode(runOp(state, clawbackCb(fromPlainLine), issuer).outcome), -3);
  assert.ok(state.get({ type: 4, claimableBalance: { balanceId: fromPlainLine } }), 'still there');
  assert.equal(opHandlers[20]!.threshold(clawbackCb(lumens)), 'medium');
});
