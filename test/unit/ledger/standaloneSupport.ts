// Shared by the tests that drive a StandaloneNetwork in-process: a network on a fresh database, its
// root key, accounts' sequence numbers as stored, and submission of SDK-built transactions.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Keypair, Networks, hash, xdr } from '@stellar/stellar-sdk';
import { SqliteStore } from '../../../src/store/sqlite/sqliteStore.ts';
import { StandaloneNetwork } from '../../../src/standalone/standaloneNetwork.ts';
import { LedgerWriter } from '../../../src/ingest/ledgerWriter.ts';
import { LedgerFeed } from '../../../src/ingest/ledgerFeed.ts';
import { defaultConfig, type Config } from '../../../src/config/config.ts';
import type { SubmitResult } from '../../../src/submit/transactionSubmitter.ts';
import type { Clock } from '../../../src/standalone/clock.ts';
import type { LedgerTxn } from '../../../src/ledger/ledgerTxn.ts';
import { ConfigSettingId, configSettingKey } from '../../../src/xdr/ledgerKeys.ts';

export const rootKeypair = (): Keypair => Keypair.fromRawEd25519Seed(hash(Buffer.from(Networks.STANDALONE)));

/** A fresh database (made by `makeStore`, a plain SqliteStore by default) with an initialized network. */
export function standaloneOnFreshStore<S extends SqliteStore>(opts: { makeStore?: (path: string) => S; closeSliceMs?: number; clock?: Clock; retentionWindow?: number; config?: Partial<Config> } = {}) {
  const path = join(mkdtempSync(join(tmpdir(), 'lumen-standalone-')), 'n.sqlite');
  const store = opts.makeStore ? opts.makeStore(path) : new SqliteStore(path) as S;
  const feed = new LedgerFeed();
  const retentionWindow = opts.retentionWindow ?? defaultConfig.historyRetentionWindow;
  const writer = new LedgerWriter(store, feed, retentionWindow);
  // protocol 28 unless a test asks otherwise: these tests read headers with the JS SDK 17.2's XDR, which has no protocol-30 value
  const net = new StandaloneNetwork({ writer, config: { ...defaultConfig, protocol: 28, ...opts.config, historyRetentionWindow: retentionWindow }, logger: pino({ level: 'silent' }), closeSliceMs: opts.closeSliceMs, clock: opts.clock });
  net.init();
  /** The account's sequence number as stored (a string, as the SDK's Account takes it). */
  const seq = (kp: Keypair): string => {
    const e = store.entry(xdr.LedgerKey.schema.encode({ type: 0, account: { accountId: { type: 0, ed25519: kp.rawPublicKey() } } }));
    const d = e && xdr.LedgerEntry.schema.decode(e.entry).data;
    if (!d || d.type !== 0) throw new Error(`no account ${kp.publicKey()}`);
    return d.account.seqNum.toString();
  };
  const submit = (tx: { toXDR(): string }): Promise<SubmitResult> => {
    const bytes = Buffer.from(tx.toXDR(), 'base64');
    return net.submit(bytes, xdr.TransactionEnvelope.schema.decode(bytes));
  };
  return { store, net, seq, submit, feed };
}

/** Changes the network's state archival settings within a closing ledger's upgrade (`ltx`). */
export function editArchivalSettings(ltx: LedgerTxn, edit: (settings: xdr.StateArchivalSettingsWire) => void): void {
  const archival = ltx.load(configSettingKey(ConfigSettingId.STATE_ARCHIVAL));
  if (!archival || archival.data.type !== 8 || archival.data.configSetting.configSettingID !== ConfigSettingId.STATE_ARCHIVAL) throw new Error('no archival settings');
  edit(archival.data.configSetting.stateArchivalSettings);
  ltx.update(archival);
}
