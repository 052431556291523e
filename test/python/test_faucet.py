"""The faucet's funding of contract (C...) addresses, read back through the Python SDK."""
import os

import requests
from stellar_sdk import Asset, Network, SorobanServer, StrKey
from stellar_sdk.soroban_rpc import GetTransactionStatus

STARTING_BALANCE = 10_000 * 10_000_000


def test_contract_address_funding_and_sac_balance(node_url):
    server = SorobanServer(node_url)
    contract = StrKey.encode_contract(os.urandom(32))
    friendbot = server.get_network().friendbot_url
    res = requests.post(friendbot, params={"addr": contract}, timeout=30)
    assert res.status_code == 200, res.text
    assert server.get_transaction(res.json()["hash"]).status == GetTransactionStatus.SUCCESS
    balance = server.get_sac_balance(contract, Asset.native(), Network.STANDALONE_NETWORK_PASSPHRASE)
    assert balance.balance_entry is not None and int(balance.balance_entry.amount) == STARTING_BALANCE

    again = requests.get(friendbot, params={"addr": contract}, timeout=30)
    assert again.status_code == 400 and again.json()["detail"] == "account already funded to starting balance"
    missing = requests.get(friendbot, timeout=30)
    assert missing.status_code == 400 and missing.json()["extras"]["invalid_field"] == "addr"
