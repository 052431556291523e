// A ledger of many payments on a standalone node in manual close mode: `count` new accounts, each
// with one payment built and signed beforehand, all sent to the queue, then closed into one ledger
// by the test when it is ready (lumen_closeLedgers). Accounts are created by batches of 100
// createAccount operations from accounts the faucet funded.
import { Account, Asset, Keypair, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { freshRequest, freshRpc, type NodeProcess } from './nodeProcess.ts';
import { PASSPHRASE } from './sdk.ts';

const OPS_PER_TX = 100;

export interface PaymentLedger {
  /** Signed payments, one per new account, not sent yet. */
  payments: Transaction[];
  /** Where they pay to. */
  destination: string;
}

async function rpcOk(node: NodeProcess, method: string, params?: unknown): Promise<any> {
  const r = await freshRpc(node, method, params);
  if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r.result;
}

/** An account created in `ledger`, before its first transaction: its sequence number is the ledger's, shifted. */
const firstUse = (kp: Keypair, ledger: number): Account => new Account(kp.publicKey(), (BigInt(ledger) << 32n).toString());

/** Creates `count` accounts and signs one payment from each (the node must be in manual close mode). */
export async function preparePayments(node: NodeProcess, count: number): Promise<PaymentLedger> {
  const funders: Array<{ kp: Keypair; ledger: number }> = [];
  for (let i = 0; i < Math.ceil(count / OPS_PER_TX); i++) {
    const kp = Keypair.random();
    const res = await freshRequest(`${node.url}/friendbot?addr=${kp.publicKey()}`); // closes one ledger
    if (res.status !== 200) throw new Error(`friendbot: ${res.status} ${res.text}`);
    funders.push({ kp, ledger: (JSON.parse(res.text) as { ledger: number }).ledger });
  }
  const payers = Array.from({ length: count }, () => Keypair.random());
  for (let f = 0; f < funders.length; f++) {
    const { kp, ledger } = funders[f];
    const b = new TransactionBuilder(firstUse(kp, ledger), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(0);
    for (const p of payers.slice(f * OPS_PER_TX, (f + 1) * OPS_PER_TX)) b.addOperation(Operation.createAccount({ destination: p.publicKey(), startingBalance: '5' }));
    const tx = b.build();
    tx.sign(kp);
    const sent = await rpcOk(node, 'sendTransaction', { transaction: tx.toXDR() });
    if (sent.status !== 'PENDING') throw new Error(`createAccount batch: ${JSON.stringify(sent)}`);
  }
  const { latestLedger } = await rpcOk(node, 'lumen_closeLedgers', { count: 1 });
  const destination = funders[0].kp.publicKey();
  const payments = payers.map((p) => {
    const tx = new TransactionBuilder(firstUse(p, latestLedger), { fee: '100', networkPassphrase: PASSPHRASE })
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
