"""The standalone network through the official Python SDK (SorobanServer), unchanged."""
import time

import requests
from stellar_sdk import Asset, Keypair, Network, SorobanServer, TransactionBuilder, TransactionEnvelope
from stellar_sdk.exceptions import AccountNotFoundException
from stellar_sdk.soroban_rpc import GetTransactionStatus, SendTransactionStatus
from stellar_sdk.xdr import TransactionResult, TransactionResultCode

import pytest

PASSPHRASE = Network.STANDALONE_NETWORK_PASSPHRASE


def fund(server: SorobanServer, url: str) -> Keypair:
    kp = Keypair.random()
    network = server.get_network()
    res = requests.get(network.friendbot_url, params={"addr": kp.public_key}, timeout=30)
    assert res.status_code == 200, res.text
    assert server.get_transaction(res.json()["hash"]).status == GetTransactionStatus.SUCCESS
    return kp


def wait(server: SorobanServer, tx_hash: str):
    for _ in range(200):
        res = server.get_transaction(tx_hash)
        if res.status != GetTransactionStatus.NOT_FOUND:
            return res
        time.sleep(0.05)
    raise AssertionError("transaction never left NOT_FOUND")


def test_network_health_and_latest_ledger(node_url):
    server = SorobanServer(node_url)
    network = server.get_network()
    assert network.passphrase == PASSPHRASE
    assert network.protocol_version == 28
    assert server.get_health().status == "healthy"
    latest = server.get_latest_ledger()
    assert latest.sequence >= 1 and latest.protocol_version == 28
    info = server.get_version_info()
    assert info.protocol_version == 28
    fees = server.get_fee_stats()
    assert fees.latest_ledger >= 1


def test_fund_pay_and_read_back(node_url):
    server = SorobanServer(node_url)
    with pytest.raises(AccountNotFoundException):
        server.load_account(Keypair.random().public_key)
    a, b = fund(server, node_url), fund(server, node_url)
    tx = (
        TransactionBuilder(server.load_account(a.public_key), PASSPHRASE, base_fee=100)
        .append_payment_op(b.public_key, Asset.native(), "12.5")
        .set_timeout(60)
        .build()
    )
    tx.sign(a)
    sent = server.send_transaction(tx)
    assert sent.status == SendTransactionStatus.PENDING
    done = wait(server, sent.hash)
    assert done.status == GetTransactionStatus.SUCCESS
    assert done.ledger >= 2 and done.application_order >= 1 and done.fee_bump is False
    envelope = TransactionEnvelope.from_xdr(done.envelope_xdr, PASSPHRASE)
    assert envelope.hash_hex() == sent.hash
    # the payment is visible in the receiver's account entry
    entries = server.get_ledger_entries([_account_key(b.public_key)])
    assert len(entries.entries) == 1 and entries.entries[0].last_modified_ledger == done.ledger

    # sent again, the applied transaction is banned for a while, as stellar-core bans it
    again = server.send_transaction(tx)
    assert again.status == SendTransactionStatus.TRY_AGAIN_LATER


def test_bad_sequence_is_error(node_url):
    server = SorobanServer(node_url)
    a = fund(server, node_url)
    account = server.load_account(a.public_key)
    account.increment_sequence_number()
    tx = (
        TransactionBuilder(account, PASSPHRASE, base_fee=100)
        .append_bump_sequence_op(0)
        .set_timeout(60)
        .build()
    )
    tx.sign(a)
    sent = server.send_transaction(tx)
    assert sent.status == SendTransactionStatus.ERROR
    result = TransactionResult.from_xdr(sent.error_result_xdr)
    assert result.result.code == TransactionResultCode.txBAD_SEQ


def test_transactions_and_ledgers_page(node_url):
    server = SorobanServer(node_url)
    fund(server, node_url)
    ledgers = server.get_ledgers(start_ledger=1, limit=2)
    assert [l.sequence for l in ledgers.ledgers] == [1, 2]
    following = server.get_ledgers(cursor=ledgers.cursor, limit=2)
    assert following.ledgers[0].sequence == 3
    txs = server.get_transactions(start_ledger=1, limit=1)
    assert len(txs.transactions) == 1
    nxt = server.get_transactions(cursor=txs.cursor, limit=5)
    assert all(t.transaction_hash != txs.transactions[0].transaction_hash for t in nxt.transactions)


def _account_key(public_key: str):
    from stellar_sdk import xdr as stellar_xdr
    return stellar_xdr.LedgerKey(
        stellar_xdr.LedgerEntryType.ACCOUNT,
        account=stellar_xdr.LedgerKeyAccount(Keypair.from_public_key(public_key).xdr_account_id()),
    )
