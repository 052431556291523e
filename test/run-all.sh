#!/usr/bin/env bash
# The project's test command (npm test): type check, unit and integration tests (node:test), then the
# ledger snapshot check in Rust (test/rust/ledger-snapshot/run.ts), the XDR JSON check against the Rust
# stellar-xdr crate (test/rust/xdr-oracle/run.ts), then the Python SDK tests (pytest, in a project-local
# virtualenv this script creates). Chromium, for the browser tests, is installed first
# when missing (Debian's package: scripts/install-system-packages.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== system packages"
bash scripts/install-system-packages.sh
echo "== type check"
tsc --noEmit
tsc --noEmit -p web/explorer   # the explorer's browser code (DOM types)
echo "== build"
node scripts/build.ts --quiet
echo "== node tests"
node --test --test-concurrency=2 --test-timeout=300000 'test/unit/**/*.test.ts' 'test/integration/**/*.test.ts'
echo "== ledger snapshot read by soroban-sdk (Rust; builds in the addon's shared target folder)"
node test/rust/ledger-snapshot/run.ts
echo "== XDR JSON of src/xdr against the Rust stellar-xdr crate (test/rust/xdr-oracle; the same target folder)"
node test/rust/xdr-oracle/run.ts
echo "== python tests"
bash test/python/run.sh
