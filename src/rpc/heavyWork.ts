// What the methods that build large answers share: a cap on how many build at once (each may hold
// up to an answer budget of memory and keeps a core busy), shared fairly between clients, and the
// rendering of large XDR as JSON.
import { answersBacklogError, type AnswerBacklog } from './answerBacklog.ts';
import type { MemoryRelief } from '../work/memoryRelief.ts';
import { FairSlots } from '../work/fairSlots.ts';
import type { MethodCall } from './methods/types.ts';
import { XdrJsonRenderer, type XdrJsonItem } from './xdrJson.ts';

export { answersBacklogError } from './answerBacklog.ts';

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
  /** Threads rendering JSON: a JSON page renders this many items at once (one ahead of the next). */
  readonly jsonThreads: number;
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
   * Runs `build` while holding a slot of the call's client; waiting ends with the signal's reason if
   * it fires first. While the client itself holds its share of unread answers it keeps waiting (a
   * client reading its last answer gets the next once it has); refused (-32098) when, by the time
   * its slot is free, clients together are not taking the answers already sent.
   */
  async run<T>(call: Pick<MethodCall, 'signal' | 'client'>, build: () => Promise<T>): Promise<T> {
    const client = call.client;
    const release = await this.gate.acquire(client?.key, call.signal, client === undefined ? undefined : () => !client.overShare());
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

  /** Each item's JSON as UTF-8, rendered off the event loop. */
  renderJson(items: readonly XdrJsonItem[]): Promise<Uint8Array[]> { return this.json.render(items); }

  close(): Promise<void> {
    this.relief?.stop();
    this.json.close();
    return Promise.resolve();
  }
}
