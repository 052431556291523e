// A child process's memory, read from /proc (Linux): its resident set now (VmRSS), and its peak
// resident set (VmHWM, which the kernel keeps for the whole life of the process), sampled until it
// exits or the sampler stops; and a probe that times light requests against a node while something
// heavy goes on, with the summary of such timings.
import { readFileSync } from 'node:fs';

/** A field of `pid`'s /proc status in MiB (the kernel gives kB). Throws once the process has exited. */
const statusMb = (pid: number, field: 'VmRSS' | 'VmHWM'): number =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** VmRSS (resident memory now) of `pid` in MiB. Throws once it has exited. */
export const rssMb = (pid: number): number => statusMb(pid, 'VmRSS');

/** VmHWM (peak RSS) of `pid` in MiB; undefined once it has exited. */
export function peakRssMb(pid: number): number | undefined {
  try {
    return statusMb(pid, 'VmHWM');
  } catch {
    return undefined;
  }
}

/**
 * Samples `pid`'s resident memory now and every `everyMs`: the highest seen. For a process that
 * lives across tests, whose VmHWM would include the peaks of the tests before.
 */
export function rssSampler(pid: number, everyMs = 25): { readonly peakMb: number; stop(): number } {
  let peak = 0;
  const sample = () => { try { peak = Math.max(peak, rssMb(pid)); } catch { /* exited */ } };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    get peakMb() { return peak; },
    stop() { clearInterval(timer); return peak; },
  };
}

/** Samples `pid`'s peak RSS every 20 ms: the highest seen, up to its last sample before it exited. */
export function peakRssSampler(pid: number): { readonly peakMb: number; stop(): number } {
  let peak = 0;
  const sample = () => { peak = Math.max(peak, peakRssMb(pid) ?? 0); };
  sample();
  const timer = setInterval(sample, 20);
  return {
    get peakMb() { return peak; },
    stop() { sample(); clearInterval(timer); return peak; },
  };
}

export interface Probes { count: number; p50: number; p99: number; max: number; errors: number }

/**
 * Calls `methods` in turn against `url` (one JSON-RPC call at a time, 10 ms apart) until `done()`,
 * timing each answer; an answer that is not JSON-RPC counts as an error.
 */
export async function probeUntil(url: string, methods: string[], done: () => boolean): Promise<Probes> {
  const times: number[] = [];
  let errors = 0;
  for (let i = 0; !done(); i++) {
    const started = performance.now();
    try {
      const res = await fetch(url, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: i, method: methods[i % methods.length] }),
      });
      const body = await res.json() as { result?: unknown; error?: unknown };
      if (!body.result && !body.error) errors++;
    } catch {
      errors++;
    }
    times.push(performance.now() - started);
    await new Promise((r) => setTimeout(r, 10));
  }
  return latencySummary(times, errors);
}

/** The count, median, 99th percentile and maximum of `times` (ms), and `errors`. */
export function latencySummary(times: readonly number[], errors = 0): Probes {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0, errors };
}

export const describeProbes = (p: Probes): string =>
  `${p.count} probes: p50 ${p.p50.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms, max ${p.max.toFixed(1)} ms, ${p.errors} errors`;
