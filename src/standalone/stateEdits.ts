// Developer edits of the standalone network's state (lumen_setLedgerEntry, lumen_setBalance, ...): pure
// functions over a LedgerTxn, run as a LedgerUpgradeStep of the next ledger. The entry changes they
// make become that ledger's UpgradeEntryMeta, so storage, events, followers and the published
// datastore learn of them as of any other ledger change: nothing here writes the store.
//
// Each edit throws StateEditError (a message for the developer) when the state does not allow it;
// the close then fails and stores nothing.
import { xdr } from '../xdr/xdr.ts';
import type { LedgerTxn } from '../ledger/ledgerTxn.ts';
import type { LedgerUpgradeStep, UpgradableHeader } from '../ledger/closeLedger.ts';
import {
  accountIdToStrKey, accountKey, bytesEqual, sha256, trustLineKey,
  type AccountId, type Asset, type LedgerEntry, type LedgerEntryChange, type LedgerKey, type ScVal,
} from '../xdr/codec.ts';
import { ConfigSettingId, EntryType, configSettingKey, isPersistentKey, ledgerKeyOf, ttlKeyFor } from '../xdr/ledgerKeys.ts';
import {
  ACCOUNT_SUBENTRY_LIMIT, AUTHORIZED_FLAG, AUTH_CLAWBACK_ENABLED_FLAG, TRUSTLINE_CLAWBACK_ENABLED_FLAG,
  accountLiabilities, numSponsored, numSponsoring, trustLineLiabilities,
} from '../ledger/ops/accounts.ts';
import { alphaNum, assetCodeString, isIssuer } from '../ledger/assets.ts';
import { assetContractId } from '../ledger/sacEvents.ts';
import { INT64_MAX } from '../ledger/numeric.ts';
import { addressVal, boolVal, i128Val, symVal } from '../xdr/scVals.ts';

/** A developer edit the state does not allow; its message says why. */
export class StateEditError extends Error {}

const refuse = (message: string): never => { throw new StateEditError(message); };

/**
 * The ContractID every developer edit's upgrade names (sha256 of "lumen-rpc developer edit"): no
 * contract has it, so no reader mistakes the upgrade for a network configuration upgrade.
 */
export const DEV_EDIT_CONTRACT_ID = sha256(new TextEncoder().encode('lumen-rpc developer edit'));

export const INT128_MAX = (1n << 127n) - 1n;
const PERSISTENT = 1;
const TEMPORARY = 0;

export type CreditAsset = Extract<Asset, { type: 1 | 2 }>;
export type Edit = (ltx: LedgerTxn, header: UpgradableHeader) => void;

/**
 * A ledger upgrade carrying one edit: a LEDGER_UPGRADE_CONFIG whose ConfigUpgradeSetKey names
 * DEV_EDIT_CONTRACT_ID, its contentHash the sha256 of the XDR of the changes the edit made
 * (LedgerEntryChanges, as in the upgrade's UpgradeEntryMeta), so the meta shows the upgrade is a
 * developer edit and which changes it carried.
 */
export function devEditStep(edit: Edit): LedgerUpgradeStep {
  const upgrade: xdr.LedgerUpgradeWire = { type: 6, newConfig: { contractId: DEV_EDIT_CONTRACT_ID, contentHash: new Uint8Array(32) } };
  return {
    upgrade,
    apply(ltx, header) {
      const child = ltx.nest();
      try {
        edit(child, header);
      } catch (err) {
        child.rollback();
        throw err;
      }
      const changes = child.commit();
      upgrade.newConfig.contentHash = changesHash(changes);
    },
  };
}

/** sha256 of the XDR of a LedgerEntryChanges (a variable-length array of LedgerEntryChange). */
export function changesHash(changes: readonly LedgerEntryChange[]): Uint8Array {
  const count = new Uint8Array(4);
  new DataView(count.buffer).setUint32(0, changes.length);
  return sha256(count, ...changes.map((c) => xdr.LedgerEntryChange.schema.encode(c)));
}

// ---- settings ------------------------------------------------------------------------------------

function configSetting<T>(ltx: LedgerTxn, id: number, arm: string): T {
  const e = ltx.load(configSettingKey(id));
  if (!e || e.data.type !== EntryType.CONFIG_SETTING) return refuse(`the network has no ConfigSetting ${id} (Soroban is not configured)`);
  return (e.data.configSetting as unknown as Record<string, T>)[arm];
}

