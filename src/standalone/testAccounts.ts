// The developer network's pre-funded test accounts, as Anvil's: keys any tool can derive again from
// a fixed, public mnemonic. Derivation is SEP-5 (the BIP-39 seed of the mnemonic, then SLIP-10
// ed25519 along m/44'/148'/i'), so a wallet that imports the mnemonic finds the same accounts.
// node:crypto has everything the derivation needs (PBKDF2-HMAC-SHA512 and HMAC-SHA512).
import { createHmac, pbkdf2Sync } from 'node:crypto';
import { StrKey } from '@stellar/stellar-sdk';
import { ed25519Signer } from '../ledger/rootAccount.ts';

/** The mnemonic the test accounts derive from: Anvil's, public on purpose (never hold real funds with it). */
export const TEST_MNEMONIC = 'test test test test test test test test test test test junk';

/** Each test account's balance at genesis: 10,000 XLM, what the faucet gives. */
export const TEST_ACCOUNT_BALANCE = 10_000n * 10_000_000n;

/** Most test accounts a network may start with (deriving one takes about 1.6 ms). */
export const MAX_TEST_ACCOUNTS = 1000;

const HARDENED = 0x8000_0000;

/** BIP-39: the 64-byte seed of a mnemonic (and optional passphrase); no word-list check. */
export function bip39Seed(mnemonic: string, passphrase = ''): Buffer {
  return pbkdf2Sync(Buffer.from(mnemonic.normalize('NFKD'), 'utf8'), Buffer.from(`mnemonic${passphrase}`.normalize('NFKD'), 'utf8'), 2048, 64, 'sha512');
}

/** A SLIP-10 node: the 64 bytes of HMAC output, private key then chain code. */
type Slip10Node = Buffer;

/** SLIP-10 for ed25519: the node at a path of hardened indexes (the only kind ed25519 has) below `from`. */
function slip10Node(from: Slip10Node, path: readonly number[]): Slip10Node {
  let I = from;
  for (const index of path) {
    const data = Buffer.alloc(37);
    I.copy(data, 1, 0, 32);                            // 0x00 || key
    data.writeUInt32BE((index | HARDENED) >>> 0, 33);  // || ser32(index')
    I = createHmac('sha512', I.subarray(32)).update(data).digest();
  }
  return I;
}

const masterNode = (seed: Uint8Array): Slip10Node => createHmac('sha512', 'ed25519 seed').update(seed).digest();

/** SLIP-10 for ed25519: the 32-byte private key at a path of hardened indexes. */
export function slip10Ed25519(seed: Uint8Array, path: readonly number[]): Buffer {
  return slip10Node(masterNode(seed), path).subarray(0, 32);
}

export interface TestAccount {
  index: number;
  /** G... address. */
  publicKey: string;
  /** S... secret seed. */
  secret: string;
  /** Raw ed25519 public key. */
  rawPublicKey: Uint8Array;
}

/** SEP-5 account `index` of a mnemonic: m/44'/148'/index'. */
export function sep5Account(mnemonic: string, index: number, passphrase = ''): TestAccount {
  return accountOf(slip10Ed25519(bip39Seed(mnemonic, passphrase), [44, 148, index]), index);
}

function accountOf(seed: Buffer, index: number): TestAccount {
  const rawPublicKey = ed25519Signer(seed).publicKey;
  return { index, rawPublicKey, publicKey: StrKey.encodeEd25519PublicKey(Buffer.from(rawPublicKey)), secret: StrKey.encodeEd25519SecretSeed(seed) };
}

/**
 * Accounts derived so far, per mnemonic (a start asks twice: genesis, then the banner), and the
 * node at m/44'/148' they all derive from (one HMAC each then, not four).
 */
const derived = new Map<string, { stellar: Slip10Node; accounts: TestAccount[] }>();

/** The first `count` test accounts of TEST_MNEMONIC (each derived once per process). */
export function testAccounts(count: number, mnemonic = TEST_MNEMONIC): TestAccount[] {
  let known = derived.get(mnemonic);
  if (known === undefined) derived.set(mnemonic, known = { stellar: slip10Node(masterNode(bip39Seed(mnemonic)), [44, 148]), accounts: [] });
  for (let i = known.accounts.length; i < count; i++) known.accounts.push(accountOf(slip10Node(known.stellar, [i]).subarray(0, 32), i));
  return known.accounts.slice(0, count);
}
