"""pytest fixtures for a project that tests against lumen-rpc: one network per test session, started
with the command line (`npx lumen-rpc start`, or the command in $LUMEN_RPC_COMMAND), and each test
isolated by a snapshot before it and a revert after it."""
import json
import os
import shlex
import socket
import shutil
import subprocess
import tempfile
import time
import urllib.request

import pytest

COMMAND = shlex.split(os.environ.get("LUMEN_RPC_COMMAND", "npx lumen-rpc"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rpc(url: str, method: str, params: dict | None = None):
    """One JSON-RPC call: its result; a JSON-RPC error raises."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method}
    if params is not None:
        body["params"] = params
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as res:
        answer = json.load(res)
    if "error" in answer:
        raise RuntimeError(f"{method}: {answer['error']}")
    return answer["result"]


@pytest.fixture(scope="session")
def network():
    """The network's URL. Protocol 28: stellar-sdk 16.1 (PyPI's latest here) has no protocol-30 XDR."""
    port = _free_port()
    folder = tempfile.mkdtemp(prefix="lumen-rpc-pytest-")
    proc = subprocess.Popen(
        [*COMMAND, "start", "--endpoint", f"127.0.0.1:{port}", "--db-path", os.path.join(folder, "network.sqlite"),
         "--close-mode", "instant", "--accounts", "2", "--protocol", "28", "--log-level", "warn"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"lumen-rpc exited: {proc.stderr.read().decode()}")
        try:
            rpc(url, "getHealth")
            break
        except OSError:
            if time.time() > deadline:
                proc.kill()
                raise RuntimeError("lumen-rpc did not start in 60 s")
            time.sleep(0.1)
    yield url
    proc.terminate()
    proc.wait(timeout=15)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def isolated(network):
    """The network, as it was before the test once the test ends (lumen_snapshot, lumen_revert)."""
    snapshot = rpc(network, "lumen_snapshot")
    yield network
    rpc(network, "lumen_revert", {"id": snapshot["id"]})
