// What the numbers were measured on: without the CPU model and core count, requests/s figures
// cannot be compared between reports.
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';

export interface Machine { cpu: string; cores: number; memoryGiB: number; node: string; platform: string }

export function describeMachine(): Machine {
  let cpu = cpus()[0]?.model ?? 'unknown';
  try {
    // /proc/cpuinfo is the source of truth on Linux (os.cpus() may be empty inside some containers)
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpu = m[1].trim();
  } catch { /* not Linux: keep os.cpus() */ }
  return {
    cpu,
    cores: availableParallelism(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}
