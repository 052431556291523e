// Transactions for the bench: the root account, account creation, payments and fast signing.
import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { Account, Asset, hash, Keypair, Networks, Operation, StrKey, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
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

function finish(tx: Transaction, kp: Keypair): SignedTx {
  signFast(tx, kp);
  return { envelope: tx.toXDR(), hash: Buffer.from(tx.hash()).toString('hex') };
}

/** `seq` is the account's current sequence number; the transaction uses seq + 1. */
function builder(source: Keypair, seq: bigint, ops: number): TransactionBuilder {
  return new TransactionBuilder(new Account(source.publicKey(), seq.toString()), {
    fee: String(BASE_FEE * ops), networkPassphrase: PASSPHRASE,
  }).setTimeout(0); // no time bounds: pre-signed transactions must stay valid however long the bench waits
}

/**
 * The SDK's builder, its hash and its envelope encoding take ~0.1 ms a transaction, and the bench
 * builds hundreds of thousands of them before its clocks start. Its transactions have one shape
 * (no memo, time bounds 0/0 as setTimeout(0) sets, one signature), so they are written here as
 * bytes: byte for byte what the SDK builds (test/unit/bench/stellar.test.ts holds them to it).
 */
const u32 = (n: number): Buffer => { const b = Buffer.alloc(4); b.writeUInt32BE(n); return b; };
const i64 = (n: bigint): Buffer => { const b = Buffer.alloc(8); b.writeBigInt64BE(n); return b; };
const ENVELOPE_TYPE_TX = u32(2);
const KEY_TYPE_ED25519 = u32(0);
const PRECOND_TIME_ZERO = Buffer.concat([u32(1), Buffer.alloc(16)]); // time bounds 0..0: none
const NO_MEMO_NO_EXT = u32(0);
const NO_SOURCE_PAYMENT_NATIVE = Buffer.concat([u32(0), u32(1)]); // operation without source, PAYMENT
const networkIds = new Map<string, Buffer>();

function assembled(source: Keypair, seq: bigint, ops: readonly Uint8Array[]): SignedTx {
  const tx = Buffer.concat([
    // the fee the builder below was always given: its `fee` is per operation, and it was passed
    // BASE_FEE x operations, so a transaction of n operations offers BASE_FEE x n x n (kept, so the
    // bench's transactions stay what they were)
    KEY_TYPE_ED25519, source.rawPublicKey(), u32(BASE_FEE * ops.length * ops.length), i64(seq + 1n), PRECOND_TIME_ZERO, NO_MEMO_NO_EXT,
    u32(ops.length), ...ops, NO_MEMO_NO_EXT,
  ]);
  let networkId = networkIds.get(PASSPHRASE);
  if (!networkId) { networkId = Buffer.from(hash(Buffer.from(PASSPHRASE))); networkIds.set(PASSPHRASE, networkId); }
  const txHash = createHash('sha256').update(networkId).update(ENVELOPE_TYPE_TX).update(tx).digest();
  const signature = sign(null, txHash, nativeKeyOf(source));
  const envelope = Buffer.concat([ENVELOPE_TYPE_TX, tx, u32(1), source.signatureHint(), u32(signature.length), signature]);
  return { envelope: envelope.toString('base64'), hash: txHash.toString('hex') };
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
  const op = Buffer.concat([NO_SOURCE_PAYMENT_NATIVE, KEY_TYPE_ED25519, StrKey.decodeEd25519PublicKey(destination), u32(0), i64(BigInt(stroops))]);
  return assembled(source, seq, [op]);
}

/** A transaction of any operations (at most 100), signed by `source`; `seq` is its current sequence number. */
export function opsTx(source: Keypair, seq: bigint, ops: readonly xdr.Operation[]): SignedTx {
  if (ops.length === 0 || ops.length > MAX_OPS) throw new Error(`1 to ${MAX_OPS} operations per transaction`);
  return assembled(source, seq, ops.map((op) => op.toXDR()));
}

/** The same transactions through the SDK's builder (what the assembled ones are checked against). */
export const viaSdk = {
  paymentTx(source: Keypair, seq: bigint, destination: string, stroops = 1): SignedTx {
    const tx = builder(source, seq, 1)
      .addOperation(Operation.payment({ destination, asset: Asset.native(), amount: (stroops / 1e7).toFixed(7) }))
      .build();
    return finish(tx, source);
  },
  opsTx(source: Keypair, seq: bigint, ops: readonly xdr.Operation[]): SignedTx {
    const b = builder(source, seq, ops.length);
    for (const op of ops) b.addOperation(op);
    return finish(b.build(), source);
  },
};

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
