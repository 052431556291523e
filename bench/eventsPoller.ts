// The streaming bench's baseline client, in its own process (driven over IPC, bench/ipcChild.ts):
// what a client does today without subscriptions. It polls getEvents for one contract at one
// request per ledger, on its own timer (a client does not know when ledgers close), paging with the
// cursor each answer returns, and records Date.now() when each answer has been read in full: the
// moment the client has the events in it.
//   start { url, contractId, startLedger, intervalMs } -> started
//   stop  {}                                           -> stopped { samples: [ledger, haveAtMs][], requests, ... }
import { serveParent, type Message } from './ipcChild.ts';
import { RpcClient } from './rpcClient.ts';
import { sleep } from './stats.ts';

interface EventsAnswer { result?: { events: { ledger: number }[]; cursor: string }; error?: { code: number; message: string } }

let running: Promise<Message> | undefined;
let stopping = false;

async function poll(url: string, contractId: string, startLedger: number, intervalMs: number): Promise<Message> {
  const rpc = new RpcClient(url, 1);
  const samples: [number, number][] = [];
  let requests = 0;
  let empty = 0;
  let errors = 0;
  let firstError: string | undefined;
  let cursor: string | undefined;
  const elu = performance.eventLoopUtilization();
  const filters = [{ contractIds: [contractId] }];
  try {
    for (let due = performance.now(); !stopping; due += intervalMs) {
      await sleep(Math.max(0, due - performance.now()));
      const params = cursor ? { filters, pagination: { cursor, limit: 100 } } : { startLedger, filters, pagination: { limit: 100 } };
      requests++;
      const text = await rpc.post('/', JSON.stringify({ jsonrpc: '2.0', id: requests, method: 'getEvents', params }));
      const have = Date.now();
      const answer = JSON.parse(text) as EventsAnswer;
      if (!answer.result) {
        errors++;
        firstError ??= JSON.stringify(answer.error);
        continue;
      }
      if (answer.result.events.length === 0) empty++;
      for (const e of answer.result.events) samples.push([e.ledger, have]);
      cursor = answer.result.cursor;
    }
  } finally {
    rpc.close();
  }
  return { type: 'stopped', samples, requests, empty, errors, firstError, elu: performance.eventLoopUtilization(elu).utilization };
}

serveParent(async (m) => {
  switch (m.type) {
    case 'start':
      stopping = false;
      running = poll(String(m.url), String(m.contractId), Number(m.startLedger), Number(m.intervalMs));
      return { type: 'started' };
    case 'stop':
      stopping = true;
      return await running!;
    default: throw new Error(`unknown message ${m.type}`);
  }
});
