#!/usr/bin/env bash
# Installs what the build and the tests need, skipping whatever is already there, and writes
# .setup/env (sourced by the Makefile's recipes) with the wasm build route it chose.
#
#  - wasm32 target: rustup's target where it is (or can be) installed — the ordinary route on a
#    laptop — otherwise Debian's rustc-web + rust-web-src with -Zbuild-std (no download of a
#    Rust target needed; see ../shared/TOOLCHAIN.md).
#  - the npm package's small build (`pkg_cargo` in .setup/env): the standard library rebuilt
#    for size (-Zbuild-std, optimize_for_size, panics as immediate aborts) from rustup's
#    rust-src or Debian's rust-web-src; the plain build, with a notice, when neither can be had.
#  - wasm-bindgen CLI at exactly the version pinned in Cargo.toml.
#  - Chromium + chromedriver (Debian packages) for browser tests.
#  - Go and robfig/cron + sigs.k8s.io/yaml (Debian packages) for the Go oracle test.
#  - npm dev tools (playwright-core, binaryen, esbuild, …) from package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .setup
log() { printf '[setup] %s\n' "$*"; }

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
apt_updated=""
apt_install() {
  command -v apt-get >/dev/null 2>&1 || { log "apt-get not available; install manually: $*"; return 1; }
  if [ -z "$apt_updated" ]; then $SUDO apt-get update -qq; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@" >/dev/null
}

# 1. The wasm32 route.
route="${FLEET_WASM_ROUTE:-}"
if [ -z "$route" ]; then
  if rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    route=rustup
  elif timeout 20 rustup target add wasm32-unknown-unknown >/dev/null 2>&1; then
    route=rustup
  else
    route=debian
  fi
fi
debian_ready() {
  [ -x /usr/bin/rustc ] && /usr/bin/rustc --version 2>/dev/null | grep -q '^rustc 1\.\(9[0-9]\|[1-9][0-9][0-9]\)' \
    && [ -d /usr/lib/rustlib/src/rust/library ] && command -v wasm-ld-22 >/dev/null 2>&1
}
debian_install() {
  debian_ready && return 0
  log "installing Debian's rustc-web, rust-web-src and lld-22"
  apt_install rustc-web cargo-web rust-web-src lld-22 && debian_ready
}
debian_link() {
  rustup toolchain list 2>/dev/null | grep -q '^debian' || rustup toolchain link debian /usr
}
if [ "$route" = debian ]; then
  debian_install
  debian_link
  cat > .setup/env <<ENV
export WASM_CARGO="cargo +debian"
export WASM_BUILD_STD="-Zbuild-std=std,panic_abort"
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-22
ENV
else
  cat > .setup/env <<ENV
export WASM_CARGO="cargo"
export WASM_BUILD_STD=""
ENV
fi
log "wasm32 route: $route"

# 2. The npm package's small build. Rebuilding std for size saves ~10% of the gzipped .wasm
#    (optimize_for_size picks std's smaller code paths; immediate-abort drops the panic
#    machinery — a panic becomes a wasm trap, which engine/npm/index.js reports as an internal
#    error). It needs the library source matching the compiler: rustup's rust-src (a laptop;
#    RUSTC_BOOTSTRAP=1 unlocks -Z on stable) or Debian's toolchain (this CI machine). Rustup's
#    component wins when already installed; Debian's when present; then whichever installs.
immediate_abort_ok() { # $1: the cargo/rustc toolchain argument ("" or "+debian")
  RUSTC_BOOTSTRAP=1 rustc $1 -Zunstable-options -Cpanic=immediate-abort --print cfg \
    --target wasm32-unknown-unknown >/dev/null 2>&1
}
rustup_src_ready() {
  rustup component list --installed 2>/dev/null | grep -q '^rust-src' && immediate_abort_ok ""
}
small="${FLEET_SMALL_ROUTE:-}"
if [ -z "$small" ]; then
  if rustup_src_ready; then
    small=rustup
  elif debian_ready && debian_link && immediate_abort_ok +debian; then
    small=debian
  elif timeout 60 rustup component add rust-src >/dev/null 2>&1 && rustup_src_ready; then
    small=rustup
  elif debian_install 2>/dev/null && debian_link && immediate_abort_ok +debian; then
    small=debian
  else
    small=plain
  fi
