#!/usr/bin/env bash
# `make test`: the whole suite. Formatting, lints, native unit and sandbox HTTP tests, a release
# wasm build with its size budget, and the end-to-end tests in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }

step "setup"
bash scripts/setup.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (native, warnings denied)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "native tests: api-contract, sandbox HTTP, console logic"
cargo test --workspace --quiet

step "schemathesis: the sandbox against its own OpenAPI document"
cargo build -p sandbox --quiet
bash scripts/schemathesis.sh

step "release wasm build (trunk)"
bash scripts/build-console.sh

step "size report (budget 180 KB gzip)"
node scripts/size-report.mjs dist 180000

step "end-to-end tests in headless Chromium"
node --test --test-concurrency=1 tests/e2e/
echo "screenshots: target/screenshots/"
