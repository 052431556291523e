// Waiting that an AbortSignal cuts short. Ledger sources wait on things that may never come (the
// next datastore file, the next record on a pipe); aborting must end those waits at once and
// quietly, without leaving a promise to reject unobserved later.

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => { clearTimeout(timer); resolve(); };
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The promise's value, or undefined as soon as `signal` aborts (a later rejection is swallowed). */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) { p.catch(() => {}); return Promise.resolve(undefined); }
  return new Promise((resolve, reject) => {
    const onAbort = () => { p.catch(() => {}); resolve(undefined); };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e) => { signal.removeEventListener('abort', onAbort); reject(e); },
    );
  });
}

/** The items of `source` until it ends or `signal` aborts (then the source is closed, not awaited). */
export async function* untilAbort<T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = await untilAborted(it.next(), signal);
      if (next === undefined || next.done) return;
      yield next.value;
    }
  } finally {
    void Promise.resolve(it.return?.()).catch(() => {});
  }
}
