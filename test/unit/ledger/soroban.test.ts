// Soroban fee and resource rules of the ledger engine: the refundable-fee tracker, the fee charged up
// front, and the envelope checks against the network limits, with the real host computing fees from
// the genesis configuration.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Address, Keypair, Memo, Networks, Operation, SorobanDataBuilder, TransactionBuilder, nativeToScVal, xdr } from '@stellar/stellar-sdk';
import { RefundableFeeTracker } from '../../../src/ledger/soroban/context.ts';
import { checkSorobanTransaction, preApplyResourceFee, sorobanMemoProblem, type SorobanEnv } from '../../../src/ledger/soroban/resources.ts';
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
  return { config, host: new (loadNative().SorobanApplier)(config.entries, 28) };
}

/** `fee` is the envelope's whole fee (resource fee included). */
function invokeFrame(opts: { resourceFee?: bigint; fee?: number; instructions?: number; memo?: boolean; readBytes?: number; extraRw?: number; addressAuth?: boolean } = {}) {
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
  if (opts.addressAuth) {
    const body = envelope.v1.tx.operations[0].body;
    if (body.type !== 24) throw new Error('expected InvokeHostFunction');
    // an (unsigned) address-credential entry: what makes the memo rule apply
    const entry = new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(new xdr.SorobanAddressCredentials({
        address: Address.fromString(Keypair.random().publicKey()).toScAddress(), nonce: xdr.Int64.fromString('1'), signatureExpirationLedger: 10, signature: xdr.ScVal.scvVoid(),
      })),
      rootInvocation: new xdr.SorobanAuthorizedInvocation({
        function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(new xdr.InvokeContractArgs({
          contractAddress: Address.fromString(CONTRACT).toScAddress(), functionName: 'f', args: [],
        })),
        subInvocations: [],
      }),
    });
    body.invokeHostFunctionOp.auth = [xdr.SorobanAuthorizationEntry.schema.decode(entry.toXDR())];
  }
  return frameOf(envelope, NID);
}

describe('RefundableFeeTracker', () => {
  const eventsFee = (bytes: number) => BigInt(bytes) * 10n;

  it('refunds what rent and events did not consume', () => {
    const t = new RefundableFeeTracker(10_000n);
    assert.equal(t.consume(100, 2_000n, eventsFee), undefined);
    assert.equal(t.consumedRent, 2_000n);
    assert.equal(t.consumedRefundable, 3_000n);
    assert.equal(t.refund, 7_000n);
  });

  it('prices events cumulatively across operations and fails once the budget is exceeded, with core\'s error', () => {
    const t = new RefundableFeeTracker(5_000n);
    assert.equal(t.consume(200, 1_000n, eventsFee), undefined);   // rent 1000 + events of 200 bytes 2000
    assert.equal(t.consumedRefundable, 3_000n);
    // rent 1000 + events of 450 bytes 4500 > 5000: the events fee against what rent left
    assert.deepEqual(t.consume(250, 0n, eventsFee), {
      type: 7, code: 5, args: [{ type: 5, u64: 4_500n }, { type: 5, u64: 4_000n }],
      message: 'refundable resource fee was not sufficient to cover the events fee after paying for ledger storage rent: {} > {}',
    });
    const rentHeavy = new RefundableFeeTracker(5_000n);
    assert.deepEqual(rentHeavy.consume(0, 5_001n, eventsFee), {
      type: 7, code: 5, args: [{ type: 5, u64: 5_001n }, { type: 5, u64: 5_000n }],
      message: 'refundable resource fee was not sufficient to cover the ledger storage rent: {} > {}',
    });
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

  const failure = (f: ReturnType<typeof invokeFrame>, chargeFee = true) => {
    const r = checkSorobanTransaction(f, e, chargeFee);
    return r && { code: r.code, message: r.error?.message, args: r.error?.args?.map((a) => (a.type === 5 ? a.u64 : a.type)), type: r.error?.type, errCode: r.error?.code };
  };

  it('accepts a transaction whose resource fee covers what the host computes, and refuses one short by a stroop with core\'s diagnostic', () => {
    const probe = invokeFrame();
    const [nonRefundable, refundable] = preApplyResourceFee(probe, probe.sorobanData!, e.host);
    assert.ok(nonRefundable > 0n && refundable >= 0n);
    const exact = invokeFrame({ resourceFee: nonRefundable + refundable, fee: Number(nonRefundable + refundable) + 100 });
    assert.equal(checkSorobanTransaction(exact, e, true), null);
    const short = invokeFrame({ resourceFee: nonRefundable + refundable - 1n, fee: Number(nonRefundable + refundable) + 100 });
    assert.deepEqual(failure(short), {
      code: 'soroban_invalid', message: 'transaction `sorobanData.resourceFee` is lower than the actual Soroban resource fee',
      args: [nonRefundable + refundable - 1n, nonRefundable + refundable], type: 3, errCode: 5,
    });
  });

  it('refuses limits above the network maximum with the limit and the declared value', () => {
    const max = e.config.txMaxInstructions;
    assert.deepEqual(failure(invokeFrame({ instructions: Number(max) + 1 })), {
      code: 'soroban_invalid', message: 'transaction instructions resources exceed network config limit', args: [max + 1n, max], type: 7, errCode: 5,
    });
    assert.deepEqual(failure(invokeFrame({ readBytes: e.config.txMaxDiskReadBytes + 1 }))?.message, 'transaction byte-read resources exceed network config limit');
    // more read-write keys than the network allows: the footprint total is checked first when it is the lower limit
    const rw = failure(invokeFrame({ extraRw: e.config.txMaxWriteLedgerEntries + 1 }));
    assert.equal(rw?.code, 'soroban_invalid');
    assert.match(rw?.message ?? '', /^(transaction entry-write resources|the number of entries in transaction footprint) exceed/);
  });

  it('checks the resource fee against the full fee only when the transaction pays its own fee', () => {
    const f = invokeFrame({ resourceFee: 2_000_000n, fee: 1_000_100 });
    assert.deepEqual(failure(f), {
      code: 'soroban_invalid', message: 'transaction `sorobanData.resourceFee` is higher than the full transaction fee',
      args: [2_000_000n, 1_000_100n], type: 3, errCode: 5,
    });
    assert.equal(checkSorobanTransaction(f, e, false), null, 'a fee-bumped inner transaction skips that check');
  });

  it('leaves memos to the submission rule: refused only with non-source-account auth', () => {
    assert.equal(checkSorobanTransaction(invokeFrame({ memo: true }), e, true), null);
    assert.equal(sorobanMemoProblem(invokeFrame({ memo: true })), undefined, 'source-account auth only (none here): a memo is fine');
    const withAddressAuth = invokeFrame({ memo: true, addressAuth: true });
    assert.deepEqual(sorobanMemoProblem(withAddressAuth), {
      type: 2, code: 2, message: 'non-source auth Soroban tx uses memo or muxed source account',
    });
    assert.equal(sorobanMemoProblem(invokeFrame({ addressAuth: true })), undefined, 'address auth without a memo is fine');
  });
});
