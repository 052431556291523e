// One JSON-RPC call from the command line to a running node; an error answer becomes a thrown Error
// with its code, message and data.
import { inputCap, readBodyCapped, textOf } from '../io/inputCaps.ts';

export async function call(url: string, method: string, params: Record<string, unknown>): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  // a state dump is the node's whole state: the input cap's default bounds it, as it bounds --load-state
  const text = textOf(await readBodyCapped(response, inputCap(), `${method} answer from ${url}`));
  const body = JSON.parse(text) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
  if (body.error) {
    const data = body.error.data === undefined ? '' : `: ${typeof body.error.data === 'string' ? body.error.data : JSON.stringify(body.error.data)}`;
    throw new Error(`${method} failed (${body.error.code} ${body.error.message}${data})`);
  }
  return body.result;
}
