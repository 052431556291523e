// Synthetic but well-formed big ledgers, for the tests and benches of issue 27 ("no ledger too big"):
// LedgerCloseMetaV2 with TransactionMetaV4 as protocol 30 writes them, every transaction an
// InvokeHostFunction of the native asset's Stellar Asset Contract (`transfer(from, to, amount)`, or
// a contract fanning one payer's transfer out to many recipients), with its auth entry, Soroban data,
// result, fee processing and refund, the balance entries' changes, the `transfer` contract events
// and the fee events (CAP-67: `fee` before all transactions, the refund after all of them).
//
// A ledger is made from a template: its transactions are encoded once (from their serde JSON form,
// through the generated XDR types), with sentinel values where per-ledger fields go. Making the
// ledger of sequence L copies the template, writes L's values at the recorded offsets (sequence
// numbers, last-modified ledgers, sequence times), recomputes every transaction hash (so hashes are
// unique across ledgers and match their envelopes under the network id), the transaction set's hash,
// the result set's hash, and the header, chained onto the ledger before: the ledgers verify as a
// follower checks them. A 6,000-transaction ledger (~17 MB) takes tens of milliseconds.
//
// Not real: signatures (random bytes: nothing downstream of stellar-core verifies them), balances
// (each ledger repeats the template's, they do not carry over from one ledger to the next), and the
// bucket list hash.
import { createHash } from 'node:crypto';
import { Asset, StrKey } from '@stellar/stellar-sdk';
import { xdr } from '../../src/xdr/xdr.ts';
import { networkIdOf, sha256 } from '../../src/xdr/codec.ts';

export const SYNTHETIC_PASSPHRASE = 'lumen-rpc synthetic big ledgers ; 2026';
export const SYNTHETIC_NETWORK_ID = networkIdOf(SYNTHETIC_PASSPHRASE);
/** The native asset's contract on the synthetic network: every transfer and fee event is its. */
export const NATIVE_SAC = Asset.native().contractId(SYNTHETIC_PASSPHRASE);

const PROTOCOL = 30;
const GENESIS_CLOSE_TIME = 1_800_000_000;
const SECONDS_PER_LEDGER = 5;
/** The accounts were created in this ledger: their sequence numbers start at ACCOUNT_LEDGER << 32. */
const ACCOUNT_LEDGER = 1n;
const FEE_BID = 200_000n;
const RESOURCE_FEE = 150_000n;
const FEE_CHARGED = 110_000n;
const NON_REFUNDABLE = 12_000n;
const REFUNDABLE = 98_000n - 100n;
const STARTING_BALANCE = 1_000_000_000_000n;

// Sentinels the template is encoded with, replaced per ledger. 8-byte ones cannot occur by chance;
// the 4-byte ones are checked to occur exactly where they were put (see slotOffsets).
const SEQ_BEFORE = 0x7e57_a000_0000_0001n;
const SEQ_AFTER = 0x7e57_a000_0000_0002n;
const TIME_BEFORE = 0x7e57_b000_0000_0001n;
const TIME_AFTER = 0x7e57_b000_0000_0002n;
const LEDGER_BEFORE = 0x7e57_c001;
const LEDGER_AFTER = 0x7e57_c002;

/** One transaction of a template: a payer and the number of `transfer` events its call emits. */
export interface TxShape {
  /** The source account's index (distinct within a ledger). */
  payer: number;
  /** `transfer` events (1: a SAC transfer; more: a contract paying many recipients through the SAC). */
  transfers: number;
}

export interface LedgerTemplate {
  readonly name: string;
  readonly transactions: number;
  /** Contract events of each ledger (`transfer` ones, and the two fee events of each transaction). */
  readonly contractEvents: number;
  readonly transferEvents: number;
  /** The ledger with placeholders. */
  readonly bytes: Buffer;
  readonly headerOffset: number;
  readonly txSetOffset: number;
  readonly txSetLength: number;
  /** Per transaction: its envelope's offset in the ledger and its Transaction's length. */
  readonly envelopeOffsets: Int32Array;
  readonly txLengths: Int32Array;
  /** Per transaction: where its result pair (hash, then TransactionResult) is, and its length. */
  readonly resultPairOffsets: Int32Array;
  readonly resultPairLengths: Int32Array;
  readonly seqBefore: Int32Array;
  readonly seqAfter: Int32Array;
  readonly timeBefore: Int32Array;
  readonly timeAfter: Int32Array;
  readonly ledgerBefore: Int32Array;
  readonly ledgerAfter: Int32Array;
}

