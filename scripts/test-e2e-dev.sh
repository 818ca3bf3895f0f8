#!/usr/bin/env bash
# The end-to-end tests against a development build of the console (debug assertions on), which
# also fail on Leptos's development warnings (a signal read outside a tracking context, a
# disposed signal, …). Usage: bash scripts/test-e2e-dev.sh [test files...] (default: all but
# chunks, serve and nginx, which test the release build's split and precompressed files).
set -euo pipefail
cd "$(dirname "$0")/.."
# The sandbox is a native program: built before the wasm environment (its target dir, build-std)
# applies, into target/debug where the tests start it (unless scripts/test.sh has just built it).
[ -n "${NATIVE_PROGRAMS_BUILT:-}" ] || cargo build -p sandbox --quiet
. target/toolchain.env
# A folder of its own: the release build in dist/ stays as it is, and so does target/dev-dist,
# which a running `make dev` (trunk serve) is serving. scripts/test.sh builds it beforehand,
# beside the release build's tests, and says so with DEV_DIST_BUILT.
dev_dist=target/test-dev-dist
if [ "${DEV_DIST_BUILT:-}" != "$dev_dist" ]; then
  trunk build --dist "$dev_dist"
fi
if [ "$#" -eq 0 ]; then
  set -- $(ls tests/e2e/*.test.mjs | grep -v -e '/chunks\.test\.mjs$' -e '/serve\.test\.mjs$' -e '/nginx\.test\.mjs$')
fi
# The runner takes its arguments as filters and skips one that matches nothing: a file that is
# not there must fail here instead.
for file in "$@"; do
  [ -f "$file" ] || { echo "test-e2e-dev.sh: no test file $file" >&2; exit 1; }
done
CONSOLE_DIST="$dev_dist" node_modules/.bin/playwright test "$@"
