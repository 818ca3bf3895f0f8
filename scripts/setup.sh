#!/usr/bin/env bash
# Installs everything the console's build, demo and tests need, idempotently: a second run takes
# seconds. Called by `make demo` and `make test`; writes target/toolchain.env for later steps.
#
# The wasm toolchain: a rustup wasm32 target where one exists or can be added; otherwise Debian's
# rustc-web with `-Zbuild-std` (RUSTC_BOOTSTRAP). Set CONSOLE_WASM_ROUTE=rustup|debian to force one.
# Tools come only from package registries: apt, crates.io, npm.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export PATH="$HOME/.cargo/bin:$PATH"
mkdir -p target
log() { printf 'setup: %s\n' "$*" >&2; }

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
[ -n "$WASM_BINDGEN_VERSION" ] || { log "no wasm-bindgen in Cargo.lock"; exit 1; }
grep -q "wasm_bindgen = \"$WASM_BINDGEN_VERSION\"" Trunk.toml \
  || { log "Trunk.toml [tools] wasm_bindgen must be $WASM_BINDGEN_VERSION (Cargo.lock)"; exit 1; }

command -v cargo >/dev/null || { log "cargo not found: install Rust (https://rustup.rs) first"; exit 1; }

apt_updated=""
# The packages of "$@" that are not installed, one a line.
apt_missing() {
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || echo "$pkg"
  done
}
apt_install() {
  local missing=()
  mapfile -t missing < <(apt_missing "$@")
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || { log "missing ${missing[*]} and no apt-get to install them"; return 1; }
  # In the background (APT_IN_BACKGROUND) sudo must not ask for a password: it would wait for
  # a terminal it cannot read. It fails with its own message instead.
  local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo${APT_IN_BACKGROUND:+ -n}"
  if [ -z "$apt_updated" ]; then $sudo apt-get update -qq; apt_updated=1; fi
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# 1. The wasm32 toolchain.
route=${CONSOLE_WASM_ROUTE:-}
if [ -z "$route" ] && command -v rustup >/dev/null; then
  if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    route=rustup
  elif timeout 120 rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
    route=rustup
  fi
  # std is rebuilt for size (see below), which needs its sources.
  if [ "$route" = rustup ] && ! rustup component list --installed 2>/dev/null | grep -q '^rust-src' \
    && ! timeout 120 rustup component add rust-src >/dev/null 2>&1; then
    route=""
  fi
fi
[ -n "$route" ] || route=debian
case "$route" in
  rustup)
    {
      echo "# written by scripts/setup.sh: environment for wasm builds (rustup's wasm32 target + rust-src)"
      echo "export PATH=\"$ROOT/node_modules/.bin:$HOME/.cargo/bin:\$PATH\""
      echo "export CARGO_TARGET_DIR=\"$ROOT/target/web\""
      echo "# Dev builds link rustup's prebuilt wasm std; release builds rebuild it (below)."
      echo "unset CARGO_UNSTABLE_BUILD_STD"
    } > target/toolchain.env
    ;;
  debian)
    apt_install rustc-web cargo-web rust-web-src lld-22
    {
      echo "# written by scripts/setup.sh: environment for wasm builds (Debian rustc-web + build-std)"
      echo "export PATH=\"/usr/bin:$ROOT/node_modules/.bin:$HOME/.cargo/bin:\$PATH\""
      echo "export CARGO_TARGET_DIR=\"$ROOT/target/web-debian\""
      echo "# Debian ships no wasm std: every build rebuilds it."
      echo "export CARGO_UNSTABLE_BUILD_STD=std,panic_abort"
    } > target/toolchain.env
    ;;
  *) log "CONSOLE_WASM_ROUTE must be rustup or debian"; exit 1 ;;
