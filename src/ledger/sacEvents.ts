// CAP-67 "unified" events: the Stellar Asset Contract style events that classic operations emit
// from protocol 23 (OperationMetaV2.events) and the transaction-level `fee` event
// (TransactionMetaV4.events). Every event is a CONTRACT event whose contract id is the asset's SAC.
//
//   transfer: ["transfer", from, to, asset]   data: i128 amount | {amount, to_muxed_id}
//   mint:     ["mint", to, asset]             data: i128 amount | {amount, to_muxed_id}
//   burn:     ["burn", from, asset]           data: i128 amount
//   clawback: ["clawback", from, asset]       data: i128 amount
//   set_authorized: ["set_authorized", id, asset]   data: bool
//   fee:      ["fee", account]  (native SAC)  data: i128 amount (negative for a refund)
//
// Addresses in topics never carry mux info. A muxed destination's id, or else the transaction memo
// when the destination is a plain account, travels in the data map under `to_muxed_id`.
import { StrKey } from '@stellar/stellar-sdk';
import { xdr } from '../xdr/xdr.ts';
import { sha256, toHex, type AccountId, type Asset, type ContractEvent, type MuxedAccount, type ScVal } from '../xdr/codec.ts';
import { alphaNum, assetCodeString, isIssuer } from './assets.ts';
import { assetId } from './orderBook.ts';
import { addressVal, boolVal, bytesVal, i128Val, strVal, symVal, u64Val } from '../xdr/scVals.ts';

export type ScAddress = xdr.ScAddressWire;
export type Memo = xdr.MemoWire;

const ENVELOPE_TYPE_CONTRACT_ID = 8;
const CONTRACT_ID_PREIMAGE_FROM_ASSET = 1;
const CONTRACT_EVENT_TYPE_CONTRACT = 1;

const contractIdCache = new Map<string, Uint8Array>();

/**
 * The Stellar Asset Contract id of an asset: sha256(HashIdPreimage CONTRACT_ID {networkId, FROM_ASSET asset}).
 * Remembered by network and asset (keyed without encoding: every fee and trade event asks for it).
 */
export function assetContractId(networkId: Uint8Array, asset: Asset): Uint8Array {
  const cacheKey = `${toHex(networkId)}/${assetId(asset)}`;
  let id = contractIdCache.get(cacheKey);
  if (!id) {
    id = sha256(xdr.HashIdPreimage.schema.encode({
      type: ENVELOPE_TYPE_CONTRACT_ID,
      contractId: { networkId, contractIdPreimage: { type: CONTRACT_ID_PREIMAGE_FROM_ASSET, fromAsset: asset } },
    }));
    if (contractIdCache.size > 10_000) contractIdCache.clear();
    contractIdCache.set(cacheKey, id);
  }
  return id;
}

/** SEP-11 canonical asset string: "native" or "CODE:ISSUER". */
export function sep11AssetString(asset: Asset): string {
  if (asset.type === 0) return 'native';
  const { assetCode, issuer } = alphaNum(asset);
  return `${assetCodeString(assetCode)}:${StrKey.encodeEd25519PublicKey(Buffer.from(issuer.ed25519))}`;
}

// ---------------------------------------------------------------------------------------------
// ScAddress builders

export const accountAddress = (id: AccountId): ScAddress => ({ type: 0, accountId: { type: 0, ed25519: id.ed25519 } });

/** A classic MuxedAccount as an ScAddress: ACCOUNT, or MUXED_ACCOUNT when it carries an id. */
export function muxedAccountAddress(m: MuxedAccount): ScAddress {
  return m.type === 0
    ? { type: 0, accountId: { type: 0, ed25519: m.ed25519 } }
    : { type: 2, muxedAccount: { id: m.med25519.id, ed25519: m.med25519.ed25519 } };
}

/** A claimable balance as an ScAddress (CAP-67): where created balances go and claimed ones come from. */
export const claimableBalanceAddress = (balanceId: xdr.ClaimableBalanceIdWire): ScAddress => ({ type: 3, claimableBalanceId: balanceId });

/** The address as it appears in topics: a muxed account collapses to its plain account. */
export function withoutMuxInfo(a: ScAddress): ScAddress {
  return a.type === 2 ? { type: 0, accountId: { type: 0, ed25519: a.muxedAccount.ed25519 } } : a;
}

/** The account behind an ACCOUNT or MUXED_ACCOUNT address; undefined for contracts, balances, pools. */
function accountBehind(a: ScAddress): AccountId | undefined {
  if (a.type === 0) return a.accountId;
  if (a.type === 2) return { type: 0, ed25519: a.muxedAccount.ed25519 };
  return undefined;
}

const isIssuerAddress = (a: ScAddress, asset: Asset): boolean => {
  const id = accountBehind(a);
  return id !== undefined && isIssuer(id, asset);
};

/** The memo as CAP-67 maps it into `to_muxed_id`: id → u64, text → string, hash/return → bytes. */
export function memoVal(memo: Memo): ScVal {
  switch (memo.type) {
    case 1: return { type: 14, str: memo.text };
    case 2: return u64Val(memo.id);
    case 3: return bytesVal(memo.hash);
    case 4: return bytesVal(memo.retHash);
    default: throw new Error('MEMO_NONE has no ScVal form');
  }
}

