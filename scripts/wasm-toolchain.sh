#!/usr/bin/env bash
# Finds or installs a Rust compiler that can build wasm32-unknown-unknown, and prints the
# environment to use it as shell assignments (eval "$(scripts/wasm-toolchain.sh)").
#
# 1. rustup with the wasm32-unknown-unknown target installed: used as is (a normal machine).
#    (PRIV_STARK_WASM_ROUTE=rustc-web skips this route, to test the other one.)
# 2. Otherwise Debian's rustc-web (bookworm-security) + rust-web-src, unpacked into a per-user
#    cache, building std from source with -Zbuild-std. It conflicts with Debian's rustc, so it is
#    unpacked rather than installed. Needs root on Debian for apt; otherwise the exact commands
#    are printed and the script fails.
set -euo pipefail

RUST_WEB_VERSION="${PRIV_STARK_RUST_WEB_VERSION:-1.96}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/priv-stark"
RW="$CACHE_ROOT/rustc-web-$RUST_WEB_VERSION"

log() { echo "[wasm-toolchain] $*" >&2; }

if [ "${PRIV_STARK_WASM_ROUTE:-}" != rustc-web ] && command -v rustup >/dev/null 2>&1 &&
  rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  echo "WASM_ROUTE=rustup"
  exit 0
fi

need_pkgs=(rustc-web cargo-web "libstd-rust-web-$RUST_WEB_VERSION" libstd-rust-web-dev rust-web-src rust-web-llvm)

if [ ! -x "$RW/usr/bin/rustc" ] || [ ! -d "$RW/usr/src" ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    log "no wasm32 standard library found. Run one of:"
    log "  rustup target add wasm32-unknown-unknown"
    log "  sudo bash scripts/wasm-toolchain.sh      (Debian 12: unpacks rustc-web $RUST_WEB_VERSION)"
    exit 1
  fi
  log "unpacking Debian rustc-web $RUST_WEB_VERSION into $RW (first run only)"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && apt-get download "${need_pkgs[@]}" >/dev/null 2>&1) || {
    apt-get update -qq >/dev/null
    (cd "$tmp" && apt-get download "${need_pkgs[@]}" >/dev/null)
  }
  # rustc-web links against the LLVM it was built with; fetch whichever libllvm it depends on.
  llvm="$(dpkg-deb -f "$tmp"/libstd-rust-web-"$RUST_WEB_VERSION"_*.deb Depends | grep -o 'libllvm[0-9]*' | head -1)"
  (cd "$tmp" && apt-get download "$llvm" >/dev/null)
  rm -rf "$RW.partial" && mkdir -p "$RW.partial"
  for d in "$tmp"/*.deb; do dpkg -x "$d" "$RW.partial"; done
  rm -rf "$RW" && mv "$RW.partial" "$RW"
fi

# The unpacked rust-lld points at an lld that is not unpacked; wasm-ld from Debian's lld links.
if ! command -v wasm-ld >/dev/null 2>&1 && ! command -v wasm-ld-14 >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    log "installing Debian lld (wasm-ld)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lld >/dev/null 2>&1 || {
      apt-get update -qq >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lld >/dev/null
    }
  else
    log "wasm-ld missing: run  sudo apt-get install lld"
    exit 1
  fi
fi
linker="$(command -v wasm-ld || command -v wasm-ld-14)"

echo "WASM_ROUTE=rustc-web"
echo "RUSTC='$RW/usr/bin/rustc'"
echo "WASM_CARGO='$RW/usr/bin/cargo'"
echo "LD_LIBRARY_PATH='$RW/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}'"
echo "RUSTC_BOOTSTRAP=1"
echo "CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER='$linker'"
