#!/usr/bin/env bash
# The Debian packages the tests need beyond what npm and cargo install: Chromium, for the browser tests
# (test/integration/browserAttack.test.ts drives it with playwright-core, whose own browser download
# cannot work on machines without general internet access). Skipped when already there; needs root
# (or sudo) otherwise. A browser named by CHROMIUM_PATH (Chrome on macOS, say) is used instead.
set -euo pipefail
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "$CHROMIUM_PATH" ]; then
  exit 0
fi
if command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ]; then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install Chromium with your system's package manager (the browser tests need it), or set CHROMIUM_PATH" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
