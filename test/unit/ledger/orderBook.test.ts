// The order book and LedgerTxn's best-offer reads: book order as core's isBetterOffer, committed
// offers shadowed by uncommitted writes at any level, offers moving between pairs, idPool rollback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LedgerTxn } from '../../../src/ledger/ledgerTxn.ts';
import { isBetterPlace, offerOf } from '../../../src/ledger/orderBook.ts';
import type { Asset, LedgerEntry } from '../../../src/xdr/codec.ts';
import { MemoryState, accountId, credit } from '../ops/support.ts';

const seller = accountId('seller');
const issuer = accountId('issuer');
const USD = credit('USD', issuer);
const EUR = credit('EUR', issuer);
const XLM: Asset = { type: 0 };

function offer(offerId: bigint, n: number, d: number, selling: Asset = USD, buying: Asset = XLM, amount = 100n): LedgerEntry {
  return {
    lastModifiedLedgerSeq: 1,
    data: { type: 2, offer: { sellerId: seller, offerId, selling, buying, amount, price: { n, d }, flags: 0, ext: { v: 0 } } },
    ext: { v: 0 },
  };
}

const ids = (ltx: LedgerTxn, selling: Asset = USD, buying: Asset = XLM): bigint[] => {
  const out: bigint[] = [];
  let best = ltx.bestOffer(selling, buying);
  while (best) {
    const o = offerOf(best);
    out.push(o.offerId);
    best = ltx.bestOffer(selling, buying, { price: o.price, offerId: o.offerId });
  }
  return out;
};

test('places compare by the price as a double, then by offer id', () => {
  assert.equal(isBetterPlace({ price: { n: 1, d: 2 }, offerId: 9n }, { price: { n: 2, d: 3 }, offerId: 1n }), true);
  // 1/3 and 2/6 are the same double: the lower id wins
  assert.equal(isBetterPlace({ price: { n: 2, d: 6 }, offerId: 1n }, { price: { n: 1, d: 3 }, offerId: 2n }), true);
  assert.equal(isBetterPlace({ price: { n: 1, d: 3 }, offerId: 2n }, { price: { n: 2, d: 6 }, offerId: 1n }), false);
});

test('the committed book is read best first, per pair', () => {
  const state = new MemoryState([offer(3n, 3, 1), offer(1n, 2, 1), offer(2n, 2, 1), offer(4n, 1, 1, EUR, XLM)]);
  const root = new LedgerTxn(state, 10);
  assert.deepEqual(ids(root), [1n, 2n, 3n]);
  assert.deepEqual(ids(root, EUR, XLM), [4n]);
  assert.equal(root.bestOffer(XLM, USD), undefined);
});

test('uncommitted writes at every level shadow the committed book', () => {
  const state = new MemoryState([offer(1n, 1, 1), offer(2n, 2, 1), offer(3n, 3, 1)]);
  const root = new LedgerTxn(state, 10);
  const tx = root.nest();
  tx.erase({ type: 2, offer: { sellerId: seller, offerId: 1n } });
  const op = tx.nest();
  op.update(offer(3n, 1, 2));        // 3 becomes the best
  op.create(offer(9n, 5, 2));        // a new offer between 2 and nothing
  assert.deepEqual(ids(op), [3n, 2n, 9n]);
  assert.deepEqual(ids(tx), [2n, 3n]);
  op.rollback();
  assert.deepEqual(ids(tx), [2n, 3n]);
  tx.commit();
  assert.deepEqual(ids(root), [2n, 3n]);
});

test('an offer moved to another pair leaves its old book', () => {
  const state = new MemoryState([offer(1n, 1, 1), offer(2n, 2, 1)]);
  const root = new LedgerTxn(state, 10);
  const tx = root.nest();
  tx.update(offer(1n, 1, 1, EUR, XLM));
  assert.deepEqual(ids(tx), [2n]);
  assert.deepEqual(ids(tx, EUR, XLM), [1n]);
  tx.commit();
  assert.deepEqual(ids(root), [2n]);
});

test('idPool ids are rolled back with their level and committed into the header', () => {
  const state = new MemoryState();
  state.idPool = 41n;
  const root = new LedgerTxn(state, 10, { idPool: state.idPool });
  const a = root.nest();
  assert.equal(a.generateId(), 42n);
  a.rollback();
  const b = root.nest();
  assert.equal(b.generateId(), 42n);
  assert.equal(b.generateId(), 43n);
  b.commit();
  assert.equal(root.idPool, 43n);
  state.absorb(root);
  assert.equal(state.idPool, 43n);
});

