// Impersonation's engine side (src/ledger/impersonation.ts): the signer the host is shown and taken
// out again, the auth-entry signature the host verifies, and the account set.
import { createPublicKey, verify } from 'node:crypto';
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Keypair } from '@stellar/stellar-sdk';
import { xdr } from '../../../src/xdr/xdr.ts';
import { impersonationSigner, signForImpersonated, withImpersonationSigner, withRealSigners } from '../../../src/ledger/impersonation.ts';
import { Impersonation } from '../../../src/standalone/impersonation.ts';
import { sha256 } from '../../../src/xdr/codec.ts';

const key = (kp: Keypair) => ({ type: 0 as const, ed25519: kp.rawPublicKey() });

function account(kp: Keypair, signers: Keypair[], v2 = false): xdr.AccountEntryWire {
  return {
    accountId: key(kp), balance: 100n, seqNum: 1n, numSubEntries: signers.length, inflationDest: null, flags: 0,
    homeDomain: new xdr.XdrString(''), thresholds: new Uint8Array([0, 5, 5, 5]),
    signers: signers.map((s) => ({ key: key(s), weight: 1 })),
    ext: v2
      ? { v: 1, v1: { liabilities: { buying: 0n, selling: 0n }, ext: { v: 2, v2: { numSponsored: 0, numSponsoring: 0, signerSponsoringIDs: signers.map(() => null), ext: { v: 0 } } } } }
      : { v: 0 },
  } as xdr.AccountEntryWire;
}

const ids = (a: xdr.AccountEntryWire) => (a.ext.v === 1 && a.ext.v1.ext.v === 2 ? a.ext.v1.ext.v2.signerSponsoringIDs.length : -1);

it('shows the host the engine signer (weight 255), in place of the last of twenty, and puts the real signers back', () => {
  const owner = Keypair.random();
  const few = account(owner, [Keypair.random()], true);
  const shown = withImpersonationSigner(few);
  assert.equal(shown.signers.length, 2);
  assert.deepEqual(shown.signers[1], { key: { type: 0, ed25519: impersonationSigner() }, weight: 255 });
  assert.equal(ids(shown), 2, 'the sponsoring-ID list follows the signers');
  assert.deepEqual(few.signers.length, 1, 'the real entry is not changed');
  const afterHost = { ...shown, balance: 42n };
  assert.deepEqual(withRealSigners(afterHost, few), { ...few, balance: 42n });

  const full = account(owner, Array.from({ length: 20 }, () => Keypair.random()), true);
  const shownFull = withImpersonationSigner(full);
  assert.equal(shownFull.signers.length, 20);
  assert.equal(ids(shownFull), 20);
  assert.deepEqual(shownFull.signers[19].key, { type: 0, ed25519: impersonationSigner() });
  assert.deepEqual(withRealSigners(shownFull, full), full);
});

it('signs an impersonated address\'s auth entry over the payload the host computes; leaves others alone', () => {
  const ghost = Keypair.random(), other = Keypair.random();
  const impersonation = new Impersonation();
  assert.equal(impersonation.add(ghost.rawPublicKey()), true);
  assert.equal(impersonation.add(ghost.rawPublicKey()), false);
  assert.deepEqual(impersonation.list(), [ghost.publicKey()]);
  const networkId = sha256(Buffer.from('Standalone Network ; February 2017'));
  const invocation: xdr.SorobanAuthorizedInvocationWire = {
    function: { type: 0, contractFn: { contractAddress: { type: 1, contractId: new Uint8Array(32).fill(7) }, functionName: new xdr.XdrString('transfer'), args: [] } },
    subInvocations: [],
  } as unknown as xdr.SorobanAuthorizedInvocationWire;
  const entry = (kp: Keypair, expiration: number, type: 1 | 2): xdr.SorobanAuthorizationEntryWire => {
    const creds = { address: { type: 0 as const, accountId: key(kp) }, nonce: 9n, signatureExpirationLedger: expiration, signature: { type: 1 as const } };
    return { credentials: type === 1 ? { type: 1, address: creds } : { type: 2, addressV2: creds }, rootInvocation: invocation };
  };
  const publicKey = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), impersonationSigner()]), format: 'der', type: 'spki' });

  for (const type of [1, 2] as const) {
    for (const [given, expected] of [[0, 77], [90, 90]]) {
      const signed = signForImpersonated(entry(ghost, given, type), networkId, impersonation, 77);
      const creds = signed.credentials.type === 1 ? signed.credentials.address : signed.credentials.type === 2 ? signed.credentials.addressV2 : assert.fail();
      assert.equal(creds.signatureExpirationLedger, expected, 'an unset expiration is filled in, a set one kept');
      const common = { networkId, nonce: 9n, signatureExpirationLedger: expected, invocation };
      const preimage: xdr.HashIdPreimageWire = type === 1 ? { type: 9, sorobanAuthorization: common }
        : { type: 10, sorobanAuthorizationWithAddress: { ...common, address: { type: 0, accountId: key(ghost) } } };
      const payload = sha256(xdr.HashIdPreimage.schema.encode(preimage));
      assert.equal(creds.signature.type, 16);
      const sig = creds.signature.type === 16 ? creds.signature.vec![0] : assert.fail();
      const map = sig.type === 17 ? sig.map! : assert.fail();
      assert.deepEqual(map.map((e) => e.key.type === 15 ? e.key.sym.toString() : ''), ['public_key', 'signature']);
      const bytes = (v: xdr.ScValWire) => (v.type === 13 ? v.bytes : assert.fail());
      assert.deepEqual(bytes(map[0].val), impersonationSigner());
      assert.ok(verify(null, payload, publicKey, bytes(map[1].val)), 'the host\'s ed25519 check passes');
    }
  }
  const notImpersonated = entry(other, 0, 1);
  assert.equal(signForImpersonated(notImpersonated, networkId, impersonation, 77), notImpersonated);
  const source: xdr.SorobanAuthorizationEntryWire = { credentials: { type: 0 }, rootInvocation: invocation };
  assert.equal(signForImpersonated(source, networkId, impersonation, 77), source);

  assert.equal(impersonation.remove(ghost.rawPublicKey()), true);
  assert.equal(impersonation.remove(ghost.rawPublicKey()), false);
  assert.equal(impersonation.size, 0);
});
