// Closing ledgers over an in-memory state, for tests of rules that belong to the transaction rather
// than to one operation (operations sharing a transaction's LedgerTxn, txBAD_SPONSORSHIP, one-time
// signers): real signed envelopes go through closeLedgerSteps, and each closed ledger's changes are
// folded back into the MemoryState as ingestion would.
import type { xdr } from '../../../src/xdr/xdr.ts';
import { Keypair } from '@stellar/stellar-sdk';
import { closeLedgerSteps, type ClosedLedger, type PreviousLedger } from '../../../src/ledger/closeLedger.ts';
import { genesisLedger } from '../../../src/ledger/genesis.ts';
import { LedgerTxn } from '../../../src/ledger/ledgerTxn.ts';
import { frameOf, type TransactionFrame } from '../../../src/ledger/transactionFrame.ts';
import { transactionHash } from '../../../src/xdr/transactions.ts';
import type { AccountId, LedgerEntryChange, MuxedAccount } from '../../../src/xdr/codec.ts';
import { BASE_RESERVE, MemoryState, NETWORK_ID } from './support.ts';

export const idOf = (kp: Keypair): AccountId => ({ type: 0, ed25519: new Uint8Array(kp.rawPublicKey()) });
export const muxedOf = (kp: Keypair): MuxedAccount => ({ type: 0, ed25519: new Uint8Array(kp.rawPublicKey()) });

export interface TxOp { body: xdr.OperationBodyWire; source?: Keypair }

export const FEE_PER_OP = 100;

export class TestLedger {
  private prev: PreviousLedger;
  readonly state: MemoryState;

  constructor(state: MemoryState, ledgerSeq = 100) {
    this.state = state;
    const genesis = genesisLedger(NETWORK_ID, { closeTime: 1_700_000_000n, maxTxSetSize: 100 }).meta;
    if (genesis.v !== 2) throw new Error('expected LedgerCloseMeta V2');
    const { header, hash } = genesis.v2.ledgerHeader;
    // a ledger well past genesis, so accounts made by the test fixtures (seqNum 4 << 32) may merge
    this.prev = { header: { ...header, ledgerSeq, baseReserve: BASE_RESERVE }, hash };
  }

  /** The ledger the next close makes. */
  get nextSeq(): number { return this.prev.header.ledgerSeq + 1; }

  /** A V1 envelope from `source` with its next sequence number, signed by `signers` (default: the source). */
  tx(source: Keypair, ops: TxOp[], signers: Keypair[] = [source]): TransactionFrame {
    const acc = this.state.account(idOf(source));
    if (!acc) throw new Error('transaction source does not exist');
    const tx: xdr.TransactionWire = {
      sourceAccount: muxedOf(source), fee: FEE_PER_OP * ops.length, seqNum: acc.seqNum + 1n, cond: { type: 0 }, memo: { type: 0 },
      operations: ops.map((o) => ({ sourceAccount: o.source ? muxedOf(o.source) : null, body: o.body })), ext: { v: 0 },
    };
    const envelope: xdr.TransactionEnvelopeWire = { type: 2, v1: { tx, signatures: [] } };
    const hash = transactionHash(NETWORK_ID, envelope);
    envelope.v1.signatures = signers.map((kp) => ({ hint: new Uint8Array(kp.signatureHint()), signature: new Uint8Array(kp.sign(Buffer.from(hash))) }));
    return frameOf(envelope, NETWORK_ID);
  }

  /** `inner` wrapped in a fee bump paid and signed by `feeSource`. */
  feeBump(inner: TransactionFrame, feeSource: Keypair): TransactionFrame {
    if (inner.envelope.type !== 2) throw new Error('a V1 envelope expected');
    const envelope: xdr.TransactionEnvelopeWire = {
      type: 5,
      feeBump: { tx: { feeSource: muxedOf(feeSource), fee: BigInt(FEE_PER_OP * (inner.tx.operations.length + 1)), innerTx: inner.envelope, ext: { v: 0 } }, signatures: [] },
    };
    const hash = transactionHash(NETWORK_ID, envelope);
    envelope.feeBump.signatures = [{ hint: new Uint8Array(feeSource.signatureHint()), signature: new Uint8Array(feeSource.sign(Buffer.from(hash))) }];
    return frameOf(envelope, NETWORK_ID);
  }

  /** Closes a ledger holding `frames` and stores what it changed. */
  close(frames: TransactionFrame[]): ClosedLedger {
    const steps = closeLedgerSteps(this.prev, frames, this.state, { closeTime: this.prev.header.scpValue.closeTime + 5n, networkId: NETWORK_ID });
    let next = steps.next();
    while (!next.done) next = steps.next();
    const closed = next.value;
    const root = new LedgerTxn(this.state, closed.header.ledgerSeq, { idPool: closed.header.idPool });
    for (const p of closed.meta.v2.txProcessing) {
      const m = p.txApplyProcessing;
      if (m.v !== 4) throw new Error('expected TransactionMeta V4');
      const changes = [...p.feeProcessing, ...m.v4.txChangesBefore, ...m.v4.operations.flatMap((o) => o.changes),
        ...m.v4.txChangesAfter, ...p.postTxApplyFeeProcessing];
      apply(root, changes);
    }
    root.commit();
    this.state.absorb(root);
    this.prev = { header: closed.header, hash: closed.hash };
    return closed;
  }

  /** Closes a ledger with one transaction and returns its result. */
  run(source: Keypair, ops: TxOp[], signers?: Keypair[]): { result: xdr.TransactionResultWire; meta: xdr.TransactionMetaWire } {
    const closed = this.close([this.tx(source, ops, signers)]);
    const p = closed.meta.v2.txProcessing[0];
    return { result: p.result.result, meta: p.txApplyProcessing };
  }
}

function apply(ltx: LedgerTxn, changes: LedgerEntryChange[]): void {
  for (const c of changes) {
    if (c.type === 0) ltx.update(c.created);
    else if (c.type === 1) ltx.update(c.updated);
    else if (c.type === 2) ltx.erase(c.removed);
    else if (c.type === 4) ltx.update(c.restored);
  }
}
