// A replay over files of consecutive ledgers, in two passes over the files: the first learns what
// state the metas reveal (initialState.ts), the second replays the ledgers in order. Only one
// file's ledgers are held at a time, so memory grows with what the metas reveal, not with how many
// ledgers there are.
import type { xdr } from '../xdr/xdr.ts';
import { networkIdOf, type LedgerHeader } from '../xdr/codec.ts';
import type { RawLedger } from '../sources/ledgerSource.ts';
import { decodeLedger, readLedgerFile, ReplayInputError } from './ledgerFiles.ts';
import type { ByteCap } from '../io/inputCaps.ts';
import { changeListsInOrder, closedLedgerOf, KNOWN_PASSPHRASES, ledgerBelongsTo, type ClosedLedger } from './closedLedger.ts';
import { InitialState } from './initialState.ts';
import { ScratchState } from './scratchState.ts';
import { replayLedger } from './ledgerReplay.ts';
import { Tally } from './tally.ts';

export interface ReplayOptions {
  /** The network the ledgers are from; without it the public networks' passphrases are tried. */
  networkPassphrase?: string;
  /** Called after each replayed ledger (progress). */
  onLedger?: (sequence: number) => void;
  /** The most bytes one file may hold, as read and decompressed (--max-input-bytes). */
  cap?: ByteCap;
}

export interface ReplayRun {
  files: string[];
  networkPassphrase: string;
  firstLedger: number;
  lastLedger: number;
  /** Keys the metas show (their values are known throughout the replay). */
  entriesKnown: number;
  tally: Tally;
  /** Things worth knowing about how this replay was set up. */
  notes: string[];
}

export function replayFiles(files: readonly string[], opts: ReplayOptions = {}): ReplayRun {
  if (files.length === 0) throw new ReplayInputError('no files to replay');
  /** The file each ledger is in. */
  const located = new Map<number, string>();
  const initial = new InitialState();
  let passphrase = opts.networkPassphrase;

  // first pass: where each ledger is, and the state before the first one
  for (const file of files) {
    for (const raw of readLedgerFile(file, opts.cap)) {
      const earlier = located.get(raw.sequence);
      if (earlier) throw new ReplayInputError(`ledger ${raw.sequence} is in both ${earlier} and ${file}`);
      located.set(raw.sequence, file);
      const lcm = decodeLedger(raw, file);
      passphrase ??= networkOf(lcm);
      initial.observe(raw.sequence, changeListsInOrder(lcm));
    }
  }
  const sequences = [...located.keys()].sort((a, b) => a - b);
  for (let i = 1; i < sequences.length; i++) {
    if (sequences[i] !== sequences[i - 1] + 1) {
      throw new ReplayInputError(`the ledgers are not consecutive: ${sequences[i - 1]} is followed by ${sequences[i]} (${sequences[i - 1] + 1}..${sequences[i] - 1} missing)`);
    }
  }
  if (sequences.length === 0) throw new ReplayInputError(`${files.join(', ')}: no ledgers`);
  const notes: string[] = [];
  if (!passphrase) {
    passphrase = KNOWN_PASSPHRASES[0];
    notes.push(`no transactions to tell the network by: taken as '${passphrase}'`);
  }
  const networkId = networkIdOf(passphrase);

  // second pass: the ledgers in order
  const tally = new Tally();
  const reader = new FileReader(opts.cap);
  let state: ScratchState | undefined;
  let previous: LedgerHeader | undefined;
  for (const seq of sequences) {
    const file = located.get(seq)!;
    const ledger = closedLedgerOf(decodeLedger(reader.ledger(file, seq), file), networkId, file);
    if (!state) {
      const start = startingIdPool(ledger);
      state = new ScratchState(initial, start.idPool);
      notes.push(start.note);
      if (ledger.upgradeChanges.length > 0) {
        notes.push(`ledger ${seq} carries upgrades and the ledger before it is not replayed: its own header's version, base fee and reserve stand in for the previous ones`);
      }
    }
    for (const t of replayLedger(ledger, state, previous, networkId)) tally.add(t);
    if (state.idPool !== ledger.header.idPool) {
      notes.push(`ledger ${seq}: the offer ids handed out end at ${state.idPool}, its header says idPool ${ledger.header.idPool}; continuing from the header`);
      state.idPool = ledger.header.idPool;
    }
    previous = ledger.header;
    opts.onLedger?.(seq);
  }
  return {
    files: [...files], networkPassphrase: passphrase, firstLedger: sequences[0], lastLedger: sequences[sequences.length - 1],
    entriesKnown: initial.size, tally, notes,
  };
}

/** The public network whose passphrase the ledger's transactions hash under; undefined when it cannot tell. */
function networkOf(lcm: xdr.LedgerCloseMetaWire): string | undefined {
  let hasTransactions = false;
  for (const passphrase of KNOWN_PASSPHRASES) {
    const belongs = ledgerBelongsTo(lcm, networkIdOf(passphrase));
    if (belongs === undefined) return undefined;
    hasTransactions = true;
    if (belongs) return passphrase;
  }
  if (hasTransactions) throw new ReplayInputError(`the transactions hash under none of the public networks' passphrases: give --network-passphrase`);
  return undefined;
}

/**
 * The idPool before the first ledger. The ledger before it is not replayed, so it comes from this
 * one: offer ids are handed out one after another, so the lowest offer this ledger created was
 * the first id it handed out; a ledger that created none left idPool as it found it.
 */
function startingIdPool(ledger: ClosedLedger): { idPool: bigint; note: string } {
  let lowest: bigint | undefined;
  for (const t of ledger.transactions) {
    const m = t.meta;
    const ops = m.v === 0 ? m.operations : m.v === 1 ? m.v1.operations : m.v === 2 ? m.v2.operations : m.v === 3 ? m.v3.operations : m.v4.operations;
    for (const op of ops) {
      for (const c of op.changes) {
        if (c.type === 0 && c.created.data.type === 2) {
          const id = c.created.data.offer.offerId;
          if (lowest === undefined || id < lowest) lowest = id;
        }
      }
    }
  }
  if (lowest === undefined) {
    return { idPool: ledger.header.idPool, note: `starting idPool ${ledger.header.idPool}: ledger ${ledger.sequence} created no offer, so its header's idPool` };
  }
  return { idPool: lowest - 1n, note: `starting idPool ${lowest - 1n}: one below the lowest offer id ledger ${ledger.sequence} created` };
}

/** The ledgers of one file at a time: the second pass reads each file again when it gets to it. */
class FileReader {
  private file: string | undefined;
  private ledgers = new Map<number, RawLedger>();
  private readonly cap: ByteCap | undefined;

  constructor(cap?: ByteCap) { this.cap = cap; }

  ledger(file: string, sequence: number): RawLedger {
    if (file !== this.file) {
      this.ledgers = new Map(readLedgerFile(file, this.cap).map((l) => [l.sequence, l]));
      this.file = file;
    }
    const raw = this.ledgers.get(sequence);
    if (!raw) throw new ReplayInputError(`${file}: ledger ${sequence} was there on the first reading and is gone`);
    this.ledgers.delete(sequence);
    return raw;
  }
}