export interface MadeLedger {
  sequence: number;
  bytes: Buffer;
  hash: Uint8Array;
  /** Transaction hashes (hex) in application order. */
  txHashes: string[];
}

// --- accounts and addresses -------------------------------------------------------------------

const payerKey = (i: number): Buffer => Buffer.from(sha256(Buffer.from(`synthetic payer ${i}`)));
export const payerAddress = (i: number): string => StrKey.encodeEd25519PublicKey(payerKey(i));
/** Recipients are contracts (C...): their SAC balances are contract data entries. */
export const recipientAddress = (i: number): string => StrKey.encodeContract(Buffer.from(sha256(Buffer.from(`synthetic recipient ${i}`))));
const RECIPIENTS = 500;
/** The contract whose `pay_all` fans one payer's transfer out to many recipients (cases b and c). */
const PAYOUT_CONTRACT = StrKey.encodeContract(Buffer.from(sha256(Buffer.from('synthetic payout contract'))));
const PAYOUT_WASM = Buffer.from(sha256(Buffer.from('synthetic payout wasm'))).toString('hex');

// --- one transaction, in serde JSON form ------------------------------------------------------

const i128 = (n: bigint) => ({ i128: n.toString() });
const sym = (s: string) => ({ symbol: s });
const addr = (a: string) => ({ address: a });

function accountEntry(account: string, balance: bigint, seq: bigint, modified: number, seqLedger: number, seqTime: bigint) {
  return {
    last_modified_ledger_seq: modified,
    data: {
      account: {
        account_id: account, balance: balance.toString(), seq_num: seq.toString(), num_sub_entries: 0,
        inflation_dest: null, flags: 0, home_domain: '', thresholds: '01000000', signers: [],
        ext: { v1: { liabilities: { buying: '0', selling: '0' }, ext: { v2: {
          num_sponsored: 0, num_sponsoring: 0, signer_sponsoring_i_ds: [],
          ext: { v3: { ext: 'v0', seq_ledger: seqLedger, seq_time: seqTime.toString() } },
        } } } },
      },
    },
    ext: 'v0',
  };
}

function balanceKey(holder: string) {
  return { contract_data: { contract: NATIVE_SAC, key: { vec: [sym('Balance'), addr(holder)] }, durability: 'persistent' } };
}

function balanceEntry(holder: string, amount: bigint, modified: number) {
  return {
    last_modified_ledger_seq: modified,
    data: { contract_data: {
      ext: 'v0', contract: NATIVE_SAC, key: { vec: [sym('Balance'), addr(holder)] }, durability: 'persistent',
      val: { map: [
        { key: sym('amount'), val: i128(amount) },
        { key: sym('authorized'), val: { bool: true } },
        { key: sym('clawback'), val: { bool: false } },
      ] },
    } },
    ext: 'v0',
  };
}

const event = (topics: unknown[], data: unknown) => ({ ext: 'v0', contract_id: NATIVE_SAC, type: 'contract', body: { v0: { topics, data } } });
const transferEvent = (from: string, to: string, amount: bigint) => event([sym('transfer'), addr(from), addr(to), { string: 'native' }], i128(amount));

function signature(seed: number) {
  const bytes = Buffer.alloc(64);
  for (let i = 0; i < 64; i += 32) sha256(Buffer.from(`signature ${seed} ${i}`)).forEach((b, j) => { bytes[i + j] = b; });
  return bytes.toString('hex');
}

interface EncodedTx { envelope: Uint8Array; txLength: number; resultLength: number; resultMeta: Uint8Array }

