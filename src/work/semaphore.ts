// A counting semaphore whose waiters can give up: heavy requests take a slot to build their answer,
// so at most `slots` of them hold memory and CPU at once; the rest wait in arrival order until a
// slot frees or their AbortSignal fires (their time limit). A freed slot passes to the next waiter
// on a later turn of the event loop, not in the same microtask run: otherwise a line of waiters
// that each finish quickly (a batch's elements refused one after another) would run back to back
// without the loop ever answering anyone else.
export class Semaphore {
  readonly slots: number;
  private busy = 0;
  private readonly waiters: Array<() => void> = [];
  constructor(slots: number) { this.slots = Math.max(1, slots); }

  get running(): number { return this.busy; }
  get waiting(): number { return this.waiters.length; }

  /** Resolves to the function that gives the slot back; rejects with the signal's reason. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.busy < this.slots) {
      this.busy++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = (): void => {
        signal?.removeEventListener('abort', onAbort);
        this.busy++;
        resolve(this.releaser());
      };
      const onAbort = (): void => {
        const i = this.waiters.indexOf(grant);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy--;
      if (this.waiters.length > 0) {
        this.busy++; // held for the next waiter until the loop's next turn
        setImmediate(() => {
          this.busy--;
          this.waiters.shift()?.();
        });
      }
    };
  }
}
