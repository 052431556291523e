// What a fork's engine read and did not find, when nobody has fetched the key yet: such a read may
// only be missing because the entry lives on the forked network. Whoever runs transactions on a
// fork (admission, a close) records these misses, fetches them and runs again, until a run misses
// nothing; only that run's outcome counts.
import { toBase64 } from '../xdr/codec.ts';
import type { ForkedState } from './forkedState.ts';

/** Rounds of fetching what a run missed, at most, before the last run's outcome is taken as it is. */
export const MAX_FETCH_ROUNDS = 8;

export class MissedKeys {
  private readonly fork: ForkedState;
  /** One per run under way: runs may overlap (a close is sliced; a submission may come between slices). */
  private readonly recorders = new Set<Map<string, Uint8Array>>();

  constructor(fork: ForkedState) { this.fork = fork; }

  /** The engine's state found no entry for `key`. */
  absent(key: Uint8Array): void {
    if (this.recorders.size === 0 || this.fork.isResolved(key)) return;
    for (const misses of this.recorders) misses.set(toBase64(key), key);
  }

  /**
   * Runs `dryRun` (whose outcome is thrown away) until it misses nothing, fetching what it missed
   * after each run: what the real run will read is then local.
   */
  async discover(dryRun: () => void, signal?: AbortSignal): Promise<void> {
    for (let round = 0; round < MAX_FETCH_ROUNDS; round++) {
      const misses = new Map<string, Uint8Array>();
      this.recorders.add(misses);
      try { dryRun(); } catch { /* the real run reports it */ } finally { this.recorders.delete(misses); }
      if (misses.size === 0) return;
      await this.fork.resolve([...misses.values()], { signal });
    }
  }

  /**
   * Runs `run`, a run whose outcome is only kept by the caller (nothing it did is stored yet), and
   * when it missed anything fetches that and runs it again. An error counts like an outcome: it may
   * come from a missing entry (an upgrade's setting), so it is thrown only from a run that missed
   * nothing, or from the last round. `stopped` ends the rounds early.
   */
  async runFetching<T>(run: () => Promise<T | undefined>, stopped: () => boolean): Promise<T | undefined> {
    for (let round = 1; ; round++) {
      const misses = new Map<string, Uint8Array>();
      this.recorders.add(misses);
      let outcome: T | undefined;
      try {
        outcome = await run();
      } catch (err) {
        if (misses.size === 0 || round === MAX_FETCH_ROUNDS) throw err;
      } finally {
        this.recorders.delete(misses);
      }
      if (misses.size === 0 || round === MAX_FETCH_ROUNDS || stopped()) return outcome;
      await this.fork.resolve([...misses.values()]);
    }
  }
}
