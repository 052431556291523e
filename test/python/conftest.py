"""Runs lumen-rpc as a process on a free port with a fresh database for the Python SDK tests."""
import json
import os
import socket
import shutil
import subprocess
import tempfile
import time
import urllib.request

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NODE = os.path.join(ROOT, "node_modules", ".bin", "node")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _rpc(url: str, method: str) -> dict:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=2) as res:
        return json.load(res)


@pytest.fixture(scope="session")
def node_url():
    port = _free_port()
    folder = tempfile.mkdtemp(prefix="lumen-rpc-py-")
    db = os.path.join(folder, "node.sqlite")
    proc = subprocess.Popen(
        [NODE, "bin/lumen-rpc.js", "start", "--endpoint", f"127.0.0.1:{port}", "--db-path", db,
         # protocol 28: stellar-sdk 16.1 (PyPI's latest here) has no protocol-30 XDR
         "--close-mode", "instant", "--log-level", "warn", "--protocol", "28"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 20
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"lumen-rpc exited: {proc.stdout.read().decode()}")
        try:
            if "result" in _rpc(url, "getLatestLedger"):
                break
        except OSError:
            pass
        if time.time() > deadline:
            proc.kill()
            raise RuntimeError("lumen-rpc did not start")
        time.sleep(0.05)
    yield url
    proc.terminate()
    proc.wait(timeout=15)
    shutil.rmtree(folder, ignore_errors=True)
