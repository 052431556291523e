// The standalone network's clock: close times (and the time bounds a submission is validated against)
// follow it, an offset moves it only forward, and close times never go back even when the clock does.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Account, Keypair, Networks, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { OffsetClock, systemClock, type Clock } from '../../../src/standalone/clock.ts';
import { TxCode } from '../../../src/ledger/resultCodes.ts';
import { rootKeypair, standaloneOnFreshStore } from '../ledger/standaloneSupport.ts';

/** A base clock the test sets by hand (the system clock, stepped by NTP, say). */
class HandClock implements Clock {
  now: bigint;
  constructor(now: bigint) { this.now = now; }
  nowSeconds(): bigint { return this.now; }
}

it('the system clock is the time in whole seconds', () => {
  const before = BigInt(Math.floor(Date.now() / 1000));
  const now = systemClock.nowSeconds();
  assert.ok(now >= before && now <= before + 1n);
});

it('an offset clock runs ahead of its base and only moves forward', () => {
  const base = new HandClock(1_000n);
  const clock = new OffsetClock(base);
  assert.equal(clock.nowSeconds(), 1_000n);
  clock.advance(60);
  clock.advance(40n);
  clock.advance(0);
  assert.equal(clock.offsetSeconds, 100n);
  assert.equal(clock.nowSeconds(), 1_100n);
  base.now = 1_005n;
  assert.equal(clock.nowSeconds(), 1_105n, 'the base keeps running under the offset');
  assert.throws(() => clock.advance(-1), RangeError);
  assert.throws(() => clock.advance(-1n), RangeError);
  assert.throws(() => clock.advance(1.5), RangeError);
  assert.throws(() => clock.advance(Number.NaN), RangeError);
  assert.equal(clock.nowSeconds(), 1_105n, 'a refused move changes nothing');
  // with no base, it runs on the system clock
  const ahead = new OffsetClock();
  ahead.advance(86_400);
  const sys = systemClock.nowSeconds();
  assert.ok(ahead.nowSeconds() >= sys + 86_400n && ahead.nowSeconds() <= sys + 86_401n);
});

it('close times follow the network clock and never go back', async () => {
  const start = 1_900_000_000n;
  const base = new HandClock(start);
  const clock = new OffsetClock(base);
  const { store, net, seq, submit } = standaloneOnFreshStore({ clock });
  const closeTime = () => BigInt(store.latestLedger()!.closeTime);
  const headerCloseTime = () => xdr.LedgerHeaderHistoryEntry.schema.decode(store.latestLedger()!.header).header.scpValue.closeTime;
  try {
    assert.equal(closeTime(), start, 'the genesis ledger closes at the clock');

    base.now = start + 5n;
    await net.closeLedgerNow();
    assert.equal(closeTime(), start + 5n);
    assert.equal(headerCloseTime(), start + 5n, 'the header carries it');

    clock.advance(3_600);
    await net.closeLedgerNow();
    assert.equal(closeTime(), start + 5n + 3_600n, 'advancing the clock moves the next close time');

    // the base steps back by a day: the next ledger shares the previous close time instead
    base.now = start - 86_400n;
    await net.closeLedgerNow();
    assert.equal(closeTime(), start + 5n + 3_600n, 'a close time never goes back');

    // a transaction valid only from an hour ahead: refused now, accepted once the clock has moved there
    const root = rootKeypair();
    const notBefore = closeTime() + 3_600n;
    const timeLocked = () => {
      const tx = new TransactionBuilder(new Account(root.publicKey(), seq(root)), {
        fee: '100', networkPassphrase: Networks.STANDALONE, timebounds: { minTime: notBefore.toString(), maxTime: 0 },
      }).addOperation(Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '10' })).build();
      tx.sign(root);
      return tx;
    };
    const early = await submit(timeLocked());
    assert.equal(early.status, 'ERROR');
    assert.equal(xdr.TransactionResult.schema.decode(early.errorResult!).result.code, TxCode.TOO_EARLY);

    base.now = start;
    clock.advance(notBefore - start - clock.offsetSeconds);
    assert.equal(clock.nowSeconds(), notBefore);
    const onTime = timeLocked();
    assert.equal((await submit(onTime)).status, 'PENDING');
    await net.closeLedgerNow();
    assert.equal(closeTime(), notBefore);
    assert.ok(store.transactionByHash(onTime.hash())?.successful, 'the time-locked transaction was applied');
  } finally {
    await net.stop();
  }
});
