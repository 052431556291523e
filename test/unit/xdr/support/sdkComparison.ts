// The generated module and SDK 17.2's `xdr` side by side, for the tests that compare them.
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { xdr as sdk } from '@stellar/stellar-sdk';
import type { XdrType } from '@stellar/js-xdr';
import { xdr } from '../../../../src/xdr/xdr.ts';

export interface Facade {
  schema: XdrType<unknown>;
  fromXdr(b: Uint8Array): { toJson(): unknown };
  fromJson(j: unknown): { toXdr(): Uint8Array };
}

/** The generated module's types by name (aliases included: AccountId is PublicKey). */
export const ours = xdr as unknown as Record<string, Facade | undefined>;
export const theirs = sdk as unknown as Record<string, Facade | undefined>;

/** The generated types (not aliases), by name. */
export const generatedTypes = Object.keys(ours).filter((name) => ours[name]?.schema?.name === name).sort();

/** Types whose schema differs from SDK 17.2's (stellar-xdr 28), and why: the protocol-30 XDR. */
export const CHANGED_SINCE_SDK: Readonly<Record<string, string>> = {
  ContractCostType: 'CAP-87: nine ML-DSA cost types, 86-94',
  ScAddressType: 'CAP-84: SC_ADDRESS_TYPE_MUXED_CONTRACT = 5',
  ScAddress: 'CAP-84: arm 5, muxedContract (MuxedContract: id, contractId)',
  StellarValueType: 'CAP-88: STELLAR_VALUE_SIGNED_MS = 3, STELLAR_VALUE_EMPTY_TX_SET_MS = 4',
  StellarValueExt: 'CAP-88: arms 3 signedMsValue and 4 proposedMsValue, each led by TimePointMs closeTimeMs',
  ScSpecTypeUdt: 'name<SC_SPEC_TYPE_NAME_LIMIT> (1024), was <60>',
  ScSpecUdtStructV0: 'name<1024>, was <60>',
  ScSpecUdtUnionV0: 'name<1024>, was <60>',
  ScSpecUdtEnumV0: 'name<1024>, was <60>',
  ScSpecUdtErrorEnumV0: 'name<1024>, was <60>',
  ScSpecEventV0: 'name<1024>, was an SCSymbol (<32>)',
};

const show = (v: unknown): string => String(JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? Buffer.from(x).toString('hex') : x)));

/** The first place two values differ, for a readable failure. */
export function firstDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null && !(a instanceof Uint8Array)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return `${path}: ${show(a)} vs ${show(b)}`;
}

export function assertSame(actual: unknown, expected: unknown, where: string): void {
  if (!isDeepStrictEqual(actual, expected)) assert.fail(`${where}: ${firstDifference(actual, expected)}`);
}

export function assertSameBytes(actual: Uint8Array, expected: Uint8Array, where: string): void {
  if (!Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength).equals(expected)) assert.fail(`${where}: the bytes differ`);
}
