import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { xdr } from '@stellar/stellar-sdk';
import { MemoryState, NETWORK_ID, XLM, accountEntry, accountId, credit, innerCode, runOp, trustLineEntry } from './support.ts';
import { setAuthorizedEvent } from '../../../src/ledger/sacEvents.ts';
import { allowTrust } from '../../../src/ledger/ops/allowTrust.ts';
import { setTrustLineFlags } from '../../../src/ledger/ops/setTrustLineFlags.ts';
import type { AccountId, Asset } from '../../../src/xdr/codec.ts';

const issuer = accountId('issuer');
const alice = accountId('alice');
const USD = credit('USD', issuer);
const AUTHORIZED = 1, MAINTAIN = 2, CLAWBACK = 4;
const REQUIRED = 0x1, REVOCABLE = 0x2, ACC_CLAWBACK = 0x8;

const stlf = (trustor: AccountId, asset: Asset, setFlags: number, clearFlags: number): Extract<xdr.OperationBodyWire, { type: 21 }> =>
  ({ type: 21, setTrustLineFlagsOp: { trustor, asset, setFlags, clearFlags } });
const allow = (trustor: AccountId, code: string, authorize: number): Extract<xdr.OperationBodyWire, { type: 7 }> => {
  const bytes = new Uint8Array(code.length <= 4 ? 4 : 12);
  bytes.set(Buffer.from(code));
  return { type: 7, allowTrustOp: { trustor, asset: code.length <= 4 ? { type: 1, assetCode4: bytes } : { type: 2, assetCode12: bytes }, authorize } };
};

const world = (issuerFlags: number, lineFlags: number) => new MemoryState([
  accountEntry(issuer, 100n * XLM, { flags: issuerFlags }),
  accountEntry(alice, 100n * XLM, { numSubEntries: 1 }),
  trustLineEntry(alice, USD, 10n, 100n, lineFlags),
]);

