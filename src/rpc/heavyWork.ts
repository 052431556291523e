// What the methods that build large answers share: a cap on how many build at once (each may hold
// up to an answer budget of memory and keeps a core busy), and the workers that render XDR as JSON.
import { Semaphore } from '../work/semaphore.ts';
import { XdrJsonWorkers, type XdrJsonItem } from './xdrJsonWorkers.ts';

export interface HeavyWorkOptions {
  /** Heavy answers built at once; the others wait for a slot within their time limit. */
  concurrency: number;
  /** Threads rendering XDR as JSON. */
  jsonWorkers: number;
}

export class HeavyWork {
  readonly gate: Semaphore;
  private readonly workers: XdrJsonWorkers;
  constructor(options: HeavyWorkOptions) {
    this.gate = new Semaphore(options.concurrency);
    this.workers = new XdrJsonWorkers(options.jsonWorkers);
  }

  /** Runs `build` while holding a slot; waiting ends with the signal's reason if it fires first. */
  async run<T>(signal: AbortSignal, build: () => Promise<T>): Promise<T> {
    const release = await this.gate.acquire(signal);
    try {
      return await build();
    } finally {
      release();
    }
  }

  /** Each item's JSON as UTF-8, rendered off the event loop. */
  renderJson(items: readonly XdrJsonItem[]): Promise<Uint8Array[]> { return this.workers.render(items); }

  close(): Promise<void> { return this.workers.close(); }
}
