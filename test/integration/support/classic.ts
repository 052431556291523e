// Reading the classic ledger back over JSON-RPC for the market, claims, sponsorship and pool tests:
// accounts and trustlines with their liabilities and sponsorship counters, offers, claimable
// balances, operation results decoded from getTransaction's resultXdr, and the CAP-67 events a
// transaction emitted as getEvents serves them. Every value comes from the node's own answers.
import assert from 'node:assert/strict';
import { Asset, Keypair, Operation, StrKey, xdr, type rpc, type Transaction } from '@stellar/stellar-sdk';
import { PASSPHRASE, builder, server, submit } from './sdk.ts';
import { startNodeProcess, type NodeProcess } from './nodeProcess.ts';

/** The node a classic test file drives: instant close mode, the SDK's server on it, and the ledger its flows start after. */
export interface ClassicNode { node: NodeProcess; s: rpc.Server; firstLedger: number }

export async function startClassicNode(): Promise<ClassicNode> {
  const node = await startNodeProcess({ args: ['--close-mode', 'instant', '--log-level', 'warn'] });
  const s = server(node.url);
  return { node, s, firstLedger: (await s.getLatestLedger()).sequence };
}

export const XLM = 10_000_000n;
/** The network's base reserve in stroops (the standalone genesis header's). */
export const BASE_RESERVE = 5_000_000n;

/** A decimal amount as stroops: '12.5' → 125000000n. */
export function stroops(amount: string): bigint {
  const [whole, frac = ''] = amount.split('.');
  return BigInt(whole) * XLM + BigInt(frac.padEnd(7, '0'));
}

