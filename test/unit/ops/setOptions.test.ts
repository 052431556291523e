import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '@stellar/stellar-sdk';
import { BASE_RESERVE, MemoryState, XLM, accountEntry, accountId, innerCode, runOp } from './support.ts';
import { setOptions } from '../../../src/ledger/ops/setOptions.ts';

const alice = accountId('alice');
const bob = accountId('bob');
const carol = accountId('carol');
const reserve = BigInt(BASE_RESERVE);

type Opts = Partial<xdr.SetOptionsOpWire>;
const none: xdr.SetOptionsOpWire = {
  inflationDest: null, clearFlags: null, setFlags: null, masterWeight: null, lowThreshold: null,
  medThreshold: null, highThreshold: null, homeDomain: null, signer: null,
};
const so = (o: Opts): Extract<xdr.OperationBodyWire, { type: 5 }> => ({ type: 5, setOptionsOp: { ...none, ...o } });
const ed = (id: { ed25519: Uint8Array }, weight: number): xdr.SignerWire => ({ key: { type: 0, ed25519: id.ed25519 }, weight });

test('SetOptions threshold level: high when touching signers/weights/thresholds, else medium', () => {
  assert.equal(setOptions.threshold(so({})), 'medium');
  assert.equal(setOptions.threshold(so({ homeDomain: new xdr.XdrString('x.org'), setFlags: 1 })), 'medium');
  assert.equal(setOptions.threshold(so({ masterWeight: 1 })), 'high');
  assert.equal(setOptions.threshold(so({ medThreshold: 0 })), 'high');
  assert.equal(setOptions.threshold(so({ signer: ed(bob, 0) })), 'high');
});

test('SetOptions adds signers in key order, counts sub-entries, changes and removes them', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  const preAuth: xdr.SignerWire = { key: { type: 1, preAuthTx: new Uint8Array(32).fill(7) }, weight: 1 };
  const hashX: xdr.SignerWire = { key: { type: 2, hashX: new Uint8Array(32).fill(1) }, weight: 1 };
  const payload: xdr.SignerWire = { key: { type: 3, ed25519SignedPayload: { ed25519: bob.ed25519, payload: new Uint8Array([1, 2]) } }, weight: 3 };
  for (const s of [hashX, ed(carol, 2), payload, preAuth, ed(bob, 5)]) {
    assert.equal(innerCode(runOp(state, so({ signer: s }), alice).outcome), 0);
  }
  let acc = state.account(alice)!;
  assert.equal(acc.numSubEntries, 5);
  assert.deepEqual(acc.signers.map((s) => s.key.type), [0, 0, 1, 2, 3], 'sorted by key type');
  const [first, second] = Buffer.compare(Buffer.from(bob.ed25519), Buffer.from(carol.ed25519)) < 0 ? [bob, carol] : [carol, bob];
  assert.deepEqual(acc.signers[0].key, { type: 0, ed25519: first.ed25519 });
  assert.deepEqual(acc.signers[1].key, { type: 0, ed25519: second.ed25519 });

  // Changing an existing signer's weight takes no new sub-entry.
  assert.equal(innerCode(runOp(state, so({ signer: ed(bob, 9) }), alice).outcome), 0);
  acc = state.account(alice)!;
  assert.equal(acc.numSubEntries, 5);
  assert.equal(acc.signers.find((s) => s.key.type === 0 && Buffer.from(s.key.ed25519).equals(Buffer.from(bob.ed25519)))!.weight, 9);

  // Weight 0 removes; removing an absent signer is a successful no-op.
  assert.equal(innerCode(runOp(state, so({ signer: { ...hashX, weight: 0 } }), alice).outcome), 0);
  assert.equal(innerCode(runOp(state, so({ signer: { ...hashX, weight: 0 } }), alice).outcome), 0);
  acc = state.account(alice)!;
  assert.equal(acc.numSubEntries, 4);
  assert.deepEqual(acc.signers.map((s) => s.key.type), [0, 0, 1, 3]);
});

test('SetOptions LOW_RESERVE and TOO_MANY_SIGNERS', () => {
  const state = new MemoryState([accountEntry(alice, 3n * reserve - 1n)]);
  assert.equal(innerCode(runOp(state, so({ signer: ed(bob, 1) }), alice).outcome), -1);
  assert.equal(state.account(alice)!.signers.length, 0);

  const signers = Array.from({ length: 20 }, (_, i) => ({ key: { type: 2 as const, hashX: new Uint8Array(32).fill(i + 1) }, weight: 1 }));
  const full = new MemoryState([accountEntry(alice, 100n * XLM, { signers, numSubEntries: 20 })]);
  assert.equal(innerCode(runOp(full, so({ signer: ed(bob, 1) }), alice).outcome), -2);
  // ...but changing one of the 20 is fine
  assert.equal(innerCode(runOp(full, so({ signer: { ...signers[3], weight: 4 } }), alice).outcome), 0);
});

