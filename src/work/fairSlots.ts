// Slots shared fairly between owners (clients): at most `slots` held at once, and a freed slot goes
// to the owners in turn (round robin), so one owner's long line of waiters (a batch of a thousand
// pages) holds the others back by one turn at most. While other owners wait, one owner holds at most
// `perOwner` slots; an owner alone may use them all (a slot is never left idle). A waiter may also
// be not ready (its client leaves its answers unread): it keeps its place and the slot passes to the
// next owner; `wake()` looks again once what it waits on changed. Waiters without an owner (calls
// from inside the process) share one line with no per-owner cap. As in Semaphore, a freed slot
// passes on at a later turn of the event loop, and a waiter whose AbortSignal fires leaves its line.

interface Waiter {
  grant(): void;
  ready: (() => boolean) | undefined;
}

/** The line of waiters without an owner. */
const NO_OWNER = Symbol('no owner');
type Owner = string | typeof NO_OWNER;

export class FairSlots {
  readonly slots: number;
  readonly perOwner: number;
  private busy = 0;
  private queued = 0;
  /** Slots held per owner (owners holding none are absent). */
  private readonly held = new Map<Owner, number>();
  /** Each owner's waiters in arrival order; the owners in turn order (Map keeps insertion order). */
  private readonly lines = new Map<Owner, Waiter[]>();
  private scheduled = false;

  /** `perOwner` <= 0: no per-owner cap. */
  constructor(slots: number, perOwner = 0) {
    this.slots = Math.max(1, slots);
    this.perOwner = perOwner > 0 ? perOwner : Infinity;
  }

  get running(): number { return this.busy; }
  get waiting(): number { return this.queued; }

  /**
   * Resolves to the function that gives the slot back, once `owner` has a slot free and `ready`
   * (if given) says yes; rejects with the signal's reason if it fires first.
   */
  acquire(owner?: string, signal?: AbortSignal, ready?: () => boolean): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const key: Owner = owner ?? NO_OWNER;
    // nobody waits: nobody to make room for
    if (this.queued === 0 && this.busy < this.slots && (ready === undefined || ready())) {
      this.take(key);
      return Promise.resolve(this.releaser(key));
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        ready,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.releaser(key));
        },
      };
      const onAbort = (): void => {
        const line = this.lines.get(key);
        const i = line?.indexOf(waiter) ?? -1;
        if (i >= 0) {
          line!.splice(i, 1);
          this.queued--;
          if (line!.length === 0) this.lines.delete(key);
        }
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const line = this.lines.get(key);
      if (line === undefined) this.lines.set(key, [waiter]);
      else line.push(waiter);
      this.queued++;
      this.schedule();
    });
  }

  /** What a waiter's `ready` depends on may have changed: looks at the lines again. */
  wake(): void {
    if (this.queued > 0) this.schedule();
  }

  private room(key: Owner): boolean {
    return key === NO_OWNER || (this.held.get(key) ?? 0) < this.perOwner;
  }

  private take(key: Owner): void {
    this.busy++;
    this.held.set(key, (this.held.get(key) ?? 0) + 1);
  }

  private releaser(key: Owner): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy--;
      const n = this.held.get(key)! - 1;
      if (n === 0) this.held.delete(key);
      else this.held.set(key, n);
      this.wake();
    };
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.grantAll();
    });
  }

  /**
   * Grants free slots to the owners in turn, skipping those not ready; those at their cap only when
   * no owner under its cap is ready.
   */
  private grantAll(): void {
    while (this.busy < this.slots && this.queued > 0) {
      if (!this.grantOne(true) && !this.grantOne(false)) return;
    }
  }

  private grantOne(underCap: boolean): boolean {
    for (const [key, line] of this.lines) {
      const head = line[0];
      if ((underCap && !this.room(key)) || (head.ready !== undefined && !head.ready())) continue;
      line.shift();
      this.queued--;
      // the owner served goes to the back of the turn
      this.lines.delete(key);
      if (line.length > 0) this.lines.set(key, line);
      this.take(key);
      head.grant();
      return true;
    }
    return false;
  }
}
