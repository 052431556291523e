// The standalone network's faucet. Accounts (G...) that ask together are created by one root-account
// transaction (one CreateAccount each), so any number of clients can be funded per ledger; a
// contract address (C...) is sent the starting balance through the native asset contract, one
// transfer per transaction (see contractFunding.ts). The root account sends one transaction at a
// time, so requests are served in arrival order, a batch of accounts or one contract per ledger.
// Each answer is sent only once its transaction is applied and stored, so a client's next
// getTransaction already sees it.
import { StrKey } from '@stellar/stellar-sdk';
import type { Logger } from 'pino';
import type { Store, StoredTransaction } from '../store/types.ts';
import type { StandaloneNetwork } from '../standalone/standaloneNetwork.ts';
import type { Simulator } from '../host/simulator.ts';
import { nativeAvailable } from '../host/native.ts';
import { accountIdFromStrKey, accountKey, encodeLedgerKey, type AccountId } from '../xdr/codec.ts';
import { ContractFunding } from './contractFunding.ts';
import { RootTransactions, fundedBody } from './rootTransactions.ts';
import {
  accountAlreadyFunded, badRequest, contractAlreadyFunded, invalidAddress, serverError, type FaucetAnswer,
} from './problems.ts';

export type { FaucetAnswer } from './problems.ts';

export const STARTING_BALANCE = 10_000n * 10_000_000n; // 10,000 XLM, as the public friendbots give
const MAX_OPS = 100;

type Destination = { kind: 'account'; id: AccountId } | { kind: 'contract'; id: Uint8Array };

interface Request { address: string; to: Destination; resolve: (a: FaucetAnswer) => void }

/** A G... account or C... contract address, or undefined for anything else. */
function destinationOf(address: string): Destination | undefined {
  if (StrKey.isValidEd25519PublicKey(address)) return { kind: 'account', id: accountIdFromStrKey(address) };
  if (StrKey.isValidContract(address)) return { kind: 'contract', id: StrKey.decodeContract(address) };
  return undefined;
}

export class Faucet {
  private readonly pending: Request[] = [];
  private busy = false;
  private readonly store: Store;
  private readonly log: Logger;
  private readonly root: RootTransactions;
  /** Absent without the Soroban host addon: the network then takes no contract transactions. */
  private readonly contracts: ContractFunding | undefined;

  constructor(network: StandaloneNetwork, store: Store, simulator: Simulator, logger: Logger) {
    this.store = store;
    this.log = logger;
    this.root = new RootTransactions(network, store);
    this.contracts = nativeAvailable() ? new ContractFunding({ store, simulator, root: this.root, networkId: network.networkId }) : undefined;
  }

  fund(address: string): Promise<FaucetAnswer> {
    const to = destinationOf(address);
    if (!to) return Promise.resolve(invalidAddress());
    if (to.kind === 'contract' && !this.contracts) {
      return Promise.resolve(invalidAddress('contract addresses are not supported or enabled'));
    }
    const funded = this.alreadyFunded(to);
    if (funded) return Promise.resolve(funded);
    return new Promise((resolve) => { this.pending.push({ address, to, resolve }); void this.pump(); });
  }

  /** friendbot's check: an account that exists, a contract holding the starting balance. */
  private alreadyFunded(to: Destination): FaucetAnswer | undefined {
    if (to.kind === 'account') return this.store.entry(encodeLedgerKey(accountKey(to.id))) ? accountAlreadyFunded() : undefined;
    return this.contracts!.balance(to.id) >= STARTING_BALANCE ? contractAlreadyFunded() : undefined;
  }

  private async pump(): Promise<void> {
    if (this.busy || this.pending.length === 0) return;
    this.busy = true;
    const batch = this.nextBatch();
    try {
      await this.fundBatch(batch);
    } catch (e) {
      this.log.error({ err: e }, 'faucet transaction failed');
      for (const r of batch) r.resolve(serverError(`funding failed: ${(e as Error).message}`));
    } finally {
      this.busy = false;
      void this.pump();
    }
  }

  /** The oldest request, with every other account request that fits beside it if it is an account's. */
  private nextBatch(): Request[] {
    const first = this.pending.shift()!;
    if (first.to.kind === 'contract') return [first];
    const batch = [first];
    const seen = new Set([first.address]);
    for (let i = 0; i < this.pending.length && batch.length < MAX_OPS; i++) {
      const r = this.pending[i];
      // the same address twice in one transaction would fail it: the repeat waits for the next one
      if (r.to.kind !== 'account' || seen.has(r.address)) continue;
      seen.add(r.address);
      batch.push(r);
      this.pending.splice(i--, 1);
    }
    return batch;
  }

  private async fundBatch(batch: Request[]): Promise<void> {
    // funded meanwhile (by a request just before, or by anyone)
    const fresh = batch.filter((r) => {
      const funded = this.alreadyFunded(r.to);
      if (funded) r.resolve(funded);
      return !funded;
    });
    if (fresh.length === 0) return;
    const first = fresh[0].to;
    const stored = first.kind === 'contract'
      ? await this.contracts!.fund(first.id, STARTING_BALANCE)
      : await this.createAccounts(fresh.flatMap((r) => (r.to.kind === 'account' ? [r.to.id] : [])));
    const body = fundedBody(stored);
    for (const r of fresh) r.resolve(stored.successful ? { status: 200, body } : badRequest(`funding transaction failed (${body.result_xdr})`));
  }

  private createAccounts(accounts: AccountId[]): Promise<StoredTransaction> {
    return this.root.submit(this.root.transaction(this.root.baseFee * accounts.length, accounts.map((destination) => ({
      sourceAccount: null,
      body: { type: 0, createAccountOp: { destination, startingBalance: STARTING_BALANCE } },
    }))));
  }
}
