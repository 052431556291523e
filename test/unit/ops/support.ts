// Test scaffolding for the operation handlers: an in-memory EntrySource, entry builders and a runner
// that validates and applies one operation through a real LedgerTxn, committing on success.
import { xdr } from '../../../src/xdr/xdr.ts';
import { createHash } from 'node:crypto';
import { LedgerTxn, type EntrySource } from '../../../src/ledger/ledgerTxn.ts';
import { OrderBook } from '../../../src/ledger/orderBook.ts';
import { poolShareTrustLineKeyPrefix } from '../../../src/ledger/liquidityPools.ts';
import { ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';
import { opHandlers } from '../../../src/ledger/ops/index.ts';
import type { LedgerContext, OpContext, OpOutcome } from '../../../src/ledger/ops/types.ts';
import {
  accountKey, dataKey, decodeLedgerEntry, encodeLedgerEntry, encodeLedgerKey, networkIdOf, trustLineKey,
  type AccountEntry, type AccountId, type Asset, type ContractEvent, type LedgerEntry, type LedgerKey,
  type MuxedAccount, type TrustLineEntry,
} from '../../../src/xdr/codec.ts';

/** How the in-memory state keys entries: like storage, by the LedgerKey XDR. */
const storageKey = (key: LedgerKey): string => Buffer.from(encodeLedgerKey(key)).toString('base64');

export const NETWORK_ID = networkIdOf('Standalone Network ; February 2017');
export const BASE_RESERVE = 5_000_000;
export const XLM = 10_000_000n;

export function ledgerContext(over: Partial<LedgerContext> = {}): LedgerContext {
  return { ledgerSeq: 100, closeTime: 1_700_000_000n, protocolVersion: 23, baseReserve: BASE_RESERVE, baseFee: 100, networkId: NETWORK_ID, ...over };
}

/** A deterministic account id (any 32 bytes make a valid G-address for these purposes). */
export function accountId(name: string): AccountId {
  return { type: 0, ed25519: new Uint8Array(createHash('sha256').update(`account:${name}`).digest()) };
}

export const muxed = (id: AccountId, muxId?: bigint): MuxedAccount =>
  muxId === undefined ? { type: 0, ed25519: id.ed25519 } : { type: 256, med25519: { id: muxId, ed25519: id.ed25519 } };

export function credit(code: string, issuer: AccountId): Asset {
  const bytes = new Uint8Array(code.length <= 4 ? 4 : 12);
  bytes.set(Buffer.from(code, 'latin1'));
  return code.length <= 4
    ? { type: 1, alphaNum4: { assetCode: bytes, issuer } }
    : { type: 2, alphaNum12: { assetCode: bytes, issuer } };
}

export function accountEntry(id: AccountId, balance: bigint, over: Partial<AccountEntry> = {}): LedgerEntry {
  return {
    lastModifiedLedgerSeq: 1,
    data: {
      type: 0,
      account: {
        accountId: id, balance, seqNum: 4n << 32n, numSubEntries: 0, inflationDest: null, flags: 0,
        homeDomain: new xdr.XdrString(''), thresholds: new Uint8Array([1, 0, 0, 0]), signers: [], ext: { v: 0 }, ...over,
      },
    },
    ext: { v: 0 },
  };
}

export function trustLineEntry(id: AccountId, asset: Asset, balance: bigint, limit: bigint, flags: number,
  over: Partial<TrustLineEntry> = {}): LedgerEntry {
  if (asset.type === 0) throw new Error('no native trustlines');
  const tlAsset = asset.type === 1 ? { type: 1 as const, alphaNum4: asset.alphaNum4 } : { type: 2 as const, alphaNum12: asset.alphaNum12 };
  return { lastModifiedLedgerSeq: 1, data: { type: 1, trustLine: { accountId: id, asset: tlAsset, balance, limit, flags, ext: { v: 0 }, ...over } }, ext: { v: 0 } };
}

/** Committed ledger state: a map from base64 LedgerKey XDR to an XDR-serialised entry. */
export class MemoryState implements EntrySource {
  private readonly entries = new Map<string, Uint8Array>();
  private readonly book = new OrderBook();
  /** The header's idPool, as the last committed LedgerTxn left it. */
  idPool = 0n;

  constructor(entries: LedgerEntry[] = []) { for (const e of entries) this.put(e); }

  put(entry: LedgerEntry): void {
    const key = encodeLedgerKey(ledgerKeyOf(entry.data));
    const bytes = encodeLedgerEntry(entry);
    this.entries.set(Buffer.from(key).toString('base64'), bytes);
    this.book.apply([{ key, entry: bytes }]);
  }

  offers(selling: Asset, buying: Asset): readonly LedgerEntry[] { return this.book.offers(selling, buying); }

  offersBySeller(seller: AccountId): readonly LedgerEntry[] { return this.book.offersBySeller(seller); }

  poolShareTrustLines(owner: AccountId): readonly LedgerEntry[] {
    const prefix = Buffer.from(poolShareTrustLineKeyPrefix(owner));
    return [...this.entries].filter(([k]) => Buffer.from(k, 'base64').subarray(0, prefix.length).equals(prefix)).map(([, b]) => decodeLedgerEntry(b));
  }

  getEntry(keyXdr: Uint8Array): LedgerEntry | undefined {
    const b = this.entries.get(Buffer.from(keyXdr).toString('base64'));
    return b ? decodeLedgerEntry(b) : undefined;
  }

  get(key: LedgerKey): LedgerEntry | undefined {
    const b = this.entries.get(storageKey(key));
    return b ? decodeLedgerEntry(b) : undefined;
  }

  account(id: AccountId): AccountEntry | undefined {
    const e = this.get(accountKey(id));
    return e?.data.type === 0 ? e.data.account : undefined;
  }

  trustLine(id: AccountId, asset: Asset): TrustLineEntry | undefined {
    const e = this.get(trustLineKey(id, asset as xdr.TrustLineAssetWire));
    return e?.data.type === 1 ? e.data.trustLine : undefined;
  }

  data(id: AccountId, name: string): xdr.DataEntryWire | undefined {
    const e = this.get(dataKey(id, name));
    return e?.data.type === 3 ? e.data.data : undefined;
  }

  /** Folds a committed outermost LedgerTxn into the state. */
  absorb(root: LedgerTxn): void {
    const writes = [];
    for (const slot of root.writes()) {
      const entry = slot.entry ? encodeLedgerEntry(slot.entry) : null;
      if (entry) this.entries.set(storageKey(slot.key), entry);
      else this.entries.delete(storageKey(slot.key));
      writes.push({ key: encodeLedgerKey(slot.key), entry });
    }
    this.book.apply(writes);
    this.idPool = root.idPool;
  }
}

export interface RunResult {
  outcome: OpOutcome;
  /** Where the outcome came from: checkValid (validation) or apply. */
  stage: 'checkValid' | 'apply';
  events: ContractEvent[];
  changes: xdr.LedgerEntryChangeWire[];
}

export interface RunOptions {
  ledger?: Partial<LedgerContext>;
  sourceMuxed?: MuxedAccount;
  memo?: xdr.MemoWire;
  maxSeqNumToApply?: OpContext['maxSeqNumToApply'];
  /** The transaction around the operation (ids derived from it); by default the source, sequence 0, index 0. */
  txSourceId?: AccountId;
  txSeqNum?: bigint;
  opIndex?: number;
}

/**
 * Validates then applies one operation as `source` through a real LedgerTxn; on success the changes
 * are committed into `state`, on failure rolled back (so state is untouched).
 */
export function runOp(state: MemoryState, body: xdr.OperationBodyWire, source: AccountId, opts: RunOptions = {}): RunResult {
  const handler = opHandlers[body.type];
  if (!handler) throw new Error(`no handler for operation type ${body.type}`);
  const ledger = ledgerContext(opts.ledger);
  const sourceMuxed = opts.sourceMuxed ?? muxed(source);
  const invalid = handler.checkValid(body, { ledger, source, sourceMuxed });
  if (invalid) return { outcome: invalid, stage: 'checkValid', events: [], changes: [] };

  const root = new LedgerTxn(state, ledger.ledgerSeq, { idPool: state.idPool });
  const ltx = root.nest();
  const events: ContractEvent[] = [];
  const outcome = handler.apply(body, {
    ltx, ledger, sourceMuxed, source, txMemo: opts.memo ?? { type: 0 }, events, opIndex: opts.opIndex ?? 0,
    txSeqNum: opts.txSeqNum ?? 0n, txSourceId: opts.txSourceId ?? source, maxSeqNumToApply: opts.maxSeqNumToApply,
  });
  if (!outcome.success) {
    ltx.rollback();
    return { outcome, stage: 'apply', events, changes: [] };
  }
  const changes = ltx.commit();
  root.commit();
  state.absorb(root);
  return { outcome, stage: 'apply', events, changes };
}

/** The operation-specific result code inside an outcome (its `tr` arm's `code`). */
export function innerCode(outcome: OpOutcome): number {
  const arm = Object.entries(outcome.tr).find(([k]) => k !== 'type')?.[1] as { code: number } | undefined;
  if (!arm) throw new Error('result has no inner arm');
  return arm.code;
}
