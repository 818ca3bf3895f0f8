#!/usr/bin/env bash
# `make test`: the whole suite. Formatting, lints, native unit and sandbox HTTP tests, a release
# wasm build with its size ceiling, and the end-to-end tests in headless Chromium (against the
# release build, then partly against a dev build, where Leptos's warnings also fail them).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step line shows the time since the suite started.
step() { printf "\n==> %s  [%d min %02d s]\n" "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

# No incremental compilation data: a suite builds each crate once, and that data is about a third
# of target/ (2.9 of 8.3 GB after a whole run), which a CI machine's disk may not have to spare.
# `make dev` and a person's own cargo keep theirs.
export CARGO_INCREMENTAL=0

step "setup"
bash scripts/setup.sh

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (native, warnings denied)"
cargo clippy --workspace --all-targets --quiet -- -D warnings

step "native build: the sandbox, the release build's tools and every test, in one cargo invocation"
# Cargo picks a dependency's features from the packages one invocation builds, so `-p sandbox`
# alone would build some 60 crates a second time and `-p xtask` another 20. Built here at once,
# in the dev profile as `cargo test` builds them, they share one set; the scripts below skip
# their own native builds (NATIVE_PROGRAMS_BUILT).
# target/ explicitly, where the scripts and the end-to-end tests look for these programs.
cargo build --workspace --all-targets --quiet --target-dir target
export NATIVE_PROGRAMS_BUILT=1

step "native tests: api-contract, sandbox HTTP, console logic"
cargo test --workspace --quiet --target-dir target

step "schemathesis: the sandbox against its own OpenAPI document"
bash scripts/schemathesis.sh

step "release wasm build (trunk)"
bash scripts/build-console.sh

step "size report (budget: size-budget.json)"
node scripts/size-report.mjs dist

step "end-to-end tests in headless Chromium (and a Firefox smoke run): @playwright/test, playwright.config.mjs"
# Meanwhile the dev build that the last step tests is compiled at the lowest CPU priority: the
# tests spend much of their time waiting on the sandbox's timers, and nice 19 gives the cores
# back to them whenever they want them.
dev_dist=target/test-dev-dist
( . target/toolchain.env && exec nice -n 19 trunk build --dist "$dev_dist" ) > target/dev-build.log 2>&1 &
dev_build=$!
# Should the tests fail, the run still waits for the build rather than leave it writing to target/.
trap 'wait' EXIT
node_modules/.bin/playwright test
step "dev build, compiled beside the end-to-end tests"
wait "$dev_build" || { tail -n 40 target/dev-build.log; echo "the dev build failed (target/dev-build.log)" >&2; exit 1; }
trap - EXIT

step "end-to-end tests against a dev build (Leptos's development warnings fail them): shell, form, bulk"
DEV_DIST_BUILT="$dev_dist" bash scripts/test-e2e-dev.sh tests/e2e/shell.test.mjs tests/e2e/form.test.mjs tests/e2e/bulk.test.mjs
step "done: screenshots in target/screenshots/"
