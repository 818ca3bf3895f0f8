#!/usr/bin/env bash
# Fuzzes a fresh sandbox against its own /openapi.json with schemathesis (every check, every
# operation, stateful phase included). Rate limits are lifted so the fuzzer reaches the logic.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SANDBOX_BIN:-target/debug/sandbox}
coproc SANDBOX { exec "$bin" --addr 127.0.0.1:0 --queue-ms 20 --process-ms 40 --lease-ms 500 --rate-burst 1000000 --rate-per-sec 100000; }
# bash unsets SANDBOX_PID once the process exits; keep a copy for the trap and wait.
sandbox_pid=$SANDBOX_PID
trap 'kill "$sandbox_pid" 2>/dev/null || true' EXIT
read -r line <&"${SANDBOX[0]}"
url=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["url"])' "$line")
token=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["session_token"])' "$line")
# schemathesis keeps a cache (.schemathesis/) in its working directory: keep it under target/.
mkdir -p target/schemathesis
cd target/schemathesis
../venv/bin/schemathesis run "$url/openapi.json" --url "$url" \
  -H "Authorization: Bearer $token" --checks all --max-examples "${SCHEMATHESIS_EXAMPLES:-40}" \
  --seed 20261120 --no-color
