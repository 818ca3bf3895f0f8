#!/usr/bin/env bash
# Load benchmark of the sandbox on loopback (not part of the test suite's pass/fail).
# Reports requests/s and latency percentiles for GET /v1/runs/{id} and async submissions
# (wrk, 10 s each, 2 threads, 32 connections), then submits 2,000 runs at once and measures
# how long the last one takes to finish compared with a single run's nominal time.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
cargo build --release -p sandbox --quiet
coproc SANDBOX { exec target/release/sandbox --addr 127.0.0.1:0 --queue-ms 200 --process-ms 800 --rate-burst 100000000 --rate-per-sec 100000000 --credits 1000000000000; }
# bash unsets SANDBOX_PID once the process exits; keep a copy for the trap and wait.
sandbox_pid=$SANDBOX_PID
trap 'kill "$sandbox_pid" 2>/dev/null || true' EXIT
read -r line <&"${SANDBOX[0]}"
url=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["url"])' "$line")
key=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["api_key"])' "$line")
run_id=$(curl -s -X POST "$url/v1/actions/premium-search-people/run/live" -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/json' -H 'Idempotency-Key: bench-seed-run' -d '{"input":{"keywords":"bench"},"max_results":20}' \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')

lua=$(mktemp)
cat > "$lua" <<LUA
counter = 0
request = function()
  counter = counter + 1
  local key = string.format("bench-%d-%d-%d", os.time(), math.random(1, 1000000000), counter)
  return wrk.format("POST", nil, {
    ["Authorization"] = "Bearer $key",
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = key,
  }, '{"input":{"keywords":"bench"},"max_results":5}')
end
LUA
echo "== GET /v1/runs/{id} (20 records)"
wrk -t2 -c32 -d10s --latency -H "Authorization: Bearer $key" "$url/v1/runs/$run_id" | grep -E 'Requests/sec|Latency  |  50%|  99%|Non-2xx'
echo "== POST /v1/actions/premium-search-people/run/async (a new run each)"
wrk -t2 -c32 -d10s --latency -s "$lua" "$url/v1/actions/premium-search-people/run/async" | grep -E 'Requests/sec|Latency  |  50%|  99%|Non-2xx'
rm -f "$lua"

echo "== 2000 concurrent runs (queue 200 ms + processing 800 ms each)"
python3 - "$url" "$key" <<'PY'
import json, sys, time, urllib.request
from concurrent.futures import ThreadPoolExecutor
url, key = sys.argv[1], sys.argv[2]
def call(method, path, body=None, idem=None):
    req = urllib.request.Request(url + path, method=method, data=body and json.dumps(body).encode())
    req.add_header("Authorization", "Bearer " + key)
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if idem:
        req.add_header("Idempotency-Key", idem)
    with urllib.request.urlopen(req) as r:
        return json.load(r)
start = time.time()
with ThreadPoolExecutor(32) as pool:
    ids = list(pool.map(lambda i: call("POST", "/v1/actions/network-search-groups/run/async",
        {"input": {"query": f"q{i}"}, "max_results": 1}, f"starve-{int(start * 1000)}-{i}")["id"], range(2000)))
submitted = time.time() - start
pending = set(ids)
while pending and time.time() - start < 60:
    with ThreadPoolExecutor(32) as pool:
        states = dict(zip(pending, pool.map(lambda i: call("GET", f"/v1/runs/{i}")["status"], list(pending))))
    pending = {i for i, s in states.items() if s in ("queued", "processing")}
    time.sleep(0.1)
total = time.time() - start
print(f"submitted 2000 runs in {submitted:.2f} s; all terminal after {total:.2f} s "
      f"(nominal 1.0 s per run); still running: {len(pending)}")
PY
