"""Helpers the Python SDK tests share: a funded account, a Soroban transaction sent the SDK's way
(prepare_transaction, sign, send, poll) with its fee and return value checked, and get_events paged
to the end."""
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


def wasm(name: str) -> bytes:
    with open(os.path.join(ROOT, "contracts", "wasm", f"{name}.wasm"), "rb") as f:
        return f.read()


def return_value(meta_xdr: str) -> SCVal:
    meta = TransactionMeta.from_xdr(meta_xdr)
    soroban_meta = meta.v4.soroban_meta if meta.v == 4 else meta.v3.soroban_meta
    assert soroban_meta is not None and soroban_meta.return_value is not None
    return soroban_meta.return_value


def run(server: SorobanServer, kp: Keypair, build) -> tuple[str, SCVal]:
    """Builds, prepares (simulate + assemble), signs, sends, polls; checks the fee charged is no more
    than the simulated one; returns the transaction hash and the return value."""
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
    return sent.hash, return_value(done.result_meta_xdr)


def deploy(server: SorobanServer, kp: Keypair, code: bytes) -> tuple[bytes, str]:
    """Uploads `code` and creates a contract from it; returns the Wasm hash and the contract id."""
    wasm_hash = scval.from_bytes(run(server, kp, lambda b: b.append_upload_contract_wasm_op(code))[1])
    address = run(server, kp, lambda b: b.append_create_contract_op(wasm_id=wasm_hash, address=kp.public_key, salt=os.urandom(32)))[1]
    return wasm_hash, scval.from_address(address).address


def page_to_end(server: SorobanServer, start: int, filters, limit: int):
    """Pages through get_events with cursors until a page comes back short: (events, pages, cursor)."""
    res = server.get_events(start_ledger=start, filters=filters, limit=limit)
    events, pages = [], 1
    while True:
        events.extend(res.events)
        if len(res.events) < limit:
            return events, pages, res.cursor
        assert res.cursor == res.events[-1].id
        res = server.get_events(filters=filters, cursor=res.cursor, limit=limit)
        pages += 1