esac
# Release builds rebuild std for wasm on both routes (smaller code, immediate-abort panics);
# RUSTC_BOOTSTRAP unlocks those flags on a stable compiler.
cat >> target/toolchain.env <<'ENV'
export RUSTC_BOOTSTRAP=1
# The std that scripts/build-console.sh rebuilds for release builds (CARGO_UNSTABLE_BUILD_STD).
export CONSOLE_RELEASE_BUILD_STD=std,panic_abort
# Applied by scripts/build-console.sh to release builds only, so dev builds keep panic messages.
# erase_components makes Leptos components return type-erased views: less monomorphised code.
export CONSOLE_RELEASE_RUSTFLAGS="-Zlocation-detail=none -Zfmt-debug=none -Zunstable-options -Cpanic=immediate-abort --cfg erase_components"
ENV
# trunk builds offline, so std's own dependencies must be in cargo's cache beforehand.
( . target/toolchain.env && CARGO_UNSTABLE_BUILD_STD=$CONSOLE_RELEASE_BUILD_STD \
    cargo fetch --target wasm32-unknown-unknown --quiet )
log "wasm toolchain: $route"

# Steps 2–4 mostly download and unpack; step 5 compiles. On a fresh machine they run side by
# side, so the downloads cost no time of their own; a failure on either side fails setup, once
# both have ended.
e2e_packages=(chromium chromium-driver curl firefox-esr nginx-light libnginx-mod-http-brotli-static)
# A step in the background cannot ask for sudo's password: ask for it here when apt has work.
if [ "$(id -u)" -ne 0 ] && [ -n "$(apt_missing "${e2e_packages[@]}")" ] && command -v sudo >/dev/null; then
  sudo -v
fi
# Should step 5 fail, setup still waits for the downloads rather than leave them running.
trap 'wait' EXIT
(
  APT_IN_BACKGROUND=1
  # 2. Browser and driver for the end-to-end tests; curl runs the console's curl snippets
  # (tests/e2e/snippets.test.mjs; its Python snippets use the venv of step 4, whose schemathesis
  # brings requests); firefox-esr is the second engine of tests/e2e/firefox.test.mjs (WebDriver
  # BiDi through puppeteer-core, which downloads no browser of its own). nginx with the brotli
  # static module runs docs/hosting.md's configuration (tests/e2e/nginx.test.mjs). Installing it
  # may start Debian's own nginx on port 80 (its default site); the test does not use that one:
  # it starts nginx with a prefix, configuration, pid file and free port of its own.
  apt_install "${e2e_packages[@]}"

  # 3. Node tools: wasm-opt (binaryen), esbuild, @playwright/test (the end-to-end runner) with
  # playwright-core, and puppeteer-core, pinned by package-lock.json.
  command -v npm >/dev/null || apt_install nodejs npm
  if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/swagger-ui-dist ] || [ ! -d node_modules/axe-core ] \
    || [ ! -d node_modules/puppeteer-core ] || [ ! -d node_modules/@playwright/test ] \
    || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "npm ci"
    npm ci --no-audit --no-fund --loglevel=error >/dev/null
  fi

  # 4. schemathesis (PyPI), which fuzzes the sandbox against its own OpenAPI document.
  SCHEMATHESIS_VERSION=4.32.5
  if [ "$(target/venv/bin/schemathesis --version 2>/dev/null)" != "schemathesis, version $SCHEMATHESIS_VERSION" ]; then
    log "pip install schemathesis $SCHEMATHESIS_VERSION into target/venv"
    python3 -m venv target/venv || { apt_install python3-venv && python3 -m venv target/venv; }
    target/venv/bin/pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
  fi
) &
downloads=$!

# 5. trunk and the wasm-bindgen CLI that matches Cargo.lock.
if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
  log "cargo install trunk $TRUNK_VERSION (a few minutes, once)"
  # trunk's release profile links with fat LTO into one codegen unit: the slowest way to build
  # it, for speed that a program which mostly waits for cargo, wasm-bindgen and wasm-opt never
  # shows. Cargo's environment overrides a manifest's profile.
  CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install --locked "trunk@$TRUNK_VERSION" --no-default-features --features rustls
fi
if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
  # Not --locked: the CLI's own lock file names a crate version the registry does not have.
  log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
  cargo install --force "wasm-bindgen-cli@$WASM_BINDGEN_VERSION"
fi

trap - EXIT
wait "$downloads" || { log "a download step failed (above)"; exit 1; }
log "ready"
