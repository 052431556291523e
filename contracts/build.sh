#!/usr/bin/env bash
# Rebuilds the test contracts into contracts/wasm/*.wasm (committed; tests use those files).
# `./build.sh` builds both workspaces; `./build.sh p28` or `./build.sh p30` just one.
#
# --- p28: the contracts in this folder (soroban-sdk 28) ---
# rustup on these machines has only the host target, so this uses Debian's rustc-web toolchain,
# which ships the wasm32 code generators, and builds core/alloc from source (-Zbuild-std):
#   apt-get install -y rustc-web cargo-web rust-web-src lld
# Override the toolchain with WASM_RUSTC / WASM_CARGO (e.g. a rustup toolchain that has the
# wasm32v1-none target: then -Zbuild-std is not needed, set WASM_BUILD_STD=0).
set -euo pipefail
cd "$(dirname "$0")"
WHICH="${1:-all}"
case "$WHICH" in all|p28|p30) ;; *) echo "usage: $0 [p28|p30]" >&2; exit 2 ;; esac
TARGET_BASE="${LUMEN_CONTRACTS_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lumen-rpc/contracts-target}"
mkdir -p wasm

if [ "$WHICH" != p30 ]; then
RUSTC_BIN="${WASM_RUSTC:-/usr/bin/rustc}"
CARGO_BIN="${WASM_CARGO:-/usr/bin/cargo}"
TARGET_DIR="$TARGET_BASE"
BUILD_STD=()
if [ "${WASM_BUILD_STD:-1}" = "1" ]; then BUILD_STD=(-Zbuild-std=core,alloc); fi
for tool in "$RUSTC_BIN" "$CARGO_BIN"; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y rustc-web cargo-web rust-web-src lld)" >&2; exit 1; }
done
# soroban-sdk 28 refuses wasm builds outside stellar-cli, which afterwards strips the spec entries
# of types no contract boundary uses ("spec shaking"). Without the CLI the contractspecv0 section
# keeps them (the SDK's own auth-context types, ~3 KB): every function entry is still exact, clients
# just see a few unused type definitions. The host never reads the spec.
SOROBAN_SDK_BUILD_SYSTEM_SUPPORTS_SPEC_SHAKING_V2=1 \
RUSTC="$RUSTC_BIN" RUSTC_BOOTSTRAP=1 RUSTFLAGS="-C linker=wasm-ld" CARGO_TARGET_DIR="$TARGET_DIR" \
  "$CARGO_BIN" build --locked --release --target wasm32v1-none "${BUILD_STD[@]}"
for crate in counter auth caller errors storage registry; do
  cp "$TARGET_DIR/wasm32v1-none/release/lumen_test_${crate}.wasm" "wasm/${crate}.wasm"
done
fi

# --- p30: the contracts in p30/ (soroban-sdk 30, its own workspace and Cargo.lock) ---
# soroban-sdk 30 needs rustc 1.91+: rustup's stable toolchain with its wasm32v1-none target
#   rustup target add wasm32v1-none
# (override with P30_RUSTC / P30_CARGO). That target's standard library is prebuilt and rust-lld is
# its default linker, so neither -Zbuild-std nor a system wasm-ld is needed.
if [ "$WHICH" != p28 ]; then
P30_RUSTC_BIN="${P30_RUSTC:-$(rustup which --toolchain stable rustc)}"
P30_CARGO_BIN="${P30_CARGO:-$(rustup which --toolchain stable cargo)}"
# A target folder apart from p28's: another compiler and other dependency versions.
P30_TARGET_DIR="${TARGET_BASE}-p30"
# soroban-sdk 30 refuses wasm builds unless the build system says it is stellar-cli 30+
# (STELLAR_CLI_VERSION), because the CLI shakes the spec afterwards: it keeps what the functions
# refer to and shortens the SDK's full-path type names. Built without it, the contractspecv0 section
# keeps the SDK's unused auth types under their full paths; every function entry is still exact
# (they name only built-in types), and the host never reads the spec.
(
  cd p30
  STELLAR_CLI_VERSION=30.0.0 RUSTC="$P30_RUSTC_BIN" CARGO_TARGET_DIR="$P30_TARGET_DIR" \
    "$P30_CARGO_BIN" build --locked --release --target wasm32v1-none
)
for crate in mldsa; do
  cp "$P30_TARGET_DIR/wasm32v1-none/release/lumen_test_${crate}.wasm" "wasm/${crate}.wasm"
done
fi
ls -l wasm
