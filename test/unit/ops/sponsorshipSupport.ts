// Operation bodies and state readers shared by the sponsorship tests.
import { xdr } from '../../../src/xdr/xdr.ts';
import type { Keypair } from '@stellar/stellar-sdk';
import { extV2 } from '../../../src/ledger/ops/accounts.ts';
import { dataKey, toHex, trustLineKey, type AccountId, type Asset, type LedgerEntry, type LedgerKey } from '../../../src/xdr/codec.ts';
import { idOf, muxedOf } from './closeSupport.ts';
import type { MemoryState } from './support.ts';

type Body = xdr.OperationBodyWire;

export const begin = (sponsored: Keypair): Body => ({ type: 16, beginSponsoringFutureReservesOp: { sponsoredId: idOf(sponsored) } });
export const end = (): Body => ({ type: 17 });
export const createAccount = (dest: Keypair, startingBalance: bigint): Body =>
  ({ type: 0, createAccountOp: { destination: idOf(dest), startingBalance } });
export const changeTrust = (asset: Asset, limit: bigint): Body => {
  if (asset.type === 0) throw new Error('credit asset expected');
  return { type: 6, changeTrustOp: { line: asset, limit } };
};
export const manageData = (name: string, value: string | null): Body =>
  ({ type: 10, manageDataOp: { dataName: new xdr.XdrString(name), dataValue: value === null ? null : new Uint8Array(Buffer.from(value)) } });
export const ed25519Signer = (kp: Keypair): xdr.SignerKeyWire => ({ type: 0, ed25519: new Uint8Array(kp.rawPublicKey()) });
export const setSigner = (key: xdr.SignerKeyWire, weight: number): Body => ({
  type: 5,
  setOptionsOp: {
    inflationDest: null, clearFlags: null, setFlags: null, masterWeight: null, lowThreshold: null, medThreshold: null,
    highThreshold: null, homeDomain: null, signer: { key, weight },
  },
});
export const merge = (dest: Keypair): Body => ({ type: 8, destination: muxedOf(dest) });
export const revokeEntry = (ledgerKey: LedgerKey): Body => ({ type: 18, revokeSponsorshipOp: { type: 0, ledgerKey } });
export const revokeSigner = (account: Keypair, signerKey: xdr.SignerKeyWire): Body =>
  ({ type: 18, revokeSponsorshipOp: { type: 1, signer: { accountId: idOf(account), signerKey } } });

export const dataKeyOf = (kp: Keypair, name: string): LedgerKey => dataKey(idOf(kp), name);
export const trustKeyOf = (kp: Keypair, asset: Asset): LedgerKey => trustLineKey(idOf(kp), asset as xdr.TrustLineAssetWire);

const hex = (id: AccountId | null | undefined): string | null => (id ? toHex(id.ed25519) : null);
export const hexOf = (kp: Keypair): string => toHex(kp.rawPublicKey());

/** An account's reserve bookkeeping, with account ids as hex. */
export function countersOf(state: MemoryState, kp: Keypair) {
  const acc = state.account(idOf(kp));
  if (!acc) throw new Error('no such account');
  const v2 = extV2(acc);
  return {
    balance: acc.balance,
    numSubEntries: acc.numSubEntries,
    numSponsoring: v2?.numSponsoring ?? 0,
    numSponsored: v2?.numSponsored ?? 0,
    signerSponsors: acc.signers.map((_, i) => hex(v2?.signerSponsoringIDs[i])),
  };
}

/** Who sponsors an entry (hex), null when its owner pays; throws when the entry is missing. */
export function sponsorOfEntry(state: MemoryState, key: LedgerKey): string | null {
  const e: LedgerEntry | undefined = state.get(key);
  if (!e) throw new Error('no such entry');
  return e.ext.v === 1 ? hex(e.ext.v1.sponsoringId) : null;
}

const OP_CODES: Record<number, string> = {
  [-1]: 'opBAD_AUTH', [-2]: 'opNO_ACCOUNT', [-3]: 'opNOT_SUPPORTED', [-4]: 'opTOO_MANY_SUBENTRIES',
  [-5]: 'opEXCEEDED_WORK_LIMIT', [-6]: 'opTOO_MANY_SPONSORING',
};

/** Each operation's result: its own code (a number), or the top-level OperationResult code by name. */
export function opCodes(r: xdr.TransactionResultWire): Array<number | string> {
  const body = r.result;
  if (body.code !== 0 && body.code !== -1) throw new Error(`transaction result ${body.code} carries no operation results`);
  return body.results.map((op) => {
    if (op.code !== 0) return OP_CODES[op.code] ?? `op${op.code}`;
    const arm = Object.entries(op.tr).find(([k]) => k !== 'type')![1] as { code: number };
    return arm.code;
  });
}
