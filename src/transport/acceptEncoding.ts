// Which content coding an answer goes out in, read from the request's Accept-Encoding (RFC 9110,
// section 12.5.3). The node writes zstd and gzip; identity (no coding) is what goes out whenever
// neither is acceptable, so an answer is never refused for its coding.
//
// Rules: each element is a coding with an optional weight `;q=` from 0 to 1 (no weight: 1); q=0
// means "not acceptable"; `*` stands for every coding the header does not name; `x-gzip` is gzip;
// an element whose weight is not a number from 0 to 1 is ignored, as is every coding we do not write
// (br, deflate, compress); a coding named twice keeps its first weight. Among the acceptable codings
// the highest weight wins, and on equal weights the server's preference decides: zstd, which the
// bench finds smaller than gzip, and at least as fast, on these answers (BENCHMARKS.md, "Answer
// encoding").
// `identity` needs no handling: it is never chosen here, and identity;q=0 cannot be honoured when
// nothing else is acceptable (the answer then goes out as it is, the usual practice).

export type AnswerCoding = 'zstd' | 'gzip';

/** The codings the node writes, best first. */
const PREFERENCE: readonly AnswerCoding[] = ['zstd', 'gzip'];

/** An element's weight: 1 without one, undefined when malformed. */
function weightOf(params: string): number | undefined {
  let q = 1;
  for (const param of params.split(';')) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
    const text = param.slice(eq + 1).trim();
    q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text) ? Number(text) : NaN;
  }
  return Number.isNaN(q) ? undefined : q;
}

/** The coding to write an answer in for this Accept-Encoding value, or undefined for none (identity). */
export function negotiateCoding(header: string | undefined): AnswerCoding | undefined {
  if (header === undefined || header === '') return undefined;
  const weights = new Map<string, number>();
  for (const element of header.split(',')) {
    const semi = element.indexOf(';');
    let name = (semi < 0 ? element : element.slice(0, semi)).trim().toLowerCase();
    if (name === 'x-gzip') name = 'gzip';
    if (name === '' || weights.has(name)) continue;
    const q = semi < 0 ? 1 : weightOf(element.slice(semi + 1));
    if (q !== undefined) weights.set(name, q);
  }
  const star = weights.get('*') ?? 0;
  let best: AnswerCoding | undefined;
  let bestQ = 0;
  for (const coding of PREFERENCE) {
    const q = weights.get(coding) ?? star;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best;
}