const archivalSettings = (ltx: LedgerTxn): xdr.StateArchivalSettingsWire =>
  configSetting(ltx, ConfigSettingId.STATE_ARCHIVAL, 'stateArchivalSettings');

/** The TTL a new contract entry gets: the network's minimum for its durability (code is persistent). */
export function minLiveUntil(ltx: LedgerTxn, key: LedgerKey): number {
  const s = archivalSettings(ltx);
  return ltx.ledgerSeq + (isPersistentKey(key) ? s.minPersistentTtl : s.minTemporaryTtl) - 1;
}

/** The highest liveUntilLedgerSeq allowed now (what an extension may reach). */
export function maxLiveUntil(ltx: LedgerTxn): number {
  return ltx.ledgerSeq + archivalSettings(ltx).maxEntryTtl - 1;
}

// ---- entries -------------------------------------------------------------------------------------

const isContractKey = (key: LedgerKey): boolean => key.type === EntryType.CONTRACT_DATA || key.type === EntryType.CONTRACT_CODE;

function liveUntilOf(ltx: LedgerTxn, key: LedgerKey): number | undefined {
  const ttl = ltx.load(ttlKeyFor(key));
  return ttl && ttl.data.type === EntryType.TTL ? ttl.data.ttl.liveUntilLedgerSeq : undefined;
}

function writeTtl(ltx: LedgerTxn, key: LedgerKey, liveUntil: number): void {
  const ttlKey = ttlKeyFor(key);
  const entry: LedgerEntry = { lastModifiedLedgerSeq: ltx.ledgerSeq, data: { type: EntryType.TTL, ttl: { keyHash: ttlKey.ttl.keyHash, liveUntilLedgerSeq: liveUntil } }, ext: { v: 0 } };
  if (ltx.exists(ttlKey)) ltx.update(entry); else ltx.create(entry);
}

function upsert(ltx: LedgerTxn, entry: LedgerEntry): boolean {
  const exists = ltx.exists(ledgerKeyOf(entry.data));
  if (exists) ltx.update(entry); else ltx.create(entry);
  return !exists;
}

/**
 * Writes a contract entry and keeps its TTL with it: an entry without a live TTL entry (new, or
 * archived) gets the network's minimum TTL for its durability, or `atLeast` when later. Returns the
 * entry's liveUntilLedgerSeq.
 */
function writeContractEntry(ltx: LedgerTxn, entry: LedgerEntry, atLeast = 0): number {
  const key = ledgerKeyOf(entry.data);
  upsert(ltx, entry);
  const current = liveUntilOf(ltx, key);
  if (current !== undefined && current >= ltx.ledgerSeq) return current;
  const liveUntil = Math.max(minLiveUntil(ltx, key), atLeast);
  writeTtl(ltx, key, liveUntil);
  return liveUntil;
}

export interface SetEntryResult { created: boolean; liveUntilLedgerSeq?: number }

/**
 * Sets any ledger entry but a TTL (lumen_setTtl) or a network setting. A contract data or code entry
 * without a live TTL gets the network's minimum; an existing TTL stays.
 */
export function setLedgerEntry(ltx: LedgerTxn, entry: LedgerEntry): SetEntryResult {
  const key = ledgerKeyOf(entry.data);
  checkEntry(entry);
  const created = !ltx.exists(key);
  if (isContractKey(key)) return { created, liveUntilLedgerSeq: writeContractEntry(ltx, entry) };
  upsert(ltx, entry);
  return { created };
}

function checkEntry(entry: LedgerEntry): void {
  const d = entry.data;
  switch (d.type) {
    case EntryType.TTL: return refuse('TTL entries are set with lumen_setTtl (or along with their contract entry)');
    case EntryType.CONFIG_SETTING: return refuse('network settings (ConfigSetting entries) are not set as entries');
    case 0: if (d.account.balance < 0n) refuse('an account balance cannot be negative'); return;
    case 1:
      if (d.trustLine.balance < 0n || d.trustLine.limit < 0n) refuse('a trustline balance and limit cannot be negative');
      if (d.trustLine.balance > d.trustLine.limit) refuse('a trustline balance cannot exceed its limit');
      return;
    case EntryType.CONTRACT_CODE:
      if (!bytesEqual(d.contractCode.hash, sha256(d.contractCode.code))) refuse('a contract code entry\'s hash must be the sha256 of its code');
      return;
    default:
  }
}