/** The transaction's envelope and TransactionResultMetaV1 (hash zeroed), with the sentinels in. */
function encodeTransaction(shape: TxShape): EncodedTx {
  const payer = payerAddress(shape.payer);
  const amount = 10_000_000n * BigInt(1 + (shape.payer % 97));
  const recipients = Array.from({ length: shape.transfers }, (_, k) => recipientAddress((shape.payer * 7 + k) % RECIPIENTS));
  const distinct = [...new Set(recipients)];
  const single = shape.transfers === 1;
  const transferFn = (to: string) => ({ contract_address: NATIVE_SAC, function_name: 'transfer', args: [addr(payer), addr(to), i128(amount)] });
  // more than one transfer: a payout contract's `pay_all` calls the SAC's transfer once per recipient
  const called = single ? transferFn(recipients[0])
    : { contract_address: PAYOUT_CONTRACT, function_name: 'pay_all', args: [addr(payer), { vec: recipients.map(addr) }, i128(amount)] };
  const subInvocations = single ? [] : distinct.map((r) => ({ function: { contract_fn: transferFn(r) }, sub_invocations: [] }));
  const payoutFootprint = single ? [] : [
    { contract_data: { contract: PAYOUT_CONTRACT, key: 'ledger_key_contract_instance', durability: 'persistent' } },
    { contract_code: { hash: PAYOUT_WASM } },
  ];
  const tx = {
    source_account: payer, fee: Number(FEE_BID), seq_num: SEQ_AFTER.toString(), cond: 'none', memo: 'none',
    operations: [{ source_account: null, body: { invoke_host_function: {
      host_function: { invoke_contract: called },
      auth: [{ credentials: 'source_account', root_invocation: { function: { contract_fn: called }, sub_invocations: subInvocations } }],
    } } }],
    ext: { v1: { ext: 'v0', resources: {
      footprint: {
        read_only: [{ contract_data: { contract: NATIVE_SAC, key: 'ledger_key_contract_instance', durability: 'persistent' } }, ...payoutFootprint],
        read_write: [{ account: { account_id: payer } }, ...distinct.map(balanceKey)],
      },
      instructions: 250_000 + 120_000 * shape.transfers, disk_read_bytes: 144, write_bytes: 200 + 168 * distinct.length,
    }, resource_fee: RESOURCE_FEE.toString() } },
  };
  const txWire = xdr.Transaction.fromJson(tx).value;
  const envelope = xdr.TransactionEnvelope.schema.encode({ type: 2, v1: { tx: txWire, signatures: [{ hint: payerKey(shape.payer).subarray(28), signature: Buffer.from(signature(shape.payer), 'hex') }] } });
  const txLength = xdr.Transaction.schema.encode(txWire).length;

  const spent = amount * BigInt(shape.transfers);
  const beforeFee = STARTING_BALANCE;
  const afterFee = beforeFee - FEE_BID;
  const afterOp = afterFee - spent;
  const afterRefund = afterOp + (FEE_BID - FEE_CHARGED);
  const account = (balance: bigint, seq: bigint, modified: number, seqLedger: number, seqTime: bigint) =>
    accountEntry(payer, balance, seq, modified, seqLedger, seqTime);
  const received = (r: string) => amount * BigInt(recipients.filter((x) => x === r).length);
  const resultMeta = {
    ext: 'v0',
    result: {
      transaction_hash: '00'.repeat(32),
      result: { fee_charged: FEE_CHARGED.toString(), result: { tx_success: [{ op_inner: { invoke_host_function: { success: Buffer.from(sha256(Buffer.from(`return ${shape.payer}`))).toString('hex') } } }] }, ext: 'v0' },
    },
    fee_processing: [
      { state: account(beforeFee, SEQ_BEFORE, LEDGER_BEFORE, LEDGER_BEFORE, TIME_BEFORE) },
      { updated: account(afterFee, SEQ_BEFORE, LEDGER_AFTER, LEDGER_BEFORE, TIME_BEFORE) },
    ],
    tx_apply_processing: { v4: {
      ext: 'v0',
      tx_changes_before: [
        { state: account(afterFee, SEQ_BEFORE, LEDGER_AFTER, LEDGER_BEFORE, TIME_BEFORE) },
        { updated: account(afterFee, SEQ_AFTER, LEDGER_AFTER, LEDGER_AFTER, TIME_AFTER) },
      ],
      operations: [{
        ext: 'v0',
        changes: [
          { state: account(afterFee, SEQ_AFTER, LEDGER_AFTER, LEDGER_AFTER, TIME_AFTER) },
          { updated: account(afterOp, SEQ_AFTER, LEDGER_AFTER, LEDGER_AFTER, TIME_AFTER) },
          ...distinct.flatMap((r) => [
            { state: balanceEntry(r, STARTING_BALANCE, LEDGER_BEFORE) },
            { updated: balanceEntry(r, STARTING_BALANCE + received(r), LEDGER_AFTER) },
          ]),
        ],
        events: recipients.map((r) => transferEvent(payer, r, amount)),
      }],
      tx_changes_after: [],
      soroban_meta: {
        ext: { v1: { ext: 'v0', total_non_refundable_resource_fee_charged: NON_REFUNDABLE.toString(), total_refundable_resource_fee_charged: REFUNDABLE.toString(), rent_fee_charged: '0' } },
        return_value: 'void',
      },
      events: [
        { stage: 'before_all_txs', event: event([sym('fee'), addr(payer)], i128(FEE_BID)) },
        { stage: 'after_all_txs', event: event([sym('fee'), addr(payer)], i128(FEE_CHARGED - FEE_BID)) },
      ],
      diagnostic_events: [],
    } },
    post_tx_apply_fee_processing: [
      { state: account(afterOp, SEQ_AFTER, LEDGER_AFTER, LEDGER_AFTER, TIME_AFTER) },
      { updated: account(afterRefund, SEQ_AFTER, LEDGER_AFTER, LEDGER_AFTER, TIME_AFTER) },
    ],
  };
  const wire = xdr.TransactionResultMetaV1.fromJson(resultMeta).value;
  const resultLength = xdr.TransactionResult.schema.encode(wire.result.result).length;
  return { envelope, txLength, resultLength, resultMeta: xdr.TransactionResultMetaV1.schema.encode(wire) };
}

