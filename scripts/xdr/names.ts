// Naming rules of the generated XDR module, from the XDR spelling in xdr.json.
//
// Two families:
// - JavaScript names: those of @stellar/stellar-sdk's generated `xdr` namespace (types, struct fields,
//   union cases, enum members), so that code written against the SDK's wire objects reads the same.
// - JSON names: those of the Rust crate's serde form (what stellar-rpc's `xdrFormat: "json"` answers
//   carry), which come from the crate generator's names (heck's snake/UpperCamel case, a member
//   prefix stripped) and serde's `rename_all = "snake_case"`.

/** Acronym runs folded to one capital: SCAddress -> ScAddress, feeWrite1KB -> feeWrite1Kb, accountID -> accountId. */
function foldAcronyms(name: string): string {
  // a run of capitals ends where a capitalized word, a digit or the name begins/ends; "IDs" stays
  return name.replace(/[A-Z]+(?=[A-Z][a-z]|[0-9]|$)/g, (run) => run[0] + run.slice(1).toLowerCase());
}

const upperFirst = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/**
 * Names the SDK gives differently from the folding rule: the typedef `uint256` (opaque[32]) is
 * `Uint256Bytes` because the SDK's `Uint256` is its 256-bit integer helper.
 */
const TYPE_NAME_EXCEPTIONS: ReadonlyMap<string, string> = new Map([['uint256', 'Uint256Bytes']]);

/** SCAddress -> ScAddress, AccountID -> AccountId, UInt128Parts -> Uint128Parts. */
export function typeName(xdrName: string): string {
  const exception = TYPE_NAME_EXCEPTIONS.get(xdrName);
  if (exception) return exception;
  return upperFirst(foldAcronyms(xdrName)).replace(/^UInt(?=[0-9])/, 'Uint');
}

/** Struct field and union arm names: accountID -> accountId, hi_lo -> hiLo, signerSponsoringIDs stays. */
export function fieldName(xdrName: string): string {
  return foldAcronyms(xdrName.replace(/_([a-zA-Z0-9])/g, (_, c: string) => c.toUpperCase()));
}

/** Enum members and enum-switched union cases: SC_ADDRESS_TYPE_ACCOUNT -> scAddressTypeAccount, txBAD_SEQ -> txBadSeq. */
export function memberName(xdrName: string): string {
  return lowerFirst(xdrName.split('_').map((word) => upperFirst(foldAcronyms(word))).join(''));
}

// ---- the Rust crate's names (heck 0.5 and serde) ----

const isUpper = (c: string): boolean => c >= 'A' && c <= 'Z';
const isLower = (c: string): boolean => c >= 'a' && c <= 'z';

/**
 * heck's word split: words end before a capital that follows a lower-case letter (digits take the
 * case of what precedes them), and before the last capital of a run that a lower-case letter
 * follows (IDs -> I, Ds); anything not alphanumeric separates words.
 */
type WordMode = 'boundary' | 'lower' | 'upper';

export function heckWords(name: string): string[] {
  const words: string[] = [];
  for (const part of name.split(/[^A-Za-z0-9]/)) {
    let start = 0;
    let mode = 'boundary' as WordMode;
    for (let i = 0; i < part.length; i++) {
      const c = part[i];
      const next = part[i + 1];
      if (next === undefined) { words.push(part.slice(start)); break; }
      const nextMode: WordMode = isLower(c) ? 'lower' : isUpper(c) ? 'upper' : mode;
      if (nextMode === 'lower' && isUpper(next)) {
        words.push(part.slice(start, i + 1));
        start = i + 1;
        mode = 'boundary';
      } else if (mode === 'upper' && isUpper(c) && isLower(next)) {
        words.push(part.slice(start, i));
        start = i;
        mode = 'boundary';
      } else {
        mode = nextMode;
      }
    }
  }
  return words.filter((w) => w.length > 0);
}

const heckSnake = (name: string): string => heckWords(name).map((w) => w.toLowerCase()).join('_');
const heckUpperCamel = (name: string): string => heckWords(name).map((w) => upperFirst(w.toLowerCase())).join('');

/** serde's rename_all = "snake_case" applied to a Rust variant name: an underscore before each capital. */
const serdeSnake = (variant: string): string =>
  [...variant].map((c, i) => (i > 0 && isUpper(c) ? `_${c.toLowerCase()}` : c.toLowerCase())).join('');

/** The crate generator escapes these names before case conversion (`Error` would shadow Rust's). */
const escapeRustTypeName = (name: string): string => (name === 'type' ? 'type_' : name === 'Error' ? 'SError' : name);

/** The Rust type name (also the crate's xdr-json file name): SCAddress -> ScAddress, UInt128Parts stays. */
export const rustTypeName = (xdrName: string): string => heckUpperCamel(escapeRustTypeName(xdrName));

/** The JSON key of a struct field: the Rust field name (`type_` is renamed back to `type`). */
export const jsonFieldName = (xdrName: string): string => heckSnake(xdrName);

/**
 * The crate's prefix stripping: when the rest would start with a digit (no Rust identifier can),
 * the prefix's first character is kept: BINARY_FUSE_FILTER_8_BIT -> B8_BIT.
 */
function stripMemberPrefix(name: string, prefix: string): string {
  if (prefix === '' || !name.startsWith(prefix)) return name;
  const rest = name.slice(prefix.length);
  return /^[0-9]/.test(rest) ? prefix[0] + rest : rest;
}

/** The JSON name of an enum member (and of the union case it selects): SC_ADDRESS_TYPE_MUXED_CONTRACT -> muxed_contract. */
export const jsonMemberName = (xdrName: string, memberPrefix: string): string =>
  serdeSnake(rustTypeName(stripMemberPrefix(xdrName, memberPrefix)));

/** The JSON name of an int-switched union case: V0 -> v0. */
export const jsonIntCaseName = (value: number): string => serdeSnake(`V${value}`);