/** Deletes an entry (a contract entry with its TTL). */
export function deleteLedgerEntry(ltx: LedgerTxn, key: LedgerKey): void {
  if (key.type === EntryType.TTL) refuse('a TTL entry goes with its contract entry: delete that entry, or archive it with lumen_archiveEntry');
  if (key.type === EntryType.CONFIG_SETTING) refuse('network settings (ConfigSetting entries) cannot be deleted');
  if (!ltx.exists(key)) refuse('no such entry');
  ltx.erase(key);
  if (isContractKey(key) && ltx.exists(ttlKeyFor(key))) ltx.erase(ttlKeyFor(key));
}

// ---- balances ------------------------------------------------------------------------------------

/** (2 + numSubEntries + sponsoring - sponsored) * baseReserve */
export function reserveOf(acc: xdr.AccountEntryWire, baseReserve: number): bigint {
  return (2n + BigInt(acc.numSubEntries) + BigInt(numSponsoring(acc)) - BigInt(numSponsored(acc))) * BigInt(baseReserve);
}

const stroops = (n: bigint): string => `${n} stroops`;

function checkAmount(what: string, n: bigint, max: bigint): void {
  if (n < 0n) refuse(`${what} cannot be negative`);
  if (n > max) refuse(`${what} is above the largest allowed (${max})`);
}

export interface SetBalanceResult { created: boolean }

/**
 * Sets an account's native balance, creating the account (as CreateAccount would, with the next
 * sequence number range) when it does not exist. A balance below the account's reserve plus its
 * selling liabilities, or that its buying liabilities could not be received on top of, is refused.
 */
export function setNativeBalance(ltx: LedgerTxn, header: UpgradableHeader, account: AccountId, balance: bigint): SetBalanceResult {
  checkAmount('the balance', balance, INT64_MAX);
  const existing = ltx.load(accountKey(account));
  const entry: LedgerEntry = existing ?? {
    lastModifiedLedgerSeq: ltx.ledgerSeq,
    data: {
      type: 0,
      account: {
        accountId: account, balance: 0n, seqNum: BigInt(ltx.ledgerSeq) << 32n, numSubEntries: 0, inflationDest: null, flags: 0,
        homeDomain: new xdr.XdrString(''), thresholds: new Uint8Array([1, 0, 0, 0]), signers: [], ext: { v: 0 },
      },
    },
    ext: { v: 0 },
  };
  if (entry.data.type !== 0) return refuse('not an account');
  const acc = entry.data.account;
  const liabilities = accountLiabilities(acc);
  const minimum = reserveOf(acc, header.baseReserve) + liabilities.selling;
  if (balance < minimum) {
    refuse(`the balance ${stroops(balance)} is below ${accountIdToStrKey(account)}'s minimum of ${stroops(minimum)} `
      + `(reserve (2 + ${acc.numSubEntries} subentries + ${numSponsoring(acc)} sponsoring - ${numSponsored(acc)} sponsored) `
      + `* ${header.baseReserve} + ${liabilities.selling} selling liabilities)`);
  }
  if (balance > INT64_MAX - liabilities.buying) refuse(`the balance leaves no room for the account's ${liabilities.buying} stroops of buying liabilities`);
  acc.balance = balance;
  if (existing) ltx.update(entry); else ltx.create(entry);
  return { created: !existing };
}

export interface SetTrustlineResult { created: boolean; limit: bigint }

/**
 * Sets an account's balance of a credit asset. A missing trustline is created, authorized (with
 * clawback enabled when the issuer has it), with the largest limit; the account then needs the
 * reserve of one more subentry. A balance above the limit raises the limit to the balance. A balance
 * below the line's selling liabilities is refused.
 */
