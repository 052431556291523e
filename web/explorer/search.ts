// The search box: a ledger number, a transaction hash, an account (G… or M…) or a contract (C…).
import { isAccount, isContract, muxedBase } from './strkey.ts';

/** The route a search goes to, or undefined when the text is none of those. */
export function searchRoute(text: string): string | undefined {
  const q = text.trim();
  if (/^\d{1,10}$/.test(q) && Number(q) >= 1 && Number(q) <= 0xffffffff) return `ledger/${Number(q)}`;
  if (/^[0-9a-fA-F]{64}$/.test(q)) return `tx/${q.toLowerCase()}`;
  const upper = q.toUpperCase();
  if (isAccount(upper)) return `account/${upper}`;
  if (upper.startsWith('M') && muxedBase(upper)) return `account/${upper}`;
  if (isContract(upper)) return `contract/${upper}`;
  return undefined;
}