test('internal values nest, commit and roll back like entries', () => {
  const root = new LedgerTxn(new MemoryState(), 10);
  const tx = root.nest();
  tx.setInternal('sponsoring:a', 'b');
  const op = tx.nest();
  op.setInternal('sponsoring:c', 'd');
  assert.deepEqual(op.internalsWithPrefix('sponsoring:').map(([k]) => k).sort(), ['sponsoring:a', 'sponsoring:c']);
  op.rollback();
  assert.deepEqual(tx.internalsWithPrefix('sponsoring:').map(([k]) => k), ['sponsoring:a']);
  const op2 = tx.nest();
  op2.setInternal('sponsoring:a', undefined);
  op2.commit();
  assert.equal(tx.getInternal('sponsoring:a'), undefined);
  assert.deepEqual(tx.internalsWithPrefix('sponsoring:'), []);
});

test('the committed book follows stored writes', () => {
  const state = new MemoryState([offer(1n, 1, 1), offer(2n, 2, 1)]);
  const root = new LedgerTxn(state, 10);
  root.erase({ type: 2, offer: { sellerId: seller, offerId: 1n } });
  root.create(offer(5n, 3, 2));
  state.absorb(root);
  assert.deepEqual(ids(new LedgerTxn(state, 11)), [5n, 2n]);
});

test('best-offer reads agree with a plain sort of every visible offer through many nested writes', () => {
  // a small deterministic generator: the same sequence of writes on every run
  let seed = 7;
  const rand = (n: number): number => { seed = (seed * 1103515245 + 12345) % 2 ** 31; return seed % n; };
  const pairs: Array<[Asset, Asset]> = [[USD, XLM], [EUR, XLM], [USD, EUR]];
  const committed = Array.from({ length: 30 }, (_, i) => offer(BigInt(i + 1), 1 + rand(5), 1 + rand(3), ...pairs[i % 3]));
  const state = new MemoryState(committed);
  const root = new LedgerTxn(state, 10);
  // the model: every offer as each level sees it (undefined = erased)
  let rootView = new Map(committed.map((e) => [offerOf(e).offerId, e as LedgerEntry | undefined]));
  const expected = (view: Map<bigint, LedgerEntry | undefined>, [selling, buying]: [Asset, Asset]): bigint[] =>
    [...view.values()].filter((e): e is LedgerEntry => !!e && JSON.stringify(offerOf(e).selling) === JSON.stringify(selling) && JSON.stringify(offerOf(e).buying) === JSON.stringify(buying))
      .map(offerOf).sort((a, b) => (isBetterPlace(a, b) ? -1 : 1)).map((o) => o.offerId);
  let nextId = 100n;
  for (let t = 0; t < 150; t++) {
    const tx = root.nest();
    const txView = new Map(rootView);
    for (let o = 0; o < 3; o++) {
      const op = tx.nest();
      const opView = new Map(txView);
      for (let w = 0; w < 4; w++) {
        const live = [...opView].filter(([, e]) => e).map(([id]) => id);
        const action = rand(3);
        if (action === 0 || live.length === 0) {
          const e = offer(nextId++, 1 + rand(5), 1 + rand(3), ...pairs[rand(3)]);
          op.create(e);
          opView.set(offerOf(e).offerId, e);
        } else if (action === 1) {
          const id = live[rand(live.length)];
          const e = offer(id, 1 + rand(5), 1 + rand(3), ...pairs[rand(3)]); // a new price, maybe another pair
          op.update(e);
          opView.set(id, e);
        } else {
          const id = live[rand(live.length)];
          op.erase({ type: 2, offer: { sellerId: seller, offerId: id } });
          opView.set(id, undefined);
        }
      }
      for (const p of pairs) assert.deepEqual(ids(op, ...p), expected(opView, p));
      if (rand(4) === 0) op.rollback(); else { op.commit(); for (const [k, v] of opView) txView.set(k, v); }
    }
    for (const p of pairs) assert.deepEqual(ids(tx, ...p), expected(txView, p));
    if (rand(5) === 0) tx.rollback(); else { tx.commit(); rootView = txView; }
    for (const p of pairs) assert.deepEqual(ids(root, ...p), expected(rootView, p));
  }
});
