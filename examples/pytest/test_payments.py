"""Payments between the network's two test accounts (SEP-5 keys of the public test mnemonic): each test
starts from the genesis balances, whatever the test before it sent."""
import time

from stellar_sdk import Asset, Keypair, SorobanServer, TransactionBuilder, xdr

MNEMONIC = "test test test test test test test test test test test junk"
GENESIS = 10_000 * 10_000_000
ALICE, BOB = (Keypair.from_mnemonic_phrase(MNEMONIC, index=i) for i in range(2))


def balance(server: SorobanServer, account: Keypair) -> int:
    key = xdr.LedgerKey(xdr.LedgerEntryType.ACCOUNT, account=xdr.LedgerKeyAccount(account.xdr_account_id()))
    entry = server.get_ledger_entries([key]).entries[0]
    return xdr.LedgerEntryData.from_xdr(entry.xdr).account.balance.int64


def pay(server: SorobanServer, amount: str) -> str:
    tx = (TransactionBuilder(server.load_account(ALICE.public_key), server.get_network().passphrase, base_fee=100)
          .append_payment_op(BOB.public_key, Asset.native(), amount).set_timeout(30).build())
    tx.sign(ALICE)
    sent = server.send_transaction(tx)
    for _ in range(200):
        got = server.get_transaction(sent.hash)
        if got.status.value != "NOT_FOUND":
            return got.status.value
        time.sleep(0.05)
    return "NOT_FOUND"


def test_a_payment_reaches_bob(isolated):
    server = SorobanServer(isolated)
    assert pay(server, "100") == "SUCCESS"
    assert balance(server, BOB) == GENESIS + 100 * 10_000_000


def test_the_next_test_starts_from_genesis(isolated):
    assert balance(SorobanServer(isolated), BOB) == GENESIS
