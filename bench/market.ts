// The market the order-book benchmarks trade in, shared by the end-to-end bench (bench/orderBook.ts,
// through a node process) and the engine bench (bench/engineClose.ts, closeLedgerSteps in process),
// so that both measure the same transactions.
//
// Four assets (XLM and three credits, one issuer each) make 12 books (every ordered pair). The
// resting book: `makers` accounts place `offersPerMaker` ManageSellOffers each, spread over the 12
// books on a price ladder from 1.01 up (100 units each). Each side of a pair rests above 1, so the
// two sides never cross each other (1.01 x 1.01 > 1).
//
// Lanes are the accounts that send the measured transactions, one in flight each. A lane's role is
// fixed by its index (role = i % 12), so an account that places offers never takes one (a taker
// meeting its own offer would fail with CROSS_SELF):
//   0-2  ManageSellOffer creating a resting offer (price 1.02-1.22, inside the ladder: it refills it)
//   3    ManageSellOffer crossing partly (sells 1 unit: the best offer is crossed in part)
//   4    ManageBuyOffer crossing partly (buys 1 unit)
//   5    ManageSellOffer crossing fully (sells 150 units: the best offer is taken whole, the next in part)
//   6    ManageBuyOffer crossing fully (buys 150 units)
//   7    PathPaymentStrictSend, 1 hop (1 unit, direct book)
//   8    PathPaymentStrictSend, 2 hops (through a third asset)
//   9    PathPaymentStrictReceive, 1 hop (receives 1 unit)
//   10   PathPaymentStrictReceive, 2 hops
//   11   ManageBuyOffer creating a resting offer (price 0.82-0.98: sells Y at 1.02-1.22)
// Takers' limits (price 0.5 / 2, path bounds 2x per hop) cross the whole ladder, so every transaction
// succeeds whatever order the ledger applies them in. Per 12 transactions, about 400 units are
// added to the books and 300 taken: the book stays near its starting size through the runs.
// The lanes of each role spread evenly over the 12 books, and each lane moves to the next book every
// round, so no book is drained by one role.
import { Asset, Keypair, Operation, type xdr } from '@stellar/stellar-sdk';
import { opsTx, paymentTx, rootKeypair, type SignedTx } from './stellar.ts';

const OPS_PER_TX = 100;
const ACCOUNT_XLM = 10_000;        // each maker's and lane's starting balance
const ACCOUNT_CREDIT = 100_000;    // each trading account's balance of every credit asset
const BOOK_OFFER_UNITS = 100;
const CROSS_FULL_UNITS = 150;

export const ROLES = [
  'ManageSellOffer, resting', 'ManageSellOffer, resting', 'ManageSellOffer, resting',
  'ManageSellOffer, crossing partly', 'ManageBuyOffer, crossing partly',
  'ManageSellOffer, crossing fully', 'ManageBuyOffer, crossing fully',
  'PathPaymentStrictSend, 1 hop', 'PathPaymentStrictSend, 2 hops',
  'PathPaymentStrictReceive, 1 hop', 'PathPaymentStrictReceive, 2 hops',
  'ManageBuyOffer, resting',
] as const;

const units = (n: number): string => n.toFixed(7);

export interface MarketSize {
  /** Accounts that send the measured transactions (payments use all of them). */
  lanes: number;
  /** The first this many lanes also hold the credit assets and trade (default: all). */
  tradingLanes?: number;
  makers: number;
  offersPerMaker: number;
}

/** One setup ledger's worth: at most one transaction per source (the queue's rule). */
export interface Step { name: string; txs: Array<{ source: Keypair; ops: xdr.Operation[] }> }

/** Deterministic keys, so that a run can be repeated exactly. */
const key = (name: string, i: number): Keypair => {
  const seed = Buffer.alloc(32);
  seed.write(`${name}:${i}`.padEnd(32, '.').slice(0, 32), 'latin1');
  return Keypair.fromRawEd25519Seed(seed);
};

