// Impersonation on the developer network (lumen_impersonateAccount) end to end over HTTP with the
// official JS SDK: an account whose secret key nobody holds sends classic payments (as source, as
// fee-bump fee source) and Soroban SAC transfers (its auth entries unsigned, simulated in record
// and in enforce mode) without signatures; its real signers stay untouched on the ledger; every
// other account's signatures are still required; after lumen_stopImpersonatingAccount the same
// transactions are refused; malformed addresses get a clear error and the network keeps running.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, StrKey, TransactionBuilder, rpc, xdr, type Transaction } from '@stellar/stellar-sdk';
import { spawnSync } from 'node:child_process';
import type { NodeProcess } from './support/nodeProcess.ts';
import { accountEntry, resultCode } from './support/sdk.ts';
import {
  PASSPHRASE, addr, describeResponse, eventsJson, fundedAccount, i128, invoke, invokeOp, opInnerCode, sendAndPoll,
  server, startContractNode,
} from './support/contracts.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const XLM = 10_000_000n;
const TX_FAILED = -1;
const TX_BAD_AUTH = -6;
const OP_BAD_AUTH = -1;
const INVOKE_HOST_FUNCTION_TRAPPED = -2;

/** The address credentials of an auth entry (Address or AddressV2, as the simulation recorded them). */
function addressCredentials(entry: xdr.SorobanAuthorizationEntryWire): xdr.SorobanAddressCredentialsWire {
  const c = entry.credentials;
  if (c.type === 1) return c.address;
  if (c.type === 2) return c.addressV2;
  throw new Error(`credentials of type ${c.type}`);
}

