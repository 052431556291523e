// Funding a contract (C...) address, as today's friendbot does: a `transfer` of the native asset's
// Stellar Asset Contract from the funding account to the contract, an InvokeHostFunction
// transaction whose footprint, authorization and resources come from the network's own simulation,
// so its fee is what the network charges. Any contract address can be funded, deployed or not (the
// SAC keeps a balance for an address, not for an instance).
//
// A standalone network starts as stellar-core starts one, without the native SAC; like anyone on a
// real network, the faucet deploys it (CreateContract from the native asset) before its first
// contract funding.
import { xdr } from '../xdr/xdr.ts';
import type { StoredTransaction, Store } from '../store/types.ts';
import type { Simulator } from '../host/simulator.ts';
import { accountIdToStrKey, encodeLedgerKey, decodeLedgerEntry, toBase64, type LedgerKey } from '../xdr/codec.ts';
import { addressVal, i128Val, i128Value, symVal } from '../xdr/scVals.ts';
import { accountAddress, assetContractId } from '../ledger/sacEvents.ts';
import type { RootTransactions } from './rootTransactions.ts';

const NATIVE: xdr.AssetWire = { type: 0 };
const PERSISTENT = 1;

/** The native SAC's persistent entries: its instance, and one `Balance` entry per holder address. */
export function nativeSacKeys(networkId: Uint8Array): {
  address: xdr.ScAddressWire; instance: LedgerKey; balance: (holder: Uint8Array) => LedgerKey;
} {
  const address: xdr.ScAddressWire = { type: 1, contractId: assetContractId(networkId, NATIVE) };
  const dataKey = (key: xdr.ScValWire): LedgerKey => ({ type: 6, contractData: { contract: address, key, durability: PERSISTENT } });
  return {
    address,
    instance: dataKey({ type: 20 }),
    balance: (holder) => dataKey({ type: 16, vec: [symVal('Balance'), addressVal({ type: 1, contractId: holder })] }),
  };
}

/** The `amount` of a SAC balance entry's value ({amount: i128, authorized, clawback}). */
export function sacBalanceAmount(entry: xdr.LedgerEntryWire): bigint {
  if (entry.data.type !== 6 || entry.data.contractData.val.type !== 17) throw new Error('not a SAC balance entry');
  for (const { key, val } of entry.data.contractData.val.map ?? []) {
    if (key.type === 15 && key.sym.toString() === 'amount' && val.type === 10) return i128Value(val.i128);
  }
  throw new Error('a SAC balance entry without an amount');
}

export class ContractFunding {
  private readonly store: Store;
  private readonly simulator: Simulator;
  private readonly root: RootTransactions;
  private readonly sac: ReturnType<typeof nativeSacKeys>;

  constructor(opts: { store: Store; simulator: Simulator; root: RootTransactions; networkId: Uint8Array }) {
    this.store = opts.store;
    this.simulator = opts.simulator;
    this.root = opts.root;
    this.sac = nativeSacKeys(opts.networkId);
  }

  /** The contract's native balance as stored (0 without a balance entry). */
  balance(contractId: Uint8Array): bigint {
    const stored = this.store.entry(encodeLedgerKey(this.sac.balance(contractId)));
    return stored ? sacBalanceAmount(decodeLedgerEntry(stored.entry)) : 0n;
  }

  /** Sends `amount` stroops to the contract; resolves to the stored transfer transaction. */
  async fund(contractId: Uint8Array, amount: bigint): Promise<StoredTransaction> {
    if (!this.store.entry(encodeLedgerKey(this.sac.instance))) await this.deployNativeSac();
    return this.invoke({
      type: 0,
      invokeContract: {
        contractAddress: this.sac.address,
        functionName: new xdr.XdrString('transfer'),
        args: [addressVal(accountAddress(this.root.accountId)), addressVal({ type: 1, contractId }), i128Val(amount)],
      },
    });
  }

  private async deployNativeSac(): Promise<void> {
    const stored = await this.invoke({
      type: 1,
      createContract: { contractIdPreimage: { type: 1, fromAsset: NATIVE }, executable: { type: 1 } },
    });
    // someone else may have deployed it meanwhile: then the transfer goes ahead all the same
    if (!stored.successful && !this.store.entry(encodeLedgerKey(this.sac.instance))) {
      throw new Error(`deploying the native asset contract failed (${toBase64(stored.result)})`);
    }
  }

  /** One host function from the root account: simulated, assembled as clients do, sent and awaited. */
  private async invoke(hostFunction: xdr.HostFunctionWire): Promise<StoredTransaction> {
    const op: xdr.OperationWire = { sourceAccount: null, body: { type: 24, invokeHostFunctionOp: { hostFunction, auth: [] } } };
    const sim = await this.simulator.invoke({
      operationXdr: toBase64(xdr.Operation.schema.encode(op)),
      sourceAccount: accountIdToStrKey(this.root.accountId),
    }, { authMode: 'record' });
    if (sim.error !== undefined || !sim.transactionData || !sim.result) throw new Error(`simulation failed: ${sim.error ?? 'no result'}`);
    const sorobanData = xdr.SorobanTransactionData.schema.decode(Buffer.from(sim.transactionData, 'base64'));
    const auth = sim.result.auth.map((a) => xdr.SorobanAuthorizationEntry.schema.decode(Buffer.from(a, 'base64')));
    const assembled: xdr.OperationWire = { sourceAccount: null, body: { type: 24, invokeHostFunctionOp: { hostFunction, auth } } };
    const fee = this.root.baseFee + Number(sorobanData.resourceFee);
    return this.root.submit(this.root.transaction(fee, [assembled], sorobanData));
  }
}
