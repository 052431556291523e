// Asset helpers shared by the classic operations, the Soroban resources check and the CAP-67
// events: codes, issuers, validity, and the XDR ordering of assets (liquidity-pool parameters).
import type { xdr } from '../xdr/xdr.ts';
import { bytesEqual, type AccountId, type Asset, type TrustLineAsset } from '../xdr/codec.ts';

type CreditAsset = Extract<Asset, { type: 1 | 2 }>;
type AnyAsset = Asset | TrustLineAsset | xdr.ChangeTrustAssetWire;

export function alphaNum(a: CreditAsset): { assetCode: Uint8Array; issuer: AccountId } {
  return a.type === 1 ? a.alphaNum4 : a.alphaNum12;
}

export function assetIssuer(a: AnyAsset): AccountId | undefined {
  return a.type === 1 ? a.alphaNum4.issuer : a.type === 2 ? a.alphaNum12.issuer : undefined;
}

/** True when `id` issues the (credit) asset; never for native or pool shares. */
export function isIssuer(id: AccountId, a: AnyAsset): boolean {
  const issuer = assetIssuer(a);
  return issuer !== undefined && bytesEqual(issuer.ed25519, id.ed25519);
}

/** The asset code without its NUL padding. */
export function assetCodeString(code: Uint8Array): string {
  let end = code.indexOf(0);
  if (end < 0) end = code.length;
  return Buffer.from(code.subarray(0, end)).toString('latin1');
}

const isAlnum = (b: number): boolean => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);

/** An asset code is ASCII alphanumerics followed only by NUL padding: 1..4 chars, or 5..12 for alphanum12. */
function assetCodeValid(code: Uint8Array, minChars: number): boolean {
  let zeros = false;
  let chars = 0;
  for (const b of code) {
    if (b === 0) zeros = true;
    else if (zeros || !isAlnum(b)) return false;
    else chars++;
  }
  return chars >= minChars;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** XDR ordering of Assets (type, then code, then issuer), as used for liquidity-pool parameters. */
export function compareAssets(a: Asset, b: Asset): number {
  if (a.type !== b.type) return a.type - b.type;
  if (a.type === 0 || b.type === 0) return 0;
  const x = alphaNum(a), y = alphaNum(b);
  return compareBytes(x.assetCode, y.assetCode) || compareBytes(x.issuer.ed25519, y.issuer.ed25519);
}

export function assetEquals(a: Asset, b: Asset): boolean {
  return compareAssets(a, b) === 0;
}

/** stellar-core's isAssetValid for Asset / TrustLineAsset / ChangeTrustAsset (protocol >= 18). */
export function isAssetValid(a: AnyAsset): boolean {
  switch (a.type) {
    case 0: return true;
    case 1: return assetCodeValid(a.alphaNum4.assetCode, 1);
    case 2: return assetCodeValid(a.alphaNum12.assetCode, 5);
    case 3: {
      if (!('liquidityPool' in a)) return true; // a TrustLineAsset pool id
      const cp = a.liquidityPool.constantProduct;
      return isAssetValid(cp.assetA) && isAssetValid(cp.assetB) && compareAssets(cp.assetA, cp.assetB) < 0 && cp.fee === 30;
    }
    default: return false;
  }
}

export function assetToTrustLineAsset(a: CreditAsset): TrustLineAsset {
  return a.type === 1 ? { type: 1, alphaNum4: a.alphaNum4 } : { type: 2, alphaNum12: a.alphaNum12 };
}
