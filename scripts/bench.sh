#!/usr/bin/env bash
# `make bench` (after the release build): every benchmark in one run, side by side with the peers
# each one measures against. Each prints its results as Markdown tables and writes its raw numbers
# to target/bench/<name>.json; the tables of the whole run become docs/benchmarks.md, the latest
# results, replaced only when every benchmark finished.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p sandbox --quiet
out=$(mktemp)
trap 'rm -f "$out"' EXIT
{
  echo "# Benchmarks: the latest \`make bench\`"
  echo
  echo "Written by \`make bench\` (scripts/bench.sh) from the tables each benchmark prints; the raw"
  echo "numbers are in \`target/bench/*.json\`. What each one measures and why: [performance.md](performance.md)."
  echo "Machines here are shared and noisy: compare the ratios to the peers measured in the same run."
  echo "Commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src style index.html Trunk.toml crates Cargo.toml Cargo.lock bench || echo ' (with uncommitted changes)')."
} > "$out"
section() { printf '\n## %s\n' "$1" >> "$out"; }
section "First load (bench/first-load.mjs)";      node bench/first-load.mjs 7 | tee -a "$out"
section "Bulk runs (bench/bulk.mjs)";             node bench/bulk.mjs | tee -a "$out"
section "A bulk batch behind another tab (bench/background-tab.mjs)"
node --experimental-websocket bench/background-tab.mjs | tee -a "$out"
section "Memory in a 10,000-row batch (bench/bulk-memory.mjs)"
node --experimental-websocket bench/bulk-memory.mjs | tee -a "$out"
section "A chain of about 2,100 runs (bench/chain.mjs)"
cargo build -p sandbox --quiet
node --experimental-websocket bench/chain.mjs | tee -a "$out"
section "Run history at 100,000 runs (bench/history.mjs)"; node bench/history.mjs | tee -a "$out"
section "Exploring 10,000 records (bench/explore.mjs)";    node bench/explore.mjs | tee -a "$out"
section "console-server in front of an API (scripts/bench-console-server.sh)"
bash scripts/bench-console-server.sh | tee -a "$out"
cp "$out" docs/benchmarks.md
echo "bench: results written to docs/benchmarks.md"
