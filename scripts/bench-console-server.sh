#!/usr/bin/env bash
# What console-server adds in front of an API (not part of the test suite; no time is asserted).
# The sandbox and console-server, both built with the `server` profile as deployed, on loopback;
# the same load sent straight to the sandbox, through console-server, and, when nginx is
# installed, through nginx with docs/hosting.md's /v1 location as printed (its route map, and its
# connections to the API kept open by its `upstream` block). The paths take turns, in an
# order rotated each round, so that a noisy neighbour hits each alike; medians are reported.
#   1. wrk, 2 threads, 32 connections, BENCH_SECONDS (10) s each: GET /v1/runs/{id} (a run of 20
#      records) and async submissions (POST /v1/actions/premium-search-people/run/async, a new
#      Idempotency-Key each): requests/s, p50 and p99; the ratio to the direct path (aim ≥ 0.9)
#      and the p50 added (aim < 1 ms); the CPU each server spent per request (/proc/PID/stat),
#      which is what sets the ratio when wrk and the servers share a few cores.
#   2. The same with 1 connection (BENCH_SINGLE_SECONDS, 5 s each): the latency a hop adds when
#      no request waits for a core.
#   3. BENCH_HELD (1,000) live submissions held open at once through console-server, then nginx
#      (the sandbox keeps each run queued BENCH_HOLD_MS, 20 s): the forwarder's RSS (VmRSS) before,
#      while all are held (checked: the sandbox has that many credits reserved, one a run, and the
#      forwarder that many connections to it) and after; KB per held request.
# Prints Markdown tables (scripts/bench.sh puts them in docs/benchmarks.md), progress on stderr;
# raw numbers in target/bench/console-server.json.
# BENCH_ROUNDS (3) rounds; about 8 minutes with the defaults, after the build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
rounds=${BENCH_ROUNDS:-3}
secs=${BENCH_SECONDS:-10}
single_secs=${BENCH_SINGLE_SECONDS:-5}
held=${BENCH_HELD:-1000}
hold_ms=${BENCH_HOLD_MS:-20000}
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
cargo build --profile server -p console-server -p sandbox --target-dir target --quiet
bin=target/server
nginx_bin=${NGINX:-/usr/sbin/nginx}
[[ -x $nginx_bin && ${BENCH_NGINX:-1} != 0 ]] || nginx_bin=

# Every held request is a socket at the client, two at the forwarder (browser side, API side) and
# one at the sandbox; children inherit this limit.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [[ $(ulimit -n) != unlimited ]] && (( $(ulimit -n) < 2 * held + 200 )); then
  echo "bench-console-server: ulimit -n is $(ulimit -n); $held held requests need $((2 * held + 200)) (raise the hard limit)" >&2
  exit 1
fi

