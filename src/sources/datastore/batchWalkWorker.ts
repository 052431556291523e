// The thread batchWalker.ts hands batch files to: it finds where each LedgerCloseMeta of a batch
// starts and ends (decodeBatchSync, the whole structure decoded), a walk that takes about 2 s for an
// 18 MB ledger and so must not run on the node's event loop. The bytes come and go back transferred;
// only the ledgers' places are computed here.
import { parentPort } from 'node:worker_threads';
import { decodeBatchSync } from './batchCodec.ts';

export interface WalkRequest { id: number; buffer: ArrayBuffer; offset: number; length: number; name: string; verify: 'header' | 'full' }
/** Each ledger as [sequence, offset in the request's bytes, length]; or the error the walk threw. */
export interface WalkReply { id: number; buffer: ArrayBuffer; spans?: Array<[number, number, number]>; error?: string }

parentPort?.on('message', ({ id, buffer, offset, length, name, verify }: WalkRequest) => {
  const bytes = new Uint8Array(buffer, offset, length);
  let reply: WalkReply;
  try {
    const ledgers = decodeBatchSync(bytes, name, verify);
    reply = { id, buffer, spans: ledgers.map((l) => [l.sequence, l.bytes.byteOffset - offset, l.bytes.length]) };
  } catch (e) {
    reply = { id, buffer, error: (e as Error).message };
  }
  parentPort!.postMessage(reply, [buffer]);
});
