// The protocol-30 XDR through the generated module: each new arm and member encodes, decodes to the
// same value, renders the crate's JSON form (the names here are those of stellar-xdr 30's JSON
// schemas; test/rust/xdr-oracle checks the whole JSON against the crate) and reads back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { xdr } from '../../../src/xdr/xdr.ts';
import { assertSame, assertSameBytes, ours } from './support/sdkComparison.ts';
import { EMPTY_TX_SET_MS, MUXED_CONTRACT, MUXED_CONTRACT_STRKEY, SIGNED_MS, protocol30Samples } from './support/protocol30Samples.ts';

test('the module is generated from stellar-xdr 30', () => {
  assert.equal(xdr.XDR_DEFINITIONS.version, '30.0.0');
});

test('every protocol-30 sample encodes, decodes to itself and reads back from its JSON', () => {
  for (const { label, type, wire } of protocol30Samples()) {
    const t = ours[type]!;
    const bytes = t.schema.encode(wire);
    assertSame(t.schema.decode(bytes), wire, label);
    assertSameBytes(t.fromJson(t.fromXdr(bytes).toJson()).toXdr(), bytes, `${label} read back from JSON`);
  }
});

test('StellarValue\'s millisecond arms: closeTimeMs first, a uint64 in JSON text', () => {
  const signedMs = xdr.StellarValueExt.schema.encode(SIGNED_MS);
  // v, then closeTimeMs big-endian, then the signature
  assert.equal(Buffer.from(signedMs.subarray(0, 12)).toString('hex'), '00000003' + 1_767_225_600_123n.toString(16).padStart(16, '0'));
  const json = xdr.StellarValueExt.fromXdr(signedMs).toJson() as { signed_ms: Record<string, unknown> };
  assert.deepEqual(Object.keys(json), ['signed_ms']);
  assert.equal(json.signed_ms.close_time_ms, '1767225600123');
  assert.deepEqual(Object.keys(json.signed_ms), ['close_time_ms', 'lc_value_signature']);
  const emptyMs = xdr.StellarValueExt.fromXdr(xdr.StellarValueExt.schema.encode(EMPTY_TX_SET_MS)).toJson() as { empty_tx_set_ms: Record<string, unknown> };
  assert.deepEqual(Object.keys(emptyMs.empty_tx_set_ms), ['close_time_ms', 'tx_set_hash', 'previous_ledger_hash', 'previous_ledger_version', 'lc_value_signature']);
  assert.equal(emptyMs.empty_tx_set_ms.previous_ledger_version, 29);
});

test('a muxed contract address is 40 bytes (id, then contract) and a W strkey in JSON', () => {
  const address = xdr.ScAddress.schema.encode({ type: 5, muxedContract: MUXED_CONTRACT });
  assert.equal(Buffer.from(address).toString('hex'), '00000005' + '000000000001e240' + Buffer.from(MUXED_CONTRACT.contractId).toString('hex'));
  assert.equal(xdr.ScAddress.fromXdr(address).toJson(), MUXED_CONTRACT_STRKEY);
  assert.equal(xdr.MuxedContract.fromXdrObject(MUXED_CONTRACT).toJson(), MUXED_CONTRACT_STRKEY);
  assert.deepEqual(xdr.ScAddress.fromJson(MUXED_CONTRACT_STRKEY).value, { type: 5, muxedContract: MUXED_CONTRACT });
  assert.deepEqual(xdr.ScVal.fromJson({ address: MUXED_CONTRACT_STRKEY }).value, { type: 18, address: { type: 5, muxedContract: MUXED_CONTRACT } });
  assert.equal(xdr.ScAddressType.fromXdrObject(5).toJson(), 'muxed_contract');
  // a W strkey is no account, contract or muxed account
  assert.throws(() => xdr.MuxedAccount.fromJson(MUXED_CONTRACT_STRKEY), /not a valid MuxedAccount/);
  assert.throws(() => xdr.ContractId.fromJson(MUXED_CONTRACT_STRKEY), /not a valid ContractId/);
});

test('the nine ML-DSA cost types, by value, XDR name and JSON name', () => {
  const names = ['ml_dsa44_decode_verifying_key', 'ml_dsa65_decode_verifying_key', 'ml_dsa87_decode_verifying_key',
    'ml_dsa44_decode_signature', 'ml_dsa65_decode_signature', 'ml_dsa87_decode_signature',
    'verify_ml_dsa44_sig', 'verify_ml_dsa65_sig', 'verify_ml_dsa87_sig'];
  names.forEach((name, i) => {
    assert.equal(xdr.ContractCostType.fromXdrObject(86 + i).toJson(), name);
    assert.equal(xdr.ContractCostType.fromJson(name).value, 86 + i);
  });
  assert.equal(xdr.ContractCostType.xdrNames.get(92), 'VerifyMlDsa44Sig');
  assert.equal(xdr.ContractCostType.xdrNames.size, 95);
  assert.throws(() => xdr.ContractCostType.schema.encode(95 as never), /95/);
});

test('contract-spec names up to SC_SPEC_TYPE_NAME_LIMIT (1024 bytes)', () => {
  const struct = (name: string): xdr.ScSpecUdtStructV0Wire => ({ doc: new xdr.XdrString(''), lib: new xdr.XdrString(''), name: new xdr.XdrString(name), fields: [] });
  assert.ok(xdr.ScSpecUdtStructV0.schema.encode(struct('S'.repeat(1024))).length > 1024);
  assert.throws(() => xdr.ScSpecUdtStructV0.schema.encode(struct('S'.repeat(1025))), /1024/);
});
