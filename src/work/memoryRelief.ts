// After a burst of large answers the node's resident memory stays near its peak: V8 collects the
// garbage only when it next needs room (an idle node may not for minutes), and glibc keeps freed
// blocks in its arenas. Once heavy work has been quiet for a moment, one full collection runs and
// the C heap's free pages go back to the OS, so the resident size falls back near its idle level.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Collect = () => void;

/** V8's gc() (as --expose-gc gives it), or undefined where it cannot be had. */
function fullCollection(): Collect | undefined {
  const exposed = (globalThis as { gc?: Collect }).gc;
  if (typeof exposed === 'function') return exposed;
  try {
    // Exposing it now makes a fresh context's global carry gc; this context's global is unchanged.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    return typeof gc === 'function' ? (gc as Collect) : undefined;
  } catch {
    return undefined;
  }
}

export class MemoryRelief {
  private readonly quietMs: number;
  private readonly trimCHeap: (() => boolean) | undefined;
  // looked up at the first relief: exposing gc changes a V8 flag, which a node that never serves a
  // heavy request has no reason to do
  private collect: Collect | undefined | null = null;
  private busy = 0;
  private timer: NodeJS.Timeout | undefined;

  /** `trimCHeap`: hands the C heap's free pages to the OS (the native addon's malloc_trim). */
  constructor(quietMs: number, trimCHeap?: () => boolean) {
    this.quietMs = quietMs;
    this.trimCHeap = trimCHeap;
  }

  /** Heavy work starts: no relief while it runs. */
  started(): void {
    this.busy++;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Heavy work ended: relieve once none has run for `quietMs`. */
  ended(): void {
    this.busy--;
    if (this.busy > 0) return;
    this.timer = setTimeout(() => this.relieve(), this.quietMs);
    this.timer.unref();
  }

  /** One full collection, then the C heap trimmed. */
  private relieve(): void {
    this.timer = undefined;
    if (this.busy > 0) return;
    if (this.collect === null) this.collect = fullCollection();
    this.collect?.();
    this.trimCHeap?.();
  }

  stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
