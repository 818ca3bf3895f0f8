#!/usr/bin/env bash
# `make demo`: builds the console, starts the sandbox serving it on one origin, and prints the
# URL and the sandbox credentials. Ctrl-C stops it. SANDBOX_ADDR overrides 127.0.0.1:8787.
set -euo pipefail
cd "$(dirname "$0")/.."
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
python3 - "$line" <<'PY'
import json, sys
info = json.loads(sys.argv[1])
print()
print("  Console:        " + info["url"])
print("  API base URL:   " + info["url"] + "  (the console's own origin; leave the field empty)")
for ws in info["workspaces"]:
    print()
    print("  Workspace " + ws["name"] + " (" + ws["workspace_id"] + ")")
    print("    API key:        " + ws["api_key"])
    print("    Session token:  " + ws["session_token"])
    print("                    (account " + ws["account"] + "; needed for API key management)")
print()
print("  Saved to target/sandbox-credentials.json. Ctrl-C stops the sandbox.")
PY
wait "$sandbox_pid" || true
