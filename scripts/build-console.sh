#!/usr/bin/env bash
# Builds the console for release into dist/ with trunk (after scripts/setup.sh). Release builds
# rebuild std for size and abort on panic; see CONSOLE_RELEASE_RUSTFLAGS in target/toolchain.env.
set -euo pipefail
cd "$(dirname "$0")/.."
. target/toolchain.env
CARGO_UNSTABLE_BUILD_STD_FEATURES=optimize_for_size \
  CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$CONSOLE_RELEASE_RUSTFLAGS" \
  trunk build --release --dist dist "$@"
node scripts/finish-dist.mjs dist