export function setTrustlineBalance(ltx: LedgerTxn, header: UpgradableHeader, account: AccountId, asset: CreditAsset, balance: bigint): SetTrustlineResult {
  checkAmount('the balance', balance, INT64_MAX);
  const { issuer } = alphaNum(asset);
  const name = assetName(asset);
  if (isIssuer(account, asset)) refuse(`${accountIdToStrKey(account)} issues ${name}: an issuer holds no trustline (its balance is unlimited)`);
  const issuerEntry = ltx.load(accountKey(issuer));
  if (!issuerEntry || issuerEntry.data.type !== 0) return refuse(`unknown asset ${name}: its issuer account does not exist`);
  const accEntry = ltx.load(accountKey(account));
  if (!accEntry || accEntry.data.type !== 0) return refuse(`account ${accountIdToStrKey(account)} does not exist (create it first, e.g. with lumen_setBalance)`);
  const tlAsset = asset.type === 1 ? { type: 1 as const, alphaNum4: asset.alphaNum4 } : { type: 2 as const, alphaNum12: asset.alphaNum12 };
  const key = trustLineKey(account, tlAsset);
  const existing = ltx.load(key);
  if (existing) {
    if (existing.data.type !== 1) return refuse('not a trustline');
    const tl = existing.data.trustLine;
    const liabilities = trustLineLiabilities(tl);
    if (balance < liabilities.selling) refuse(`the balance ${balance} is below the trustline's selling liabilities (${liabilities.selling})`);
    if (balance > INT64_MAX - liabilities.buying) refuse(`the balance leaves no room for the trustline's ${liabilities.buying} of buying liabilities`);
    tl.balance = balance;
    if (tl.limit < balance + liabilities.buying) tl.limit = balance + liabilities.buying;
    ltx.update(existing);
    return { created: false, limit: tl.limit };
  }
  const acc = accEntry.data.account;
  if (acc.numSubEntries >= ACCOUNT_SUBENTRY_LIMIT) refuse(`${accountIdToStrKey(account)} already has ${ACCOUNT_SUBENTRY_LIMIT} subentries`);
  acc.numSubEntries += 1;
  const minimum = reserveOf(acc, header.baseReserve) + accountLiabilities(acc).selling;
  if (acc.balance < minimum) {
    refuse(`${accountIdToStrKey(account)} cannot hold the reserve of a new trustline: its balance ${stroops(acc.balance)} is below `
      + `${stroops(minimum)} with one more subentry (raise it first with lumen_setBalance)`);
  }
  ltx.update(accEntry);
  const clawback = (issuerEntry.data.account.flags & AUTH_CLAWBACK_ENABLED_FLAG) !== 0;
  ltx.create({
    lastModifiedLedgerSeq: ltx.ledgerSeq,
    data: {
      type: 1,
      trustLine: {
        accountId: account, asset: tlAsset, balance, limit: INT64_MAX,
        flags: AUTHORIZED_FLAG | (clawback ? TRUSTLINE_CLAWBACK_ENABLED_FLAG : 0), ext: { v: 0 },
      },
    },
    ext: { v: 0 },
  });
  return { created: true, limit: INT64_MAX };
}

// ---- contracts -----------------------------------------------------------------------------------

export const contractAddress = (contractId: Uint8Array): xdr.ScAddressWire => ({ type: 1, contractId });

export function contractDataKey(contractId: Uint8Array, key: ScVal, durability: number): LedgerKey {
  return { type: EntryType.CONTRACT_DATA, contractData: { contract: contractAddress(contractId), key, durability } };
}

export const instanceKey = (contractId: Uint8Array): LedgerKey => contractDataKey(contractId, { type: 20 }, PERSISTENT);

/** The contract's instance entry and its instance, or a refusal naming the contract. */
function loadInstance(ltx: LedgerTxn, contractId: Uint8Array, name: string): { entry: LedgerEntry; instance: xdr.ScContractInstanceWire } {
  const entry = ltx.load(instanceKey(contractId));
  if (!entry || entry.data.type !== EntryType.CONTRACT_DATA || entry.data.contractData.val.type !== 19) {
    return refuse(`unknown contract ${name}: no contract instance entry`);
  }
  return { entry, instance: entry.data.contractData.val.instance };
}

/** The `Balance` entry key of a Stellar Asset Contract for a holder (DataKey::Balance(Address)). */
export function sacBalanceKey(sacId: Uint8Array, holder: xdr.ScAddressWire): LedgerKey {
  return contractDataKey(sacId, sacBalanceScKey(holder), PERSISTENT);
}

const sacBalanceScKey = (holder: xdr.ScAddressWire): ScVal => ({ type: 16, vec: [symVal('Balance'), addressVal(holder)] });

