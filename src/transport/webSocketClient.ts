// A WebSocket connection's calls as the per-client budgets see them (rpc/answerBacklog.ts). Its key
// is its source address, as an HTTP client's is: the heavy-answer slots are shared out between
// addresses across both transports, so opening WebSocket connections gains a client no extra turn.
// Its unread answers are what its connection holds that its client has not taken (the hub's outbox
// for it and its socket: answers and notifications alike, since one queue carries both), held
// against the per-address share; the server's ceiling behind it is the HTTP guard's.
import { answersBacklogError, clientBacklogError, type AnswerBacklog, type CallClient } from '../rpc/answerBacklog.ts';
import type { RpcError } from '../rpc/errors.ts';

export class WebSocketClient implements CallClient {
  readonly key: string;
  private readonly held: () => number;
  private readonly share: number;
  private readonly backlog: AnswerBacklog | undefined;
  /** When a call first found the connection holding its share (it is looked at, not told). */
  private overSince: number | undefined;

  /** `held`: the connection's untaken bytes now; `share` <= 0: no share of its own. */
  constructor(key: string, held: () => number, share: number, backlog?: AnswerBacklog) {
    this.key = key;
    this.held = held;
    this.share = share;
    this.backlog = backlog;
  }

  overShareSince(): number | undefined {
    if (this.share > 0 && this.held() >= this.share) this.overSince ??= performance.now();
    else this.overSince = undefined;
    return this.overSince;
  }

  refusal(): RpcError | undefined {
    if (this.overShareSince() !== undefined) return clientBacklogError();
    return this.backlog?.full() === true ? answersBacklogError() : undefined;
  }
}
