// The standalone network's ledger values, read back over HTTP with the JS SDK: as stellar-core 28's
// validators do, every ledger after genesis closes with a STELLAR_VALUE_SIGNED value (the only kind
// a validator nominates; CAP-83's EMPTY_TX_SET kind is externalized only when a quorum drops a
// transaction set it lacks, which a network of one validator never does), signed by the network's
// validator over (network id, ENVELOPE_TYPE_SCPVALUE, txSetHash, closeTime), txSetHash naming the
// meta's transaction set.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Keypair, StrKey, rpc, xdr } from '@stellar/stellar-sdk';
import { startNodeProcess, type NodeProcess } from './support/nodeProcess.ts';
import { PASSPHRASE, funded, server } from './support/sdk.ts';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();

describe('ledger values (StellarValue) of the standalone network', () => {
  let node: NodeProcess;
  let s: rpc.Server;

  before(async () => {
    node = await startNodeProcess({ args: ['--close-mode', 'instant', '--log-level', 'warn'] });
    s = server(node.url);
    await Promise.all([funded(s), funded(s)]);
  });
  after(async () => { await node?.stop(); });

  it('every ledger after genesis is SIGNED by one validator key, over its transaction set\'s hash and close time', async () => {
    const latest = (await s.getLatestLedger()).sequence;
    const { ledgers } = await s.getLedgers({ startLedger: 1, pagination: { limit: 200 } });
    assert.equal(ledgers.length, latest);
    const networkId = sha256(Buffer.from(PASSPHRASE));
    const nodes = new Set<string>();
    let withTransactions = 0;
    for (const ledger of ledgers) {
      const header = xdr.LedgerHeaderHistoryEntry.schema.decode(ledger.headerXdr.toXdr()).header;
      const value = header.scpValue;
      const meta = xdr.LedgerCloseMeta.schema.decode(ledger.metadataXdr.toXdr());
      assert.ok(meta.v === 2);
      assert.deepEqual(Buffer.from(value.txSetHash), sha256(xdr.GeneralizedTransactionSet.schema.encode(meta.v2.txSet)), `ledger ${ledger.sequence}: txSetHash`);
      if (ledger.sequence === 1) {
        assert.equal(value.ext.v, 0, 'genesis has a basic value, as core\'s genesis ledger');
        continue;
      }
      assert.equal(value.ext.v, 1, `ledger ${ledger.sequence}: STELLAR_VALUE_SIGNED`);
      if (value.ext.v !== 1) continue;
      const { nodeId, signature } = value.ext.lcValueSignature;
      const nodeKey = StrKey.encodeEd25519PublicKey(Buffer.from(nodeId.ed25519));
      nodes.add(nodeKey);
      const payload = Buffer.concat([
        networkId, xdr.EnvelopeType.schema.encode(4 /* ENVELOPE_TYPE_SCPVALUE */), value.txSetHash,
        xdr.StellarValue.schema.encode({ ...value, ext: { v: 0 } }).subarray(32, 40), // the close time's XDR
      ]);
      assert.ok(Keypair.fromPublicKey(nodeKey).verify(payload, Buffer.from(signature)), `ledger ${ledger.sequence}: signature`);
      assert.equal(header.scpValue.closeTime.toString(), ledger.ledgerCloseTime);
      if (meta.v2.txProcessing.length > 0) withTransactions++;
    }
    assert.equal(nodes.size, 1, 'one validator');
    assert.ok(withTransactions >= 1, 'the fundings closed ledgers with transactions');
  });
});
