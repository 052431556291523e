// What src/cli/keepNextTickFast.ts is for: `node bench/nextTickCost.ts` times process.nextTick in fresh
// processes that used it a little, then ran a full garbage collection with no callback queued, with
// and without one queue entry held from the start. Not part of `npm run bench`: the HTTP throughput
// section measures what it is worth per request.
import { execFileSync } from 'node:child_process';

const CHILD = `
const { executionAsyncResource } = require('node:async_hooks');
let kept;
if (process.argv[1] === 'held') process.nextTick(() => { kept = executionAsyncResource(); });
const noop = () => {};
const timed = () => {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 20000; i++) process.nextTick(noop);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 20000);
  }
  return best;
};
// some use first, as any program makes before its first full collection
for (let i = 0; i < 100; i++) process.nextTick(noop);
setTimeout(() => {
  globalThis.gc();
  setTimeout(function next(results = []) {
    results.push(timed());
    if (results.length < 5) setTimeout(() => next(results), 20);
    else process.stdout.write(String(Math.min(...results.slice(1))));
  }, 20);
}, 20);
`;

for (const mode of ['not held', 'held']) {
  const ns: number[] = [];
  for (let run = 0; run < 3; run++) {
    ns.push(Number(execFileSync(process.execPath, ['--expose-gc', '-e', CHILD, mode], { encoding: 'utf8' })));
  }
  console.log(`queue entry ${mode}: process.nextTick ${ns.map((x) => x.toFixed(0)).join(', ')} ns per call (3 processes, best of each after a full collection)`);
}