export class Market {
  readonly size: Required<MarketSize>;
  readonly issuers: Keypair[];
  readonly funders: Keypair[];
  readonly makers: Keypair[];
  readonly lanes: Keypair[];
  readonly assets: Asset[];
  /** Every ordered pair [selling, buying]. */
  readonly books: Array<[Asset, Asset]> = [];
  private readonly perFunder: number;

  constructor(size: MarketSize) {
    this.size = { tradingLanes: size.lanes, ...size };
    if (this.size.tradingLanes > size.lanes) throw new Error('tradingLanes > lanes');
    if (size.offersPerMaker > OPS_PER_TX) throw new Error(`at most ${OPS_PER_TX} offers per maker`);
    this.issuers = ['USD', 'EUR', 'BTC'].map((_, i) => key('issuer', i));
    this.assets = [Asset.native(), ...['USD', 'EUR', 'BTC'].map((code, i) => new Asset(code, this.issuers[i].publicKey()))];
    for (const s of this.assets) for (const b of this.assets) if (s !== b) this.books.push([s, b]);
    this.makers = Array.from({ length: size.makers }, (_, i) => key('maker', i));
    this.lanes = Array.from({ length: size.lanes }, (_, i) => key('lane', i));
    const accounts = size.makers + size.lanes;
    const funders = Math.min(OPS_PER_TX - this.issuers.length, Math.ceil(accounts / OPS_PER_TX));
    this.funders = Array.from({ length: funders }, (_, i) => key('funder', i));
    this.perFunder = Math.ceil(accounts / funders);
  }

  get offers(): number { return this.size.makers * this.size.offersPerMaker; }

  /** Funder f's accounts: makers first, then lanes. */
  private fundedBy(f: number): Keypair[] {
    return [...this.makers, ...this.lanes].slice(f * this.perFunder, (f + 1) * this.perFunder);
  }

  private trading(k: Keypair): boolean {
    const i = this.lanes.indexOf(k);
    return i < 0 || i < this.size.tradingLanes;
  }

  /** The setup, ledger by ledger; each step's transactions all succeed. */
  steps(): Step[] {
    const steps: Step[] = [];
    const root = rootKeypair();
    const funderXlm = this.perFunder * ACCOUNT_XLM + 1000;
    steps.push({
      name: 'root creates the issuers and funders',
      txs: [{ source: root, ops: [
        ...this.issuers.map((k) => Operation.createAccount({ destination: k.publicKey(), startingBalance: '1000' })),
        ...this.funders.map((k) => Operation.createAccount({ destination: k.publicKey(), startingBalance: String(funderXlm) })),
      ] }],
    });
    for (let s = 0; s * OPS_PER_TX < this.perFunder; s++) {
      steps.push({
        name: 'funders create the makers and lanes',
        txs: this.funders.map((f, fi) => ({
          source: f,
          ops: this.fundedBy(fi).slice(s * OPS_PER_TX, (s + 1) * OPS_PER_TX)
            .map((k) => Operation.createAccount({ destination: k.publicKey(), startingBalance: String(ACCOUNT_XLM) })),
        })).filter((t) => t.ops.length > 0),
      });
    }
    const credits = this.assets.slice(1);
    const trustors = [...this.funders, ...this.makers, ...this.lanes.slice(0, this.size.tradingLanes)];
    steps.push({ name: 'trustlines', txs: trustors.map((k) => ({ source: k, ops: credits.map((asset) => Operation.changeTrust({ asset })) })) });
    steps.push({
      name: 'issuers pay the funders',
      txs: this.issuers.map((k, ai) => ({
        source: k,
        ops: this.funders.map((f) => Operation.payment({ destination: f.publicKey(), asset: credits[ai], amount: units(this.perFunder * ACCOUNT_CREDIT) })),
      })),
    });
    const payOps = this.funders.map((_, fi) => this.fundedBy(fi).filter((k) => this.trading(k))
      .flatMap((k) => credits.map((asset) => Operation.payment({ destination: k.publicKey(), asset, amount: units(ACCOUNT_CREDIT) }))));
    for (let s = 0; payOps.some((ops) => ops.length > s * OPS_PER_TX); s++) {
      steps.push({
        name: 'funders pay the trading accounts',
        txs: this.funders.map((f, fi) => ({ source: f, ops: payOps[fi].slice(s * OPS_PER_TX, (s + 1) * OPS_PER_TX) })).filter((t) => t.ops.length > 0),
      });
    }
    if (this.offers > 0) {
      steps.push({
        name: `makers place the book (${this.offers} offers)`,
        txs: this.makers.map((m, mi) => ({
          source: m,
          ops: Array.from({ length: this.size.offersPerMaker }, (_, t) => {
            const g = mi * this.size.offersPerMaker + t;
            const [selling, buying] = this.books[g % this.books.length];
            const level = Math.floor(g / this.books.length);
            return Operation.manageSellOffer({ selling, buying, amount: units(BOOK_OFFER_UNITS), price: { n: 10_100 + 2 * level, d: 10_000 } });
          }),
        })),
      });
    }
    return steps;
  }

