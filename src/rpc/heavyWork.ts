// What the methods that build large answers share: a cap on how many build at once (each may hold
// up to an answer budget of memory and keeps a core busy), and the rendering of large XDR as JSON.
import { ErrorCode, RpcError } from './errors.ts';
import type { MemoryRelief } from '../work/memoryRelief.ts';
import { Semaphore } from '../work/semaphore.ts';
import { XdrJsonRenderer, type XdrJsonItem } from './xdrJson.ts';

export interface HeavyWorkOptions {
  /** Heavy answers built at once; the others wait for a slot within their time limit. */
  concurrency: number;
  /** Threads rendering XDR as JSON at once. */
  jsonThreads: number;
  /** Gives memory back once heavy work has been quiet for a moment. */
  relief?: MemoryRelief;
  /**
   * False while clients hold more unread answer bytes than the server allows (ConnectionGuard):
   * a heavy answer then is not built at all.
   */
  roomForAnswers?: () => boolean;
}

/** A heavy request refused because answers already built wait for their (slow) clients. */
export const answersBacklogError = (): RpcError => new RpcError(ErrorCode.systemError,
  'answers waiting for their clients exceed the server\'s limit (max-queued-response-bytes); try again later');

export class HeavyWork {
  readonly gate: Semaphore;
  /** Threads rendering JSON: a JSON page renders this many items at once (one ahead of the next). */
  readonly jsonThreads: number;
  private readonly json: XdrJsonRenderer;
  private readonly relief: MemoryRelief | undefined;
  private readonly roomForAnswers: () => boolean;
  constructor(options: HeavyWorkOptions) {
    this.gate = new Semaphore(options.concurrency);
    this.jsonThreads = Math.max(1, options.jsonThreads);
    this.json = new XdrJsonRenderer(this.jsonThreads);
    this.relief = options.relief;
    this.roomForAnswers = options.roomForAnswers ?? (() => true);
  }

  /**
   * Runs `build` while holding a slot; waiting ends with the signal's reason if it fires first.
   * Refused (answersBacklogError) when, by the time the slot is free, clients are not taking the
   * answers already sent.
   */
  async run<T>(signal: AbortSignal, build: () => Promise<T>): Promise<T> {
    const release = await this.gate.acquire(signal);
    if (!this.roomForAnswers()) {
      release();
      throw answersBacklogError();
    }
    this.relief?.started();
    try {
      return await build();
    } finally {
      release();
      this.relief?.ended();
    }
  }

  /** Each item's JSON as UTF-8, rendered off the event loop. */
  renderJson(items: readonly XdrJsonItem[]): Promise<Uint8Array[]> { return this.json.render(items); }

  close(): Promise<void> {
    this.relief?.stop();
    this.json.close();
    return Promise.resolve();
  }
}
