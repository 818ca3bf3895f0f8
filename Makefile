# The two commands of the README. Both install what they need first (scripts/setup.sh).
.PHONY: demo test setup build bench bench-sandbox bench-console-server console-server

demo:
	@bash scripts/demo.sh

# Live reloading: the sandbox's API and `trunk serve` on http://127.0.0.1:8080 (scripts/dev.sh).
.PHONY: dev
dev:
	@bash scripts/dev.sh

test:
	@bash scripts/test.sh

setup:
	@bash scripts/setup.sh

build: setup
	@bash scripts/build-console.sh

# The console in front of a workspace's real API: one binary with the release console built in
# (target/server/console-server; run it with --upstream, see the README).
console-server:
	@bash scripts/build-console-server.sh

# Benchmarks (not part of the test suite): first load of the console, Swagger UI and RapiDoc on
# loopback and Slow 4G, bulk batches (bench/bulk.mjs), a bulk batch behind another tab and the
# browser's memory in a 10,000-row batch, each in a Chromium driven over the DevTools protocol
# (Node 20 has WebSocket behind a flag), the run history at 100,000 runs (bench/history.mjs),
# exploring 10,000 records (bench/explore.mjs), and what console-server adds in front of the
# sandbox, beside nginx (scripts/bench-console-server.sh: wrk, and 1,000 live requests held open).
# scripts/bench.sh writes the run's tables to docs/benchmarks.md.
bench: build
	@bash scripts/bench.sh

bench-sandbox:
	@bash scripts/bench-sandbox.sh

# console-server alone (about 8 minutes): throughput, latency and memory against the direct path.
bench-console-server:
	@bash scripts/bench-console-server.sh
