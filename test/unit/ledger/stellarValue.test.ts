// Ledger values (StellarValue) as stellar-core 28 makes and reads them: the standalone network's
// validator signs each value as core's makeStellarValue does, and a ledger that closed with a
// CAP-83 STELLAR_VALUE_EMPTY_TX_SET value (a followed network's quorum dropped its transaction set)
// goes through ingestion and getLedgers like any empty ledger.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { xdr } from '../../../src/xdr/xdr.ts';
import { signedStellarValue, stellarValueSignaturePayload, validatorSigner } from '../../../src/ledger/validator.ts';
import { rootSigner } from '../../../src/ledger/rootAccount.ts';
import { headerHash } from '../../../src/ledger/header.ts';
import { ledgerToBatch } from '../../../src/ingest/ledgerToBatch.ts';
import { nativeLedgerToBatch } from '../../../src/ingest/nativeLedgerToBatch.ts';
import { verifiedLedgerBatch } from '../../../src/ingest/verifiedLedger.ts';
import { nativeAvailable } from '../../../src/host/native.ts';
import { getLedgers } from '../../../src/rpc/methods/getLedgers.ts';
import { getLatestLedger } from '../../../src/rpc/methods/getLatestLedger.ts';
import { networkIdOf, sha256 } from '../../../src/xdr/codec.ts';
import { LAST_LEDGER, PUBNET_PASSPHRASE, call, contextFor, ledgerMeta, openStore, type TestStore } from '../methods/support/pubnet.ts';

const STANDALONE = networkIdOf('Standalone Network ; February 2017');

describe('the validator\'s signed values', () => {
  it('signs (network id, ENVELOPE_TYPE_SCPVALUE, txSetHash, closeTime) with its own key, as core does', () => {
    const txSetHash = sha256(Buffer.from('a transaction set'));
    const value = signedStellarValue(STANDALONE, txSetHash, 1_790_000_000n);
    assert.equal(value.ext.v, 1);
    if (value.ext.v !== 1) return;
    const node = Buffer.from(value.ext.lcValueSignature.nodeId.ed25519);
    assert.deepEqual(node, Buffer.from(validatorSigner(STANDALONE).publicKey));
    assert.notDeepEqual(node, Buffer.from(rootSigner(STANDALONE).publicKey), 'not the root account\'s key');
    // the payload as the SDK's own encoders write it (a TimePoint is the 8 bytes after a StellarValue's hash)
    const closeTime = xdr.StellarValue.schema.encode({ ...value, ext: { v: 0 } }).subarray(32, 40);
    const payload = Buffer.concat([STANDALONE, xdr.EnvelopeType.schema.encode(4 /* ENVELOPE_TYPE_SCPVALUE */), txSetHash, closeTime]);
    assert.deepEqual(Buffer.from(stellarValueSignaturePayload(STANDALONE, txSetHash, 1_790_000_000n)), payload);
    const key = Keypair.fromPublicKey(StrKey.encodeEd25519PublicKey(node));
    assert.ok(key.verify(payload, Buffer.from(value.ext.lcValueSignature.signature)));
    assert.deepEqual(value.txSetHash, txSetHash);
    assert.deepEqual(value.upgrades, []);
    // the whole value round-trips through the SDK's StellarValue
    const bytes = xdr.StellarValue.schema.encode(value);
    assert.deepEqual(xdr.StellarValue.schema.encode(xdr.StellarValue.schema.decode(bytes)), bytes);
  });
});

