// The standalone network's faucet. Requests that arrive together are funded by one root-account
// transaction (one CreateAccount each), so any number of clients can be funded per ledger; each
// answer is sent only once the transaction is applied and stored, so a client's next getTransaction
// already sees it.
import { xdr } from '@stellar/stellar-sdk';
import type { Logger } from 'pino';
import type { Store } from '../store/types.ts';
import type { StandaloneNetwork } from '../sources/standaloneNetwork.ts';
import { accountIdFromStrKey, accountKey, decodeLedgerEntry, encodeLedgerKey, toBase64, toHex } from '../xdr/codec.ts';
import { frameOf } from '../ledger/transactionFrame.ts';
import { rootSigner } from '../ledger/rootAccount.ts';

export const STARTING_BALANCE = 10_000n * 10_000_000n; // 10,000 XLM, as the public friendbots give
const MAX_OPS = 100;

export interface FaucetAnswer { status: number; body: Record<string, unknown> }

interface Request { address: string; resolve: (a: FaucetAnswer) => void }

export class Faucet {
  private readonly pending: Request[] = [];
  private busy = false;
  private readonly network: StandaloneNetwork;
  private readonly store: Store;
  private readonly log: Logger;

  constructor(network: StandaloneNetwork, store: Store, logger: Logger) {
    this.network = network;
    this.store = store;
    this.log = logger;
  }

  fund(address: string): Promise<FaucetAnswer> {
    let id;
    try { id = accountIdFromStrKey(address); } catch {
      return Promise.resolve(problem(400, `invalid address "${address}": only G... account addresses can be funded here`));
    }
    if (this.store.entry(encodeLedgerKey(accountKey(id)))) return Promise.resolve(alreadyFunded());
    return new Promise((resolve) => { this.pending.push({ address, resolve }); void this.pump(); });
  }

  private async pump(): Promise<void> {
    if (this.busy || this.pending.length === 0) return;
    this.busy = true;
    const batch: Request[] = [];
    const waiting: Request[] = [];
    const seen = new Set<string>();
    for (const r of this.pending.splice(0)) {
      // the same address twice in one transaction would fail it: the repeat waits for the next one
      if (seen.has(r.address) || batch.length === MAX_OPS) waiting.push(r);
      else { seen.add(r.address); batch.push(r); }
    }
    this.pending.push(...waiting);
    try {
      await this.fundBatch(batch);
    } catch (e) {
      this.log.error({ err: e }, 'faucet transaction failed');
      for (const r of batch) r.resolve(problem(500, `funding failed: ${(e as Error).message}`));
    } finally {
      this.busy = false;
      void this.pump();
    }
  }

  private async fundBatch(batch: Request[]): Promise<void> {
    const fresh = batch.filter((r) => {
      if (!this.store.entry(encodeLedgerKey(accountKey(accountIdFromStrKey(r.address))))) return true;
      r.resolve(alreadyFunded());
      return false;
    });
    if (fresh.length === 0) return;
    const root = rootSigner(this.network.networkId);
    const rootEntry = this.store.entry(encodeLedgerKey(accountKey({ type: 0, ed25519: root.publicKey })));
    if (!rootEntry) throw new Error('the root account is missing');
    const rootData = decodeLedgerEntry(rootEntry.entry).data;
    if (rootData.type !== 0) throw new Error('the root key is not an account');
    const tx: xdr.TransactionWire = {
      sourceAccount: { type: 0, ed25519: root.publicKey },
      fee: 100 * fresh.length,
      seqNum: rootData.account.seqNum + 1n,
      cond: { type: 0 },
      memo: { type: 0 },
      operations: fresh.map((r): xdr.OperationWire => ({
        sourceAccount: null,
        body: { type: 0, createAccountOp: { destination: accountIdFromStrKey(r.address), startingBalance: STARTING_BALANCE } },
      })),
      ext: { v: 0 },
    };
    const unsigned: xdr.TransactionEnvelopeWire = { type: 2, v1: { tx, signatures: [] } };
    const hash = frameOf(unsigned, this.network.networkId).hash;
    const signed: xdr.TransactionEnvelopeWire = {
      type: 2, v1: { tx, signatures: [{ hint: root.hint, signature: root.sign(hash) }] },
    };
    const frame = frameOf(signed, this.network.networkId);
    const submitted = this.network.submitFrame(frame);
    if (submitted.status !== 'PENDING') {
      const detail = submitted.errorResult ? ` (${toBase64(submitted.errorResult)})` : '';
      throw new Error(`root transaction was ${submitted.status}${detail}`);
    }
    await this.network.waitForTransaction(frame.hashHex);
    const stored = this.store.transactionByHash(frame.hash)!;
    const body = {
      id: toHex(stored.hash),
      hash: toHex(stored.hash),
      ledger: stored.ledgerSequence,
      successful: stored.successful,
      envelope_xdr: toBase64(stored.envelope),
      result_xdr: toBase64(stored.result),
      result_meta_xdr: toBase64(stored.meta),
    };
    for (const r of fresh) r.resolve(stored.successful ? { status: 200, body } : problem(400, `funding transaction failed (${body.result_xdr})`));
  }
}

function problem(status: number, detail: string): FaucetAnswer {
  return { status, body: { type: 'about:blank', title: status === 400 ? 'Bad Request' : 'Internal Server Error', status, detail } };
}

/**
 * An account that exists already: HTTP 400, with both texts clients take for "already funded".
 * stellar-cli's `keys fund` looks for today's friendbot text ("account already funded to starting
 * balance"), the JS SDK's requestAirdrop for the failed CreateAccount result the older friendbot sent.
 */
function alreadyFunded(): FaucetAnswer {
  const result: xdr.TransactionResultWire = {
    feeCharged: 100n,
    result: { code: -1, results: [{ code: 0, tr: { type: 0, createAccountResult: { code: -4 } } }] },
    ext: { v: 0 },
  };
  return problem(400, `account already funded to starting balance; createAccountAlreadyExist (${toBase64(xdr.TransactionResult.schema.encode(result))})`);
}
