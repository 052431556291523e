// Contract invocations applied per second: the counter's `increment`, each a whole Soroban
// transaction (validation with resource checks, fee charge and refund, the host's end-to-end invoke,
// meta, ingestion) confirmed SUCCESS through getTransaction. The baseline is a classic payment
// through the same path, measured on the same server in the same run.
//
// Every account invokes the same contract with the resources one simulation found (the footprint
// does not depend on the caller), so transactions are built and signed before the clock starts.
import { Account, Keypair, Operation, TransactionBuilder, nativeToScVal, rpc, xdr } from '@stellar/stellar-sdk';
import { deployCounter } from './counter.ts';
import { createAccounts, runPayments, type Accounts, type PaymentsResult } from './payments.ts';
import { PASSPHRASE, signFast, type SignedTx } from './stellar.ts';

/** A factory of signed `increment(1)` calls with the resources of one simulation (plus headroom for the larger count). */
export async function incrementFactory(url: string, contractId: string, sample: Keypair) {
  const server = new rpc.Server(url, { allowHttp: true });
  const op = Operation.invokeContractFunction({ contract: contractId, function: 'increment', args: [nativeToScVal(1, { type: 'u32' })] });
  const probe = new TransactionBuilder(await server.getAccount(sample.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE }).addOperation(op).setTimeout(0).build();
  const sim = await server.simulateTransaction(probe);
  if (rpc.Api.isSimulationError(sim)) throw new Error(`simulation failed: ${sim.error}`);
  const data = sim.transactionData.build();
  const resourceFee = BigInt(sim.minResourceFee) * 2n; // rent grows a little as the count grows; the unused part is refunded
  return (source: Keypair, seq: bigint): SignedTx => {
    const tx = new TransactionBuilder(new Account(source.publicKey(), seq.toString()), { fee: String(100n + resourceFee), networkPassphrase: PASSPHRASE })
      .addOperation(op).setSorobanData(new xdr.SorobanTransactionData({ ext: data.ext, resources: data.resources, resourceFee }))
      .setTimeout(0).build();
    signFast(tx, source);
    return { envelope: tx.toXDR(), hash: Buffer.from(tx.hash()).toString('hex') };
  };
}

export interface InvocationsResult { invocations: PaymentsResult[]; payments: PaymentsResult[] }

/**
 * Interleaves runs of contract invocations and of payments (the baseline) on one server, from the
 * same accounts, so background noise hits both alike.
 */
export async function runInvocationsBench(url: string, opts: { accounts: number; rounds: number; runs: number }, log: (m: string) => void): Promise<InvocationsResult> {
  const accounts: Accounts = await createAccounts(url, opts.accounts);
  const contractId = await deployCounter(url); // from the root account, which runs no lane
  const increment = await incrementFactory(url, contractId, accounts.keys[1]);
  const result: InvocationsResult = { invocations: [], payments: [] };
  for (let i = 0; i < opts.runs; i++) {
    const inv = await runPayments(url, accounts, opts.rounds, 90_000, (k, seq) => increment(k, seq));
    result.invocations.push(inv);
    log(`  run ${i + 1}/${opts.runs}: ${inv.payments} invocations in ${inv.seconds.toFixed(2)} s = ${inv.perSecond.toFixed(0)}/s over ${inv.ledgers} ledgers`);
    if (!inv.complete) break;
    const pay = await runPayments(url, accounts, opts.rounds);
    result.payments.push(pay);
    log(`  baseline ${i + 1}/${opts.runs}: ${pay.payments} payments in ${pay.seconds.toFixed(2)} s = ${pay.perSecond.toFixed(0)}/s`);
    if (!pay.complete) break;
  }
  return result;
}
