// One clock for the hub's long loops (matching and fanning a ledger out, handing entries to
// sockets, closing connections): once they have worked a slice of time since the event loop last
// turned, each gives it a turn at its next checkpoint, all of them on the same turn, so requests
// and other connections are served in between. The clock starts at the first checkpoint after a
// turn of the event loop: work that starts after the node was idle gets a whole slice.
export class Slices {
  private readonly ms: number;
  /** When the current stretch of work (since the event loop last turned) began. */
  private since = 0;
  /** A setImmediate marks the next turn of the event loop: until it runs, the stretch goes on. */
  private inStretch = false;
  /** The turn being waited for, shared by every loop that reached its checkpoint. */
  private turning: Promise<void> | undefined;

  constructor(ms: number) { this.ms = ms; }

  /** Undefined while the slice lasts; else the next turn of the event loop, to await. */
  checkpoint(): Promise<void> | undefined {
    const now = performance.now();
    if (!this.inStretch) {
      this.inStretch = true;
      this.since = now;
      setImmediate(() => { this.inStretch = false; });
    }
    if (now - this.since < this.ms) return undefined;
    this.turning ??= new Promise((resolve) => setImmediate(() => {
      this.turning = undefined;
      resolve();
    }));
    return this.turning;
  }
}