/**
 * The data of a transfer or mint: the plain i128 amount, or the map {amount, to_muxed_id} when the
 * destination is a muxed account (its id) or a plain account and the transaction has a memo (the
 * memo). `memo === null` means the movement may not carry mux info at all (e.g. offer trades).
 */
export function amountData(to: ScAddress, amount: bigint, memo: Memo | null): ScVal {
  const amountV = i128Val(amount);
  if (memo === null) return amountV;
  let muxed: ScVal | undefined;
  if (to.type === 2) muxed = u64Val(to.muxedAccount.id);
  else if (to.type === 0 && memo.type !== 0) muxed = memoVal(memo);
  if (!muxed) return amountV;
  return { type: 17, map: [{ key: symVal('amount'), val: amountV }, { key: symVal('to_muxed_id'), val: muxed }] };
}

function contractEvent(contractId: Uint8Array, topics: ScVal[], data: ScVal): ContractEvent {
  return { ext: { v: 0 }, contractId, type: CONTRACT_EVENT_TYPE_CONTRACT, body: { v: 0, v0: { topics, data } } };
}

// ---------------------------------------------------------------------------------------------
// Events

export function transferEvent(networkId: Uint8Array, asset: Asset, from: ScAddress, to: ScAddress, amount: bigint, memo: Memo | null = null): ContractEvent {
  return contractEvent(assetContractId(networkId, asset),
    [symVal('transfer'), addressVal(withoutMuxInfo(from)), addressVal(withoutMuxInfo(to)), strVal(sep11AssetString(asset))],
    amountData(to, amount, memo));
}

export function mintEvent(networkId: Uint8Array, asset: Asset, to: ScAddress, amount: bigint, memo: Memo | null = null): ContractEvent {
  return contractEvent(assetContractId(networkId, asset),
    [symVal('mint'), addressVal(withoutMuxInfo(to)), strVal(sep11AssetString(asset))],
    amountData(to, amount, memo));
}

export function burnEvent(networkId: Uint8Array, asset: Asset, from: ScAddress, amount: bigint): ContractEvent {
  return contractEvent(assetContractId(networkId, asset),
    [symVal('burn'), addressVal(withoutMuxInfo(from)), strVal(sep11AssetString(asset))],
    i128Val(amount));
}

export function clawbackEvent(networkId: Uint8Array, asset: Asset, from: ScAddress, amount: bigint): ContractEvent {
  return contractEvent(assetContractId(networkId, asset),
    [symVal('clawback'), addressVal(withoutMuxInfo(from)), strVal(sep11AssetString(asset))],
    i128Val(amount));
}

export function setAuthorizedEvent(networkId: Uint8Array, asset: Asset, id: AccountId, authorize: boolean): ContractEvent {
  return contractEvent(assetContractId(networkId, asset),
    [symVal('set_authorized'), addressVal(accountAddress(id)), strVal(sep11AssetString(asset))],
    boolVal(authorize));
}

/**
 * A movement of `asset` from one holder to another, named by who is involved: `mint` when only the
 * sender is the issuer, `burn` when only the receiver is, `transfer` otherwise (including issuer to
 * itself). stellar-core's eventForTransferWithIssuerCheck.
 */
export function movementEvent(networkId: Uint8Array, asset: Asset, from: ScAddress, to: ScAddress, amount: bigint, memo: Memo | null = null): ContractEvent {
  const fromIssuer = isIssuerAddress(from, asset);
  const toIssuer = isIssuerAddress(to, asset);
  if (fromIssuer && !toIssuer) return mintEvent(networkId, asset, to, amount, memo);
  if (toIssuer && !fromIssuer) return burnEvent(networkId, asset, from, amount);
  return transferEvent(networkId, asset, from, to, amount, memo);
}

/** Transaction-level fee event: positive when charged, negative for a refund. Core emits none for 0. */
export function feeEvent(networkId: Uint8Array, account: AccountId, amount: bigint): ContractEvent {
  return contractEvent(assetContractId(networkId, { type: 0 }),
    [symVal('fee'), addressVal(accountAddress(account))],
    i128Val(amount));
}

export const liquidityPoolAddress = (poolId: Uint8Array): ScAddress => ({ type: 4, liquidityPoolId: poolId });

/**
 * The movements of a trade, two per claim atom in the order they were crossed: what the taker paid
 * the offer's seller (or the pool), then what it received back. Trades carry no memo or mux id
 * (core's eventsForClaimAtoms).
 */
export function claimAtomEvents(networkId: Uint8Array, taker: MuxedAccount, atoms: readonly xdr.ClaimAtomWire[]): ContractEvent[] {
  const takerAddress = muxedAccountAddress(taker);
  const events: ContractEvent[] = [];
  for (const atom of atoms) {
    const { counterparty, assetBought, amountBought, assetSold, amountSold } =
      atom.type === 0 ? { counterparty: accountAddress({ type: 0, ed25519: atom.v0.sellerEd25519 }), ...atom.v0 }
        : atom.type === 1 ? { counterparty: accountAddress(atom.orderBook.sellerId), ...atom.orderBook }
          : { counterparty: liquidityPoolAddress(atom.liquidityPool.liquidityPoolId), ...atom.liquidityPool };
    events.push(movementEvent(networkId, assetBought, takerAddress, counterparty, amountBought));
    events.push(movementEvent(networkId, assetSold, counterparty, takerAddress, amountSold));
  }
  return events;
}
