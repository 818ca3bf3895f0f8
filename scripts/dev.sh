#!/usr/bin/env bash
# `make dev`: the live-reloading console. Starts the sandbox's API on 127.0.0.1:8787 (unless
# something already answers there), prints its credentials, then runs `trunk serve` on
# http://127.0.0.1:8080, which rebuilds on every change into target/dev-dist and proxies /v1 to
# the sandbox. Ctrl-C stops both. The release build in dist/ is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/sandbox-sign-in.sh
bash scripts/setup.sh
# Trunk.toml's [[proxy]] and [serve] fix both addresses.
api=127.0.0.1:8787
console=http://127.0.0.1:8080

answers() { curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null; }

pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT INT TERM
if answers "http://$api/v1/actions"; then
  echo "  An API already answers at http://$api/v1: using it. Its credentials are the ones it"
  echo "  printed on start (target/sandbox-credentials.json when make demo or make dev started it)."
else
  # Built before target/toolchain.env points cargo at the wasm build's target folder.
  cargo build -p sandbox --quiet
  coproc SANDBOX { exec target/debug/sandbox --addr "$api"; }
  pids+=("$SANDBOX_PID")
  read -r line <&"${SANDBOX[0]}"
  echo "$line" > target/sandbox-credentials.json
fi

summary() {
  [ -s target/sandbox-credentials.json ] || return 0
  print_sign_in "$console  (trunk serve; /v1 proxied to {url})" "leave the field empty (the console's own origin)"
}
summary
echo "  trunk builds the console first, then serves it; the summary is repeated when it is ready."

# Repeat the summary once the console answers, after trunk's build log.
(
  until answers "$console/"; do sleep 0.5; done
  summary
  echo "  Ready. Edits rebuild and reload the page. Ctrl-C stops trunk and the sandbox."
) &
pids+=("$!")

. target/toolchain.env
trunk serve
