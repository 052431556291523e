// What the methods that build large answers share: a cap on how many build at once (each may hold
// up to an answer budget of memory and keeps a core busy), shared fairly between clients, and the
// rendering of large XDR as JSON.
import { answersBacklogError, type AnswerBacklog } from './answerBacklog.ts';
import type { MemoryRelief } from '../work/memoryRelief.ts';
import { FairSlots } from '../work/fairSlots.ts';
import type { MethodCall } from './methods/types.ts';
import type { XdrFormat } from './methods/shared/xdrFormat.ts';
import { XdrJsonRenderer, type XdrJsonItem } from './xdrJson.ts';

/**
 * How long a heavy call already made waits for its client to read the answers that put it over its
 * share (a client paging on several connections at once, reading promptly) before it is refused.
 */
export const SHARE_WAIT_MS = 1000;

export interface HeavyWorkOptions {
  /** Heavy answers built at once; the others wait for a slot within their time limit. */
  concurrency: number;
  /**
   * Heavy answers one client builds at once (<= 0: no cap of its own); free slots go to the clients
   * in turn.
   */
  perClientConcurrency?: number;
  /** Threads rendering XDR as JSON at once. */
  jsonThreads: number;
  /** Gives memory back once heavy work has been quiet for a moment. */
  relief?: MemoryRelief;
  /**
   * The answers clients have not read yet (ConnectionGuard): while they are over the server's
   * ceiling a heavy answer is not built at all; a call waits while its own client is over its share.
   */
  backlog?: AnswerBacklog;
}

export class HeavyWork {
  readonly gate: FairSlots;
  /** Threads rendering JSON. */
  private readonly jsonThreads: number;
  private readonly json: XdrJsonRenderer;
  private readonly relief: MemoryRelief | undefined;
  private readonly backlog: AnswerBacklog | undefined;
  constructor(options: HeavyWorkOptions) {
    this.gate = new FairSlots(options.concurrency, options.perClientConcurrency ?? 0);
    this.jsonThreads = Math.max(1, options.jsonThreads);
    this.json = new XdrJsonRenderer(this.jsonThreads);
    this.relief = options.relief;
    this.backlog = options.backlog;
    this.backlog?.onTaken(() => this.gate.wake());
  }

  /**
   * Runs `build` while holding a slot, the clients taking turns; waiting ends with the signal's
   * reason if it fires first. While the call's own client holds its share of unread answers the
   * call waits for it to read them, SHARE_WAIT_MS at most; refused (-32098) when, by the time its
   * slot is free, its client still holds them, or clients together hold the server's ceiling.
   */
  async run<T>(call: Pick<MethodCall, 'signal' | 'client'>, build: () => Promise<T>): Promise<T> {
    const client = call.client;
    let wake: NodeJS.Timeout | undefined;
    const ready = client === undefined ? undefined : (): boolean => {
      const since = client.overShareSince();
      const left = since === undefined ? 0 : since + SHARE_WAIT_MS - performance.now();
      if (left <= 0) return true;
      wake ??= setTimeout(() => { wake = undefined; this.gate.wake(); }, left);
      return false;
    };
    let release: () => void;
    try {
      release = await this.gate.acquire(client?.key, call.signal, ready);
    } finally {
      clearTimeout(wake);
    }
    const refusal = client !== undefined ? client.refusal() : this.backlog?.full() ? answersBacklogError() : undefined;
    if (refusal !== undefined) {
      release();
      throw refusal;
    }
    this.relief?.started();
    try {
      return await build();
    } finally {
      release();
      this.relief?.ended();
    }
  }

  /**
   * Rows a page renders ahead of the one it awaits (Page.fill): as JSON they render on the JSON
   * threads, one per thread side by side; as base64 on the event loop, where nothing is gained.
   */
  rowsAhead(format: XdrFormat): number { return format === 'json' ? this.jsonThreads - 1 : 0; }

  /** Each item's JSON as UTF-8, rendered off the event loop. */
  renderJson(items: readonly XdrJsonItem[]): Promise<Uint8Array[]> { return this.json.render(items); }

  close(): Promise<void> {
    this.relief?.stop();
    this.json.close();
    return Promise.resolve();
  }
}
