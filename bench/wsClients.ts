// A process of WebSocket clients for the streaming bench (bench/streaming.ts), driven over IPC
// (bench/ipcChild.ts). It opens connections to the node, each subscribed to the events of one
// contract id, to every event (unfiltered), or idle (no subscription), and records every
// notification with Date.now() at receipt: the node logs its commits with the same wall clock, on
// the same machine.
//
// Receipt is all the message handler does (time and the raw frame); parsing waits for `collect`,
// after the measured ledgers, so this process's own work does not delay the next frame's timestamp.
// An unfiltered subscriber receives every event of every ledger (a fan-out ledger sends each of a
// thousand of them a hundred notifications): keeping every frame would hold gigabytes, so it keeps
// only the time, the ledger and the event id, found by a byte search in the frame (no parse).
//   open    { url, count, contractIds?, unfiltered? } -> opened { open, failed, firstFailure, ms }
//   record  {}                            -> recording   (forgets what came before)
//   collect {}                            -> collected { samples: [ledger, receivedAtMs, connection][], ... }
//                                            (connection: the index of its contract id in `open`)
//   close   {}                            -> closed
import WebSocket from 'ws';
import { serveParent, type Message } from './ipcChild.ts';

/** Handshakes in flight at once: 10,000 at once would measure the accept queue, not the steady state. */
const OPENING = 64;

interface Connection {
  ws: WebSocket;
  received: [number, Buffer][];
  /** An unfiltered subscriber's notifications: [receivedAtMs, ledger, event id]. */
  compact?: [number, number, string][];
  closed?: string;
}

const connections: Connection[] = [];
let recording = false;
let elu = performance.eventLoopUtilization();
let cpu = process.cpuUsage();

/** `contractId` null: every event. */
function subscribeRequest(contractId: string | null): string {
  const params = contractId === null ? { kind: 'events' } : { kind: 'events', filters: [{ contractIds: [contractId] }] };
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params });
}

const LEDGER_FIELD = Buffer.from('"ledger":');
const ID_FIELD = Buffer.from('"id":"');
const QUOTE = 0x22;

/** A notification's ledger and event id, by a search of its bytes (the hub renders events with both). */
function ledgerAndId(frame: Buffer): [number, string] {
  const l = frame.indexOf(LEDGER_FIELD) + LEDGER_FIELD.length;
  let ledger = 0;
  for (let i = l; frame[i] >= 0x30 && frame[i] <= 0x39; i++) ledger = ledger * 10 + frame[i] - 0x30;
  const d = frame.indexOf(ID_FIELD) + ID_FIELD.length;
  return [ledger, frame.toString('latin1', d, frame.indexOf(QUOTE, d))];
}

/**
 * One connection, open and (with a contract id, or null: unfiltered) subscribed; rejects with the
 * reason otherwise.
 */
function openOne(url: string, contractId: string | null | undefined): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: false });
    const conn: Connection = { ws, received: [] };
    const fail = (why: string) => { ws.terminate(); reject(new Error(why)); };
    ws.once('unexpected-response', (_req, res) => fail(`upgrade answered HTTP ${res.statusCode}`));
    ws.once('error', (e) => fail(e.message));
    ws.once('open', () => {
      if (contractId === undefined) return ready();
      ws.once('message', (data) => {
        const reply = JSON.parse(String(data));
        if (typeof reply.result !== 'string') return fail(`subscribe answered ${String(data).slice(0, 200)}`);
        ready();
      });
      ws.send(subscribeRequest(contractId));
    });
    function ready() {
      ws.removeAllListeners('error');
      ws.on('error', () => { /* the close event that follows is recorded */ });
      if (contractId === null) {
        conn.compact = [];
        ws.on('message', (data: Buffer) => { if (recording) conn.compact!.push([Date.now(), ...ledgerAndId(data)]); });
      } else {
        ws.on('message', (data: Buffer) => { if (recording) conn.received.push([Date.now(), data]); });
      }
      ws.on('close', (code, reason) => { conn.closed = `${code} ${String(reason)}`; });
      resolve(conn);
    }
  });
}

async function open(m: Message): Promise<Message> {
  const url = String(m.url);
  const count = Number(m.count);
  const contractIds = m.contractIds as string[] | undefined;
  const unfiltered = m.unfiltered === true;
  const t0 = performance.now();
  const base = connections.length;
  let next = 0;
  let failed = 0;
  let firstFailure: string | undefined;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      try {
        // at its request's index, so the parent knows which contract id each connection watches
        connections[base + i] = await openOne(url, unfiltered ? null : contractIds?.[i]);
      } catch (e) {
        failed++;
        firstFailure ??= (e as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPENING, count) }, worker));
  return { type: 'opened', open: count - failed, failed, firstFailure, ms: performance.now() - t0 };
}

interface Notification { method?: string; params?: { subscription: string; result: { ledger: number; id: string } } }

/** Notifications as [ledger, receivedAt, connection]; ids out of order on a connection are counted, not trusted. */
function collect(): Message {
  const samples: [number, number, number][] = [];
  let other = 0;
  let outOfOrder = 0;
  connections.forEach((conn, index) => {
    let lastId = '';
    if (conn.compact !== undefined) {
      for (const [at, ledger, id] of conn.compact) {
        if (id <= lastId) outOfOrder++;
        lastId = id;
        samples.push([ledger, at, index]);
      }
      conn.compact = [];
      return;
    }
    for (const [at, data] of conn.received) {
      const msg = JSON.parse(String(data)) as Notification;
      if (msg.method !== 'subscription' || !msg.params) { other++; continue; }
      const { ledger, id } = msg.params.result;
      if (id <= lastId) outOfOrder++; // event ids are fixed-width: string order is id order
      lastId = id;
      samples.push([ledger, at, index]);
    }
    conn.received = [];
  });
  const closed = connections.filter((c) => c.closed).map((c) => c.closed!);
  const cpuNow = process.cpuUsage(cpu);
  return {
    type: 'collected', samples, other, outOfOrder, closed: closed.length, firstClose: closed[0],
    elu: performance.eventLoopUtilization(elu).utilization, cpuMs: (cpuNow.user + cpuNow.system) / 1000,
  };
}

async function closeAll(): Promise<Message> {
  await Promise.all(connections.map((c) => new Promise<void>((resolve) => {
    if (c.ws.readyState === WebSocket.CLOSED) return resolve();
    c.ws.once('close', () => resolve());
    c.ws.close(1000);
    setTimeout(() => { c.ws.terminate(); }, 5000).unref();
  })));
  connections.length = 0;
  return { type: 'closed' };
}

serveParent(async (m) => {
  switch (m.type) {
    case 'open': return open(m);
    case 'record':
      for (const c of connections) {
        c.received = [];
        if (c.compact !== undefined) c.compact = [];
      }
      recording = true;
      elu = performance.eventLoopUtilization();
      cpu = process.cpuUsage();
      return { type: 'recording' };
    case 'collect': recording = false; return collect();
    case 'close': return closeAll();
    default: throw new Error(`unknown message ${m.type}`);
  }
});
