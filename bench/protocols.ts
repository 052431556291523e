// Simulation on each protocol's host line: the same contract call (the test module's `incr`, which
// reads and writes a persistent entry) simulated directly in Rust (the addon's benchSimulateInvoke,
// each run timed inside Rust) against a database whose latest ledger is at protocol 28, 29 and 30,
// with that protocol's genesis configuration (30: the ML-DSA cost types too). Rounds interleave the
// protocols so the shared machine's noise hits all alike; figures are medians, the ratios against
// protocol 28 in the same run. Target (issue 26): protocol 30 at most 1.1x protocol 28.
// And the engine's close of a ledger of payments at 28 and at 30, in the same run.
import { xdr } from '../src/xdr/xdr.ts';
import { loadNative } from '../src/host/native.ts';
import { Simulator } from '../src/host/simulator.ts';
import { sha256 } from '../src/xdr/codec.ts';
import {
  PASSPHRASE, ROOT, codeKey, contractId, createTestDb, instanceEntry, instanceKey, invokeOp, testContractWasm, ttlEntry, u32, uploadOp,
  type TestDb,
} from '../test/unit/host/support.ts';
import { fmt, median } from './stats.ts';
import { verdict, type Row } from './report.ts';
import { EngineLedgers, failures } from './engineClose.ts';
import { Market } from './market.ts';

export interface ProtocolsBenchConfig { rounds: number; perRound: number; warmup: number; closeLanes: number; closeSamples: number }

export const PROTOCOLS_TARGET = 1.1;
const PROTOCOLS = [28, 29, 30];

/** A database at `protocol` holding the test contract, deployed and live. */
async function deployed(protocol: number): Promise<TestDb> {
  const db = createTestDb(protocol);
  const sim = new Simulator({ dbPath: db.path, networkPassphrase: PASSPHRASE });
  try {
    const wasm = testContractWasm(protocol);
    const upload = await sim.invoke({ operationXdr: uploadOp(wasm), sourceAccount: ROOT });
    if (upload.error) throw new Error(`protocol ${protocol}: upload: ${upload.error}`);
    const created = upload.stateChanges.find((c) => c.type === 'created');
    const code = xdr.LedgerEntry.schema.decode(Buffer.from(created!.after!, 'base64'));
    const hash = sha256(wasm);
    db.closeLedger([code, ttlEntry(codeKey(hash), 1_000_000), instanceEntry(contractId, hash), ttlEntry(instanceKey(contractId), 1_000_000)]);
    return db;
  } finally {
    sim.close();
  }
}

export async function runProtocolsBench(cfg: ProtocolsBenchConfig, log: (m: string) => void): Promise<{ rows: Row[]; details: string[] }> {
  const native = loadNative();
  const dbs = new Map<number, TestDb>();
  try {
    for (const p of PROTOCOLS) dbs.set(p, await deployed(p));
    const request = (p: number) => ({
      dbPath: dbs.get(p)!.path, networkPassphrase: PASSPHRASE, operationXdr: invokeOp(contractId, 'incr', [u32(1)]), sourceAccount: ROOT,
      authMode: 'record' as const, useUpgradedAuth: false, instructionLeeway: 0, enableDebug: true,
    });
    for (const p of PROTOCOLS) {
      const check = await native.simulateInvoke(request(p));
      if (check.error) throw new Error(`protocol ${p}: ${check.error}`);
      if (check.hostProtocol !== p) throw new Error(`protocol ${p} ran on the protocol-${check.hostProtocol} line`);
      await native.benchSimulateInvoke(request(p), cfg.warmup);
    }
    const perRound = new Map<number, number[]>(PROTOCOLS.map((p) => [p, []]));
    for (let round = 0; round < cfg.rounds; round++) {
      for (const p of round % 2 === 0 ? PROTOCOLS : [...PROTOCOLS].reverse()) {
        perRound.get(p)!.push(median(await native.benchSimulateInvoke(request(p), cfg.perRound)));
      }
      log(`protocols round ${round + 1}/${cfg.rounds}: ${PROTOCOLS.map((p) => `${p}: ${fmt(perRound.get(p)!.at(-1)!, 3)} ms`).join(', ')}`);
    }
    const med = new Map(PROTOCOLS.map((p) => [p, median(perRound.get(p)!)]));
    const base = med.get(28)!;
    const rows: Row[] = PROTOCOLS.filter((p) => p !== 28).map((p) => {
      const ratio = med.get(p)! / base;
      return {
        metric: `Simulation on the protocol-${p} host line (a contract call reading and writing storage, direct Rust)`,
        value: `${fmt(med.get(p)!, 3)} ms`, ratio: `${fmt(ratio, 2)}x protocol 28 (${fmt(base, 3)} ms)`,
        target: `<= ${PROTOCOLS_TARGET}x protocol 28`, verdict: verdict(ratio <= PROTOCOLS_TARGET),
      };
    });
    const details = ['### Simulation per protocol', '',
      `${cfg.rounds} rounds, each running ${cfg.perRound} simulations per protocol (order alternating), after ${cfg.warmup} warm-up runs; the median per round, then over rounds.`, '',
      '| Round | ' + PROTOCOLS.map((p) => `P${p} (ms)`).join(' | ') + ' |', '|---|' + PROTOCOLS.map(() => '---|').join(''),
      ...perRound.get(28)!.map((_, i) => `| ${i + 1} | ${PROTOCOLS.map((p) => fmt(perRound.get(p)![i], 3)).join(' | ')} |`), ''];
    const close = engineCloses(cfg, log);
    rows.push(close.row);
    details.push(...close.details);
    return { rows, details };
  } finally {
    for (const db of dbs.values()) db.dispose();
  }
}

