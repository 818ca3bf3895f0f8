#!/usr/bin/env bash
# `make console-server`: builds the release console into dist/, then console-server with it built
# in (rust-embed embeds dist/ when compiling in a release profile), into
# target/server/console-server: the one file to copy to a server.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build-console.sh
cargo build --profile server -p console-server --target-dir target --quiet
binary=target/server/console-server
echo
echo "  Built $binary ($(du -h "$binary" | cut -f1)), with the console in it. Run it in front of your API:"
echo
echo "    $binary --upstream https://api.provider.example"
echo
echo "  then open http://127.0.0.1:8080 and sign in with the API base URL left empty."
