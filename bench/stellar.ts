// Transactions for the bench: the root account, account creation, payments and fast signing.
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { hash, Keypair, Networks, Operation, StrKey, xdr, type Transaction } from '@stellar/stellar-sdk';
import { xdr as wire } from '../src/xdr/xdr.ts';
import { networkIdOf } from '../src/xdr/codec.ts';
import { encodeEnvelope, transactionHash } from '../src/xdr/transactions.ts';
import type { RpcClient } from './rpcClient.ts';
import { sleep } from './stats.ts';

export const PASSPHRASE = Networks.STANDALONE;
export const rootKeypair = (): Keypair => Keypair.fromRawEd25519Seed(hash(Buffer.from(PASSPHRASE)));

const BASE_FEE = 100; // stroops per operation, the network minimum
const MAX_OPS = 100;  // operations per transaction

// The SDK signs in pure JavaScript (~0.8 ms per signature here); Node's native Ed25519 is ~20x
// faster. Ed25519 is deterministic, so the signatures are byte-identical — only the bench's own
// CPU use (which competes with the server on 2 cores) changes.
const nativeKeys = new WeakMap<Keypair, KeyObject>();
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export function signFast(tx: Transaction, kp: Keypair): void {
  const signature = sign(null, tx.hash(), nativeKeyOf(kp));
  tx.addDecoratedSignature(new xdr.DecoratedSignature({ hint: kp.signatureHint(), signature }));
}

/** A signed transaction ready to send: its envelope and its hash (hex, as getTransaction wants). */
export interface SignedTx { envelope: string; hash: string }

const NETWORK_ID = networkIdOf(PASSPHRASE);

/**
 * The SDK's builder, its hash and its envelope encoding take ~170 µs a transaction here, and the
 * bench builds hundreds of thousands of them before its clocks start. Its transactions have one
 * shape, so they are built here as the node's own XDR values (src/xdr, generated from the network's
 * definitions) and hashed and encoded as the node does: the SDK's bytes (test/unit/bench/stellar.test.ts
 * holds them to the SDK's builder) in ~57 µs, signature included.
 */
function assembled(source: Keypair, seq: bigint, operations: wire.OperationWire[]): SignedTx {
  const tx: wire.TransactionWire = {
    sourceAccount: { type: 0, ed25519: source.rawPublicKey() },
    // the fee the SDK's builder was always given here: its `fee` is per operation and it was passed
    // BASE_FEE x operations, so n operations offer BASE_FEE x n x n (kept: the transactions stay what they were)
    fee: BASE_FEE * operations.length * operations.length,
    seqNum: seq + 1n,
    // time bounds 0..0 (setTimeout(0)): pre-signed transactions must stay valid however long the bench waits
    cond: { type: 1, timeBounds: { minTime: 0n, maxTime: 0n } },
    memo: { type: 0 },
    operations,
    ext: { v: 0 },
  };
  const txHash = transactionHash(NETWORK_ID, { type: 2, v1: { tx, signatures: [] } });
  const signature = sign(null, txHash, nativeKeyOf(source));
  const envelope = encodeEnvelope({ type: 2, v1: { tx, signatures: [{ hint: source.signatureHint(), signature }] } });
  return { envelope: Buffer.from(envelope).toString('base64'), hash: Buffer.from(txHash).toString('hex') };
}

function nativeKeyOf(kp: Keypair): KeyObject {
  let key = nativeKeys.get(kp);
  if (!key) {
    key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, kp.rawSecretKey()]), format: 'der', type: 'pkcs8' });
    nativeKeys.set(kp, key);
  }
  return key;
}

/** `stroops` of XLM from `source` to `destination` (a G address); `seq` is the source's current sequence number. */
export function paymentTx(source: Keypair, seq: bigint, destination: string, stroops = 1): SignedTx {
  return assembled(source, seq, [{
    sourceAccount: null,
    body: { type: 1, paymentOp: { destination: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(destination) }, asset: { type: 0 }, amount: BigInt(stroops) } },
  }]);
}

/** A transaction of any operations (at most 100), signed by `source`; `seq` is its current sequence number. */
export function opsTx(source: Keypair, seq: bigint, ops: readonly xdr.Operation[]): SignedTx {
  if (ops.length === 0 || ops.length > MAX_OPS) throw new Error(`1 to ${MAX_OPS} operations per transaction`);
  return assembled(source, seq, ops.map((op) => wire.Operation.schema.decode(op.toXDR())));
}

export function createAccountsTx(source: Keypair, seq: bigint, destinations: readonly string[], startingBalanceXlm: string): SignedTx {
  if (destinations.length > MAX_OPS) throw new Error(`at most ${MAX_OPS} operations per transaction`);
  return opsTx(source, seq, destinations.map((d) => Operation.createAccount({ destination: d, startingBalance: startingBalanceXlm })));
}

export function accountKey(publicKey: string): string {
  const key = xdr.LedgerKey.schema.encode({ type: 0, account: { accountId: { type: 0, ed25519: StrKey.decodeEd25519PublicKey(publicKey) } } });
  return Buffer.from(key).toString('base64');
}

/** Current sequence numbers, read with getLedgerEntries in pages (the method caps keys per call). */
export async function sequences(rpc: RpcClient, publicKeys: readonly string[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  const PAGE = 200;
  const pages: Promise<void>[] = [];
  for (let i = 0; i < publicKeys.length; i += PAGE) {
    const keys = publicKeys.slice(i, i + PAGE).map(accountKey);
    pages.push(rpc.call<{ entries?: { xdr: string }[] }>('getLedgerEntries', { keys }).then((r) => {
      for (const e of r.entries ?? []) {
        const data = xdr.LedgerEntryData.schema.decode(Buffer.from(e.xdr, 'base64'));
        if (data.type !== 0) continue;
        out.set(StrKey.encodeEd25519PublicKey(Buffer.from(data.account.accountId.ed25519)), data.account.seqNum);
      }
    }));
  }
  await Promise.all(pages);
  for (const pk of publicKeys) if (!out.has(pk)) throw new Error(`account ${pk} not found`);
  return out;
}

export interface TxStatus { status: string; ledger?: number; resultXdr?: string }

/** Sends one transaction; the answer's status (PENDING, DUPLICATE, TRY_AGAIN_LATER, ERROR). */
export async function send(rpc: RpcClient, tx: SignedTx): Promise<{ status: string; errorResultXdr?: string }> {
  return rpc.call('sendTransaction', { transaction: tx.envelope });
}

/** Setup only: sends and polls until the transaction is applied, failing loudly otherwise. */
export async function submitAndWait(rpc: RpcClient, tx: SignedTx, timeoutMs = 30_000): Promise<TxStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = await send(rpc, tx);
    if (s.status === 'PENDING' || s.status === 'DUPLICATE') break;
    if (s.status !== 'TRY_AGAIN_LATER' || Date.now() > deadline) throw new Error(`sendTransaction: ${JSON.stringify(s)}`);
    await sleep(100);
  }
  for (;;) {
    const r = await rpc.call<TxStatus>('getTransaction', { hash: tx.hash });
    if (r.status === 'SUCCESS') return r;
    if (r.status === 'FAILED') throw new Error(`transaction ${tx.hash} failed: ${r.resultXdr}`);
    if (Date.now() > deadline) throw new Error(`transaction ${tx.hash} not applied in ${timeoutMs} ms`);
    await sleep(20);
  }
}