test('SetOptions removing a sponsored signer releases the sponsorship', () => {
  const sponsor = accountId('sponsor');
  const v2 = (numSponsored: number, numSponsoring: number, ids: (xdr.PublicKeyWire | null)[]) =>
    ({ v: 1 as const, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2 as const, v2: { numSponsored, numSponsoring, signerSponsoringIDs: ids, ext: { v: 0 as const } } } } });
  const s1 = ed(bob, 1), s2 = ed(carol, 1);
  const sorted = Buffer.compare(Buffer.from(bob.ed25519), Buffer.from(carol.ed25519)) < 0 ? [s1, s2] : [s2, s1];
  const state = new MemoryState([
    accountEntry(alice, 100n * XLM, { signers: sorted, numSubEntries: 2, ext: v2(1, 0, [sponsor, null]) }),
    accountEntry(sponsor, 100n * XLM, { ext: v2(0, 1, []) }),
  ]);
  assert.equal(innerCode(runOp(state, so({ signer: { ...sorted[0], weight: 0 } }), alice).outcome), 0);
  const a = state.account(alice)!;
  assert.equal(a.numSubEntries, 1);
  assert.ok(a.ext.v === 1 && a.ext.v1.ext.v === 2);
  assert.equal(a.ext.v1.ext.v2.numSponsored, 0);
  assert.deepEqual(a.ext.v1.ext.v2.signerSponsoringIDs, [null]);
  const s = state.account(sponsor)!;
  assert.ok(s.ext.v === 1 && s.ext.v1.ext.v === 2 && s.ext.v1.ext.v2.numSponsoring === 0);
  // A new signer on an account with ext v2 gets an unsponsored slot.
  assert.equal(innerCode(runOp(state, so({ signer: { key: { type: 2, hashX: new Uint8Array(32) }, weight: 1 } }), alice).outcome), 0);
  const a2 = state.account(alice)!;
  assert.ok(a2.ext.v === 1 && a2.ext.v1.ext.v === 2);
  assert.equal(a2.ext.v1.ext.v2.signerSponsoringIDs.length, a2.signers.length);
});

test('SetOptions master weight and thresholds', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  assert.equal(innerCode(runOp(state, so({ masterWeight: 10, lowThreshold: 1, medThreshold: 2, highThreshold: 255 }), alice).outcome), 0);
  assert.deepEqual([...state.account(alice)!.thresholds], [10, 1, 2, 255]);
  assert.equal(innerCode(runOp(state, so({ medThreshold: 5 }), alice).outcome), 0);
  assert.deepEqual([...state.account(alice)!.thresholds], [10, 1, 5, 255]);
  const r = runOp(state, so({ highThreshold: 256 }), alice);
  assert.equal(r.stage, 'checkValid');
  assert.equal(innerCode(r.outcome), -7);
});

test('SetOptions flags: set/clear, CANT_CHANGE once immutable, clawback needs revocable', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  assert.equal(innerCode(runOp(state, so({ setFlags: 0x1 | 0x2 }), alice).outcome), 0);
  assert.equal(state.account(alice)!.flags, 3);
  assert.equal(innerCode(runOp(state, so({ clearFlags: 0x1 }), alice).outcome), 0);
  assert.equal(state.account(alice)!.flags, 2);
  assert.equal(innerCode(runOp(state, so({ setFlags: 0x8 }), alice).outcome), 0, 'clawback with revocable set');
  assert.equal(innerCode(runOp(state, so({ clearFlags: 0x2 }), alice).outcome), -10, 'revocable cannot go while clawback is on');
  assert.equal(innerCode(runOp(state, so({ clearFlags: 0x8 | 0x2 }), alice).outcome), 0);

  const fresh = new MemoryState([accountEntry(alice, 100n * XLM)]);
  assert.equal(innerCode(runOp(fresh, so({ setFlags: 0x8 }), alice).outcome), -10);
  assert.equal(innerCode(runOp(fresh, so({ setFlags: 0x4 }), alice).outcome), 0);
  assert.equal(innerCode(runOp(fresh, so({ setFlags: 0x1 }), alice).outcome), -5);
  assert.equal(innerCode(runOp(fresh, so({ clearFlags: 0x4 }), alice).outcome), -5);
  assert.equal(innerCode(runOp(fresh, so({ homeDomain: new xdr.XdrString('ok.example') }), alice).outcome), 0, 'other options still change');

  const unknown = runOp(fresh, so({ setFlags: 0x10 }), alice);
  assert.equal(unknown.stage, 'checkValid');
  assert.equal(innerCode(unknown.outcome), -6);
  assert.equal(innerCode(runOp(fresh, so({ setFlags: 0x1, clearFlags: 0x1 }), alice).outcome), -3);
});

test('SetOptions home domain and inflation destination', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM), accountEntry(bob, 100n * XLM)]);
  assert.equal(innerCode(runOp(state, so({ homeDomain: new xdr.XdrString('stellar.org') }), alice).outcome), 0);
  assert.equal(state.account(alice)!.homeDomain.toString(), 'stellar.org');
  assert.equal(innerCode(runOp(state, so({ homeDomain: new xdr.XdrString('bad\ndomain') }), alice).outcome), -9);
  assert.equal(innerCode(runOp(state, so({ inflationDest: carol }), alice).outcome), -4);
  assert.equal(innerCode(runOp(state, so({ inflationDest: bob }), alice).outcome), 0);
  assert.deepEqual(state.account(alice)!.inflationDest, bob);
  assert.equal(innerCode(runOp(state, so({ inflationDest: alice }), alice).outcome), 0, 'self needs no lookup');
});

test('SetOptions BAD_SIGNER: own master key, weight > 255, empty signed payload', () => {
  const state = new MemoryState([accountEntry(alice, 100n * XLM)]);
  for (const signer of [ed(alice, 1), ed(bob, 256),
    { key: { type: 3 as const, ed25519SignedPayload: { ed25519: bob.ed25519, payload: new Uint8Array() } }, weight: 1 }]) {
    const r = runOp(state, so({ signer }), alice);
    assert.equal(r.stage, 'checkValid');
    assert.equal(innerCode(r.outcome), -8);
  }
});
