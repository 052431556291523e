"""get_events through the official Python SDK (SorobanServer.get_events) against events a contract
deployed on the standalone network emits: the counter's ("counter", "incr") events, filtered by
contract id and by topic, paged with cursors to the end."""
import os

import requests
from stellar_sdk import Keypair, Network, SorobanServer, TransactionBuilder, scval
from stellar_sdk.soroban_rpc import EventFilter, EventFilterType, GetTransactionStatus, SendTransactionStatus
from stellar_sdk.xdr import SCVal, TransactionMeta

PASSPHRASE = Network.STANDALONE_NETWORK_PASSPHRASE
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
INCREMENTS = [2, 7, 1, 8, 2]


def fund(server: SorobanServer) -> Keypair:
    kp = Keypair.random()
    res = requests.get(server.get_network().friendbot_url, params={"addr": kp.public_key}, timeout=30)
    assert res.status_code == 200, res.text
    return kp


def run(server: SorobanServer, kp: Keypair, build):
    """prepare_transaction, sign, send, poll; returns (hash, return value)."""
    builder = TransactionBuilder(server.load_account(kp.public_key), PASSPHRASE, base_fee=100).set_timeout(60)
    tx = server.prepare_transaction(build(builder).build())
    tx.sign(kp)
    sent = server.send_transaction(tx)
    assert sent.status == SendTransactionStatus.PENDING, sent
    done = server.poll_transaction(sent.hash, max_attempts=200)
    assert done.status == GetTransactionStatus.SUCCESS, done
    meta = TransactionMeta.from_xdr(done.result_meta_xdr)
    return sent.hash, meta.v4.soroban_meta.return_value


def test_counter_events_paged_to_the_end(node_url):
    server = SorobanServer(node_url)
    kp = fund(server)
    start = server.get_latest_ledger().sequence
    with open(os.path.join(ROOT, "contracts", "wasm", "counter.wasm"), "rb") as f:
        wasm = f.read()
    _, wasm_hash = run(server, kp, lambda b: b.append_upload_contract_wasm_op(wasm))
    _, address = run(server, kp, lambda b: b.append_create_contract_op(
        wasm_id=scval.from_bytes(wasm_hash), address=kp.public_key, salt=os.urandom(32)))
    contract_id = scval.from_address(address).address
    hashes = [run(server, kp, lambda b, by=by: b.append_invoke_contract_function_op(
        contract_id, "increment", [scval.to_uint32(by)]))[0] for by in INCREMENTS]

    by_contract = [EventFilter(event_type=EventFilterType.CONTRACT, contract_ids=[contract_id])]
    events, pages = [], 0
    res = server.get_events(start_ledger=start, filters=by_contract, limit=2)
    while True:
        pages += 1
        events.extend(res.events)
        if len(res.events) < 2:
            break
        res = server.get_events(filters=by_contract, cursor=res.cursor, limit=2)
    assert pages == len(INCREMENTS) // 2 + 1
    assert [e.transaction_hash for e in events] == hashes
    total = 0
    for event, by in zip(events, INCREMENTS):
        total += by
        assert event.contract_id == contract_id
        assert [scval.from_symbol(t) for t in event.topic] == ["counter", "incr"]
        assert scval.from_uint32(SCVal.from_xdr(event.value)) == total
    assert [e.id for e in events] == sorted(e.id for e in events)

    by_topic = [EventFilter(event_type=EventFilterType.CONTRACT,
                            topics=[[scval.to_symbol("counter").to_xdr(), "*"]])]
    assert [e.id for e in server.get_events(start_ledger=start, filters=by_topic, limit=100).events] == [e.id for e in events]