// --- the template -----------------------------------------------------------------------------

const u32 = (n: number): Buffer => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const u64 = (n: bigint): Buffer => { const b = Buffer.alloc(8); b.writeBigUInt64BE(n); return b; };

/** Offsets of every occurrence of `pattern` in `bytes`. */
function occurrences(bytes: Buffer, pattern: Buffer): number[] {
  const out: number[] = [];
  for (let at = bytes.indexOf(pattern); at >= 0; at = bytes.indexOf(pattern, at + 1)) out.push(at);
  return out;
}

/** Clusters of the parallel Soroban phase: transactions spread over this many, in one stage. */
const CLUSTERS = 4;

function headerWire(): xdr.LedgerHeaderHistoryEntryWire {
  const zero = '00'.repeat(32);
  return xdr.LedgerHeaderHistoryEntry.fromJson({
    hash: zero,
    header: {
      ledger_version: PROTOCOL, previous_ledger_hash: zero,
      scp_value: { tx_set_hash: zero, close_time: '0', upgrades: [], ext: 'basic' },
      tx_set_result_hash: zero, bucket_list_hash: zero, ledger_seq: 0, total_coins: '1000000000000000000',
      fee_pool: '0', inflation_seq: 0, id_pool: '0', base_fee: 100, base_reserve: 5_000_000, max_tx_set_size: 10_000,
      skip_list: [zero, zero, zero, zero], ext: 'v0',
    },
    ext: 'v0',
  }).value;
}

