// The faucet's transactions: signed by the standalone network's root account (its key is derived
// from the passphrase, as in stellar-core), queued like any client's, and awaited until applied and
// stored, so a client's next getTransaction already sees them.
import { xdr } from '../xdr/xdr.ts';
import type { StoredTransaction, Store } from '../store/types.ts';
import type { StandaloneNetwork } from '../standalone/standaloneNetwork.ts';
import { accountKey, decodeLedgerEntry, encodeLedgerKey, toBase64, toHex } from '../xdr/codec.ts';
import { frameOf } from '../ledger/transactionFrame.ts';
import { rootSigner, type RootSigner } from '../ledger/rootAccount.ts';
import { BASE_FEE } from '../ledger/genesis.ts';

export class RootTransactions {
  private readonly network: StandaloneNetwork;
  private readonly store: Store;
  private readonly root: RootSigner;

  constructor(network: StandaloneNetwork, store: Store) {
    this.network = network;
    this.store = store;
    this.root = rootSigner(network.networkId);
  }

  get accountId(): xdr.PublicKeyWire { return { type: 0, ed25519: this.root.publicKey }; }

  /** The network's base fee now (a developer may have raised it: lumen_setBaseFee). */
  get baseFee(): number {
    const row = this.store.latestLedger();
    return row ? xdr.LedgerHeaderHistoryEntry.schema.decode(row.header).header.baseFee : BASE_FEE;
  }

  /** A transaction of the root account at its next sequence number: no preconditions, no memo. */
  transaction(fee: number, operations: xdr.OperationWire[], sorobanData?: xdr.SorobanTransactionDataWire): xdr.TransactionWire {
    const stored = this.store.entry(encodeLedgerKey(accountKey(this.accountId)));
    if (!stored) throw new Error('the root account is missing');
    const data = decodeLedgerEntry(stored.entry).data;
    if (data.type !== 0) throw new Error('the root key is not an account');
    return {
      sourceAccount: { type: 0, ed25519: this.root.publicKey },
      fee,
      seqNum: data.account.seqNum + 1n,
      cond: { type: 0 },
      memo: { type: 0 },
      operations,
      ext: sorobanData ? { v: 1, sorobanData } : { v: 0 },
    };
  }

  /** Signs, queues and waits until the transaction is stored; rejects when the queue refuses it. */
  async submit(tx: xdr.TransactionWire): Promise<StoredTransaction> {
    const unsigned: xdr.TransactionEnvelopeWire = { type: 2, v1: { tx, signatures: [] } };
    const hash = frameOf(unsigned, this.network.networkId).hash;
    const signed: xdr.TransactionEnvelopeWire = {
      type: 2, v1: { tx, signatures: [{ hint: this.root.hint, signature: this.root.sign(hash) }] },
    };
    const frame = frameOf(signed, this.network.networkId);
    const submitted = this.network.submitFrame(frame);
    if (submitted.status !== 'PENDING') {
      const detail = submitted.errorResult ? ` (${toBase64(submitted.errorResult)})` : '';
      throw new Error(`root transaction was ${submitted.status}${detail}`);
    }
    // in manual mode nothing else closes the ledger the funding waits for: the faucet closes one (with
    // whatever else is queued), so friendbot answers at once in every mode
    if (this.network.closeMode === 'manual') await this.network.closeNextLedger();
    await this.network.waitForTransaction(frame.hashHex);
    return this.store.transactionByHash(frame.hash)!;
  }
}

/** The answer to a funded address: what friendbot clients read (the JS SDK's fundAddress reads `hash`). */
export function fundedBody(stored: StoredTransaction): Record<string, unknown> {
  return {
    id: toHex(stored.hash),
    hash: toHex(stored.hash),
    ledger: stored.ledgerSequence,
    successful: stored.successful,
    envelope_xdr: toBase64(stored.envelope),
    result_xdr: toBase64(stored.result),
    result_meta_xdr: toBase64(stored.meta),
  };
}
