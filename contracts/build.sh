#!/usr/bin/env bash
# Rebuilds the test contracts into contracts/wasm/*.wasm (committed; tests use those files).
#
# rustup on these machines has only the host target, so this uses Debian's rustc-web toolchain,
# which ships the wasm32 code generators, and builds core/alloc from source (-Zbuild-std):
#   apt-get install -y rustc-web cargo-web rust-web-src lld
# Override the toolchain with WASM_RUSTC / WASM_CARGO (e.g. a rustup toolchain that has the
# wasm32v1-none target: then -Zbuild-std is not needed, set WASM_BUILD_STD=0).
set -euo pipefail
cd "$(dirname "$0")"
RUSTC_BIN="${WASM_RUSTC:-/usr/bin/rustc}"
CARGO_BIN="${WASM_CARGO:-/usr/bin/cargo}"
TARGET_DIR="${LUMEN_CONTRACTS_TARGET_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/lumen-rpc/contracts-target}"
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
mkdir -p wasm
for crate in counter auth caller errors storage registry; do
  cp "$TARGET_DIR/wasm32v1-none/release/lumen_test_${crate}.wasm" "wasm/${crate}.wasm"
done
ls -l wasm