/** A ledger template of these transactions (in application order). */
export function ledgerTemplate(name: string, shapes: readonly TxShape[]): LedgerTemplate {
  const txs = shapes.map(encodeTransaction);
  const header = xdr.LedgerHeaderHistoryEntry.schema.encode(headerWire());
  // LedgerCloseMeta v2: ext, header, GeneralizedTransactionSet, txProcessing, then the tail
  const parts: Buffer[] = [u32(2), u32(0), Buffer.from(header)];
  const headerOffset = 8;
  let at = headerOffset + header.length;
  const push = (b: Uint8Array): number => { const o = at; parts.push(Buffer.from(b.buffer, b.byteOffset, b.byteLength)); at += b.length; return o; };
  const txSetOffset = at;
  const envelopeOffsets = new Int32Array(txs.length);
  // GeneralizedTransactionSet v1: previous ledger hash, a classic phase with no component, and a
  // parallel Soroban phase (base fee, one stage of CLUSTERS clusters)
  push(u32(1)); push(Buffer.alloc(32)); push(u32(2));
  push(u32(0)); push(u32(0));
  push(u32(1)); push(u32(1)); push(u64(100n));
  push(u32(1));
  const clusters = Math.min(CLUSTERS, Math.max(1, txs.length));
  push(u32(txs.length === 0 ? 0 : clusters));
  for (let c = 0; c < clusters && txs.length > 0; c++) {
    const members = txs.map((_t, i) => i).filter((i) => i % clusters === c);
    push(u32(members.length));
    for (const i of members) envelopeOffsets[i] = push(txs[i].envelope);
  }
  const txSetLength = at - txSetOffset;
  push(u32(txs.length));
  const resultPairOffsets = new Int32Array(txs.length);
  const resultPairLengths = new Int32Array(txs.length);
  const offsets = { seqBefore: [] as number[], seqAfter: [] as number[], timeBefore: [] as number[], timeAfter: [] as number[], ledgerBefore: [] as number[], ledgerAfter: [] as number[] };
  txs.forEach((t, i) => {
    const start = push(t.resultMeta);
    resultPairOffsets[i] = start + 4;
    resultPairLengths[i] = 32 + t.resultLength;
    slotOffsets(Buffer.from(t.resultMeta), shapes[i], start, offsets);
    const env = Buffer.from(t.envelope);
    const seq = occurrences(env, u64(SEQ_AFTER));
    if (seq.length !== 1) throw new Error(`transaction ${i}: its envelope holds the sequence sentinel ${seq.length} times`);
    offsets.seqAfter.push(envelopeOffsets[i] + seq[0]);
  });
  // no upgrades, no SCP messages, the live Soroban state's size, no evicted keys
  push(u32(0)); push(u32(0)); push(u64(4_000_000_000n)); push(u32(0));
  const transferEvents = shapes.reduce((n, s) => n + s.transfers, 0);
  return {
    name, transactions: txs.length, transferEvents, contractEvents: transferEvents + 2 * txs.length,
    bytes: Buffer.concat(parts), headerOffset, txSetOffset, txSetLength,
    envelopeOffsets, txLengths: Int32Array.from(txs.map((t) => t.txLength)),
    resultPairOffsets, resultPairLengths,
    seqBefore: Int32Array.from(offsets.seqBefore), seqAfter: Int32Array.from(offsets.seqAfter),
    timeBefore: Int32Array.from(offsets.timeBefore), timeAfter: Int32Array.from(offsets.timeAfter),
    ledgerBefore: Int32Array.from(offsets.ledgerBefore), ledgerAfter: Int32Array.from(offsets.ledgerAfter),
  };
}

/**
 * Records where the sentinels are in one transaction's result meta, checking each occurs exactly
 * as often as encodeTransaction put it (a 4-byte sentinel met by chance in a hash would be patched
 * wrongly; the check refuses such a template).
 */
function slotOffsets(meta: Buffer, shape: TxShape, base: number, into: Record<string, number[]>): void {
  const distinct = new Set(Array.from({ length: shape.transfers }, (_, k) => (shape.payer * 7 + k) % RECIPIENTS)).size;
  const expected: Array<[string, Buffer, number]> = [
    ['seqBefore', u64(SEQ_BEFORE), 3],
    ['seqAfter', u64(SEQ_AFTER), 5],
    ['timeBefore', u64(TIME_BEFORE), 3],
    ['timeAfter', u64(TIME_AFTER), 5],
    // last modified and sequence ledger of the account entries, last modified of the balances
    ['ledgerBefore', u32(LEDGER_BEFORE), 1 + 3 + distinct],
    ['ledgerAfter', u32(LEDGER_AFTER), 7 + 5 + distinct],
  ];
  for (const [kind, pattern, count] of expected) {
    const found = occurrences(meta, pattern);
    if (found.length !== count) throw new Error(`payer ${shape.payer}: ${kind} found ${found.length} times, expected ${count}`);
    into[kind].push(...found.map((o) => base + o));
  }
}

// --- ledgers from a template ------------------------------------------------------------------

const ENVELOPE_TYPE_TX = u32(2);