  /** Lane i's plain payment (the baseline): 1 stroop of XLM to the next lane, as bench/payments.ts sends. */
  payment(i: number, seq: bigint): SignedTx {
    return paymentTx(this.lanes[i], seq, this.lanes[(i + 1) % this.lanes.length].publicKey());
  }

  /** Lane i's order-book transaction of round `round` (see the roles above). */
  order(i: number, seq: bigint, round: number): SignedTx {
    if (i >= this.size.tradingLanes) throw new Error(`lane ${i} does not trade`);
    return opsTx(this.lanes[i], seq, [this.orderOp(i, round)]);
  }

  orderOp(i: number, round: number): xdr.Operation {
    // the book selling x for y: the lanes of each role spread over every book, and move on each round
    const [x, y] = this.books[(Math.floor(i / ROLES.length) + round) % this.books.length];
    const z = this.assets.filter((a) => a !== x && a !== y)[(i + round) % 2]; // a third asset for 2 hops
    const destination = this.lanes[(i + 1) % this.size.tradingLanes].publicKey();
    const jitter = (i * 131 + round * 17) % 2000; // spreads resting offers over 0.2 of price
    switch (i % ROLES.length) {
      case 0: case 1: case 2:
        return Operation.manageSellOffer({ selling: x, buying: y, amount: units(BOOK_OFFER_UNITS), price: { n: 10_200 + jitter, d: 10_000 } });
      case 3: return Operation.manageSellOffer({ selling: y, buying: x, amount: units(1), price: { n: 1, d: 2 } });
      case 4: return Operation.manageBuyOffer({ selling: y, buying: x, buyAmount: units(1), price: { n: 2, d: 1 } });
      case 5: return Operation.manageSellOffer({ selling: y, buying: x, amount: units(CROSS_FULL_UNITS), price: { n: 1, d: 2 } });
      case 6: return Operation.manageBuyOffer({ selling: y, buying: x, buyAmount: units(CROSS_FULL_UNITS), price: { n: 2, d: 1 } });
      case 7: return Operation.pathPaymentStrictSend({ sendAsset: y, sendAmount: units(1), destination, destAsset: x, destMin: units(0.5), path: [] });
      case 8: return Operation.pathPaymentStrictSend({ sendAsset: y, sendAmount: units(1), destination, destAsset: x, destMin: units(0.25), path: [z] });
      case 9: return Operation.pathPaymentStrictReceive({ sendAsset: y, sendMax: units(2), destination, destAsset: x, destAmount: units(1), path: [] });
      case 10: return Operation.pathPaymentStrictReceive({ sendAsset: y, sendMax: units(4), destination, destAsset: x, destAmount: units(1), path: [z] });
      default:
        // buys x paying at most 0.82-0.98 y each: an offer selling y for x at 1.02-1.22
        return Operation.manageBuyOffer({ selling: y, buying: x, buyAmount: units(BOOK_OFFER_UNITS), price: { n: 8_200 + (jitter % 1600), d: 10_000 } });
    }
  }
}