/** BalanceValue {amount: i128, authorized: bool, clawback: bool}, as a map with its keys in order. */
export function sacBalanceValue(amount: bigint, authorized: boolean, clawback: boolean): ScVal {
  return {
    type: 17,
    map: [
      { key: symVal('amount'), val: i128Val(amount) },
      { key: symVal('authorized'), val: boolVal(authorized) },
      { key: symVal('clawback'), val: boolVal(clawback) },
    ],
  };
}

function mapField(val: ScVal, name: string): ScVal | undefined {
  if (val.type !== 17) return undefined;
  return (val.map ?? []).find((e) => e.key.type === 15 && e.key.sym.toString() === name)?.val;
}

export interface SetSacBalanceResult { contract: Uint8Array; created: boolean; liveUntilLedgerSeq?: number }

/**
 * Sets a holder's balance of an asset's Stellar Asset Contract. For a contract holder, the SAC's
 * persistent Balance entry (a new one authorized, with clawback as the issuer's flag says; an
 * existing one keeps its flags); for an account holder, its native balance or trustline, which is
 * what the SAC reads for accounts. The SAC must be deployed.
 */
export function setSacBalance(ltx: LedgerTxn, header: UpgradableHeader, networkId: Uint8Array, asset: Asset,
  holder: xdr.ScAddressWire, amount: bigint): SetSacBalanceResult {
  const sacId = assetContractId(networkId, asset);
  const instance = ltx.load(instanceKey(sacId));
  if (!instance) refuse(`the Stellar Asset Contract of ${assetName(asset)} is not deployed (deploy it first, e.g. with \`stellar contract asset deploy\`)`);
  if (holder.type === 0) {
    const account = { type: 0 as const, ed25519: holder.accountId.ed25519 };
    const created = asset.type === 0
      ? setNativeBalance(ltx, header, account, amount).created
      : setTrustlineBalance(ltx, header, account, asset, amount).created;
    return { contract: sacId, created };
  }
  if (holder.type !== 1) return refuse('a SAC balance is set for an account (G...) or a contract (C...) address');
  checkAmount('the amount', amount, INT128_MAX);
  const key = sacBalanceKey(sacId, holder);
  const existing = ltx.load(key);
  let authorized = true;
  let clawback = false;
  if (existing && existing.data.type === EntryType.CONTRACT_DATA) {
    const val = existing.data.contractData.val;
    const a = mapField(val, 'authorized');
    const c = mapField(val, 'clawback');
    if (a?.type === 0) authorized = a.b;
    if (c?.type === 0) clawback = c.b;
  } else if (asset.type !== 0) {
    const issuer = ltx.load(accountKey(alphaNum(asset).issuer));
    clawback = !!issuer && issuer.data.type === 0 && (issuer.data.account.flags & AUTH_CLAWBACK_ENABLED_FLAG) !== 0;
  }
  const liveUntil = writeContractEntry(ltx, {
    lastModifiedLedgerSeq: ltx.ledgerSeq,
    data: { type: EntryType.CONTRACT_DATA, contractData: { ext: { v: 0 }, contract: contractAddress(sacId), key: sacBalanceScKey(holder), durability: PERSISTENT, val: sacBalanceValue(amount, authorized, clawback) } },
    ext: { v: 0 },
  });
  return { contract: sacId, created: !existing, liveUntilLedgerSeq: liveUntil };
}

export function assetName(asset: Asset): string {
  if (asset.type === 0) return 'native';
  if (asset.type !== 1 && asset.type !== 2) return 'a pool share';
  const { assetCode, issuer } = alphaNum(asset);
  return `${assetCodeString(assetCode)}:${accountIdToStrKey(issuer)}`;
}

const WASM_HEADER = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];

export interface SetWasmResult { wasmHash: Uint8Array; uploaded: boolean; previousWasmHash: Uint8Array }

/**
 * Points a Wasm contract's instance at new code, keeping its instance storage and every other entry.
 * The code entry is written when missing (without cost inputs: the host then charges parsing by the
 * code's size), live at least as long as the instance.
 */
