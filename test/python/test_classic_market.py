"""The classic market through the official Python SDK (SorobanServer): an offer crossed by a path
payment, and a claimable balance created and claimed, checked through the decoded results, the
ledger entries (trustlines, offer, claimable balance) and the CAP-67 events."""
from decimal import Decimal

from stellar_sdk import Asset, Claimant, ClaimPredicate, Keypair, Network, SorobanServer, StrKey, TransactionBuilder, scval
from stellar_sdk import xdr as stellar_xdr
from stellar_sdk.soroban_rpc import EventFilter, EventFilterType, GetTransactionStatus, SendTransactionStatus

from soroban_helpers import fund

PASSPHRASE = Network.STANDALONE_NETWORK_PASSPHRASE
STROOPS = 10_000_000


def stroops(amount: str) -> int:
    return int(Decimal(amount) * STROOPS)


def submit(server: SorobanServer, source: Keypair, build, cosigners=()):
    """Builds a transaction from `source`, signs it with the source and `cosigners`, sends it and waits."""
    tx = build(TransactionBuilder(server.load_account(source.public_key), PASSPHRASE, base_fee=100).set_timeout(60)).build()
    tx.sign(source)
    for kp in cosigners:
        tx.sign(kp)
    sent = server.send_transaction(tx)
    assert sent.status == SendTransactionStatus.PENDING, sent
    done = server.poll_transaction(sent.hash, max_attempts=200)
    assert done.status == GetTransactionStatus.SUCCESS, done
    return tx, sent.hash, done, stellar_xdr.TransactionResult.from_xdr(done.result_xdr)


def entry(server: SorobanServer, key: stellar_xdr.LedgerKey):
    res = server.get_ledger_entries([key])
    assert len(res.entries) <= 1
    return stellar_xdr.LedgerEntryData.from_xdr(res.entries[0].xdr) if res.entries else None


def account_id(kp: Keypair) -> stellar_xdr.AccountID:
    return kp.xdr_account_id()


def trustline_balance(server: SorobanServer, kp: Keypair, asset: Asset) -> int:
    key = stellar_xdr.LedgerKey(stellar_xdr.LedgerEntryType.TRUSTLINE,
                                trust_line=stellar_xdr.LedgerKeyTrustLine(account_id(kp), asset.to_trust_line_asset_xdr_object()))
    return entry(server, key).trust_line.balance.int64


def native_balance(server: SorobanServer, kp: Keypair) -> int:
    key = stellar_xdr.LedgerKey(stellar_xdr.LedgerEntryType.ACCOUNT, account=stellar_xdr.LedgerKeyAccount(account_id(kp)))
    return entry(server, key).account.balance.int64


def offer_entry(server: SorobanServer, seller: Keypair, offer_id: int):
    key = stellar_xdr.LedgerKey(stellar_xdr.LedgerEntryType.OFFER,
                                offer=stellar_xdr.LedgerKeyOffer(account_id(seller), stellar_xdr.Int64(offer_id)))
    data = entry(server, key)
    return data.offer if data else None


def asset_events(server: SorobanServer, tx_hash: str, ledger: int, asset: Asset):
    """The asset contract's events of one transaction, the fee left out: (name, addresses..., amount)."""
    contract = asset.contract_id(PASSPHRASE)
    res = server.get_events(start_ledger=ledger, filters=[EventFilter(event_type=EventFilterType.CONTRACT, contract_ids=[contract])], limit=100)
    out = []
    for e in res.events:
        if e.transaction_hash != tx_hash:
            continue
        topics = [stellar_xdr.SCVal.from_xdr(t) for t in e.topic]
        if scval.to_native(topics[0]) == "fee":
            continue  # the transaction's fee, not a movement
        assert scval.to_native(topics[-1]) == (asset.code + ":" + asset.issuer if asset.issuer else "native")
        out.append((scval.to_native(topics[0]), *[scval.to_native(t).address for t in topics[1:-1]],
                    scval.to_native(stellar_xdr.SCVal.from_xdr(e.value))))
    return out


def fee_charged(result: stellar_xdr.TransactionResult) -> int:
    return result.fee_charged.int64


