// Answers written but not yet read by their clients hold memory until they are read (or their
// connection is closed at the write timeout). Their bytes are kept per client, each with a share,
// and in total, under the server's ceiling; the transport counts them (transport/connectionGuard.ts)
// and the methods ask before they build: a client over its share is refused, alone; at the ceiling
// every method but the light ones is refused (Method.light: getHealth, getLatestLedger, ...), so
// what other clients leave unread never stops those.
import { ErrorCode, RpcError } from './errors.ts';

/** The client a call comes from, as its transport knows it (HTTP: its source address). */
export interface CallClient {
  /** Who it is: its source address (an IPv6 one by its /64). Heavy answers are shared out between keys. */
  readonly key: string;
  /**
   * Since when (performance.now()) this client has held its share of unread answer bytes or more;
   * undefined while it holds less.
   */
  overShareSince(): number | undefined;
  /**
   * Why no answer may be started for this client now (its own share first, then the server's
   * ceiling), or undefined when one may.
   */
  refusal(): RpcError | undefined;
}

/** The unread answers of all clients together. */
export interface AnswerBacklog {
  /** True while all clients together hold the server's ceiling of unread answer bytes, or more. */
  full(): boolean;
  /** `fn` runs whenever a client has taken (or dropped) an answer: room may have opened. */
  onTaken(fn: () => void): void;
}

/** A call refused because answers already built wait for their (slow) clients: the server's ceiling. */
export const answersBacklogError = (): RpcError => new RpcError(ErrorCode.systemError,
  'answers waiting for their clients exceed the server\'s limit (max-queued-response-bytes); try again later');

/** A call refused because its own client leaves its answers unread. */
export const clientBacklogError = (): RpcError => new RpcError(ErrorCode.systemError,
  'answers waiting for this client exceed its share (max-queued-response-bytes-per-address); read them, then try again');
