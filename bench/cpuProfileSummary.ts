// The hottest functions of a V8 .cpuprofile (self time) and the heaviest lumen-rpc functions with
// what they call (inclusive time), as text: what the profiling tools (bench/profile.ts,
// bench/profileEngineClose.ts) print. Open the file in Chrome DevTools for the full picture.
export interface ProfileNode { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }
export interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

export interface ProfileSummary { totalSeconds: number; self: string; inclusive: string }

/** `selfRows` hottest functions by self time, `inclusiveRows` heaviest functions of src/ by inclusive time. */
export function summarizeCpuProfile(profile: CpuProfile, selfRows: number, inclusiveRows: number): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const timeOf = new Map<number, number>();
  profile.samples.forEach((id, i) => timeOf.set(id, (timeOf.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...timeOf.values()].reduce((a, b) => a + b, 0);
  const label = (n: ProfileNode) =>
    `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, t] of timeOf) {
    const l = label(byId.get(id)!);
    self.set(l, (self.get(l) ?? 0) + t);
    const seen = new Set<string>(); // recursion must not count a sample twice
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = label(byId.get(cur)!);
      if (!seen.has(k)) { seen.add(k); inclusive.set(k, (inclusive.get(k) ?? 0) + t); }
    }
  }
  const top = (m: Map<string, number>, n: number, filter: (k: string) => boolean = () => true) =>
    [...m].filter(([k]) => filter(k)).sort((a, b) => b[1] - a[1]).slice(0, n)
      .map(([k, t]) => `${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
  return { totalSeconds: total / 1e6, self: top(self, selfRows), inclusive: top(inclusive, inclusiveRows, (k) => k.includes(' src/')) };
}
