#!/usr/bin/env bash
# Builds the console for release into dist/ with trunk (after scripts/setup.sh). Release builds
# rebuild std for size and abort on panic; see CONSOLE_RELEASE_RUSTFLAGS in target/toolchain.env.
# They are also split (src/pages/lazy.rs): crates/wasm-split-link, set as the linker, cuts the
# pages' chunk out of the main module before trunk runs wasm-bindgen, and `xtask finish-dist`
# (crates/xtask) finishes dist/: minified glue, a second binaryen pass, short import names, the
# chunk and its loader, integrity hashes, precompressed siblings.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# The linker step and the finishing steps are native tools of this workspace, built with the
# host's toolchain before the wasm environment (build-std, the wasm target dir) applies, unless
# scripts/test.sh has just built them with everything else.
[ -n "${NATIVE_PROGRAMS_BUILT:-}" ] || cargo build --quiet -p wasm-split-link -p xtask --target-dir target
. target/toolchain.env
export CONSOLE_SPLIT_DIR="$CARGO_TARGET_DIR/wasm-split"
CARGO_UNSTABLE_BUILD_STD=${CONSOLE_RELEASE_BUILD_STD:?target/toolchain.env is out of date: run scripts/setup.sh} \
  CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$CONSOLE_RELEASE_RUSTFLAGS --cfg console_split -C linker=$ROOT/target/debug/wasm-split-link -C link-arg=--emit-relocs" \
  trunk build --release --dist dist "$@"
"$ROOT/target/debug/xtask" finish-dist dist --split "$CONSOLE_SPLIT_DIR" \
  --linked "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/console.wasm"
