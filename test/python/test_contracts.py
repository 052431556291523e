"""A smart contract end to end through the official Python SDK (SorobanServer), unchanged: upload the
counter's Wasm, deploy it, invoke it; each step simulated and assembled by prepare_transaction, sent,
polled, and its return value read from the transaction's meta."""
import hashlib

from soroban_helpers import PASSPHRASE, deploy, fund, run, wasm
from stellar_sdk import SorobanServer, TransactionBuilder, scval
from stellar_sdk.soroban_rpc import SendTransactionStatus
from stellar_sdk.xdr import DiagnosticEvent, Int64, SCVal, TransactionResult, TransactionResultCode


def test_upload_deploy_and_invoke_counter(node_url):
    server = SorobanServer(node_url)
    kp = fund(server)
    code = wasm("counter")
    wasm_hash, contract_id = deploy(server, kp, code)
    assert wasm_hash == hashlib.sha256(code).digest()
    assert contract_id.startswith("C")

    _, first = run(server, kp, lambda b: b.append_invoke_contract_function_op(contract_id, "increment", [scval.to_uint32(5)]))
    assert scval.from_uint32(first) == 5
    _, second = run(server, kp, lambda b: b.append_invoke_contract_function_op(contract_id, "increment", [scval.to_uint32(7)]))
    assert scval.from_uint32(second) == 12

    # a read-only call answered by simulation alone
    read = TransactionBuilder(server.load_account(kp.public_key), PASSPHRASE, base_fee=100).set_timeout(60)
    sim = server.simulate_transaction(read.append_invoke_contract_function_op(contract_id, "get").build())
    assert sim.error is None
    assert scval.from_uint32(SCVal.from_xdr(sim.results[0].xdr)) == 12


def test_contract_error_in_simulation(node_url):
    server = SorobanServer(node_url)
    kp = fund(server)
    _, contract_id = deploy(server, kp, wasm("errors"))
    tx = (
        TransactionBuilder(server.load_account(kp.public_key), PASSPHRASE, base_fee=100)
        .append_invoke_contract_function_op(contract_id, "check", [scval.to_int64(-1)])
        .set_timeout(60)
        .build()
    )
    sim = server.simulate_transaction(tx)
    assert sim.error is not None and "Error(Contract, #1)" in sim.error


def test_short_resource_fee_is_refused_with_cores_diagnostic(node_url):
    """sendTransaction's ERROR answer carries the network's diagnostic event, decodable by the SDK."""
    server = SorobanServer(node_url)
    kp = fund(server)
    _, contract_id = deploy(server, kp, wasm("counter"))
    builder = TransactionBuilder(server.load_account(kp.public_key), PASSPHRASE, base_fee=100).set_timeout(60)
    tx = server.prepare_transaction(builder.append_invoke_contract_function_op(contract_id, "increment", [scval.to_uint32(1)]).build())
    tx.transaction.soroban_data.resource_fee = Int64(1)  # far below what the declared resources cost
    tx.sign(kp)
    sent = server.send_transaction(tx)
    assert sent.status == SendTransactionStatus.ERROR, sent
    assert TransactionResult.from_xdr(sent.error_result_xdr).result.code == TransactionResultCode.txSOROBAN_INVALID
    events = [DiagnosticEvent.from_xdr(e) for e in sent.diagnostic_events_xdr or []]
    assert len(events) == 1
    data = events[0].event.body.v0.data.vec.sc_vec
    assert data[0].str.sc_string == b"transaction `sorobanData.resourceFee` is lower than the actual Soroban resource fee"
    assert data[1].u64.uint64 == 1 and data[2].u64.uint64 > 1
