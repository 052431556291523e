"""get_events through the official Python SDK (SorobanServer.get_events) against events a contract
deployed on the standalone network emits: the counter's ("counter", "incr") events, filtered by
contract id and by topic, paged with cursors to the end."""
from soroban_helpers import deploy, fund, page_to_end, run, wasm
from stellar_sdk import SorobanServer, scval
from stellar_sdk.soroban_rpc import EventFilter, EventFilterType
from stellar_sdk.xdr import SCVal

INCREMENTS = [2, 7, 1, 8, 2]


def test_counter_events_paged_to_the_end(node_url):
    server = SorobanServer(node_url)
    kp = fund(server)
    start = server.get_latest_ledger().sequence
    _, contract_id = deploy(server, kp, wasm("counter"))
    hashes = [run(server, kp, lambda b, by=by: b.append_invoke_contract_function_op(
        contract_id, "increment", [scval.to_uint32(by)]))[0] for by in INCREMENTS]

    by_contract = [EventFilter(event_type=EventFilterType.CONTRACT, contract_ids=[contract_id])]
    events, pages, _ = page_to_end(server, start, by_contract, 2)
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
