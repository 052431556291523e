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

/** Types whose schema differs from SDK 17.2's, and why. */
export const CHANGED_SINCE_SDK: Readonly<Record<string, string>> = {};

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
