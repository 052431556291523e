// simulateTransaction on a fork (--fork-url): the local database holds only the remote's entries
// fetched so far, so a simulation may read a key that exists on the remote but was never fetched,
// and see it missing. Discovery runs the simulation until it reads nothing new:
//  1. the keys known before running anything are resolved first: the source account, the invoked
//     contract's instance, then its code (named by the instance);
//  2. simulate; collect every key the run could have needed: the keys the host asked the database
//     for (the addon's readKeys, reported on failure too), the footprint (readOnly + readWrite) of
//     the result and of the restore preamble, and the footprint the envelope declares;
//  3. resolve the unresolved ones; when there were any, simulate again (the new entries may lead
//     the contract elsewhere: a call into another contract, storage under a key computed from what
//     it just read), at most MAX_ROUNDS simulations in all.
// Authorization nonces are the exception: recording mode invents a random nonce per run (a new
// temporary entry every time, which the remote cannot hold), so a nonce key is resolved only when
// the envelope's own auth entries name it (enforcing mode), before the first run.
// A simulation that still reads unresolved keys in its last round is answered as an error rather
// than as a result computed against entries that may exist on the remote.
import { decodeLedgerEntry, decodeLedgerKey, encodeLedgerKey, muxedToAccountId, accountKey, toHex } from '../xdr/codec.ts';
import type { LedgerKey } from '../xdr/codec.ts';
import { decodeEnvelope, innerTransaction } from '../xdr/transactions.ts';
import { xdr } from '../xdr/xdr.ts';
import type { Simulation } from '../host/simulator.ts';
import { ForkFetchError, type ForkedState } from './forkedState.ts';


/** Simulations one request may run on a fork (the first one included). */
export const MAX_ROUNDS = 8;

/** LedgerEntryType CONFIG_SETTING: the network configuration, copied from the remote at the fork's start. */
const CONFIG_SETTING = 8;

export interface DiscoveryInput {
  /** The envelope as simulated (base64 TransactionEnvelope XDR). */
  transactionXdr: string;
  /** Runs one simulation against the local database as it is now. */
  simulate(): Promise<Simulation>;
  fork: ForkedState;
  /** The stored entry under a key (the local database), to find a contract's code from its instance. */
  storedEntry(key: Uint8Array): Uint8Array | undefined;
  signal?: AbortSignal;
}

export interface DiscoveryOutcome {
  simulation: Simulation;
  /** Simulations run. */
  rounds: number;
  /** Keys resolved along the way (not necessarily fetched: resolve skips the already resolved). */
  resolvedKeys: number;
  /** True when the last simulation still read keys never resolved (MAX_ROUNDS reached). */
  exhausted: boolean;
}

export function exhaustedError(rounds: number): string {
  return `the simulation kept reading ledger entries not yet fetched from the forked network after ${rounds} rounds; try again`;
}

/** Runs `input.simulate` until it reads no unresolved key (see the file comment). */
export async function simulateOnFork(input: DiscoveryInput): Promise<DiscoveryOutcome> {
  const { fork, signal } = input;
  let resolvedKeys = 0;
  const resolveMissing = async (keys: Iterable<Uint8Array>): Promise<number> => {
    const missing = unresolved(fork, keys);
    if (missing.length === 0) return 0;
    try {
      await fork.resolve(missing, { signal });
    } catch (e) {
      throw signal?.aborted ? e : remoteFailure(e);
    }
    resolvedKeys += missing.length;
    return missing.length;
  };

  const known = keysOfEnvelope(input.transactionXdr);
  await resolveMissing(known.first);
  // the contract's code is named by its instance, which is stored now if it exists
  await resolveMissing(known.instances.flatMap((k) => codeKeyOfInstance(input.storedEntry(k))));

  let rounds = 0;
  for (;;) {
    signal?.throwIfAborted();
    const simulation = await input.simulate();
    rounds++;
    const read = [...keysOfSimulation(simulation), ...known.declared];
    const missing = unresolved(fork, read.filter((k) => !isNonceKey(k)));
    if (missing.length === 0) return { simulation, rounds, resolvedKeys, exhausted: false };
    if (rounds >= MAX_ROUNDS) return { simulation, rounds, resolvedKeys, exhausted: true };
    await resolveMissing(missing);
  }
}

/**
 * A failed resolve as a ForkFetchError (the method answers it -32603), never as a simulation
 * result: the simulation did not fail, the fork could not learn the state it needs.
 */
function remoteFailure(e: unknown): ForkFetchError {
  if (e instanceof ForkFetchError) return e;
  const url = (e as { url?: unknown })?.url;
  return new ForkFetchError(typeof url === 'string' ? url : undefined, e);
}