fi
small_flags='-Zbuild-std=std,panic_abort -Zbuild-std-features=optimize_for_size'
# location-detail=none: with immediate-abort no panic message is printed, so the file paths
# and line numbers of panic locations are dead weight (~0.5 KB of the gzipped .wasm).
# optimize_hot: the input reader's hot functions optimized for speed in the size-optimized build
# (engine/src/lib.rs); it needs the unstable optimize attribute, so only these routes set it.
small_env='RUSTC_BOOTSTRAP=1 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Ctarget-feature=+simd128 --cfg optimize_hot"'
# The playground too: a panic is a trap, which static/start.js turns into a message in the page.
# (Keeping std's panic messages costs 22 KB of the gzipped playground, past its budget.)
app_env='RUSTC_BOOTSTRAP=1 CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Ctarget-feature=+simd128 --cfg optimize_hot"'
case "$small" in
  rustup) echo "app_cargo() { $app_env cargo \"\$@\" $small_flags; }" ;;
  debian) echo "app_cargo() { $app_env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-22 cargo +debian \"\$@\" $small_flags; }" ;;
  *) echo "app_cargo() { \$WASM_CARGO \"\$@\" \$WASM_BUILD_STD; }" ;;
esac >> .setup/env
case "$small" in
  rustup) echo "pkg_cargo() { $small_env cargo \"\$@\" $small_flags; }" ;;
  debian) echo "pkg_cargo() { $small_env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-22 cargo +debian \"\$@\" $small_flags; }" ;;
  *) echo "pkg_cargo() { echo '[package] notice: no Rust library source (rustup component rust-src, or Debian rust-web-src): plain build, the .wasm is ~13% larger gzipped' >&2; \$WASM_CARGO \"\$@\" \$WASM_BUILD_STD; }" ;;
esac >> .setup/env
echo "export PKG_ROUTE=$small" >> .setup/env
log "npm package build: $small"

# 3. wasm-bindgen CLI pinned to the crate version.
want=$(sed -n 's/^wasm-bindgen = "=\([0-9.]*\)".*/\1/p' Cargo.toml)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  log "installing wasm-bindgen-cli $want (a few minutes, once)"
  cargo install -q wasm-bindgen-cli --version "$want"
fi

# 4. Chromium and chromedriver.
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  log "installing chromium and chromium-driver"
  apt_install chromium chromium-driver
fi
echo "export CHROME=$(command -v chromium)" >> .setup/env
echo "export CHROMEDRIVER=$(command -v chromedriver)" >> .setup/env

# 5. The Go oracle (engine/tests/go_oracle.rs): Debian's Go toolchain and the Go libraries the
#    reference systems run — robfig/cron v3.0.1 (Karpenter's pin) and sigs.k8s.io/yaml (kubectl's
#    YAML reader, with go-yaml v2) — built offline in GOPATH mode from /usr/share/gocode.
gocode=/usr/share/gocode/src
if ! command -v go >/dev/null 2>&1 || [ ! -d "$gocode/github.com/robfig/cron" ] || [ ! -d "$gocode/sigs.k8s.io/yaml" ]; then
  log "installing golang-go, golang-github-robfig-cron-dev and golang-k8s-sigs-yaml-dev (the Go oracle)"
  apt_install golang-go golang-github-robfig-cron-dev golang-k8s-sigs-yaml-dev
fi

# A C++ compiler: `make lint` checks the fuzz crate, whose libFuzzer is C++.
if ! command -v c++ >/dev/null 2>&1; then
  log "installing g++ (libFuzzer, for linting the fuzz targets)"
  apt_install g++
fi

# 6. npm dev tools, reinstalled only when the lock file changes.
stamp=node_modules/.lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  log "installing npm dev tools"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
# 6. cargo-fuzz, for `make fuzz` only (`.ci/setup.sh fuzz`): `make test` does not need it.
if [ "${1:-}" = fuzz ] && ! cargo fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz (a few minutes, once)"
  cargo install -q cargo-fuzz --locked
fi
log "ready"
