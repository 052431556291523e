// The counter contract (contracts/wasm/counter.wasm) deployed through the node under test with the
// official SDK's own flow (prepareTransaction, send, poll), for the contract benchmarks.
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { Address, Keypair, Operation, TransactionBuilder, rpc, scValToNative, type Transaction } from '@stellar/stellar-sdk';
import { PASSPHRASE, rootKeypair } from './stellar.ts';

const COUNTER_WASM = new URL('../contracts/wasm/counter.wasm', import.meta.url);

async function submit(server: rpc.Server, tx: Transaction, kp: Keypair): Promise<rpc.Api.GetSuccessfulTransactionResponse> {
  const prepared = await server.prepareTransaction(tx);
  prepared.sign(kp);
  const sent = await server.sendTransaction(prepared);
  if (sent.status !== 'PENDING') throw new Error(`sendTransaction answered ${sent.status}`);
  const done = await server.pollTransaction(sent.hash, { attempts: 200, sleepStrategy: () => 50 });
  if (done.status !== 'SUCCESS') throw new Error(`transaction ${sent.hash} ended ${done.status}`);
  return done as rpc.Api.GetSuccessfulTransactionResponse;
}

/** Uploads counter.wasm and creates a counter contract from the root account; returns its C... address. */
export async function deployCounter(url: string): Promise<string> {
  return (await deployCounters(url, 1))[0];
}

/** Uploads counter.wasm once and creates `n` counters from it (root account); their C... addresses. */
export async function deployCounters(url: string, n: number): Promise<string[]> {
  return deployWasm(url, COUNTER_WASM, n);
}

/** Submits `tx` from the root account through the SDK's prepare flow; its successful outcome. */
export function submitAsRoot(url: string, tx: Transaction): Promise<rpc.Api.GetSuccessfulTransactionResponse> {
  return submit(new rpc.Server(url, { allowHttp: true }), tx, rootKeypair());
}

/** Uploads a contract's Wasm once and creates `n` instances of it (root account); their C... addresses. */
export async function deployWasm(url: string, file: URL, n = 1): Promise<string[]> {
  const server = new rpc.Server(url, { allowHttp: true });
  const root = rootKeypair();
  const builder = async () => new TransactionBuilder(await server.getAccount(root.publicKey()), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60);
  const wasm = readFileSync(file);
  const uploaded = await submit(server, (await builder()).addOperation(Operation.uploadContractWasm({ wasm })).build(), root);
  const wasmHash = Buffer.from(scValToNative(uploaded.returnValue!) as Uint8Array);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const created = await submit(server, (await builder()).addOperation(Operation.createCustomContract({
      address: new Address(root.publicKey()), wasmHash, salt: randomBytes(32),
    })).build(), root);
    ids.push(Address.fromScVal(created.returnValue!).toString());
  }
  return ids;
}