/** A ContractData key of an authorization nonce (ScVal SCV_LEDGER_KEY_NONCE). */
function isNonceKey(keyXdr: Uint8Array): boolean {
  // LedgerKey CONTRACT_DATA (6), then the contract's ScAddress, then the ScVal key's type (21)
  if (keyXdr[3] !== 6) return false;
  const key = decodeLedgerKey(keyXdr);
  return key.type === 6 && key.contractData.key.type === 21;
}

/** The keys among `keys` the fork never resolved, once each; network configuration keys excepted. */
function unresolved(fork: ForkedState, keys: Iterable<Uint8Array>): Uint8Array[] {
  const seen = new Set<string>();
  const out: Uint8Array[] = [];
  for (const key of keys) {
    if (key.length >= 4 && key[3] === CONFIG_SETTING && key[0] === 0 && key[1] === 0 && key[2] === 0) continue;
    const id = toHex(key);
    if (seen.has(id)) continue;
    seen.add(id);
    if (!fork.isResolved(key)) out.push(key);
  }
  return out;
}

const fromBase64 = (b64: string): Uint8Array => new Uint8Array(Buffer.from(b64, 'base64'));

/**
 * Every key a simulation reports it read or needs: the host's reads (readKeys), the result's
 * footprint and the restore preamble's.
 */
export function keysOfSimulation(sim: Simulation): Uint8Array[] {
  const keys: Uint8Array[] = (sim.readKeys ?? []).map(fromBase64);
  for (const data of [sim.transactionData, sim.restorePreamble?.transactionData]) {
    if (data) keys.push(...footprintKeys(data));
  }
  return keys;
}

/** readOnly + readWrite of a SorobanTransactionData (base64 XDR). */
function footprintKeys(sorobanDataB64: string): Uint8Array[] {
  const data = xdr.SorobanTransactionData.schema.decode(fromBase64(sorobanDataB64));
  const { readOnly, readWrite } = data.resources.footprint;
  return [...readOnly, ...readWrite].map(encodeLedgerKey);
}

interface EnvelopeKeys {
  /**
   * Resolved before the first simulation: the source account(s), the invoked contract's instance
   * and the nonces of the envelope's address-credential auth entries.
   */
  first: Uint8Array[];
  /** The instance keys among `first` (their code is resolved next). */
  instances: Uint8Array[];
  /** The footprint the envelope declares (ExtendFootprintTTL / RestoreFootprint simulate over it). */
  declared: Uint8Array[];
}

/** What the envelope names; nothing when it does not decode (the simulation then reports why). */
export function keysOfEnvelope(transactionXdr: string): EnvelopeKeys {
  const out: EnvelopeKeys = { first: [], instances: [], declared: [] };
  let tx;
  try {
    tx = innerTransaction(decodeEnvelope(fromBase64(transactionXdr)));
  } catch {
    return out;
  }
  out.first.push(encodeLedgerKey(accountKey(muxedToAccountId(tx.sourceAccount))));
  for (const op of tx.operations) {
    if (op.sourceAccount) out.first.push(encodeLedgerKey(accountKey(muxedToAccountId(op.sourceAccount))));
    if (op.body.type !== 24) continue;
    for (const { credentials: c } of op.body.invokeHostFunctionOp.auth) {
      // address credentials (and their CAP-71 forms): the nonce entry the host checks and creates
      const address = c.type === 1 ? c.address : c.type === 2 ? c.addressV2 : c.type === 3 ? c.addressWithDelegates.addressCredentials : undefined;
      if (address) {
        out.first.push(encodeLedgerKey({
          type: 6, contractData: { contract: address.address, key: { type: 21, nonceKey: { nonce: address.nonce } }, durability: 0 },
        } as LedgerKey));
      }
    }
    if (op.body.invokeHostFunctionOp.hostFunction.type === 0) {
      const { contractAddress } = op.body.invokeHostFunctionOp.hostFunction.invokeContract;
      const instance: LedgerKey = { type: 6, contractData: { contract: contractAddress, key: { type: 20 }, durability: 1 } } as LedgerKey;
      const key = encodeLedgerKey(instance);
      out.first.push(key);
      out.instances.push(key);
    }
  }
  if (tx.ext.v === 1) {
    const { readOnly, readWrite } = tx.ext.sorobanData.resources.footprint;
    out.declared.push(...[...readOnly, ...readWrite].map(encodeLedgerKey));
  }
  return out;
}

/** The ContractCode key of a stored contract instance entry running Wasm; none otherwise. */
export function codeKeyOfInstance(entryXdr: Uint8Array | undefined): Uint8Array[] {
  if (!entryXdr) return [];
  const entry = decodeLedgerEntry(entryXdr);
  if (entry.data.type !== 6) return [];
  const val = entry.data.contractData.val;
  if (val.type !== 19 || val.instance.executable.type !== 0) return [];
  return [encodeLedgerKey({ type: 7, contractCode: { hash: val.instance.executable.wasmHash } } as LedgerKey)];
}
