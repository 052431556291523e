// Long synchronous work (closing a ledger of a thousand contract calls takes over a second) split
// into steps, so the event loop keeps answering requests in between: the work is a generator that
// yields after each step, and the runner gives the event loop a turn once a slice of time is used.
/** How long work runs before it gives the event loop a turn. */
export const SLICE_MS = 10;

/**
 * Runs step generators, giving the event loop a turn whenever a slice of `sliceMs` is used up, and
 * counts the time spent working (not the turns given away). Work shorter than a slice runs in one go.
 */
export class SlicedWork {
  busyMs = 0;
  private sliceStart = performance.now();
  private readonly cancelled: () => boolean;
  private readonly sliceMs: number;
  constructor(cancelled: () => boolean, sliceMs = SLICE_MS) {
    this.cancelled = cancelled;
    this.sliceMs = sliceMs;
  }

  /** Between two pieces of work: gives the event loop a turn if the slice is used up; false when cancelled. */
  async checkpoint(): Promise<boolean> {
    if (performance.now() - this.sliceStart >= this.sliceMs) return this.pause();
    return !this.cancelled();
  }

  /** Gives the event loop a turn; false when cancelled meanwhile. */
  async pause(): Promise<boolean> {
    this.busyMs += performance.now() - this.sliceStart;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceStart = performance.now();
    return !this.cancelled();
  }

  /** The generator's result, or undefined when cancelled. */
  async run<T>(steps: Generator<void, T, void>): Promise<T | undefined> {
    for (;;) {
      const step = steps.next();
      if (step.done) {
        this.busyMs += performance.now() - this.sliceStart;
        this.sliceStart = performance.now();
        return step.value;
      }
      if (performance.now() - this.sliceStart >= this.sliceMs && !await this.pause()) return undefined;
    }
  }
}

/** Runs a step generator to its end now, in one go (the same work where no turn may be given away). */
export function runSteps<T>(steps: Generator<void, T, void>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}
