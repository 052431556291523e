// Hands every connection's waiting entries to its socket: round robin, a quantum of bytes per
// connection and turn, in slices of the event loop, so neither one connection with a long backlog
// nor thousands of connections with a little each hold the loop or the others' turn. A socket holds
// at most a window of bytes its client has not taken (the rest waits in the outbox, shared); a
// connection whose socket holds its window is set aside, and all of those are looked at again
// together every POLL_MS, so a client that does not read costs no timer of its own.
import type { Slices } from './slices.ts';
import type { Entry, Outbox } from './outbox.ts';
import { Fifo } from './fifo.ts';

/** How often connections whose socket is full are looked at again. */
const POLL_MS = 10;

export interface DeliverySchedulerOptions {
  /** Bytes a socket may hold that its client has not taken before nothing more is handed to it. */
  window: number;
  /** Bytes handed to one connection per turn (one entry at least). */
  quantum: number;
  /** The slices of the event loop, shared with the hub's other long loops. */
  slices: Slices;
  /** Sends one entry to its connection. */
  deliver(entry: Entry, box: Outbox): void;
}

export class DeliveryScheduler {
  private readonly options: DeliverySchedulerOptions;
  private readonly ready = new Fifo<Outbox>();
  /** Connections whose socket holds its window, with something waiting. */
  private readonly blocked = new Set<Outbox>();
  private running = false;
  private poller: NodeJS.Timeout | undefined;

  constructor(options: DeliverySchedulerOptions) { this.options = options; }

  /** Something waits in `box`: it gets a turn. */
  wake(box: Outbox): void {
    if (box.scheduled || box.closing) return;
    box.scheduled = true;
    this.blocked.delete(box);
    this.ready.push(box);
    if (!this.running) void this.run();
  }

  /** A replay waits for room in `box`: it is given room as soon as the box has some. */
  waitRoom(box: Outbox): Promise<void> {
    const wait = box.room(this.options.window);
    if (!box.hasRoom(this.options.window)) {
      if (box.length > 0) this.wake(box);
      else this.setAside(box);
    }
    return wait;
  }

  /** Forgets a closed connection. */
  forget(box: Outbox): void {
    this.blocked.delete(box);
  }

  /** Stops looking at blocked connections (shutdown). */
  stop(): void {
    this.blocked.clear();
    if (this.poller !== undefined) clearInterval(this.poller);
    this.poller = undefined;
  }

  private async run(): Promise<void> {
    this.running = true;
    const { window, quantum, deliver, slices } = this.options;
    try {
      for (let box = this.ready.shift(); box !== undefined; box = this.ready.shift()) {
        box.scheduled = false;
        if (box.closing) continue;
        box.sink.cork?.();
        let done;
        try {
          done = box.handOver(window, quantum, (entry) => deliver(entry, box));
        } finally {
          box.sink.uncork?.();
        }
        if (done === 'more') this.wake(box);
        else if (done === 'full') this.setAside(box);
        else if (box.hasRoom(window)) box.grantRoom();
        else this.setAside(box);
        await slices.checkpoint();
      }
    } finally {
      this.running = false;
    }
  }

  private setAside(box: Outbox): void {
    box.full(performance.now());
    this.blocked.add(box);
    if (this.poller === undefined) {
      this.poller = setInterval(() => this.poll(), POLL_MS);
      this.poller.unref();
    }
  }

  private poll(): void {
    const { window } = this.options;
    const now = performance.now();
    for (const box of this.blocked) {
      if (box.closing) {
        this.blocked.delete(box);
      } else if (box.sink.bufferedBytes < window) {
        this.blocked.delete(box);
        if (box.length > 0) this.wake(box);
        else box.grantRoom();
      } else {
        box.full(now);
      }
    }
    if (this.blocked.size === 0 && this.poller !== undefined) {
      clearInterval(this.poller);
      this.poller = undefined;
    }
  }
}
