// A ledger of many payments on a standalone node in manual close mode: `count` new accounts, each
// with one payment built and signed beforehand, all sent to the queue, then closed into one ledger
// by the test when it is ready (lumen_closeLedgers). Accounts are created by batches of 100
// createAccount operations from accounts the faucet funded.
import { Account, Asset, Keypair, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import type { NodeProcess } from './nodeProcess.ts';
import { PASSPHRASE, builder, server } from './sdk.ts';

const OPS_PER_TX = 100;

export interface PaymentLedger {
  /** Signed payments, one per new account, not sent yet. */
  payments: Transaction[];
  /** Where they pay to. */
  destination: string;
}

async function rpcOk(node: NodeProcess, method: string, params?: unknown): Promise<any> {
  const r = await node.rpc(method, params);
  if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r.result;
}

/** Creates `count` accounts and signs one payment from each (the node must be in manual close mode). */
export async function preparePayments(node: NodeProcess, count: number): Promise<PaymentLedger> {
  const s = server(node.url);
  const funders: Keypair[] = [];
  for (let i = 0; i < Math.ceil(count / OPS_PER_TX); i++) {
    const kp = Keypair.random();
    const res = await fetch(`${node.url}/friendbot?addr=${kp.publicKey()}`); // closes one ledger
    if (res.status !== 200) throw new Error(`friendbot: ${res.status} ${await res.text()}`);
    funders.push(kp);
  }
  const payers = Array.from({ length: count }, () => Keypair.random());
  for (let f = 0; f < funders.length; f++) {
    const b = await builder(s, funders[f]);
    for (const p of payers.slice(f * OPS_PER_TX, (f + 1) * OPS_PER_TX)) b.addOperation(Operation.createAccount({ destination: p.publicKey(), startingBalance: '5' }));
    const tx = b.build();
    tx.sign(funders[f]);
    const sent = await rpcOk(node, 'sendTransaction', { transaction: tx.toXDR() });
    if (sent.status !== 'PENDING') throw new Error(`createAccount batch: ${JSON.stringify(sent)}`);
  }
  const { latestLedger } = await rpcOk(node, 'lumen_closeLedgers', { count: 1 });
  const destination = funders[0].publicKey();
  // a new account's sequence number is its creation ledger's, shifted (its first transaction's is one more)
  const seq = (BigInt(latestLedger) << 32n).toString();
  const payments = payers.map((p) => {
    const tx = new TransactionBuilder(new Account(p.publicKey(), seq), { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(Operation.payment({ destination, asset: Asset.native(), amount: '1' }))
      .setTimeout(0).build();
    tx.sign(p);
    return tx;
  });
  return { payments, destination };
}

/** Sends every payment to the queue (`parallel` at a time); they are applied at the next close. */
export async function queuePayments(node: NodeProcess, payments: readonly Transaction[], parallel = 50): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < payments.length) {
      const tx = payments[next++];
      const sent = await rpcOk(node, 'sendTransaction', { transaction: tx.toXDR() });
      if (sent.status !== 'PENDING') throw new Error(`payment: ${JSON.stringify(sent)}`);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
}