describe('a CAP-83 empty-tx-set ledger from a followed network', () => {
  let db: TestStore;
  const networkId = networkIdOf(PUBNET_PASSPHRASE);
  let lcm: xdr.LedgerCloseMetaWire;
  let bytes: Uint8Array;

  before(() => {
    db = openStore();
    // the ledger after the last fixture ledger, as validators externalize it when they drop the
    // proposed transaction set: txSetHash zero, the proposed value kept in the extension, and the
    // meta's transaction set the empty one built on the previous ledger
    const prev = ledgerMeta(LAST_LEDGER).ledgerHeader;
    const proposed = prev.header.scpValue;
    assert.equal(proposed.ext.v, 1, 'pubnet values are signed');
    if (proposed.ext.v !== 1) return;
    const header: xdr.LedgerHeaderWire = {
      ...prev.header,
      ledgerSeq: prev.header.ledgerSeq + 1,
      previousLedgerHash: prev.hash,
      scpValue: {
        txSetHash: new Uint8Array(32),
        closeTime: proposed.closeTime + 5n,
        upgrades: [],
        ext: {
          v: 2,
          proposedValue: {
            txSetHash: sha256(Buffer.from('the dropped transaction set')), previousLedgerHash: prev.hash,
            previousLedgerVersion: prev.header.ledgerVersion, lcValueSignature: proposed.ext.lcValueSignature,
          },
        },
      },
      txSetResultHash: sha256(xdr.TransactionResultSet.schema.encode({ results: [] })),
    };
    lcm = {
      v: 2,
      v2: {
        ext: { v: 0 }, ledgerHeader: { hash: headerHash(header), header, ext: { v: 0 } },
        txSet: { v: 1, v1TxSet: { previousLedgerHash: prev.hash, phases: [{ v: 0, v0Components: [] }, { v: 1, parallelTxsComponent: { baseFee: null, executionStages: [] } }] } },
        txProcessing: [], upgradesProcessing: [], scpInfo: [], totalByteSizeOfLiveSorobanState: 0n, evictedKeys: [],
      },
    };
    bytes = xdr.LedgerCloseMeta.schema.encode(lcm);
  });
  after(() => db.close());

  it('converts to rows (in TypeScript and natively alike), passes the follower\'s checks and is stored', () => {
    const batch = ledgerToBatch({ bytes }, networkId);
    assert.equal(batch.ledger.sequence, LAST_LEDGER + 1);
    assert.equal(batch.transactions.length, 0);
    if (nativeAvailable()) {
      const native = nativeLedgerToBatch(bytes, networkId);
      assert.deepEqual(Buffer.from(native.ledger.header), Buffer.from(batch.ledger.header));
      assert.equal(native.transactions.length, 0);
    }
    const stored = db.store.ledgers(LAST_LEDGER, 1)[0];
    verifiedLedgerBatch({ sequence: LAST_LEDGER + 1, bytes }, batch, stored.hash);
    db.store.ingest(batch, 120960);
    assert.equal(db.store.latestLedger()?.sequence, LAST_LEDGER + 1);
  });

  it('getLedgers and getLatestLedger serve it, its value intact in XDR and in JSON', async () => {
    const ctx = contextFor(db.store);
    const page = await call(getLedgers, { startLedger: LAST_LEDGER + 1 }, ctx);
    assert.equal(page.ledgers.length, 1);
    const [ledger] = page.ledgers;
    assert.equal(ledger.metadataXdr, Buffer.from(bytes).toString('base64'));
    const header = xdr.LedgerHeaderHistoryEntry.schema.decode(Buffer.from(ledger.headerXdr, 'base64'));
    assert.equal(header.header.scpValue.ext.v, 2);
    assert.deepEqual(header.header.scpValue.txSetHash, new Uint8Array(32));

    const asJson = await call(getLedgers, { startLedger: LAST_LEDGER + 1, xdrFormat: 'json' }, ctx);
    const text = JSON.stringify(asJson.ledgers[0].headerJson);
    assert.match(text, /"ext":\{"empty_tx_set":\{"tx_set_hash":"[0-9a-f]{64}","previous_ledger_hash":"[0-9a-f]{64}","previous_ledger_version":26,/);

    const latest = await call(getLatestLedger, {}, ctx);
    assert.equal(latest.sequence, LAST_LEDGER + 1);
    assert.equal(latest.headerXdr, Buffer.from(xdr.LedgerHeader.schema.encode(lcm.v === 2 ? lcm.v2.ledgerHeader.header : header.header)).toString('base64'));
  });
});