def test_an_offer_crossed_by_a_path_payment(node_url):
    server = SorobanServer(node_url)
    issuer, maker, sender, receiver = (fund(server) for _ in range(4))
    usd = Asset("USD", issuer.public_key)
    submit(server, issuer, lambda b: b
           .append_change_trust_op(usd, source=maker.public_key)
           .append_change_trust_op(usd, source=receiver.public_key)
           .append_payment_op(maker.public_key, usd, "100"), cosigners=(maker, receiver))

    # the maker sells 50 USD at 2 XLM each
    _, _, _, placed = submit(server, maker, lambda b: b.append_manage_sell_offer_op(usd, Asset.native(), "50", "2"))
    created = placed.result.results[0].tr.manage_sell_offer_result.success
    assert created.offers_claimed == []
    offer_id = created.offer.offer.offer_id.int64
    assert offer_entry(server, maker, offer_id).amount.int64 == stroops("50")
    maker_xlm = native_balance(server, maker)

    # 20 XLM sent buy 20 / 2 = 10 USD from that offer, delivered to the receiver
    send_amount, price = stroops("20"), 2
    bought = send_amount // price
    _, tx_hash, done, paid = submit(server, sender, lambda b: b.append_path_payment_strict_send_op(
        receiver.public_key, Asset.native(), "20", usd, "10", []))
    success = paid.result.results[0].tr.path_payment_strict_send_result.success
    assert len(success.offers) == 1
    atom = success.offers[0].order_book
    assert StrKey.encode_ed25519_public_key(atom.seller_id.account_id.ed25519.uint256) == maker.public_key
    assert atom.offer_id.int64 == offer_id
    assert (atom.amount_sold.int64, atom.amount_bought.int64) == (bought, send_amount)
    assert Asset.from_xdr_object(atom.asset_sold) == usd and Asset.from_xdr_object(atom.asset_bought) == Asset.native()
    assert success.last.amount.int64 == bought
    assert Asset.from_xdr_object(success.last.asset) == usd

    assert trustline_balance(server, receiver, usd) == bought
    assert trustline_balance(server, maker, usd) == stroops("100") - bought
    assert native_balance(server, maker) == maker_xlm + send_amount
    assert offer_entry(server, maker, offer_id).amount.int64 == stroops("50") - bought
    # USD moved maker → sender (the trade), then sender → receiver (the payment)
    assert asset_events(server, tx_hash, done.ledger, usd) == [
        ("transfer", maker.public_key, sender.public_key, bought),
        ("transfer", sender.public_key, receiver.public_key, bought),
    ]
    assert asset_events(server, tx_hash, done.ledger, Asset.native()) == [("transfer", sender.public_key, maker.public_key, send_amount)]


def test_a_claimable_balance_created_and_claimed(node_url):
    server = SorobanServer(node_url)
    creator, claimant = fund(server), fund(server)
    creator_xlm, claimant_xlm = native_balance(server, creator), native_balance(server, claimant)
    tx, tx_hash, done, created = submit(server, creator, lambda b: b.append_create_claimable_balance_op(
        Asset.native(), "25", [Claimant(claimant.public_key, ClaimPredicate.predicate_before_relative_time(3600))]))
    balance_id = created.result.results[0].tr.create_claimable_balance_result.balance_id
    assert balance_id.to_xdr_bytes().hex() == tx.transaction.get_claimable_balance_id(0), "the id the SDK derives"
    assert native_balance(server, creator) == creator_xlm - stroops("25") - fee_charged(created)

    key = stellar_xdr.LedgerKey(stellar_xdr.LedgerEntryType.CLAIMABLE_BALANCE, claimable_balance=stellar_xdr.LedgerKeyClaimableBalance(balance_id))
    stored = entry(server, key).claimable_balance
    assert stored.amount.int64 == stroops("25")
    predicate = stored.claimants[0].v0.predicate
    assert predicate.type == stellar_xdr.ClaimPredicateType.CLAIM_PREDICATE_BEFORE_ABSOLUTE_TIME
    assert predicate.abs_before.int64 == done.create_at + 3600, "made absolute from the creating ledger's close time"
    # a B... address: the id's type as one byte, then its hash
    balance_address = StrKey.encode_claimable_balance(bytes([balance_id.type.value]) + balance_id.v0.hash)
    assert asset_events(server, tx_hash, done.ledger, Asset.native()) == [("transfer", creator.public_key, balance_address, stroops("25"))]

    _, claim_hash, claimed_done, claimed = submit(server, claimant, lambda b: b.append_claim_claimable_balance_op(balance_id.to_xdr_bytes().hex()))
    assert claimed.result.results[0].tr.claim_claimable_balance_result.code == stellar_xdr.ClaimClaimableBalanceResultCode.CLAIM_CLAIMABLE_BALANCE_SUCCESS
    assert native_balance(server, claimant) == claimant_xlm + stroops("25") - fee_charged(claimed)
    assert entry(server, key) is None
    assert asset_events(server, claim_hash, claimed_done.ledger, Asset.native()) == [("transfer", balance_address, claimant.public_key, stroops("25"))]