test('SetTrustLineFlags authorizes, deauthorizes and emits set_authorized', () => {
  const state = world(REQUIRED | REVOCABLE, 0);
  const r = runOp(state, stlf(alice, USD, AUTHORIZED, 0), issuer);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.flags, AUTHORIZED);
  assert.deepEqual(r.events, [setAuthorizedEvent(NETWORK_ID, USD, alice, true)]);

  const down = runOp(state, stlf(alice, USD, MAINTAIN, AUTHORIZED), issuer);
  assert.equal(innerCode(down.outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.flags, MAINTAIN);
  assert.deepEqual(down.events, [setAuthorizedEvent(NETWORK_ID, USD, alice, false)]);

  // Clearing clawback is allowed; the auth bits stay.
  state.put(trustLineEntry(alice, USD, 10n, 100n, AUTHORIZED | CLAWBACK));
  assert.equal(innerCode(runOp(state, stlf(alice, USD, 0, CLAWBACK), issuer).outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.flags, AUTHORIZED);
  assert.equal(setTrustLineFlags.threshold(stlf(alice, USD, 0, 0)), 'low');
});

test('SetTrustLineFlags CANT_REVOKE without AUTH_REVOCABLE, INVALID_STATE for both auth flags, NO_TRUST_LINE', () => {
  const state = world(REQUIRED, AUTHORIZED);
  assert.equal(innerCode(runOp(state, stlf(alice, USD, 0, AUTHORIZED), issuer).outcome), -3);
  assert.equal(innerCode(runOp(state, stlf(alice, USD, MAINTAIN, AUTHORIZED), issuer).outcome), -3);
  assert.equal(innerCode(runOp(state, stlf(alice, USD, AUTHORIZED, MAINTAIN), issuer).outcome), 0, 'setting AUTHORIZED is always allowed');
  assert.equal(innerCode(runOp(state, stlf(alice, USD, MAINTAIN, 0), issuer).outcome), -4, 'AUTHORIZED and MAINTAIN together');
  assert.equal(state.trustLine(alice, USD)!.flags, AUTHORIZED);
  assert.equal(innerCode(runOp(state, stlf(accountId('nobody'), USD, AUTHORIZED, 0), issuer).outcome), -2);
});

test('SetTrustLineFlags checkValid → MALFORMED', () => {
  const state = world(REVOCABLE | ACC_CLAWBACK, 0);
  const cases: [Extract<xdr.OperationBodyWire, { type: 21 }>, AccountId][] = [
    [stlf(alice, { type: 0 }, AUTHORIZED, 0), issuer],             // native
    [stlf(alice, USD, AUTHORIZED, 0), alice],                      // not the issuer
    [stlf(issuer, USD, AUTHORIZED, 0), issuer],                    // trustor is the issuer
    [stlf(alice, USD, AUTHORIZED, AUTHORIZED), issuer],            // set & clear overlap
    [stlf(alice, USD, AUTHORIZED | MAINTAIN, 0), issuer],          // both auth flags
    [stlf(alice, USD, CLAWBACK, 0), issuer],                       // clawback can't be set
    [stlf(alice, USD, 0, 8), issuer],                              // unknown clear flag
  ];
  for (const [body, src] of cases) {
    const r = runOp(state, body, src);
    assert.equal(r.stage, 'checkValid');
    assert.equal(innerCode(r.outcome), -1);
  }
});

test('AllowTrust sets the authorization level of a line to the source\'s own asset', () => {
  const state = world(REQUIRED | REVOCABLE, CLAWBACK);
  const r = runOp(state, allow(alice, 'USD', AUTHORIZED), issuer);
  assert.equal(innerCode(r.outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.flags, AUTHORIZED | CLAWBACK, 'non-auth flags are kept');
  assert.deepEqual(r.events, [setAuthorizedEvent(NETWORK_ID, USD, alice, true)]);
  assert.equal(innerCode(runOp(state, allow(alice, 'USD', MAINTAIN), issuer).outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.flags, MAINTAIN | CLAWBACK);
  const off = runOp(state, allow(alice, 'USD', 0), issuer);
  assert.equal(innerCode(off.outcome), 0);
  assert.equal(state.trustLine(alice, USD)!.flags, CLAWBACK);
  assert.deepEqual(off.events, [setAuthorizedEvent(NETWORK_ID, USD, alice, false)]);
  assert.equal(allowTrust.threshold(allow(alice, 'USD', 0)), 'low');
});

test('AllowTrust CANT_REVOKE without AUTH_REVOCABLE; NO_TRUST_LINE; MALFORMED', () => {
  const state = world(REQUIRED, AUTHORIZED);
  assert.equal(innerCode(runOp(state, allow(alice, 'USD', 0), issuer).outcome), -4);
  assert.equal(innerCode(runOp(state, allow(alice, 'USD', MAINTAIN), issuer).outcome), -4, 'AUTHORIZED → MAINTAIN is a revocation');
  assert.equal(innerCode(runOp(state, allow(alice, 'EUR', AUTHORIZED), issuer).outcome), -2);
  // From unauthorized, granting maintain-liabilities is fine even without revocable.
  state.put(trustLineEntry(alice, USD, 10n, 100n, 0));
  assert.equal(innerCode(runOp(state, allow(alice, 'USD', MAINTAIN), issuer).outcome), 0);
  // AUTH_REQUIRED is no longer needed for AllowTrust (protocol 16+).
  const open = world(REVOCABLE, 0);
  assert.equal(innerCode(runOp(open, allow(alice, 'USD', AUTHORIZED), issuer).outcome), 0);

  for (const [body, src] of [[allow(alice, 'USD', 3), issuer], [allow(alice, 'U$D', 1), issuer], [allow(issuer, 'USD', 1), issuer], [allow(alice, 'ABCD', 4), issuer]] as const) {
    const r = runOp(state, body, src);
    assert.equal(r.stage, 'checkValid');
    assert.equal(innerCode(r.outcome), -1);
  }
});
