#!/usr/bin/env bash
# Installs the Python test packages (the official SDK, pytest, websockets) into a project-local virtualenv
# (once) and runs the Python tests.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import stellar_sdk, pytest, websockets' 2>/dev/null; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --disable-pip-version-check -r test/python/requirements.txt
fi
# the pytest example (examples/pytest) starts the node with this repository's command line
LUMEN_RPC_COMMAND="$PWD/node_modules/.bin/node $PWD/bin/lumen-rpc.js" exec .venv/bin/python -m pytest -q test/python examples/pytest