/** Consecutive ledgers from `first`, each chained onto the one made before it. */
export class LedgerChain {
  private previousHash: Uint8Array;
  next: number;

  constructor(first: number, previousHash: Uint8Array = new Uint8Array(32)) {
    this.next = first;
    this.previousHash = previousHash;
  }

  /** The next ledger, from `template`. */
  make(template: LedgerTemplate): MadeLedger {
    const seq = this.next++;
    const b = Buffer.from(template.bytes);
    const closeTime = BigInt(GENESIS_CLOSE_TIME + seq * SECONDS_PER_LEDGER);
    const write64 = (offsets: Int32Array, v: bigint) => {
      const hi = Number(v >> 32n);
      const lo = Number(v & 0xffff_ffffn);
      for (const o of offsets) { b.writeUInt32BE(hi, o); b.writeUInt32BE(lo, o + 4); }
    };
    const write32 = (offsets: Int32Array, v: number) => { for (const o of offsets) b.writeUInt32BE(v, o); };
    write64(template.seqBefore, (ACCOUNT_LEDGER << 32n) + BigInt(seq - 1));
    write64(template.seqAfter, (ACCOUNT_LEDGER << 32n) + BigInt(seq));
    write64(template.timeBefore, closeTime - BigInt(SECONDS_PER_LEDGER));
    write64(template.timeAfter, closeTime);
    write32(template.ledgerBefore, seq - 1);
    write32(template.ledgerAfter, seq);
    b.set(this.previousHash, template.txSetOffset + 4);

    const txHashes: string[] = [];
    const results = createHash('sha256').update(u32(template.transactions));
    for (let i = 0; i < template.transactions; i++) {
      const tx = template.envelopeOffsets[i] + 4;
      const hash = createHash('sha256').update(SYNTHETIC_NETWORK_ID).update(ENVELOPE_TYPE_TX).update(b.subarray(tx, tx + template.txLengths[i])).digest();
      hash.copy(b, template.resultPairOffsets[i]);
      txHashes.push(hash.toString('hex'));
      results.update(b.subarray(template.resultPairOffsets[i], template.resultPairOffsets[i] + template.resultPairLengths[i]));
    }
    const entry = headerWire();
    const h = entry.header;
    h.ledgerSeq = seq;
    h.previousLedgerHash = this.previousHash;
    h.scpValue.closeTime = closeTime;
    h.scpValue.txSetHash = sha256(b.subarray(template.txSetOffset, template.txSetOffset + template.txSetLength));
    h.txSetResultHash = new Uint8Array(results.digest());
    h.bucketListHash = sha256(Buffer.from(`bucket list ${seq}`));
    h.feePool = FEE_CHARGED * BigInt(template.transactions);
    entry.hash = sha256(xdr.LedgerHeader.schema.encode(h));
    const header = xdr.LedgerHeaderHistoryEntry.schema.encode(entry);
    b.set(header, template.headerOffset);
    this.previousHash = entry.hash;
    return { sequence: seq, bytes: b, hash: entry.hash, txHashes };
  }
}

// --- the cases ------------------------------------------------------------------------

/** 6,000 SAC transfers, one per payer (the roadmap's ledger: ~17 MB of meta). */
export const sacTransfersTemplate = (count = 6000): LedgerTemplate =>
  ledgerTemplate(`${count} SAC transfers`, Array.from({ length: count }, (_, i) => ({ payer: i, transfers: 1 })));

/** A ledger of `transactions` contract calls of `perTransaction` transfers each (4,100 contract `transfer` events by default). */
export const manyEventsTemplate = (transactions = 100, perTransaction = 41): LedgerTemplate =>
  ledgerTemplate(`${transactions} transactions of ${perTransaction} transfers`, Array.from({ length: transactions }, (_, i) => ({ payer: 10_000 + i, transfers: perTransaction })));

/** One transaction of `events` transfer events (2024's largest carried ~11,000). */
export const hugeTransactionTemplate = (events = 11_000): LedgerTemplate =>
  ledgerTemplate(`one transaction of ${events} transfers`, [{ payer: 20_000, transfers: events }]);

/** A ledger with no transaction. */
export const emptyTemplate = (): LedgerTemplate => ledgerTemplate('empty', []);