mkdir -p target/bench
work=$(mktemp -d)
chmod 755 "$work" # nginx's workers run as nobody when the master runs as root
pids=() # the servers this script started and has not stopped yet
stop() { # stop PID…: ends them and forgets them
  local pid left=()
  kill "$@" 2>/dev/null || true
  for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do [[ " $* " == *" $pid "* ]] || left+=("$pid"); done
  pids=("${left[@]}")
}
cleanup() {
  (( ${#pids[@]} )) && stop "${pids[@]}"
  rm -rf "$work"
}
trap cleanup EXIT

# A console to serve: the release build, or a stand-in page (the bench never asks for it).
dist=dist
if [[ ! -f dist/index.html ]]; then
  dist=$work/dist
  mkdir -p "$dist"
  echo '<!doctype html><title>console</title>' > "$dist/index.html"
fi

json_field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
# The first line a server prints (its JSON start-up line), once it is there.
first_line() {
  local file=$1 pid=$2 i
  for i in $(seq 200); do
    [[ -s $file ]] && { head -1 "$file"; return; }
    kill -0 "$pid" 2>/dev/null || { echo "bench-console-server: $file: the server exited" >&2; return 1; }
    sleep 0.05
  done
  echo "bench-console-server: no start-up line in $file" >&2
  return 1
}

# start_sandbox NAME ARGS…: sets sandbox_pid, sandbox_url, sandbox_key.
start_sandbox() {
  local name=$1
  shift
  "$bin/sandbox" --addr 127.0.0.1:0 --rate-burst 100000000 --rate-per-sec 100000000 --credits 1000000000000 "$@" \
    >"$work/$name.out" 2>"$work/$name.err" &
  sandbox_pid=$!
  pids+=("$sandbox_pid")
  local line
  line=$(first_line "$work/$name.out" "$sandbox_pid")
  sandbox_url=$(json_field "$line" url)
  sandbox_key=$(json_field "$line" api_key)
}

# start_console_server NAME UPSTREAM: sets cs_pid, cs_url. Its access log (a line a request, on
# stderr) goes to a file, as a service manager would keep it (deleted at the end, like nginx's).
start_console_server() {
  "$bin/console-server" --upstream "$2" --addr 127.0.0.1:0 --dist "$dist" \
    >"$work/$1.out" 2>"$work/$1.log" &
  cs_pid=$!
  pids+=("$cs_pid")
  cs_url=$(json_field "$(first_line "$work/$1.out" "$cs_pid")" url)
}

# start_nginx NAME UPSTREAM: sets nginx_pid (the master), nginx_url. The server block is
# docs/hosting.md's `location ^~ /v1/ { … }` as printed, with what it needs from before its
# `server {` (the route map, the answers' map, the `upstream` block that keeps connections to the
# API open), the API's address replaced; the access log on, as nginx has it by default.
start_nginx() {
  local name=$1 upstream=$2 prefix=$work/$1
  mkdir -p "$prefix"
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  python3 - "$root/docs/hosting.md" "$upstream" "$port" "$prefix" "$held" "$prefix/access.log" "$nginx_bin" \
    > "$prefix/nginx.conf" <<'PY'
import re, subprocess, sys
doc, upstream, port, prefix, held, access, nginx = sys.argv[1:]
block = re.search(r"^```nginx\n(.*?)^```", open(doc).read(), re.S | re.M).group(1)
location = re.search(r"^( *)location \^~ /v1/ \{\n.*?^\1\}\n", block, re.S | re.M)
before_server = block[: block.index("\nserver {")]
if not location or "proxy_pass https://provider_api;" not in location.group(0) \
        or "server api.provider.example:443;" not in before_server:
    sys.exit("bench-console-server: docs/hosting.md's nginx block no longer has `upstream provider_api { server "
             "api.provider.example:443; … }` and `location ^~ /v1/ { proxy_pass https://provider_api; … }`")
host = upstream.removeprefix("http://")
def api_here(text):
    return (text.replace("server api.provider.example:443;", f"server {host};")
                .replace("proxy_pass https://provider_api;", "proxy_pass http://provider_api;")
                .replace("api.provider.example", host))
location = api_here(location.group(0))
upstream_block = api_here(before_server) + "\n"
build = subprocess.run([nginx, "-V"], capture_output=True, text=True).stderr
temps = [m for m in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
         if m in ("client_body", "proxy") or f"--without-http_{m}_module" not in build]
conns = 2 * int(held) + 512
print(f"""worker_processes auto;
worker_rlimit_nofile {2 * conns};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections {conns}; }}
http {{
    access_log {access};
""" + "".join(f"    {m}_temp_path {prefix}/{m};\n" for m in temps) + upstream_block + f"""    server {{
        listen 127.0.0.1:{port};
{location}    }}
}}""")
PY
  "$nginx_bin" -t -q -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" \
    || { cat "$prefix/nginx.conf" >&2; return 1; }
  "$nginx_bin" -p "$prefix" -c "$prefix/nginx.conf" -e "$prefix/error.log" -g 'daemon off;' &
  nginx_pid=$!
  pids+=("$nginx_pid")
  nginx_url=http://127.0.0.1:$port
  local i
  for i in $(seq 100); do
    curl -s -o /dev/null "$nginx_url/v1/actions" && return
    sleep 0.05
  done
  echo "bench-console-server: nginx did not answer on $nginx_url" >&2
  cat "$prefix/error.log" >&2
  return 1
}

# A process and its children, grandchildren…, as PIDs (nginx's workers are the master's children),
# for the Python of cpu_ms and hold, which import it with PYTHONPATH=$work.
cat > "$work/process_tree.py" <<'PY'
import os

def tree(pid):
    yield pid
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            for child in open(f"/proc/{pid}/task/{task}/children").read().split():
                yield from tree(child)
    except OSError:
        pass
PY

# CPU time in ms, user and system, of a process and its children (nginx's workers).
cpu_ms() {
  PYTHONPATH=$work python3 - "$@" <<'PY'
import os, sys
from process_tree import tree
hz = os.sysconf("SC_CLK_TCK")
user = system = 0
for pid in sys.argv[1:]:
    for p in tree(pid):
        try:
            fields = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            user, system = user + int(fields[11]), system + int(fields[12])
        except OSError:
            pass
print(user * 1000 // hz, system * 1000 // hz)
PY
}

# ---- 1 and 2: throughput and latency, each path in turn --------------------------------------
start_sandbox sandbox --queue-ms 200 --process-ms 800
start_console_server console-server "$sandbox_url"
declare -A url=([direct]=$sandbox_url [console-server]=$cs_url)
declare -A forwarder_pid=([direct]= [console-server]=$cs_pid)
paths=(direct console-server)
if [[ -n $nginx_bin ]]; then
  start_nginx nginx "$sandbox_url"
  url[nginx]=$nginx_url
  forwarder_pid[nginx]=$nginx_pid
  paths+=(nginx)
fi
key=$sandbox_key
run=$(curl -sf -X POST "$sandbox_url/v1/actions/premium-search-people/run/live" -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/json' -H 'Idempotency-Key: bench-seed-run' -d '{"input":{"keywords":"bench"},"max_results":20}')
run_id=$(json_field "$run" id)
for p in "${paths[@]}"; do # each path answers the same run, and a submission
  curl -sf -o /dev/null -H "Authorization: Bearer $key" "${url[$p]}/v1/runs/$run_id"
  curl -sf -o /dev/null -X POST "${url[$p]}/v1/actions/premium-search-people/run/async" -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' -H "Idempotency-Key: bench-check-$p" -d '{"input":{"keywords":"bench"},"max_results":5}'
done
run_bytes=$(curl -s -H "Authorization: Bearer $key" "$sandbox_url/v1/runs/$run_id" | wc -c)

report='
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRK {\"requests\":%d,\"duration_us\":%d,\"p50_us\":%d,\"p99_us\":%d,\"mean_us\":%.1f,\"non2xx\":%d,\"socket_errors\":%d}\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), latency.mean,
    e.status, e.connect + e.read + e.write + e.timeout))
end'
echo "$report" > "$work/get.lua"
cat > "$work/post.lua" <<LUA
-- A new Idempotency-Key for every submission: thread number and counter, unique in the bench.
local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("POST", nil, {
    ["Authorization"] = "Bearer $key",
    ["Content-Type"] = "application/json",
    ["Idempotency-Key"] = string.format("bench-%s-%d-%d", label, tid, counter),
  }, '{"input":{"keywords":"bench"},"max_results":5}')
end
init = function(args) label = args[1] end
$report
LUA

results=$work/results.jsonl
: > "$results"
# load ROUND MODE KIND PATH: one wrk run, with the CPU each server spent meanwhile.
load() {
  local round=$1 mode=$2 kind=$3 path=$4 target=${url[$4]} threads=2 conns=32 seconds=$secs
  [[ $mode == single ]] && { threads=1; conns=1; seconds=$single_secs; }
  local fpid=${forwarder_pid[$path]:-} sandbox_before forwarder_before="0 0" out
  sandbox_before=$(cpu_ms "$sandbox_pid")
  [[ -n $fpid ]] && forwarder_before=$(cpu_ms "$fpid")
  if [[ $kind == get ]]; then
    out=$(wrk -t$threads -c$conns -d${seconds}s -s "$work/get.lua" -H "Authorization: Bearer $key" "$target/v1/runs/$run_id")
  else
    out=$(wrk -t$threads -c$conns -d${seconds}s -s "$work/post.lua" "$target/v1/actions/premium-search-people/run/async" \
      -- "r$round-$mode-$path-$(date +%s%N)")
  fi
  local sandbox_after forwarder_after="0 0" line
  sandbox_after=$(cpu_ms "$sandbox_pid")
  [[ -n $fpid ]] && forwarder_after=$(cpu_ms "$fpid")
  line=$(grep '^WRK ' <<<"$out") || { echo "$out" >&2; return 1; }
  python3 - "$line" "$round" "$mode" "$kind" "$path" "$sandbox_before" "$sandbox_after" "$forwarder_before" "$forwarder_after" \
    >> "$results" <<'PY'
import json, sys
line, round_, mode, kind, path, sb0, sb1, fw0, fw1 = sys.argv[1:]
d = json.loads(line[4:])
delta = lambda a, b: [int(y) - int(x) for x, y in zip(a.split(), b.split())]
(d["sandbox_user_ms"], d["sandbox_system_ms"]), (d["forwarder_user_ms"], d["forwarder_system_ms"]) = delta(sb0, sb1), delta(fw0, fw1)
d.update(round=int(round_), mode=mode, kind=kind, path=path)
print(json.dumps(d))
d["rps"] = d["requests"] / d["duration_us"] * 1e6
print("  round {round} {mode:6} {kind:4} {path:15} {rps:,.0f} req/s, p50 {p50_us} µs, p99 {p99_us} µs, non-2xx {non2xx}".format_map(d), file=sys.stderr)
PY
}

echo "bench-console-server: $rounds rounds of ${paths[*]} (wrk ${secs} s at 32 connections, ${single_secs} s at 1), then $held held live requests" >&2
for round in $(seq "$rounds"); do
  # This round's order: the paths rotated by one each round.
  order=("${paths[@]:$(( (round - 1) % ${#paths[@]} ))}" "${paths[@]:0:$(( (round - 1) % ${#paths[@]} ))}")
  for mode in loaded single; do
    for kind in get post; do
      for p in "${order[@]}"; do load "$round" "$mode" "$kind" "$p"; done
    done
  done
done
stopping=("$sandbox_pid")
for p in "${paths[@]}"; do [[ -n ${forwarder_pid[$p]} ]] && stopping+=("${forwarder_pid[$p]}"); done
stop "${stopping[@]}"

# ---- 3: memory with live requests held open ---------------------------------------------------
start_sandbox sandbox-held --queue-ms "$hold_ms" --process-ms 500 --lease-ms $(( hold_ms * 3 ))
start_console_server console-server-held "$sandbox_url"
held_results=$work/held.jsonl
: > "$held_results"
hold() { # hold PATH URL PID…
  PYTHONPATH=$work python3 - "$1" "$2" "$sandbox_url" "$sandbox_key" "$held" "$hold_ms" "${@:3}" >> "$held_results" <<'PY'
import asyncio, json, os, sys, time, urllib.request
from process_tree import tree
path, target, sandbox, key, n, hold_ms, *pids = sys.argv[1:]
n, hold_ms = int(n), int(hold_ms)
host, port = target.removeprefix("http://").split(":")
sandbox_port = int(sandbox.rsplit(":", 1)[1])

def status_kb(field):
    total = 0
    for pid in pids:
        for p in tree(pid):
            for line in open(f"/proc/{p}/status"):
                if line.startswith(field + ":"):
                    total += int(line.split()[1])
    return total

def reserved():
    req = urllib.request.Request(sandbox + "/v1/workspace", headers={"Authorization": "Bearer " + key})
    with urllib.request.urlopen(req) as r:
        return json.load(r)["credits_reserved"]

def connections_to_sandbox():
    # The forwarder's established TCP connections whose far end is the sandbox's port.
    sockets = set()
    for pid in pids:
        for p in tree(pid):
            for fd in os.listdir(f"/proc/{p}/fd"):
                try:
                    target = os.readlink(f"/proc/{p}/fd/{fd}")
                except OSError:
                    continue
                if target.startswith("socket:["):
                    sockets.add(target[8:-1])
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if f[3] == "01" and int(f[2].rsplit(":", 1)[1], 16) == sandbox_port and f[9] in sockets:
                count += 1
    return count

async def call(method, path_, body=None, idem=None):
    reader, writer = await asyncio.open_connection(host, int(port))
    data = json.dumps(body).encode() if body is not None else b""
    head = f"{method} {path_} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {key}\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
    if idem:
        head += f"Idempotency-Key: {idem}\r\n"
    writer.write((head + "Connection: close\r\n\r\n").encode() + data)
    await writer.drain()
    status = int((await reader.readline()).split()[1])
    headers = {}
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        headers[name.strip().lower()] = value.strip()
    payload = await reader.readexactly(int(headers.get("content-length", 0)))
    writer.close()
    return status, payload

async def main():
    loop = asyncio.get_running_loop()
    status, _ = await call("GET", "/v1/workspace")  # the forwarder's first request: pools made
    assert status == 200, status
    reserved_before = await loop.run_in_executor(None, reserved)
    await asyncio.sleep(1)
    before_kb = status_kb("VmRSS")
    stamp = time.time_ns()
    started = time.monotonic()
    tasks = [asyncio.create_task(call("POST", "/v1/actions/premium-search-people/run/live",
                                      {"input": {"keywords": "held"}, "max_results": 1},
                                      f"held-{path}-{stamp}-{i}")) for i in range(n)]
    # Held: every run queued at the sandbox (one credit reserved each), none answered yet.
    in_flight = 0
    while time.monotonic() - started < hold_ms / 2000:
        in_flight = await loop.run_in_executor(None, reserved) - reserved_before
        if in_flight >= n:
            break
        await asyncio.sleep(0.1)
    all_held_after = time.monotonic() - started
    samples = []
    for _ in range(5):
        samples.append(status_kb("VmRSS"))
        await asyncio.sleep(0.2)
    upstream_connections = connections_to_sandbox()
    answered_while_held = sum(t.done() for t in tasks)
    held_kb = max(samples)
    answers = await asyncio.gather(*tasks, return_exceptions=True)
    finished_after = time.monotonic() - started
    ok = sum(1 for a in answers if not isinstance(a, BaseException) and a[0] == 200
             and json.loads(a[1]).get("status") == "completed")
    await asyncio.sleep(1)
    after_kb = status_kb("VmRSS")
    await asyncio.sleep(5)
    after_later_kb = status_kb("VmRSS")
    print(json.dumps({
        "path": path, "requests": n, "before_kb": before_kb, "held_kb": held_kb,
        "held_samples_kb": samples, "after_kb": after_kb, "after_5s_kb": after_later_kb,
        "peak_kb": status_kb("VmHWM"), "runs_queued_at_sandbox": in_flight,
        "connections_to_sandbox": upstream_connections, "answered_while_held": answered_while_held,
        "all_held_after_s": round(all_held_after, 2), "finished_after_s": round(finished_after, 2),
        "completed": ok,
        "errors": sorted({repr(a) for a in answers if isinstance(a, BaseException)})[:3],
    }))

asyncio.run(main())
PY
  python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).read().splitlines()[-1]); print("  held {path}: {before_kb} KB, {held_kb} KB with {runs_queued_at_sandbox} runs queued and {connections_to_sandbox} connections to the sandbox, {after_kb} KB after; {completed} completed".format_map(d))' "$held_results" >&2
}
hold console-server "$cs_url" "$cs_pid"

# ---- 4: idle connections, as a slow client leaves them ----------------------------------------
# BENCH_IDLE (1,000) connections that send nothing: console-server's RSS with them open, and how
# long until its header timeout has closed them all.
idle_results=$work/idle.json
PYTHONPATH=$work python3 - "$cs_url" "${BENCH_IDLE:-1000}" "$cs_pid" > "$idle_results" <<'PY'
import json, socket, sys, time
from process_tree import tree
target, n, pid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
host, port = target.removeprefix("http://").split(":")

def rss_kb():
    return sum(int(line.split()[1]) for p in tree(pid) for line in open(f"/proc/{p}/status")
               if line.startswith("VmRSS:"))

time.sleep(1)
before = rss_kb()
started = time.monotonic()
idle = [socket.create_connection((host, int(port))) for _ in range(n)]
time.sleep(1)
with_idle = max(rss_kb() for _ in range(3) if time.sleep(0.2) is None)
open_, closed_after = set(range(n)), None
for s in idle:
    s.settimeout(0.05)
while open_ and time.monotonic() - started < 60:
    for i in list(open_):
        try:
            if idle[i].recv(1) == b"":
                open_.discard(i)
        except socket.timeout:
            pass
        except OSError:
            open_.discard(i)
closed_after = time.monotonic() - started
print(json.dumps({"connections": n, "before_kb": before, "with_idle_kb": with_idle,
                  "kb_each": round((with_idle - before) / n, 1), "still_open": len(open_),
                  "all_closed_after_s": round(closed_after, 1)}))
PY
cp "$idle_results" target/bench/console-server-idle.json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("  idle: {connections} connections, {before_kb} KB before, {with_idle_kb} KB with them ({kb_each} KB each), {still_open} still open after {all_closed_after_s} s".format_map(d))' "$idle_results" >&2
stop "$cs_pid"
if [[ -n $nginx_bin ]]; then
  start_nginx nginx-held "$sandbox_url"
  hold nginx "$nginx_url" "$nginx_pid"
fi

# ---- the tables -------------------------------------------------------------------------------
python3 - "$results" "$held_results" "$run_bytes" "$rounds" "$secs" "$single_secs" \
  "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates Cargo.toml Cargo.lock || echo ' (with uncommitted changes)')" "$hold_ms" <<'PY'
import datetime, json, os, statistics, sys
results, held_results, run_bytes, rounds, secs, single_secs, commit, hold_ms = sys.argv[1:]
rows = [json.loads(l) for l in open(results)]
held = [json.loads(l) for l in open(held_results)]
paths = [p for p in ("direct", "console-server", "nginx") if any(r["path"] == p for r in rows)]
label = {"direct": "direct to the sandbox", "console-server": "console-server",
         "nginx": "nginx (docs/hosting.md)"}
med = statistics.median

def summary(mode, kind, path):
    rs = [r for r in rows if (r["mode"], r["kind"], r["path"]) == (mode, kind, path)]
    per = lambda r, *keys: sum(r[k] for k in keys) * 1000 / r["requests"]
    return {
        "rps": med(r["requests"] / r["duration_us"] * 1e6 for r in rs),
        "rps_each": [round(r["requests"] / r["duration_us"] * 1e6) for r in rs],
        "p50_ms": med(r["p50_us"] for r in rs) / 1000, "p99_ms": med(r["p99_us"] for r in rs) / 1000,
        "p50_each_ms": [r["p50_us"] / 1000 for r in rs],
        "sandbox_cpu_us": med(per(r, "sandbox_user_ms", "sandbox_system_ms") for r in rs),
        "forwarder_cpu_us": med(per(r, "forwarder_user_ms", "forwarder_system_ms") for r in rs),
        "forwarder_user_us": med(per(r, "forwarder_user_ms") for r in rs),
        "forwarder_system_us": med(per(r, "forwarder_system_ms") for r in rs),
        "errors": sum(r["non2xx"] + r["socket_errors"] for r in rs),
    }

out = {"rows": rows, "held": held, "summary": {}}
cpus = os.cpu_count()
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "cpu")
mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
print(f"console-server {datetime.date.today()}, {cpus} × {model}, {mem:.0f} GiB, linux, load average "
      f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end; commit {commit}; the sandbox and console-server "
      f"built with the `server` profile, nginx {os.popen('nginx -v 2>&1').read().strip().split('/')[-1] or '?'}. "
      f"{rounds} rounds, the paths in a rotated order each round; medians, with each round's value in brackets.")
print()
print(f"wrk, 2 threads, 32 connections, {secs} s each. wrk, the sandbox and the forwarder share this machine's "
      f"{cpus} cores: at full load the throughput follows the CPU that a request costs in all of them, "
      "hence each server's CPU per request (user + system, from /proc/PID/stat) beside it.")
if "nginx" in paths:
    print()
    print("The peer: nginx (docs/hosting.md) is the recipe's `location ^~ /v1/ { … }` as printed, with its route "
          "map and its `upstream` block, which keeps up to 16 idle connections to the API open. The aims are "
          "console-server's.")
for kind, title in (("get", f"GET /v1/runs/{{id}} (a run of 20 records, {int(run_bytes):,} B)"),
                    ("post", "POST /v1/actions/premium-search-people/run/async (a new run each)")):
    print()
    print(f"**{title}**")
    print()
    print("| path | requests/s | ÷ direct (aim ≥ 0.9) | p50 | p50 added (aim < 1 ms) | p99 | CPU per request: sandbox | forwarder (user + system) | non-2xx or errors |")
    print("|---|---|---|---|---|---|---|---|---|")
    base = summary("loaded", kind, "direct")
    for path in paths:
        s = summary("loaded", kind, path)
        out["summary"][f"32 connections {kind} {path}"] = s
        ratio, added = s["rps"] / base["rps"], s["p50_ms"] - base["p50_ms"]
        aimed = path == "console-server"  # the aims are console-server's; the peers show what is possible
        cells = [label[path], f"{s['rps']:,.0f} ({', '.join(f'{x:,}' for x in s['rps_each'])})", "1",
                 f"{s['p50_ms']:.2f} ms ({', '.join(f'{x:.2f}' for x in s['p50_each_ms'])})", "–",
                 f"{s['p99_ms']:.2f} ms", f"{s['sandbox_cpu_us']:.0f} µs", "–", str(s["errors"])]
        if path != "direct":
            cells[2] = f"{ratio:.2f}" + ((" ✓" if ratio >= 0.9 else " ✗") if aimed else "")
            cells[4] = f"{added:+.2f} ms" + ((" ✓" if added < 1 else " ✗") if aimed else "")
            cells[7] = f"{s['forwarder_cpu_us']:.0f} µs ({s['forwarder_user_us']:.0f} + {s['forwarder_system_us']:.0f})"
        print("| " + " | ".join(cells) + " |")

print()
print(f"One connection (wrk, 1 thread, 1 connection, {single_secs} s each): the time a hop adds to a request when none waits for a core.")
print()
print("| request | path | requests/s | p50 | p50 added | p99 | p99 added |")
print("|---|---|---|---|---|---|---|")
for kind in ("get", "post"):
    base = summary("single", kind, "direct")
    for path in paths:
        s = summary("single", kind, path)
        out["summary"][f"1 connection {kind} {path}"] = s
        added = lambda q: "–" if path == "direct" else f"{(s[q] - base[q]) * 1000:+.0f} µs"
        request = "GET /v1/runs/{id}" if kind == "get" else "POST …/run/async"
        print(f"| {request} | {label[path]} | {s['rps']:,.0f} | {s['p50_ms'] * 1000:.0f} µs | {added('p50_ms')} | "
              f"{s['p99_ms'] * 1000:.0f} µs | {added('p99_ms')} |")

if held:
    print()
    print(f"{held[0]['requests']:,} live submissions (POST …/run/live, a new Idempotency-Key each) held open at once "
          f"through each forwarder, started afresh: the sandbox keeps each run queued for {int(hold_ms) / 1000:g} s, long enough for all to be in. "
          "Memory is the forwarder's resident set (VmRSS; nginx's master and workers together).")
    print()
    print("| forwarder | RSS before | while all are held | added | per held request | 1 s / 6 s after the last answer | peak (VmHWM) | while held: runs queued at the sandbox / the forwarder's connections to it / answered | answered 200 completed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for h in held:
        added = h["held_kb"] - h["before_kb"]
        out["summary"][f"held {h['path']}"] = {"added_kb": added, "kb_per_request": added / h["requests"]}
        print(f"| {h['path']} | {h['before_kb'] / 1024:.1f} MB | {h['held_kb'] / 1024:.1f} MB | {added / 1024:+.1f} MB | "
              f"{added / h['requests']:.1f} KB | {h['after_kb'] / 1024:.1f} MB / {h['after_5s_kb'] / 1024:.1f} MB | "
              f"{h['peak_kb'] / 1024:.1f} MB | {h['runs_queued_at_sandbox']:,} / {h['connections_to_sandbox']:,} / "
              f"{h['answered_while_held']} | {h['completed']:,} of {h['requests']:,} |")

os.makedirs("target/bench", exist_ok=True)
with open("target/bench/console-server.json", "w") as f:
    json.dump(out, f, indent=2)
PY

python3 - "$idle_results" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print()
print(f"**{d['connections']:,} idle connections to console-server** (opened, then nothing sent: a slow client's "
      "or an attacker's), before its header timeout closes them")
print()
print("| RSS before | with them open | per connection | still open at the end | all closed after |")
print("|---|---|---|---|---|")
print(f"| {d['before_kb']:,} KB | {d['with_idle_kb']:,} KB | {d['kb_each']} KB | {d['still_open']} | {d['all_closed_after_s']} s |")
PY
