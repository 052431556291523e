"""A smart contract end to end through the official Python SDK (SorobanServer), unchanged: upload the
counter's Wasm, deploy it, invoke it; each step simulated and assembled by prepare_transaction, sent,
polled, and its return value read from the transaction's meta."""
import hashlib
import os

import requests
from stellar_sdk import Keypair, Network, SorobanServer, TransactionBuilder, scval
from stellar_sdk.soroban_rpc import GetTransactionStatus, SendTransactionStatus
from stellar_sdk.xdr import SCVal, TransactionMeta, TransactionResult

PASSPHRASE = Network.STANDALONE_NETWORK_PASSPHRASE
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def fund(server: SorobanServer) -> Keypair:
    kp = Keypair.random()
    res = requests.get(server.get_network().friendbot_url, params={"addr": kp.public_key}, timeout=30)
    assert res.status_code == 200, res.text
    return kp


def return_value(meta_xdr: str) -> SCVal:
    meta = TransactionMeta.from_xdr(meta_xdr)
    soroban_meta = meta.v4.soroban_meta if meta.v == 4 else meta.v3.soroban_meta
    assert soroban_meta is not None and soroban_meta.return_value is not None
    return soroban_meta.return_value


def run(server: SorobanServer, kp: Keypair, build) -> SCVal:
    """Builds, prepares (simulate + assemble), signs, sends, polls; returns the return value."""
    builder = TransactionBuilder(server.load_account(kp.public_key), PASSPHRASE, base_fee=100).set_timeout(60)
    tx = server.prepare_transaction(build(builder).build())
    simulated_fee = tx.transaction.fee  # inclusion fee + the simulation's minResourceFee
    assert simulated_fee > 100
    tx.sign(kp)
    sent = server.send_transaction(tx)
    assert sent.status == SendTransactionStatus.PENDING, sent
    done = server.poll_transaction(sent.hash, max_attempts=200)
    assert done.status == GetTransactionStatus.SUCCESS, done
    fee_charged = TransactionResult.from_xdr(done.result_xdr).fee_charged.int64
    assert 0 < fee_charged <= simulated_fee
    return return_value(done.result_meta_xdr)


def test_upload_deploy_and_invoke_counter(node_url):
    server = SorobanServer(node_url)
    kp = fund(server)
    with open(os.path.join(ROOT, "contracts", "wasm", "counter.wasm"), "rb") as f:
        wasm = f.read()

    wasm_hash = scval.from_bytes(run(server, kp, lambda b: b.append_upload_contract_wasm_op(wasm)))
    assert wasm_hash == hashlib.sha256(wasm).digest()

    address = scval.from_address(
        run(server, kp, lambda b: b.append_create_contract_op(wasm_id=wasm_hash, address=kp.public_key, salt=os.urandom(32)))
    )
    contract_id = address.address
    assert contract_id.startswith("C")

    first = run(server, kp, lambda b: b.append_invoke_contract_function_op(contract_id, "increment", [scval.to_uint32(5)]))
    assert scval.from_uint32(first) == 5
    second = run(server, kp, lambda b: b.append_invoke_contract_function_op(contract_id, "increment", [scval.to_uint32(7)]))
    assert scval.from_uint32(second) == 12

    # a read-only call answered by simulation alone
    read = TransactionBuilder(server.load_account(kp.public_key), PASSPHRASE, base_fee=100).set_timeout(60)
    sim = server.simulate_transaction(read.append_invoke_contract_function_op(contract_id, "get").build())
    assert sim.error is None
    assert scval.from_uint32(SCVal.from_xdr(sim.results[0].xdr)) == 12


def test_contract_error_in_simulation(node_url):
    server = SorobanServer(node_url)
    kp = fund(server)
    with open(os.path.join(ROOT, "contracts", "wasm", "errors.wasm"), "rb") as f:
        wasm = f.read()
    wasm_hash = scval.from_bytes(run(server, kp, lambda b: b.append_upload_contract_wasm_op(wasm)))
    contract_id = scval.from_address(
        run(server, kp, lambda b: b.append_create_contract_op(wasm_id=wasm_hash, address=kp.public_key, salt=os.urandom(32)))
    ).address
    tx = (
        TransactionBuilder(server.load_account(kp.public_key), PASSPHRASE, base_fee=100)
        .append_invoke_contract_function_op(contract_id, "check", [scval.to_int64(-1)])
        .set_timeout(60)
        .build()
    )
    sim = server.simulate_transaction(tx)
    assert sim.error is not None and "Error(Contract, #1)" in sim.error
