// The standalone network's notion of "now": what the next ledger's close time (and the time bounds a
// submitted transaction is validated against) is taken from. The system clock by default; a developer
// network moves it ahead with an offset that only ever grows, so close times never go back.

export interface Clock {
  /** The current time, in whole seconds since the Unix epoch (a ledger's close time). */
  nowSeconds(): bigint;
  /** The same in milliseconds (protocol 30's close times); a clock without it ticks in whole seconds. */
  nowMs?(): bigint;
}

export const systemClock: Clock = {
  nowSeconds: () => BigInt(Math.floor(Date.now() / 1000)),
  nowMs: () => BigInt(Date.now()),
};

/** A clock running `offsetSeconds` ahead of another (the system clock by default), moved forward by `advance`. */
export class OffsetClock implements Clock {
  private readonly base: Clock;
  private offset = 0n;

  constructor(base: Clock = systemClock) {
    this.base = base;
  }

  nowSeconds(): bigint {
    return this.base.nowSeconds() + this.offset;
  }

  nowMs(): bigint {
    return (this.base.nowMs?.() ?? this.base.nowSeconds() * 1000n) + this.offset * 1000n;
  }

  /** How far ahead of its base this clock runs. */
  get offsetSeconds(): bigint {
    return this.offset;
  }

  /** Moves the clock `seconds` ahead (a whole, non-negative number: time never goes back). */
  advance(seconds: bigint | number): void {
    if (typeof seconds === 'number' && !Number.isSafeInteger(seconds)) throw new RangeError(`cannot advance the clock by ${seconds} seconds: not a whole number`);
    const s = BigInt(seconds);
    if (s < 0n) throw new RangeError(`cannot advance the clock by ${s} seconds: time never goes back`);
    this.offset += s;
  }
}
