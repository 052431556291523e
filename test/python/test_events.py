"""getEvents through the official Python SDK (SorobanServer.get_events) against events the standalone
network emits: SAC events of classic payments and the transaction fee events, paged with cursors to
the end and past it."""
import time
import warnings

import requests
from soroban_helpers import PASSPHRASE, fund, page_to_end
from stellar_sdk import Asset, Keypair, SorobanServer, TransactionBuilder, scval
from stellar_sdk.soroban_rpc import EventFilter, EventFilterType, GetTransactionStatus, SendTransactionStatus


def send(server: SorobanServer, source: Keypair, build) -> str:
    builder = TransactionBuilder(server.load_account(source.public_key), PASSPHRASE, base_fee=100).set_timeout(60)
    tx = build(builder).build()
    tx.sign(source)
    sent = server.send_transaction(tx)
    assert sent.status == SendTransactionStatus.PENDING
    for _ in range(200):
        res = server.get_transaction(sent.hash)
        if res.status != GetTransactionStatus.NOT_FOUND:
            assert res.status == GetTransactionStatus.SUCCESS
            return sent.hash
        time.sleep(0.05)
    raise AssertionError("transaction never left NOT_FOUND")


def symbol_of(b64: str) -> str:
    return scval.from_symbol(b64)  # raises unless it is a symbol


def test_payment_events_and_fee_events_paged_to_the_end(node_url):
    server = SorobanServer(node_url)
    start = server.get_latest_ledger().sequence
    a, b = fund(server), fund(server)
    hashes = [
        send(server, a, lambda tb, i=i: tb.append_payment_op(b.public_key, Asset.native(), str(i)))
        for i in range(1, 6)
    ]
    native = Asset.native().contract_id(PASSPHRASE)
    transfer = scval.to_symbol("transfer").to_xdr()
    to_b = scval.to_address(b.public_key).to_xdr()

    # the five native payments a -> b (the faucet's funding of b is a transfer to b as well)
    events, pages, cursor = page_to_end(
        server, start,
        [EventFilter(event_type=EventFilterType.CONTRACT, contract_ids=[native],
                     topics=[[transfer, scval.to_address(a.public_key).to_xdr(), to_b, "**"]])],
        2,
    )
    assert [e.transaction_hash for e in events] == hashes
    assert pages == 3
    for i, e in enumerate(events, start=1):
        assert e.event_type == "contract"
        assert e.contract_id == native
        with warnings.catch_warnings():  # deprecated in the SDK; stellar-rpc v30 (and this node) no longer send it
            warnings.simplefilter("ignore", DeprecationWarning)
            assert e.in_successful_contract_call is None
        assert e.transaction_index == 1 and e.operation_index == 0
        assert symbol_of(e.topic[0]) == "transfer"
        assert scval.from_int128(e.value) == i * 10_000_000
        assert e.ledger_close_at.tzinfo is not None
    ids = [e.id for e in events]
    assert ids == sorted(ids)
    assert cursor.endswith("-4294967295")

    # past the end: empty pages keep a usable cursor
    more = server.get_events(filters=[], cursor=cursor, limit=2)
    assert more.events == []
    assert more.cursor.endswith("-4294967295")

    # a's fee events: one per transaction it paid for, at the BEFORE_ALL_TXS sentinel
    fees, _, _ = page_to_end(
        server, start, [EventFilter(topics=[[scval.to_symbol("fee").to_xdr(), scval.to_address(a.public_key).to_xdr()]])], 2,
    )
    assert [e.transaction_hash for e in fees] == hashes
    assert all(e.transaction_index == 0 and e.operation_index == 0 for e in fees)
    assert all(scval.from_int128(e.value) == 100 for e in fees)


def test_get_events_rejects_what_the_reference_rejects(node_url):
    server = SorobanServer(node_url)
    latest = server.get_latest_ledger().sequence
    body = {"jsonrpc": "2.0", "id": 1, "method": "getEvents",
            "params": {"startLedger": latest, "filters": [{"type": "contract", "topics": [["**", "*"]]}]}}
    res = requests.post(node_url, json=body, timeout=10).json()
    assert res["error"] == {
        "code": -32602,
        "message": "filter 1 invalid: topic 1 invalid: segment 1 invalid: wildcard '**' is only allowed as the last segment",
    }
    res = server.get_events(start_ledger=latest, filters=[], limit=10_000)
    assert res.latest_ledger >= latest
