// Hand-built values of the XDR that protocol 30 added (stellar-xdr 30): StellarValue's millisecond
// arms (CAP-88), the muxed contract address (CAP-84), the ML-DSA cost types (CAP-87) and the longer
// contract-spec names. Used by the round-trip test and by the Rust oracle's comparison.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { xdr } from '../../../../src/xdr/xdr.ts';

export interface Sample { label: string; type: string; wire: unknown }

const bytes = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill);
const text = (s: string): xdr.XdrString => new xdr.XdrString(s);

/** The SEP-23 vector of stellar-strkey 1.0: this contract id and id are WA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAAAAAAAAAPCIA6IG. */
export const MUXED_CONTRACT: xdr.MuxedContractWire = {
  id: 123456n,
  contractId: new Uint8Array(Buffer.from('363eaa3867841fbad0f4ed88c779e4fe66e56a2470dc98c0ec9c073d05c7b103', 'hex')),
};
export const MUXED_CONTRACT_STRKEY = 'WA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAAAAAAAAAPCIA6IG';

const signature: xdr.LedgerCloseValueSignatureWire = { nodeId: { type: 0, ed25519: bytes(32, 7) }, signature: bytes(64, 9) };

export const SIGNED_MS: xdr.StellarValueExtWire = { v: 3, signedMsValue: { closeTimeMs: 1_767_225_600_123n, lcValueSignature: signature } };
export const EMPTY_TX_SET_MS: xdr.StellarValueExtWire = {
  v: 4,
  proposedMsValue: { closeTimeMs: 1_767_225_600_999n, txSetHash: bytes(32, 1), previousLedgerHash: bytes(32, 2), previousLedgerVersion: 29, lcValueSignature: signature },
};

/** A real pubnet header (protocol 26) with its StellarValue given a protocol-30 arm. */
function pubnetHeaderWith(ext: xdr.StellarValueExtWire): xdr.LedgerHeaderHistoryEntryWire {
  const raw = gunzipSync(readFileSync(new URL('../../../fixtures/pubnet/ledgers/ledger-63092982.xdr.gz', import.meta.url)));
  const lcm = xdr.LedgerCloseMeta.schema.decode(new Uint8Array(raw));
  if (lcm.v !== 2) throw new Error('the fixture ledger is a LedgerCloseMeta v2');
  const entry = lcm.v2.ledgerHeader;
  return { ...entry, header: { ...entry.header, scpValue: { ...entry.header.scpValue, closeTime: 1_767_225_600n, ext } } };
}

const address = (a: xdr.ScAddressWire): xdr.ScValWire => ({ type: 18, address: a });

export function protocol30Samples(): Sample[] {
  const muxedAddress: xdr.ScAddressWire = { type: 5, muxedContract: MUXED_CONTRACT };
  const stellarValue = (ext: xdr.StellarValueExtWire): xdr.StellarValueWire => ({ txSetHash: bytes(32, 3), closeTime: 1_767_225_600n, upgrades: [], ext });
  return [
    { label: 'StellarValue, STELLAR_VALUE_SIGNED_MS', type: 'StellarValue', wire: stellarValue(SIGNED_MS) },
    { label: 'StellarValue, STELLAR_VALUE_EMPTY_TX_SET_MS', type: 'StellarValue', wire: stellarValue(EMPTY_TX_SET_MS) },
    { label: 'a pubnet header with a SIGNED_MS value', type: 'LedgerHeaderHistoryEntry', wire: pubnetHeaderWith(SIGNED_MS) },
    { label: 'a pubnet header with an EMPTY_TX_SET_MS value', type: 'LedgerHeaderHistoryEntry', wire: pubnetHeaderWith(EMPTY_TX_SET_MS) },
    { label: 'MuxedContract', type: 'MuxedContract', wire: MUXED_CONTRACT },
    { label: 'ScAddress, SC_ADDRESS_TYPE_MUXED_CONTRACT', type: 'ScAddress', wire: muxedAddress },
    { label: 'ScVal: a vector of a muxed contract and a contract address', type: 'ScVal', wire: { type: 16, vec: [address(muxedAddress), address({ type: 1, contractId: MUXED_CONTRACT.contractId })] } },
    {
      label: 'a contract call whose argument is a muxed contract', type: 'InvokeContractArgs',
      wire: { contractAddress: { type: 1, contractId: bytes(32, 4) }, functionName: text('transfer'), args: [address(muxedAddress)] },
    },
    ...Array.from({ length: 9 }, (_, i) => ({ label: `ContractCostType ${86 + i}`, type: 'ContractCostType', wire: 86 + i })),
    {
      label: 'a spec struct named beyond the old 60 bytes', type: 'ScSpecUdtStructV0',
      wire: { doc: text(''), lib: text(''), name: text('S'.repeat(100)), fields: [{ doc: text(''), name: text('a'), type: { type: 4 } }] },
    },
    {
      label: 'a spec event named beyond the old 32 bytes', type: 'ScSpecEventV0',
      wire: { doc: text(''), lib: text(''), name: text('e'.repeat(40)), prefixTopics: [text('transfer')], params: [], dataFormat: 0 },
    },
  ];
}
