"""Streaming subscriptions over WebSocket with the `websockets` package (its synchronous client)
against the node the harness starts: ledgers and events (stored ones from a start, then live ones,
equal to what getLedgers / getEvents return), a `transaction` subscription made before the Python SDK
sends the transaction, errors, and unsubscribe."""
import itertools
import json

import requests
from soroban_helpers import PASSPHRASE, fund
from stellar_sdk import Asset, SorobanServer, TransactionBuilder
from stellar_sdk.soroban_rpc import SendTransactionStatus
from websockets.sync.client import connect

# a safeguard against a hang, not an expectation of speed
RECV_TIMEOUT = 30


class Rpc:
    """JSON-RPC over one WebSocket: calls get their answers; notifications that come in between are
    kept, in order, for `notifications`."""

    def __init__(self, ws):
        self.ws = ws
        self.ids = itertools.count(1)
        self.pending = []

    def call(self, method, params=None):
        request_id = next(self.ids)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.ws.send(json.dumps(message))
        while True:
            msg = json.loads(self.ws.recv(timeout=RECV_TIMEOUT))
            if msg.get("id") == request_id:
                return msg
            self.pending.append(msg)

    def notification(self):
        if self.pending:
            return self.pending.pop(0)
        msg = json.loads(self.ws.recv(timeout=RECV_TIMEOUT))
        assert msg.get("method") == "subscription", msg
        return msg

    def notifications(self, subscription, n):
        """The next `n` notifications of `subscription` (others are not expected)."""
        out = []
        while len(out) < n:
            msg = self.notification()
            assert msg["params"]["subscription"] == subscription, msg
            out.append(msg["params"])
        return out


def ws_url(node_url: str) -> str:
    return "ws" + node_url[len("http"):]


def http_rpc(node_url, method, params):
    res = requests.post(node_url, json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, timeout=30)
    return res.json()["result"]


def payment(server: SorobanServer, source, destination, amount: str):
    builder = TransactionBuilder(server.load_account(source.public_key), PASSPHRASE, base_fee=100).set_timeout(60)
    tx = builder.append_payment_op(destination.public_key, Asset.native(), amount).build()
    tx.sign(source)
    return tx


def test_ledgers_from_a_start_then_live(node_url):
    latest = SorobanServer(node_url).get_latest_ledger().sequence
    start = max(1, latest - 2)
    expected = http_rpc(node_url, "getLedgers", {"startLedger": start, "pagination": {"limit": latest - start + 1}})["ledgers"]
    with connect(ws_url(node_url)) as ws:
        rpc = Rpc(ws)
        answer = rpc.call("subscribe", {"kind": "ledgers", "startLedger": start})
        sub = answer["result"]
        assert isinstance(sub, str) and sub
        got = rpc.notifications(sub, len(expected) + 2)
    assert all(p["kind"] == "ledgers" for p in got)
    assert [p["result"] for p in got[: len(expected)]] == expected
    # then the ledgers closed after, one by one
    sequences = [p["result"]["sequence"] for p in got]
    assert sequences == list(range(start, start + len(got)))


def test_events_stored_then_live_equal_get_events(node_url):
    server = SorobanServer(node_url)
    a, b = fund(server), fund(server)
    start = server.get_latest_ledger().sequence
    native = Asset.native().contract_id(PASSPHRASE)
    filters = [{"type": "contract", "contractIds": [native]}]
    sent = [server.send_transaction(payment(server, a, b, "1"))]
    server.poll_transaction(sent[0].hash, max_attempts=200)
    latest = server.get_latest_ledger().sequence
    stored = http_rpc(node_url, "getEvents", {"startLedger": start, "endLedger": latest + 1, "filters": filters, "pagination": {"limit": 100}})["events"]
    assert sent[0].hash in {e["txHash"] for e in stored}
    with connect(ws_url(node_url)) as ws:
        rpc = Rpc(ws)
        sub = rpc.call("subscribe", {"kind": "events", "startLedger": start, "filters": filters})["result"]
        replayed = rpc.notifications(sub, len(stored))
        assert [p["result"] for p in replayed] == stored
        assert all(p["kind"] == "events" for p in replayed)
        # live: a payment made now
        live_tx = server.send_transaction(payment(server, b, a, "2"))
        (live,) = rpc.notifications(sub, 1)
    assert live["result"]["txHash"] == live_tx.hash
    assert live["result"]["id"] > stored[-1]["id"]


def test_transaction_subscription_before_send_delivers_the_final_result(node_url):
    server = SorobanServer(node_url)
    a, b = fund(server), fund(server)
    tx = payment(server, a, b, "5")
    with connect(ws_url(node_url)) as ws:
        rpc = Rpc(ws)
        sub = rpc.call("subscribe", {"kind": "transaction", "hash": tx.hash_hex()})["result"]
        sent = server.send_transaction(tx)  # over HTTP, with the SDK
        assert sent.status == SendTransactionStatus.PENDING
        (note,) = rpc.notifications(sub, 1)
        assert note["kind"] == "transaction"
        assert note["final"] is True
        assert note["result"]["status"] == "SUCCESS"
        assert note["result"]["txHash"] == tx.hash_hex()
        assert note["result"]["ledger"] == server.get_transaction(tx.hash_hex()).ledger
        # the subscription ended with its result
        assert rpc.call("unsubscribe", {"id": sub})["result"] is False


def test_bad_subscribe_is_invalid_params_and_the_connection_serves_on(node_url):
    with connect(ws_url(node_url)) as ws:
        rpc = Rpc(ws)
        for params in (
            {"kind": "nope"},
            {"kind": "ledgers", "startLedger": 1, "cursor": "2"},
            {"kind": "events", "filters": [{"type": "nope"}]},
            {"kind": "transaction"},
        ):
            answer = rpc.call("subscribe", params)
            assert answer["error"]["code"] == -32602, (params, answer)
            assert answer["error"]["message"], params
        assert rpc.call("getLatestLedger")["result"]["sequence"] >= 1


def test_unsubscribe_stops_notifications(node_url):
    with connect(ws_url(node_url)) as ws:
        rpc = Rpc(ws)
        first = rpc.call("subscribe", {"kind": "ledgers"})["result"]
        rpc.notifications(first, 1)
        assert rpc.call("unsubscribe", {"id": first})["result"] is True
        assert rpc.call("unsubscribe", {"id": first})["result"] is False
        # what was sent before the answer came before it; after it, only the second subscription speaks
        rpc.pending = [m for m in rpc.pending if m["params"]["subscription"] != first]
        second = rpc.call("subscribe", {"kind": "ledgers"})["result"]
        got = rpc.notifications(second, 2)
    assert got[1]["result"]["sequence"] == got[0]["result"]["sequence"] + 1
