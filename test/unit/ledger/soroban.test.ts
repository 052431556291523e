// Soroban fee and resource rules of the ledger engine: the refundable-fee tracker, the fee charged up
// front, and the envelope checks against the network limits, with the real host computing fees from
// the genesis configuration.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Address, Keypair, Memo, Networks, Operation, SorobanDataBuilder, TransactionBuilder, nativeToScVal, xdr } from '@stellar/stellar-sdk';
import { RefundableFeeTracker } from '../../../src/ledger/soroban/context.ts';
import { checkSorobanTransaction, preApplyResourceFee, type SorobanEnv } from '../../../src/ledger/soroban/resources.ts';
import { loadSorobanNetworkConfig } from '../../../src/ledger/soroban/networkConfig.ts';
import { genesisConfigSettings } from '../../../src/ledger/genesis.ts';
import { chargedFee, frameOf } from '../../../src/ledger/transactionFrame.ts';
import { decodeEnvelope } from '../../../src/xdr/transactions.ts';
import { keyId, ledgerKeyOf } from '../../../src/xdr/ledgerKeys.ts';
import { networkIdOf } from '../../../src/xdr/codec.ts';
import { loadNative } from '../../../src/host/native.ts';

const NID = networkIdOf(Networks.STANDALONE);
const CONTRACT = 'CA3D5KRYM6CB7OWQ6TWYRR3Z4T7GNZLKERYNZGGA5SOAOPIFY6YQGAXE';

function env(): SorobanEnv {
  const entries = new Map(genesisConfigSettings().map((e) => [keyId(ledgerKeyOf(e.data)), e]));
  const config = loadSorobanNetworkConfig((key) => entries.get(keyId(key)))!;
  return { config, host: new (loadNative().SorobanApplier)(config.entries) };
}

/** `fee` is the envelope's whole fee (resource fee included). */
function invokeFrame(opts: { resourceFee?: bigint; fee?: number; instructions?: number; memo?: boolean; readBytes?: number; extraRw?: number } = {}) {
  const source = Keypair.random();
  const data = new SorobanDataBuilder()
    .setResources(opts.instructions ?? 1_000_000, opts.readBytes ?? 1000, 1000)
    .setResourceFee(opts.resourceFee ?? 1_000_000n)
    .setReadWrite(Array.from({ length: opts.extraRw ?? 1 }, (_, i) => xdr.LedgerKey.contractData(new xdr.LedgerKeyContractData({
      contract: Address.fromString(CONTRACT).toScAddress(), key: nativeToScVal(i, { type: 'u32' }), durability: xdr.ContractDataDurability.persistent,
    }))))
    .build();
  let b = new TransactionBuilder(new Account(source.publicKey(), '1'), { fee: '100', networkPassphrase: Networks.STANDALONE })
    .addOperation(Operation.invokeContractFunction({ contract: CONTRACT, function: 'f', args: [] }))
    .setSorobanData(data).setTimeout(0);
  if (opts.memo) b = b.addMemo(Memo.text('hi'));
  // the builder adds the resource fee to the inclusion fee; set the total as given instead
  const envelope = decodeEnvelope(Buffer.from(b.build().toXDR(), 'base64'));
  if (envelope.type !== 2) throw new Error('expected a V1 envelope');
  envelope.v1.tx.fee = opts.fee ?? Number((opts.resourceFee ?? 1_000_000n) + 100n);
  return frameOf(envelope, NID);
}

describe('RefundableFeeTracker', () => {
  const eventsFee = (bytes: number) => BigInt(bytes) * 10n;

  it('refunds what rent and events did not consume', () => {
    const t = new RefundableFeeTracker(10_000n);
    assert.equal(t.consume(100, 2_000n, eventsFee), true);
    assert.equal(t.consumedRent, 2_000n);
    assert.equal(t.consumedRefundable, 3_000n);
    assert.equal(t.refund, 7_000n);
  });

  it('prices events cumulatively across operations and fails once the budget is exceeded', () => {
    const t = new RefundableFeeTracker(5_000n);
    assert.equal(t.consume(200, 1_000n, eventsFee), true);   // rent 1000 + events of 200 bytes 2000
    assert.equal(t.consumedRefundable, 3_000n);
    assert.equal(t.consume(250, 0n, eventsFee), false);      // rent 1000 + events of 450 bytes 4500 > 5000
  });

  it('a failed transaction consumes nothing: everything refundable comes back', () => {
    const t = new RefundableFeeTracker(5_000n);
    t.consume(10, 4_000n, eventsFee);
    t.reset();
    assert.equal(t.refund, 5_000n);
    assert.equal(new RefundableFeeTracker(-5n).refund, 0n, 'a declared fee below the non-refundable part refunds nothing');
  });
});

describe('Soroban fees and limits', () => {
  const e = env();

  it('charges the whole resource fee up front plus an inclusion fee capped at the base fee', () => {
    const f = invokeFrame({ resourceFee: 500_000n, fee: 600_000 });
    assert.equal(f.isSoroban, true);
    assert.equal(chargedFee(f, 100), 500_100n);
  });

  it('accepts a transaction whose resource fee covers what the host computes, and refuses one short by a stroop', () => {
    const probe = invokeFrame();
    const [nonRefundable, refundable] = preApplyResourceFee(probe, probe.sorobanData!, e.host);
    assert.ok(nonRefundable > 0n && refundable >= 0n);
    const exact = invokeFrame({ resourceFee: nonRefundable + refundable, fee: Number(nonRefundable + refundable) + 100 });
    assert.equal(checkSorobanTransaction(exact, e, 100, true, false), null);
    const short = invokeFrame({ resourceFee: nonRefundable + refundable - 1n, fee: Number(nonRefundable + refundable) + 100 });
    assert.deepEqual(checkSorobanTransaction(short, e, 100, true, false), { code: 'soroban_invalid' });
  });

  it('refuses a memo, limits above the network maximum, and an inclusion fee below the base fee', () => {
    assert.deepEqual(checkSorobanTransaction(invokeFrame({ memo: true }), e, 100, true, false), { code: 'soroban_invalid' });
    assert.deepEqual(checkSorobanTransaction(invokeFrame({ instructions: Number(e.config.txMaxInstructions) + 1 }), e, 100, true, false), { code: 'soroban_invalid' });
    assert.deepEqual(checkSorobanTransaction(invokeFrame({ readBytes: e.config.txMaxDiskReadBytes + 1 }), e, 100, true, false), { code: 'soroban_invalid' });
    assert.deepEqual(checkSorobanTransaction(invokeFrame({ extraRw: e.config.txMaxWriteLedgerEntries + 1 }), e, 100, true, false), { code: 'soroban_invalid' });
    assert.deepEqual(checkSorobanTransaction(invokeFrame({ resourceFee: 1_000_000n, fee: 1_000_050 }), e, 100, true, false), { code: 'insufficient_fee' });
    assert.deepEqual(checkSorobanTransaction(invokeFrame({ resourceFee: 2_000_000n, fee: 1_000_100 }), e, 100, true, false), { code: 'soroban_invalid' }, 'resource fee above the fee');
  });
});
