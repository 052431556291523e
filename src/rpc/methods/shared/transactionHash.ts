// A transaction hash param as the reference's getTransaction reads it: 64 hex digits (Go's
// hex.DecodeString), with the reference's messages for the wrong length or a bad digit.
import { invalidParams } from '../../errors.ts';
import { goHexDecode } from './go.ts';

export function parseTransactionHash(hash: string): Uint8Array {
  const length = Buffer.byteLength(hash, 'utf8');
  if (Math.floor(length / 2) !== 32) throw invalidParams(`unexpected hash length (${length})`);
  const decoded = goHexDecode(hash);
  if (typeof decoded === 'string') throw invalidParams(`incorrect hash: ${decoded}`);
  return decoded;
}