export function setContractWasm(ltx: LedgerTxn, contractId: Uint8Array, name: string, wasm: Uint8Array): SetWasmResult {
  if (wasm.length < WASM_HEADER.length || WASM_HEADER.some((b, i) => wasm[i] !== b)) refuse('the code is not a WebAssembly module (no \\0asm version 1 header)');
  const maxSize = configSetting<number>(ltx, ConfigSettingId.CONTRACT_MAX_SIZE_BYTES, 'contractMaxSizeBytes');
  if (wasm.length > maxSize) refuse(`the code is ${wasm.length} bytes, above the network's limit of ${maxSize}`);
  const { entry, instance } = loadInstance(ltx, contractId, name);
  if (instance.executable.type !== 0) refuse(`${name} does not run Wasm (a Stellar Asset Contract or other built-in contract)`);
  const previousWasmHash = instance.executable.type === 0 ? instance.executable.wasmHash : new Uint8Array(32);
  const hash = sha256(wasm);
  const instanceLiveUntil = liveUntilOf(ltx, instanceKey(contractId)) ?? 0;
  const codeKey: LedgerKey = { type: EntryType.CONTRACT_CODE, contractCode: { hash } };
  const uploaded = !ltx.exists(codeKey);
  const code = ltx.load(codeKey) ?? { lastModifiedLedgerSeq: ltx.ledgerSeq, data: { type: EntryType.CONTRACT_CODE, contractCode: { ext: { v: 0 }, hash, code: wasm } }, ext: { v: 0 } };
  if (uploaded || (liveUntilOf(ltx, codeKey) ?? -1) < ltx.ledgerSeq) writeContractEntry(ltx, code, instanceLiveUntil);
  instance.executable = { type: 0, wasmHash: hash };
  ltx.update(entry);
  return { wasmHash: hash, uploaded, previousWasmHash };
}

export interface SetDataResult { created: boolean; liveUntilLedgerSeq: number }

/** Sets one contract data entry of an existing contract (not its instance: lumen_setLedgerEntry does that). */
export function setContractData(ltx: LedgerTxn, contractId: Uint8Array, name: string, key: ScVal, val: ScVal, durability: number): SetDataResult {
  if (key.type === 20) refuse('the instance key is not a data key: set the instance entry with lumen_setLedgerEntry');
  if (durability !== PERSISTENT && durability !== TEMPORARY) refuse('durability is persistent or temporary');
  loadInstance(ltx, contractId, name);
  const ledgerKey = contractDataKey(contractId, key, durability);
  const created = !ltx.exists(ledgerKey);
  const liveUntil = writeContractEntry(ltx, {
    lastModifiedLedgerSeq: ltx.ledgerSeq,
    data: { type: EntryType.CONTRACT_DATA, contractData: { ext: { v: 0 }, contract: contractAddress(contractId), key, durability, val } },
    ext: { v: 0 },
  });
  return { created, liveUntilLedgerSeq: liveUntil };
}

/** The contract entry `key` must exist with a TTL (live, or expired and not yet evicted). */
function requireLiveEntry(ltx: LedgerTxn, key: LedgerKey): number {
  if (!isContractKey(key)) refuse('TTLs belong to contract data and contract code entries only');
  if (!ltx.exists(key)) refuse('no such entry');
  const liveUntil = liveUntilOf(ltx, key);
  if (liveUntil === undefined) refuse('the entry is archived: restore it (RestoreFootprint) or set it again with lumen_setLedgerEntry');
  return liveUntil!;
}

export interface SetTtlResult { liveUntilLedgerSeq: number; previous: number }

/**
 * Sets a contract entry's liveUntilLedgerSeq, up or down, between this ledger and the network's
 * maximum (an entry is archived with archiveEntry).
 */
export function setTtl(ltx: LedgerTxn, key: LedgerKey, liveUntil: number): SetTtlResult {
  const previous = requireLiveEntry(ltx, key);
  const max = maxLiveUntil(ltx);
  if (liveUntil < ltx.ledgerSeq) refuse(`liveUntilLedger ${liveUntil} is before the ledger of the edit (${ltx.ledgerSeq}): archive an entry with lumen_archiveEntry`);
  if (liveUntil > max) refuse(`liveUntilLedger ${liveUntil} is above the network's maximum (${max}, maxEntryTTL from this ledger)`);
  writeTtl(ltx, key, liveUntil);
  return { liveUntilLedgerSeq: liveUntil, previous };
}

/**
 * Ends a contract entry's TTL with this ledger, so the next ledger's eviction archives it (a
 * persistent entry) or deletes it (a temporary one), exactly as after a real expiry.
 */
export function expireNow(ltx: LedgerTxn, key: LedgerKey): { previous: number } {
  const previous = requireLiveEntry(ltx, key);
  writeTtl(ltx, key, ltx.ledgerSeq);
  return { previous };
}
