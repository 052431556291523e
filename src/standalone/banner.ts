// What a developer needs to start using a fresh standalone network, printed once at start as Anvil
// does: where to send requests, the passphrase, the faucet, the root account and the test accounts
// with their secrets (all derivable by anyone: never a network for real funds). Text logs: on
// stdout with them. JSON logs: on stderr, so stdout stays one JSON record per line.
import { StrKey } from '@stellar/stellar-sdk';
import type { Config } from '../config/config.ts';
import type { Store } from '../store/types.ts';
import { accountKey, decodeLedgerEntry, encodeLedgerKey } from '../xdr/codec.ts';
import { rootSigner } from '../ledger/rootAccount.ts';
import { MAX_TEST_ACCOUNTS, testAccounts, TEST_MNEMONIC } from './testAccounts.ts';

export interface BannerAccount { publicKey: string; secret: string; balance: bigint }

export interface BannerInfo {
  url: string;
  passphrase: string;
  friendbotUrl: string | undefined;
  root: BannerAccount;
  /** The test accounts that exist on this network (a database created with fewer lists fewer). */
  accounts: BannerAccount[];
  limits: string;
  /** Whether the lumen_* methods are served, and beyond loopback. */
  devMethods: { served: boolean; exposed: boolean };
}

function balanceOf(store: Store, publicKey: Uint8Array): bigint | undefined {
  const stored = store.entry(encodeLedgerKey(accountKey({ type: 0, ed25519: publicKey })));
  const data = stored && decodeLedgerEntry(stored.entry).data;
  return data?.type === 0 ? data.account.balance : undefined;
}

export function bannerInfo(
  store: Store, config: Config, networkId: Uint8Array, url: string, friendbotUrl: string | undefined,
  devMethods: BannerInfo['devMethods'] = { served: false, exposed: false },
): BannerInfo {
  const root = rootSigner(networkId);
  const accounts: BannerAccount[] = [];
  for (const a of testAccounts(Math.min(config.accounts, MAX_TEST_ACCOUNTS))) {
    const balance = balanceOf(store, a.rawPublicKey);
    if (balance !== undefined) accounts.push({ publicKey: a.publicKey, secret: a.secret, balance });
  }
  return {
    url, passphrase: config.networkPassphrase, friendbotUrl, limits: store.metadata('genesisLimits') ?? config.limits,
    root: {
      publicKey: StrKey.encodeEd25519PublicKey(Buffer.from(root.publicKey)),
      secret: StrKey.encodeEd25519SecretSeed(Buffer.from(networkId)),
      balance: balanceOf(store, root.publicKey) ?? 0n,
    },
    accounts,
    devMethods: { served: devMethods.served, exposed: devMethods.exposed },
  };
}

/** Digits in groups of three ("100,000,000"): toLocaleString would load ICU's locale data, ~20 ms of a start. */
const grouped = (n: bigint): string => n.toString().replace(/\B(?=(\d{3})+$)/g, ',');

const xlm = (stroops: bigint): string => {
  const whole = grouped(stroops / 10_000_000n);
  const frac = (stroops % 10_000_000n).toString().padStart(7, '0').replace(/0+$/, '');
  return `${whole}${frac ? `.${frac}` : ''} XLM`;
};

function devMethodsLine(d: BannerInfo['devMethods']): string {
  if (!d.served) return 'off (--dev-methods=true serves them)';
  if (!d.exposed) return 'on, for this machine only (loopback address; web pages only from allowed origins)';
  return 'ON FOR EVERYONE WHO REACHES THIS ADDRESS: they control this network (see docs/security.md)';
}

export function bannerText(info: BannerInfo): string {
  const lines = [
    '',
    'lumen-rpc standalone network',
    '============================',
    '',
    `RPC URL             ${info.url}`,
    `Network passphrase  ${info.passphrase}`,
    `Friendbot           ${info.friendbotUrl ?? '(off: --friendbot=false)'}`,
    `Soroban limits      ${info.limits}`,
    `Developer methods   ${devMethodsLine(info.devMethods)}`,
    '',
    'Root account (holds the lumens; its key is derived from the passphrase)',
    `  ${info.root.publicKey}  ${xlm(info.root.balance)}`,
    `  ${info.root.secret}`,
    '',
  ];
  if (info.accounts.length) {
    lines.push(`Test accounts (SEP-5, m/44'/148'/i' of the mnemonic below)`);
    info.accounts.forEach((a, i) => lines.push(`  (${i}) ${a.publicKey}  ${xlm(a.balance)}`, `      ${a.secret}`));
    lines.push('', `Mnemonic            ${TEST_MNEMONIC}`, '');
  } else {
    lines.push('Test accounts       none (--accounts N funds N at genesis of a new network)', '');
  }
  lines.push('These keys are public: never send real funds to them.', '');
  return lines.join('\n') + '\n';
}

/** Prints the banner where the log format leaves it readable (see the header). */
export function printBanner(info: BannerInfo, logFormat: Config['logFormat']): void {
  (logFormat === 'json' ? process.stderr : process.stdout).write(bannerText(info));
}
