// The streaming bench's events on the standalone network: one issuer of 100 assets pays one
// receiver (holding a trust line to each) 0.0000001 of every asset in one transaction of 100
// payments. Each payment by an issuer is a CAP-67 `mint` event of that asset's Stellar Asset
// Contract, so every such ledger holds exactly one event from each of 100 distinct contract ids
// (plus the transaction's fee event on the native asset's contract), at the cost of a ledger of
// classic payments: a few milliseconds to apply, so the node's time goes to delivery, not to
// producing the events. Transactions are built and signed before anything is timed.
import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import { RpcClient } from './rpcClient.ts';
import { createAccountsTx, opsTx, PASSPHRASE, rootKeypair, sequences, submitAndWait, type SignedTx } from './stellar.ts';

export interface AssetMints {
  /** The assets' contract ids (C...), in payment order. */
  contractIds: string[];
  /** Signed transactions of the issuer, in sequence order: each one ledger's events. */
  txs: SignedTx[];
}

export async function setUpAssetMints(url: string, assetCount: number, txCount: number): Promise<AssetMints> {
  const rpc = new RpcClient(url, 4);
  try {
    const root = rootKeypair();
    const issuer = Keypair.random();
    const receiver = Keypair.random();
    const rootSeq = (await sequences(rpc, [root.publicKey()])).get(root.publicKey())!;
    await submitAndWait(rpc, createAccountsTx(root, rootSeq, [issuer.publicKey(), receiver.publicKey()], '10000'));
    const assets = Array.from({ length: assetCount }, (_, i) => new Asset(`M${String(i).padStart(3, '0')}`, issuer.publicKey()));
    const seqs = await sequences(rpc, [issuer.publicKey(), receiver.publicKey()]);
    await submitAndWait(rpc, opsTx(receiver, seqs.get(receiver.publicKey())!, assets.map((asset) => Operation.changeTrust({ asset }))));
    const payments = assets.map((asset) => Operation.payment({ destination: receiver.publicKey(), asset, amount: '0.0000001' }));
    const issuerSeq = seqs.get(issuer.publicKey())!;
    const txs = Array.from({ length: txCount }, (_, k) => opsTx(issuer, issuerSeq + BigInt(k), payments));
    return { contractIds: assets.map((a) => a.contractId(PASSPHRASE)), txs };
  } finally {
    rpc.close();
  }
}