/** Stroops as the decimal string the SDK's operation builders take. */
export function decimal(amount: bigint): string {
  const whole = amount / XLM;
  const frac = (amount % XLM).toString().padStart(7, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : String(whole);
}

export const accountIdWire = (g: string): xdr.PublicKeyWire => ({ type: 0, ed25519: StrKey.decodeEd25519PublicKey(g) });
export const assetWire = (a: Asset): xdr.AssetWire => xdr.Asset.schema.decode(a.toXdrObject().toXdr());
const trustLineAssetWire = (a: Asset): xdr.TrustLineAssetWire => xdr.TrustLineAsset.schema.decode(a.toTrustLineXdrObject().toXdr());
const keyOf = (k: xdr.LedgerKeyWire): xdr.LedgerKey => xdr.LedgerKey.fromXdr(xdr.LedgerKey.schema.encode(k));
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');

export const accountKey = (g: string): xdr.LedgerKeyWire => ({ type: 0, account: { accountId: accountIdWire(g) } });
export const trustLineKey = (g: string, asset: Asset): xdr.LedgerKeyWire =>
  ({ type: 1, trustLine: { accountId: accountIdWire(g), asset: trustLineAssetWire(asset) } });
export const poolShareLineKey = (g: string, poolIdHex: string): xdr.LedgerKeyWire =>
  ({ type: 1, trustLine: { accountId: accountIdWire(g), asset: { type: 3, liquidityPoolId: Buffer.from(poolIdHex, 'hex') } } });
export const liquidityPoolKey = (poolIdHex: string): xdr.LedgerKeyWire => ({ type: 5, liquidityPool: { liquidityPoolId: Buffer.from(poolIdHex, 'hex') } });
export const offerKey = (g: string, offerId: bigint): xdr.LedgerKeyWire => ({ type: 2, offer: { sellerId: accountIdWire(g), offerId } });
/** A claimable balance key from the SDK's hex id ("00000000" + sha256). */
export const claimableBalanceKey = (idHex: string): xdr.LedgerKeyWire =>
  ({ type: 4, claimableBalance: { balanceId: xdr.ClaimableBalanceId.schema.decode(Buffer.from(idHex, 'hex')) } });

/** getLedgerEntries for several keys at once: each key's entry data, or undefined when absent. */
export async function readEntries(s: rpc.Server, keys: xdr.LedgerKeyWire[]): Promise<(xdr.LedgerEntryDataWire | undefined)[]> {
  const res = await s.getLedgerEntries(...keys.map(keyOf));
  const byKey = new Map(res.entries.map((e) => [e.key.toXdr('base64'), xdr.LedgerEntryData.schema.decode(e.val.toXdr())]));
  assert.ok(res.entries.length <= keys.length, 'no more entries than keys');
  return keys.map((k) => byKey.get(b64(xdr.LedgerKey.schema.encode(k))));
}

export async function readEntry(s: rpc.Server, key: xdr.LedgerKeyWire): Promise<xdr.LedgerEntryDataWire | undefined> {
  return (await readEntries(s, [key]))[0];
}

export interface AccountView {
  balance: bigint;
  numSubEntries: number;
  flags: number;
  buying: bigint;   // liabilities
  selling: bigint;
  numSponsoring: number;
  numSponsored: number;
  /** The sponsor of each signer, in signer order (null: the account's own reserve). */
  signerSponsors: (string | null)[];
}

export function accountViewOf(a: xdr.AccountEntryWire): AccountView {
  const v1 = a.ext.v === 1 ? a.ext.v1 : undefined;
  const v2 = v1 && v1.ext.v === 2 ? v1.ext.v2 : undefined;
  return {
    balance: a.balance, numSubEntries: a.numSubEntries, flags: a.flags,
    buying: v1?.liabilities.buying ?? 0n, selling: v1?.liabilities.selling ?? 0n,
    numSponsoring: v2?.numSponsoring ?? 0, numSponsored: v2?.numSponsored ?? 0,
    signerSponsors: a.signers.map((_, i) => {
      const id = v2?.signerSponsoringIDs[i];
      return id ? StrKey.encodeEd25519PublicKey(Buffer.from(id.ed25519)) : null;
    }),
  };
}

export async function accountView(s: rpc.Server, g: string): Promise<AccountView> {
  const data = await readEntry(s, accountKey(g));
  assert.equal(data?.type, 0, `account ${g} exists`);
  return accountViewOf((data as Extract<xdr.LedgerEntryDataWire, { type: 0 }>).account);
}

/** The least balance an account must keep: (2 + sub-entries + sponsoring - sponsored) base reserves. */
export const minimumBalance = (a: AccountView): bigint =>
  (2n + BigInt(a.numSubEntries) + BigInt(a.numSponsoring) - BigInt(a.numSponsored)) * BASE_RESERVE;

export interface TrustLineView {
  balance: bigint; limit: bigint; flags: number; buying: bigint; selling: bigint;
  /** How many pool-share trustlines of the same account hold this asset (CAP-38). */
  poolUseCount: number;
}

export function trustLineViewOf(t: xdr.TrustLineEntryWire): TrustLineView {
  const v1 = t.ext.v === 1 ? t.ext.v1 : undefined;
  const v2 = v1 && v1.ext.v === 2 ? v1.ext.v2 : undefined;
  return {
    balance: t.balance, limit: t.limit, flags: t.flags, buying: v1?.liabilities.buying ?? 0n, selling: v1?.liabilities.selling ?? 0n,
    poolUseCount: v2?.liquidityPoolUseCount ?? 0,
  };
}

/** An account's trustline to an asset, or (a pool id in hex) its pool-share trustline. */
export async function trustLineView(s: rpc.Server, g: string, asset: Asset | string): Promise<TrustLineView | undefined> {
  const data = await readEntry(s, typeof asset === 'string' ? poolShareLineKey(g, asset) : trustLineKey(g, asset));
  if (!data) return undefined;
  assert.equal(data.type, 1);
  return trustLineViewOf((data as Extract<xdr.LedgerEntryDataWire, { type: 1 }>).trustLine);
}

/** A constant-product pool's reserves and counts, or undefined once the pool is gone. */
export async function poolView(s: rpc.Server, poolIdHex: string): Promise<xdr.LiquidityPoolEntryConstantProductWire | undefined> {
  const data = await readEntry(s, liquidityPoolKey(poolIdHex));
  if (!data) return undefined;
  assert.equal(data.type, 5, 'a LIQUIDITY_POOL entry');
  return (data as Extract<xdr.LedgerEntryDataWire, { type: 5 }>).liquidityPool.body.constantProduct;
}

/** The offers stored under these ids (undefined where there is none). */
export async function offerEntries(s: rpc.Server, seller: string, ids: bigint[]): Promise<(xdr.OfferEntryWire | undefined)[]> {
  const data = await readEntries(s, ids.map((id) => offerKey(seller, id)));
  return data.map((d) => {
    if (!d) return undefined;
    assert.equal(d.type, 2, 'an OFFER entry');
    return (d as Extract<xdr.LedgerEntryDataWire, { type: 2 }>).offer;
  });
}

// ---------------------------------------------------------------------------------------------
// Transactions

export type Done = rpc.Api.GetSuccessfulTransactionResponse | rpc.Api.GetFailedTransactionResponse;

export interface Sent { tx: Transaction; hash: string; done: Done }

/**
 * Builds one transaction of `ops` from `source`, signs it with the source and `cosigners`, submits it
 * and waits for it to leave NOT_FOUND.
 */
export async function send(s: rpc.Server, source: Keypair, ops: xdr.Operation[], cosigners: Keypair[] = []): Promise<Sent> {
  const b = await builder(s, source);
  for (const op of ops) b.addOperation(op);
  const tx = b.build();
  tx.sign(source, ...cosigners);
  const { sent, done } = await submit(s, tx);
  assert.notEqual(done.status, 'NOT_FOUND');
  return { tx, hash: sent.hash, done: done as Done };
}

/** As send, and the transaction must have succeeded. */
export async function applied(s: rpc.Server, source: Keypair, ops: xdr.Operation[], cosigners: Keypair[] = []): Promise<Sent> {
  const r = await send(s, source, ops, cosigners);
  assert.equal(r.done.status, 'SUCCESS', `applied: ${describeResult(r.done)}`);
  return r;
}

export const transactionResult = (done: Done): xdr.TransactionResultWire => xdr.TransactionResult.schema.decode(done.resultXdr.toXdr());

export const feeCharged = (done: Done): bigint => transactionResult(done).feeCharged;

/** The operation results of a transaction (its own, or the inner one of a fee bump). */
export function operationResults(result: xdr.TransactionResultWire): xdr.OperationResultWire[] {
  const r = result.result;
  if ('results' in r) return r.results;
  if ('innerResultPair' in r) {
    const inner = r.innerResultPair.result.result;
    if ('results' in inner) return inner.results;
  }
  throw new Error(`no operation results (transaction code ${r.code})`);
}

/** Operation `index`'s inner result: the op-specific arm ({code, ...}) of a result that got that far. */
export function opArm(result: xdr.TransactionResultWire, index: number): { code: number } & Record<string, unknown> {
  const op = operationResults(result)[index];
  assert.equal(op.code, 0, `operation ${index} ran (opINNER), got ${op.code}`);
  const tr = (op as Extract<xdr.OperationResultWire, { code: 0 }>).tr as unknown as Record<string, unknown>;
  const name = Object.keys(tr).find((k) => k !== 'type')!;
  return tr[name] as { code: number } & Record<string, unknown>;
}

/** The inner result code of every operation (the operation-level code where there is no inner one). */
export function opCodes(result: xdr.TransactionResultWire): number[] {
  return operationResults(result).map((op, i) => (op.code === 0 ? opArm(result, i).code : op.code));
}

export function describeResult(done: Done): string {
  const r = transactionResult(done);
  try {
    return `${done.status} tx ${r.result.code} ops [${opCodes(r).join(', ')}]`;
  } catch {
    return `${done.status} tx ${r.result.code}`;
  }
}

export function manageOfferSuccess(done: Done, index = 0): xdr.ManageOfferSuccessResultWire {
  const arm = opArm(transactionResult(done), index);
  assert.equal(arm.code, 0, 'MANAGE_*_OFFER_SUCCESS');
  return arm.success as xdr.ManageOfferSuccessResultWire;
}

export interface PathPaymentSuccess { offers: xdr.ClaimAtomWire[]; last: xdr.SimplePaymentResultWire }

export function pathPaymentSuccess(done: Done, index = 0): PathPaymentSuccess {
  const arm = opArm(transactionResult(done), index);
  assert.equal(arm.code, 0, 'PATH_PAYMENT_*_SUCCESS');
  return arm.success as PathPaymentSuccess;
}

/** The offer id a manage-offer result created or updated. */
export function offerIdOf(success: xdr.ManageOfferSuccessResultWire): bigint {
  assert.notEqual(success.offer.effect, 2, 'the offer rests in the book');
  return (success.offer as { offer: xdr.OfferEntryWire }).offer.offerId;
}

/** A claim atom as the tests compare them: who sold what to whom. */
export interface Trade { seller: string; offerId?: bigint; pool?: string; sold: string; amountSold: bigint; bought: string; amountBought: bigint }

export function tradeOf(atom: xdr.ClaimAtomWire): Trade {
  const name = (a: xdr.AssetWire) => Asset.fromOperation(xdr.Asset.fromXdr(xdr.Asset.schema.encode(a))).toString();
  if (atom.type === 1) {
    const o = atom.orderBook;
    return { seller: StrKey.encodeEd25519PublicKey(Buffer.from(o.sellerId.ed25519)), offerId: o.offerId,
      sold: name(o.assetSold), amountSold: o.amountSold, bought: name(o.assetBought), amountBought: o.amountBought };
  }
  if (atom.type === 2) {
    const p = atom.liquidityPool;
    return { seller: 'pool', pool: Buffer.from(p.liquidityPoolId).toString('hex'),
      sold: name(p.assetSold), amountSold: p.amountSold, bought: name(p.assetBought), amountBought: p.amountBought };
  }
  throw new Error('a v0 claim atom: not produced since protocol 18');
}

// ---------------------------------------------------------------------------------------------
// CAP-67 events

/** An asset-contract event with its topics read: the name, the addresses, the SEP-11 asset and the data. */
export interface AssetEvent {
  name: string;
  /** Accounts as G..., claimable balances as the SDK's hex id, pools as their hex id, contracts as C.... */
  addresses: string[];
  asset: string;
  /** The i128 amount (a transfer's map carries it under `amount`), or set_authorized's flag. */
  value: bigint | boolean;
  /** A transfer or mint's to_muxed_id, when its data is a map. */
  toMuxedId?: unknown;
  operationIndex: number;
}

function addressString(a: xdr.ScAddressWire): string {
  switch (a.type) {
    case 0: return StrKey.encodeEd25519PublicKey(Buffer.from(a.accountId.ed25519));
    case 1: return StrKey.encodeContract(Buffer.from(a.contractId));
    case 2: return StrKey.encodeEd25519PublicKey(Buffer.from(a.muxedAccount.ed25519));
    case 3: return Buffer.from(xdr.ClaimableBalanceId.schema.encode(a.claimableBalanceId)).toString('hex');
    case 4: return Buffer.from(a.liquidityPoolId).toString('hex');
  }
}

const i128 = (v: xdr.ScValWire): bigint => {
  assert.equal(v.type, 10, 'an i128');
  const { hi, lo } = (v as Extract<xdr.ScValWire, { type: 10 }>).i128;
  return (BigInt(hi) << 64n) | BigInt.asUintN(64, BigInt(lo));
};

/** The SEP-11 asset string as an Asset: 'native' or 'CODE:ISSUER'. */
export function assetOfSep11(s: string): Asset {
  if (s === 'native') return Asset.native();
  const [code, issuer] = s.split(':');
  return new Asset(code, issuer);
}

export function assetEventOf(e: rpc.Api.EventResponse): AssetEvent {
  const topics = e.topic.map((t) => xdr.ScVal.schema.decode(t.toXdr()));
  assert.equal(topics[0].type, 15, 'the first topic is the event name');
  const name = String((topics[0] as { sym: unknown }).sym);
  const last = topics[topics.length - 1];
  assert.equal(last.type, 14, 'the last topic is the SEP-11 asset');
  const asset = String((last as { str: unknown }).str);
  // the event comes from the asset's Stellar Asset Contract
  assert.equal(e.contractId?.contractId(), assetOfSep11(asset).contractId(PASSPHRASE), `${name} from ${asset}'s contract`);
  const addresses = topics.slice(1, -1).map((t) => {
    assert.equal(t.type, 18, 'an address topic');
    return addressString((t as Extract<xdr.ScValWire, { type: 18 }>).address);
  });
  const data = xdr.ScVal.schema.decode(e.value.toXdr());
  let value: bigint | boolean;
  let toMuxedId: unknown;
  if (data.type === 0) value = (data as Extract<xdr.ScValWire, { type: 0 }>).b;
  else if (data.type === 17) {
    const map = (data as Extract<xdr.ScValWire, { type: 17 }>).map ?? [];
    const field = (k: string) => map.find((m) => String((m.key as { sym?: unknown }).sym) === k)?.val;
    value = i128(field('amount')!);
    toMuxedId = field('to_muxed_id');
  } else value = i128(data);
  return { name, addresses, asset, value, ...(toMuxedId !== undefined ? { toMuxedId } : {}), operationIndex: e.operationIndex };
}

/**
 * The asset-contract events of one transaction as getEvents serves them (the fee event left out), in
 * the order they were emitted.
 */
export async function transactionEvents(s: rpc.Server, sent: { hash: string; done: Done }): Promise<AssetEvent[]> {
  const events: rpc.Api.EventResponse[] = [];
  let page = await s.getEvents({ startLedger: sent.done.ledger, filters: [{ type: 'contract' }], limit: 200 });
  for (;;) {
    const inLedger = page.events.filter((e) => e.ledger === sent.done.ledger);
    events.push(...inLedger);
    if (inLedger.length < page.events.length || page.events.length < 200) break;
    page = await s.getEvents({ filters: [{ type: 'contract' }], cursor: page.cursor, limit: 200 });
  }
  return events
    .filter((e) => e.txHash === sent.hash)
    .filter((e) => String((xdr.ScVal.schema.decode(e.topic[0].toXdr()) as { sym: unknown }).sym) !== 'fee')
    .map(assetEventOf);
}

/** The expected event, for deepEqual against transactionEvents' (operation index 0 unless said). */
export function assetEvent(name: string, addresses: string[], asset: Asset, value: bigint | boolean, operationIndex = 0): AssetEvent {
  return { name, addresses, asset: asset.isNative() ? 'native' : `${asset.getCode()}:${asset.getIssuer()}`, value, operationIndex };
}

/** The two movements of a trade as core emits them for the taker: what it paid, then what it got. */
export function tradeEvents(taker: string, t: Trade, operationIndex = 0): AssetEvent[] {
  const counterparty = t.pool ?? t.seller;
  return [
    movement(t.bought, taker, counterparty, t.amountBought, operationIndex),
    movement(t.sold, counterparty, taker, t.amountSold, operationIndex),
  ];
}

/** transfer, or mint/burn when only one side is the asset's issuer. */
export function movement(assetName: string, from: string, to: string, amount: bigint, operationIndex = 0): AssetEvent {
  const asset = assetName === 'native' ? Asset.native() : assetOfSep11(assetName);
  const issuer = asset.isNative() ? undefined : asset.getIssuer();
  if (from === issuer && to !== issuer) return assetEvent('mint', [to], asset, amount, operationIndex);
  if (to === issuer && from !== issuer) return assetEvent('burn', [from], asset, amount, operationIndex);
  return assetEvent('transfer', [from, to], asset, amount, operationIndex);
}

/** A fresh keypair funded by the faucet, and its funding confirmed. */
export async function fundedAccount(s: rpc.Server): Promise<Keypair> {
  const kp = Keypair.random();
  const res = await s.fundAddress(kp.publicKey());
  assert.equal(res.status, 'SUCCESS');
  return kp;
}

/**
 * Who sponsors a ledger entry's reserve (null: its owner), from getLedgerEntries' `extXdr` (the
 * LedgerEntryExt the JS SDK does not hand back), read with a plain JSON-RPC call.
 */
export async function entrySponsor(call: (method: string, params?: unknown) => Promise<any>, key: xdr.LedgerKeyWire): Promise<string | null> {
  const res = await call('getLedgerEntries', { keys: [b64(xdr.LedgerKey.schema.encode(key))] });
  assert.equal(res.result?.entries?.length, 1, 'the entry exists');
  const ext = xdr.LedgerEntryExt.schema.decode(Buffer.from(res.result.entries[0].extXdr, 'base64'));
  const id = ext.v === 1 ? ext.v1.sponsoringId : null;
  return id ? StrKey.encodeEd25519PublicKey(Buffer.from(id.ed25519)) : null;
}

export interface Grant { to: Keypair; code: string; amount: string }

/**
 * A new issuer of `codes` (no flags), `holders` trusting each of them and `grants` paid out, in one
 * transaction the issuer pays for and the holders co-sign.
 */
export async function issueAssets(s: rpc.Server, codes: string[], holders: Keypair[], grants: Grant[] = []): Promise<{ issuer: Keypair; assets: Record<string, Asset> }> {
  const issuer = await fundedAccount(s);
  const assets = Object.fromEntries(codes.map((c) => [c, new Asset(c, issuer.publicKey())])) as Record<string, Asset>;
  await applied(s, issuer, [
    ...holders.flatMap((h) => codes.map((c) => Operation.changeTrust({ asset: assets[c], source: h.publicKey() }))),
    ...grants.map((g) => Operation.payment({ destination: g.to.publicKey(), asset: assets[g.code], amount: g.amount })),
  ], holders);
  return { issuer, assets };
}

/**
 * Every ledger and transaction from `startLedger` on, read back twice: as XDR the JS SDK decodes
 * (getLedgers, getTransactions) and as the JSON the node renders for xdrFormat "json". Returns how
 * many transactions there were.
 */
export async function readBackEverything(s: rpc.Server, call: (method: string, params?: unknown) => Promise<any>, startLedger: number): Promise<number> {
  const limit = 20;
  let ledgers = 0;
  let page = await s.getLedgers({ startLedger, pagination: { limit } });
  for (;;) {
    for (const l of page.ledgers) {
      // the SDK decoded the close meta; encode and decode it again through the schema
      xdr.LedgerCloseMeta.schema.decode(xdr.LedgerCloseMeta.schema.encode(l.metadataXdr.toXdrObject()));
      ledgers++;
    }
    // as the reference does, a cursor at the latest ledger is out of range for the next page: that is the end
    if (page.ledgers.length < limit || Number(page.cursor) >= page.latestLedger) break;
    page = await s.getLedgers({ pagination: { cursor: page.cursor, limit } });
  }
  assert.ok(ledgers > 0);
  let transactions = 0;
  let cursor: string | undefined;
  for (;;) {
    const params = cursor ? { pagination: { cursor, limit } } : { startLedger, pagination: { limit } };
    const sdkPage = await s.getTransactions(params as rpc.Api.GetTransactionsRequest);
    const json = await call('getTransactions', { ...params, xdrFormat: 'json' });
    assert.equal(json.error, undefined, JSON.stringify(json.error));
    assert.equal(json.result.transactions.length, sdkPage.transactions.length);
    for (const [i, tx] of json.result.transactions.entries()) {
      assert.equal(tx.txHash, sdkPage.transactions[i].txHash);
      for (const field of ['envelopeJson', 'resultJson', 'resultMetaJson']) assert.equal(typeof tx[field], 'object', `${tx.txHash} has ${field}`);
      assert.equal(tx.resultJson.fee_charged === undefined && tx.resultJson.feeCharged === undefined, false, 'the result renders its fee');
    }
    transactions += sdkPage.transactions.length;
    if (sdkPage.transactions.length < limit) break;
    cursor = sdkPage.cursor;
  }
  return transactions;
}

/** getEvents topic values (base64 ScVal): a symbol, and an address from the forms AssetEvent uses (G..., C..., balance or pool hex id). */
export const symbolTopic = (name: string): string =>
  Buffer.from(xdr.ScVal.schema.encode({ type: 15, sym: new xdr.XdrString(name) } as xdr.ScValWire)).toString('base64');

export function addressTopic(address: string, kind: 'account' | 'claimableBalance' | 'liquidityPool' = 'account'): string {
  const a: xdr.ScAddressWire = kind === 'account' ? { type: 0, accountId: accountIdWire(address) }
    : kind === 'claimableBalance' ? { type: 3, claimableBalanceId: xdr.ClaimableBalanceId.schema.decode(Buffer.from(address, 'hex')) }
      : { type: 4, liquidityPoolId: Buffer.from(address, 'hex') };
  return Buffer.from(xdr.ScVal.schema.encode({ type: 18, address: a } as xdr.ScValWire)).toString('base64');
}