/**
 * The engine's close of the same ledger of payments on a protocol-28 and a protocol-30 network
 * (bench/engineClose.ts's EngineLedgers: closeLedgerSteps timed in process, nothing stored), samples
 * alternating. At 30 the close differs by its value (a millisecond close time, signed).
 */
function engineCloses(cfg: ProtocolsBenchConfig, log: (m: string) => void): { row: Row; details: string[] } {
  const engines = new Map([28, 30].map((p) => [p, new EngineLedgers(p)] as const));
  try {
    const frames = new Map<number, ReturnType<EngineLedgers['frame']>[]>();
    for (const [p, engine] of engines) {
      const market = new Market({ lanes: cfg.closeLanes, tradingLanes: 0, makers: 0, offersPerMaker: 0 });
      for (const step of market.steps()) engine.runStep(step);
      if (engine.prev.header.ledgerVersion !== p) throw new Error(`the engine runs protocol ${engine.prev.header.ledgerVersion}, not ${p}`);
      frames.set(p, market.lanes.map((k, i) => engine.frame(market.payment(i, engine.seq(k)))));
      failures(engine.close(frames.get(p)!).closed, `protocol ${p} payments`);
    }
    const ms = new Map<number, number[]>([[28, []], [30, []]]);
    for (let s = 0; s < cfg.closeSamples; s++) {
      for (const p of s % 2 === 0 ? [28, 30] : [30, 28]) ms.get(p)!.push(engines.get(p)!.close(frames.get(p)!).ms);
      log(`protocols close sample ${s + 1}/${cfg.closeSamples}: 28 ${fmt(ms.get(28)!.at(-1)!)} ms, 30 ${fmt(ms.get(30)!.at(-1)!)} ms`);
    }
    const [m28, m30] = [median(ms.get(28)!), median(ms.get(30)!)];
    const ratio = m30 / m28;
    return {
      row: {
        metric: `Engine close of ${cfg.closeLanes.toLocaleString('en-US')} payments at protocol 30 (closeLedgerSteps, in process)`,
        value: `${fmt(m30)} ms`, ratio: `${fmt(ratio, 2)}x protocol 28 (${fmt(m28)} ms)`, target: `<= ${PROTOCOLS_TARGET}x protocol 28`, verdict: verdict(ratio <= PROTOCOLS_TARGET),
      },
      details: ['### Engine close per protocol', '',
        `A ledger of ${cfg.closeLanes} payments (one per account) closed by the engine on a protocol-28 and a protocol-30 network built the same way, ${cfg.closeSamples} samples alternating; ms per sample: 28: ${ms.get(28)!.map((x) => fmt(x)).join(', ')}; 30: ${ms.get(30)!.map((x) => fmt(x)).join(', ')}.`, ''],
    };
  } finally {
    for (const engine of engines.values()) engine.dispose();
  }
}
