// Compares what the engine made of a transaction with what the network recorded: the
// TransactionResult byte for byte, then the TransactionMeta (events included) byte for byte once
// both are normalized (normalizeMeta.ts). On a difference, the first differing field.
import { xdr } from '../xdr/xdr.ts';
import { bytesEqual } from '../xdr/codec.ts';
import { normalizeMeta } from './normalizeMeta.ts';
import { firstDifference, type Difference } from './firstDifference.ts';

export interface TransactionOutput {
  result: xdr.TransactionResultWire;
  meta: xdr.TransactionMetaWire;
}

/** null when identical. */
export function compareTransaction(ours: TransactionOutput, real: TransactionOutput): Difference | null {
  const ourResult = xdr.TransactionResult.schema.encode(ours.result);
  if (!bytesEqual(ourResult, xdr.TransactionResult.schema.encode(real.result))) {
    return firstDifference(ours.result, real.result, 'result') ?? unlocated('result');
  }
  const realMeta = normalizeMeta(real.meta);
  const ourMeta = inVersion(normalizeMeta(ours.meta), real.meta.v);
  if (!ourMeta) return { path: 'meta.v', ours: String(ours.meta.v), real: String(real.meta.v) };
  if (bytesEqual(xdr.TransactionMeta.schema.encode(ourMeta), xdr.TransactionMeta.schema.encode(realMeta))) return null;
  return firstDifference(metaBody(ourMeta), metaBody(realMeta), 'meta') ?? unlocated('meta');
}

/** Metas the engine's V4 meta can be compared with: V4 itself, and V3 and V2, which carry no classic events. */
export const comparableMetaVersions: ReadonlySet<number> = new Set([2, 3, 4]);

/**
 * The engine's (V4) meta in the real meta's version. Before protocol 23 (TransactionMeta V2 and
 * V3) classic transactions emitted no events; their entry changes are laid out the same way.
 */
function inVersion(meta: xdr.TransactionMetaWire, v: number): xdr.TransactionMetaWire | null {
  if (meta.v !== 4) return meta.v === v ? meta : null;
  const m = meta.v4;
  const operations = m.operations.map((o) => ({ changes: o.changes }));
  switch (v) {
    case 4: return meta;
    case 3: return { v: 3, v3: { ext: { v: 0 }, txChangesBefore: m.txChangesBefore, operations, txChangesAfter: m.txChangesAfter, sorobanMeta: null } };
    case 2: return { v: 2, v2: { txChangesBefore: m.txChangesBefore, operations, txChangesAfter: m.txChangesAfter } };
    default: return null;
  }
}

/** The version's arm, so paths read meta.operations[0]… rather than meta.v4.operations[0]… */
function metaBody(meta: xdr.TransactionMetaWire): unknown {
  switch (meta.v) {
    case 0: return meta.operations;
    case 1: return meta.v1;
    case 2: return meta.v2;
    case 3: return meta.v3;
    case 4: return meta.v4;
  }
}

/** The encodings differ but the walk found no field: should not happen; reported rather than hidden. */
const unlocated = (what: string): Difference => ({ path: what, ours: '(encodings differ)', real: '(no differing field found)' });
