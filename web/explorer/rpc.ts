// JSON-RPC to the node that served the page (a POST to its own origin's `/`).

export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(`${message} (${code})${typeof data === 'string' ? `: ${data}` : ''}`);
    this.code = code;
    this.data = data;
  }
}

/** The method is not served here (not a standalone network, developer methods off, not merged yet). */
export const METHOD_NOT_FOUND = -32601;

let nextId = 1;

export async function call<T = any>(method: string, params?: unknown): Promise<T> {
  const res = await fetch('/', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) }),
  });
  if (!res.ok) throw new RpcError(-32000, `HTTP ${res.status} ${(await res.text()).trim()}`);
  const answer = await res.json() as { result?: T; error?: { code: number; message: string; data?: unknown } };
  if (answer.error) throw new RpcError(answer.error.code, answer.error.message, answer.error.data);
  return answer.result as T;
}

/** The stored ledgers: the oldest and the latest. */
export interface LedgerWindow { latestLedger: number; oldestLedger: number }

const NO_HASH = '0'.repeat(64);

/**
 * The stored ledgers. Not getHealth: it answers an error when the latest ledger is older than
 * --max-healthy-ledger-latency, as on a standalone network closing ledgers only when asked. A
 * getTransaction that finds nothing answers the window whatever the network's pace.
 */
export async function ledgerWindow(): Promise<LedgerWindow> {
  const { latestLedger, oldestLedger } = await call<LedgerWindow>('getTransaction', { hash: NO_HASH });
  return { latestLedger, oldestLedger };
}