describe('developer network: impersonation', () => {
  let node: NodeProcess;
  let s: rpc.Server;
  let sacId: string;
  /** An account whose secret key was thrown away: only its address is known. */
  let ghost: string;
  /** An ordinary account with its key. */
  let payer: Keypair;

  const dev = async (method: string, params?: unknown) => {
    const r = await node.rpc(method, params);
    if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    return r.result;
  };
  const balance = async (g: string) => (await accountEntry(s, g)).balance;

  /** A transaction from `source` (by address), signed by `signers` only. */
  async function tx(source: string, ops: xdr.Operation[], signers: Keypair[] = []): Promise<Transaction> {
    const b = new TransactionBuilder(await s.getAccount(source), { fee: '100', networkPassphrase: PASSPHRASE }).setTimeout(60);
    for (const op of ops) b.addOperation(op);
    const t = b.build();
    if (signers.length > 0) t.sign(...signers);
    return t;
  }

  /** simulate (record) + assemble, auth entries left as simulated (unsigned), envelope signed by `signers` only. */
  async function sorobanTx(source: string, op: xdr.Operation, signers: Keypair[] = []) {
    const raw = await tx(source, [op]);
    const sim = await s.simulateTransaction(raw);
    if (rpc.Api.isSimulationError(sim)) throw new Error(`simulation failed: ${sim.error}`);
    const prepared = rpc.assembleTransaction(raw, sim).build();
    if (signers.length > 0) prepared.sign(...signers);
    return { raw, prepared, sim };
  }

  const payment = (to: string, amount: string, source?: string) =>
    Operation.payment({ destination: to, asset: Asset.native(), amount, ...(source ? { source } : {}) }) as unknown as xdr.Operation;
  const transfer = (from: string, to: string, amount: bigint) => invokeOp(sacId, 'transfer', addr(from), addr(to), i128(amount));

  before(async () => {
    node = await startContractNode();
    s = server(node.url);
    payer = await fundedAccount(node.url);
    ghost = (await fundedAccount(node.url)).publicKey(); // the secret is dropped here
    const deploy = await invoke(s, payer, Operation.createStellarAssetContract({ asset: Asset.native() }) as unknown as xdr.Operation, { flow: 'prepare' });
    sacId = deploy.value as string;
    assert.deepEqual(await dev('lumen_impersonatedAccounts'), { accounts: [] });
    const started = await dev('lumen_impersonateAccount', { account: ghost });
    assert.deepEqual(started, { account: ghost, added: true, accounts: [ghost] });
    assert.equal((await dev('lumen_impersonateAccount', { account: ghost })).added, false, 'impersonating twice changes nothing');
  });
  after(async () => { await node?.stop(); });

  it('a classic payment from the impersonated account, with no signature at all, succeeds', async () => {
    const [ghostBefore, payerBefore] = [await balance(ghost), await balance(payer.publicKey())];
    const sent = await sendAndPoll(s, await tx(ghost, [payment(payer.publicKey(), '25')]));
    assert.equal(sent.sent.status, 'PENDING');
    assert.equal(sent.done?.status, 'SUCCESS', describeResponse(sent.done!));
    assert.equal(await balance(payer.publicKey()), payerBefore + 25n * XLM);
    assert.equal(await balance(ghost), ghostBefore - 25n * XLM - 100n);
  });

  it('as fee-bump fee source: the impersonated account pays for a signed inner transaction without signing', async () => {
    const inner = await tx(payer.publicKey(), [payment(ghost, '1')], [payer]);
    const bump = TransactionBuilder.buildFeeBumpTransaction(ghost, '200', inner, PASSPHRASE);
    const ghostBefore = await balance(ghost);
    const sent = await sendAndPoll(s, bump);
    assert.equal(sent.done?.status, 'SUCCESS', describeResponse(sent.done!));
    assert.equal(await balance(ghost), ghostBefore + 1n * XLM - sent.done.resultXdr.feeCharged);
  });

  it('SAC transfer FROM the impersonated account: unsigned auth entry, sent by a normal account', async () => {
    const { prepared, sim } = await sorobanTx(payer.publicKey(), transfer(ghost, payer.publicKey(), 40n * XLM), [payer]);
    const auth = sim.result!.auth;
    assert.equal(auth.length, 1);
    const creds = addressCredentials(auth[0].toXdrObject() as xdr.SorobanAuthorizationEntryWire);
    assert.equal(creds.address.type === 0 && StrKey.encodeEd25519PublicKey(Buffer.from(creds.address.accountId.ed25519)), ghost);
    assert.equal(creds.signature.type, 1, 'the auth entry carries no signature (void)');
    const [ghostBefore, payerBefore] = [await balance(ghost), await balance(payer.publicKey())];
    const sent = await sendAndPoll(s, prepared);
    assert.equal(sent.done?.status, 'SUCCESS', describeResponse(sent.done!));
    assert.equal(await balance(ghost), ghostBefore - 40n * XLM);
    assert.equal(await balance(payer.publicKey()), payerBefore + 40n * XLM - sent.done.resultXdr.feeCharged);
    assert.ok(sent.done.resultXdr.feeCharged <= BigInt(prepared.fee), 'charged no more than simulated');
    const entry = await accountEntry(s, ghost);
    assert.deepEqual(entry.signers, [], 'the ledger never holds the engine\'s signer');
    assert.deepEqual([...entry.thresholds], [1, 0, 0, 0]);
  });

  it('SAC transfer with the impersonated account as source: no signature on the envelope', async () => {
    const { prepared, sim } = await sorobanTx(ghost, transfer(ghost, payer.publicKey(), 5n * XLM));
    assert.equal((sim.result!.auth[0].toXdrObject() as xdr.SorobanAuthorizationEntryWire).credentials.type, 0, 'source-account credentials');
    assert.equal(prepared.signatures.length, 0);
    const payerBefore = await balance(payer.publicKey());
    const sent = await sendAndPoll(s, prepared);
    assert.equal(sent.done?.status, 'SUCCESS', describeResponse(sent.done!));
    assert.equal(await balance(payer.publicKey()), payerBefore + 5n * XLM);
  });

  it('simulation in enforce mode accepts the unsigned auth entry of the impersonated account, and only its', async (t) => {
    const { raw, prepared, sim } = await sorobanTx(payer.publicKey(), transfer(ghost, payer.publicKey(), 1n * XLM));
    const enforced = (await node.rpc('simulateTransaction', { transaction: prepared.toXDR(), authMode: 'enforce' })).result;
    assert.equal(enforced.error, undefined, enforced.error);
    // the recording simulation emulates one signature check: its declared instructions cover the real one
    const declared = xdr.SorobanTransactionData.schema.decode(sim.transactionData.build().toXDR()).resources.instructions;
    const recorded = Number((await node.rpc('simulateTransaction', { transaction: raw.toXDR() })).result.cost.cpuInsns);
    const measured = Number(enforced.cost.cpuInsns);
    t.diagnostic(`SAC transfer from an impersonated account: recording simulation ${recorded} cpu insns (declared ${declared}), enforce simulation with the engine's signature ${measured}`);
    assert.ok(measured <= declared, `enforced ${measured} > declared ${declared}`);
    // the auth entries come back as sent (the engine's signature is never shown)
    assert.deepEqual(enforced.results[0].auth, prepared.toEnvelope().toXdrObject().type === 2
      ? (prepared.operations[0] as any).auth.map((a: xdr.SorobanAuthorizationEntry) => a.toXDR('base64')) : []);
    const creds = addressCredentials(xdr.SorobanAuthorizationEntry.fromXDR(enforced.results[0].auth[0], 'base64').toXdrObject() as xdr.SorobanAuthorizationEntryWire);
    assert.equal(creds.signature.type, 1);
    // the state change of the impersonated account shows its real signers
    let accountSides = 0;
    for (const change of enforced.stateChanges ?? []) {
      for (const side of [change.before, change.after]) {
        if (!side) continue;
        const data = xdr.LedgerEntry.fromXDR(side, 'base64').toXdrObject().data;
        if (data.type === 0) { accountSides++; assert.deepEqual(data.account.signers, []); }
      }
    }
    assert.ok(accountSides >= 2, 'the impersonated account\'s balance change is among the state changes');
    // a normal account's unsigned auth entry is still refused in enforce mode
    const other = await fundedAccount(node.url);
    const { prepared: notImpersonated } = await sorobanTx(payer.publicKey(), transfer(other.publicKey(), payer.publicKey(), 1n * XLM));
    const refused = (await node.rpc('simulateTransaction', { transaction: notImpersonated.toXDR(), authMode: 'enforce' })).result;
    assert.ok(refused.error, 'enforce mode refuses an unsigned auth entry of a normal account');
  });

  it('a transaction needing the impersonated AND a normal account: the normal one\'s signature is still required', async () => {
    const other = await fundedAccount(node.url);
    // classic: an operation sourced by the normal account, which did not sign
    const unsigned = await sendAndPoll(s, await tx(ghost, [payment(payer.publicKey(), '1'), payment(payer.publicKey(), '1', other.publicKey())]));
    assert.equal(unsigned.sent.status, 'ERROR');
    const r = xdr.TransactionResult.schema.decode(unsigned.sent.errorResult!.toXdr()).result;
    assert.equal(r.code, TX_FAILED);
    assert.deepEqual('results' in r ? r.results.map((o) => o.code === 0 ? 0 : o.code) : [], [0, OP_BAD_AUTH]);
    // signed by the normal account: accepted
    const signed = await sendAndPoll(s, await tx(ghost, [payment(payer.publicKey(), '1'), payment(payer.publicKey(), '1', other.publicKey())], [other]));
    assert.equal(signed.done?.status, 'SUCCESS', describeResponse(signed.done!));
    // Soroban: the impersonated account sends, the normal account's transfer auth entry is unsigned
    const { prepared } = await sorobanTx(ghost, transfer(other.publicKey(), payer.publicKey(), 1n * XLM));
    const sent = await sendAndPoll(s, prepared);
    assert.equal(sent.done?.status, 'FAILED');
    assert.deepEqual(opInnerCode(sent.done.resultXdr), { tx: TX_FAILED, op: 0, inner: INVOKE_HOST_FUNCTION_TRAPPED });
    assert.match(eventsJson(sent.done.diagnosticEventsXdr), /signature|auth/i);
  });

  it('a locked multisig account (master weight 0, thresholds above its signers) is impersonated too and keeps its settings', async () => {
    const owner = await fundedAccount(node.url);
    const locked = owner.publicKey();
    const cosigner = Keypair.random();
    const lock = Operation.setOptions({
      signer: { ed25519PublicKey: cosigner.publicKey(), weight: 1 }, masterWeight: 0, lowThreshold: 2, medThreshold: 2, highThreshold: 2,
    }) as unknown as xdr.Operation;
    assert.equal((await sendAndPoll(s, await tx(locked, [lock], [owner]))).done?.status, 'SUCCESS');
    const settings = await accountEntry(s, locked);
    assert.equal((await dev('lumen_impersonateAccount', { account: locked })).added, true);
    try {
      const classic = await sendAndPoll(s, await tx(locked, [payment(payer.publicKey(), '2')]));
      assert.equal(classic.done?.status, 'SUCCESS', describeResponse(classic.done!));
      const before = await balance(locked);
      const { prepared } = await sorobanTx(payer.publicKey(), transfer(locked, payer.publicKey(), 3n * XLM), [payer]);
      const soroban = await sendAndPoll(s, prepared);
      assert.equal(soroban.done?.status, 'SUCCESS', describeResponse(soroban.done!));
      assert.equal(await balance(locked), before - 3n * XLM);
      const after = await accountEntry(s, locked);
      assert.deepEqual(after.signers, settings.signers);
      assert.deepEqual([...after.thresholds], [...settings.thresholds]);
    } finally {
      await dev('lumen_stopImpersonatingAccount', { account: locked });
    }
  });

  it('after stopImpersonating, the same transactions are refused', async () => {
    const { prepared } = await sorobanTx(payer.publicKey(), transfer(ghost, payer.publicKey(), 1n * XLM), [payer]);
    assert.deepEqual(await dev('lumen_stopImpersonatingAccount', { account: ghost }), { account: ghost, removed: true, accounts: [] });
    assert.equal((await dev('lumen_stopImpersonatingAccount', { account: ghost })).removed, false);

    const classic = await sendAndPoll(s, await tx(ghost, [payment(payer.publicKey(), '1')]));
    assert.equal(classic.sent.status, 'ERROR');
    assert.equal(resultCode(classic.sent.errorResult!.toXdr()), TX_BAD_AUTH);

    const ghostBefore = await balance(ghost);
    const soroban = await sendAndPoll(s, prepared);
    assert.equal(soroban.done?.status, 'FAILED');
    assert.deepEqual(opInnerCode(soroban.done.resultXdr), { tx: TX_FAILED, op: 0, inner: INVOKE_HOST_FUNCTION_TRAPPED });
    assert.equal(await balance(ghost), ghostBefore);

    const enforced = (await node.rpc('simulateTransaction', { transaction: prepared.toXDR(), authMode: 'enforce' })).result;
    assert.ok(enforced.error, 'enforce-mode simulation refuses the unsigned auth entry again');
  });

  it('bad input: a clear error, and the network keeps running with its data intact', async () => {
    const before = (await node.rpc('getLatestLedger')).result.sequence as number;
    const cases: Array<[unknown, RegExp]> = [
      [{ account: 'GABC' }, /not a valid account address/],
      [{ account: sacId }, /contract address.*only accounts/],
      [{ account: 'M' + 'A'.repeat(68) }, /not a valid account address|muxed/],
      [{}, /account/],
    ];
    for (const [params, message] of cases) {
      const r = await node.rpc('lumen_impersonateAccount', params);
      assert.equal(r.error?.code, -32602, JSON.stringify(r));
      assert.match(JSON.stringify(r.error), message);
    }
    const stop = await node.rpc('lumen_stopImpersonatingAccount', { account: 'nonsense' });
    assert.equal(stop.error?.code, -32602);
    // the same from the command line
    const cli = (...args: string[]) => spawnSync(process.execPath, ['bin/lumen-rpc.js', 'dev', ...args, '--rpc-url', node.url], { cwd: ROOT, encoding: 'utf8' });
    const bad = cli('impersonate', 'GABC');
    assert.notEqual(bad.status, 0);
    assert.match(bad.stderr, /not a valid account address/);
    assert.deepEqual(JSON.parse(cli('impersonated').stdout), { accounts: [] });
    assert.deepEqual(await dev('lumen_impersonatedAccounts'), { accounts: [] });
    const pay = await sendAndPoll(s, await tx(payer.publicKey(), [payment(ghost, '1')], [payer]));
    assert.equal(pay.done?.status, 'SUCCESS');
    assert.ok((await node.rpc('getLatestLedger')).result.sequence > before);
  });
});
