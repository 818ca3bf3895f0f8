#!/usr/bin/env bash
# `make demo`: builds the console, starts the sandbox serving it on one origin, and prints the
# URL and the sandbox credentials. Ctrl-C stops it. SANDBOX_ADDR overrides 127.0.0.1:8787.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/sandbox-sign-in.sh
bash scripts/setup.sh
bash scripts/build-console.sh
cargo build --release -p sandbox --quiet
addr=${SANDBOX_ADDR:-127.0.0.1:8787}
coproc SANDBOX { exec target/release/sandbox --addr "$addr" --dist dist; }
# bash unsets SANDBOX_PID once the process exits; keep a copy for the trap and wait.
sandbox_pid=$SANDBOX_PID
trap 'kill "$sandbox_pid" 2>/dev/null || true' EXIT INT TERM
read -r line <&"${SANDBOX[0]}"
echo "$line" > target/sandbox-credentials.json
print_sign_in "{url}" "{url}  (the console's own origin; leave the field empty)"
echo "  Saved to target/sandbox-credentials.json. Ctrl-C stops the sandbox."
wait "$sandbox_pid" || true
