#!/usr/bin/env bash
# Brings a machine that has only Rust (rustup), Node and npm up to what the build
# and the tests need. Idempotent: when everything is in place it only checks, in
# well under a second. Used by `npm test` and by .ci/run, and fine to run by hand.
#
#   - the wasm32-unknown-unknown Rust target
#   - wasm-bindgen-cli (wasm-bindgen + wasm-bindgen-test-runner) at exactly the
#     version Cargo.toml pins for the wasm-bindgen crate
#   - node_modules, reinstalled with `npm ci` whenever package-lock.json changed
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# cargo install puts binaries here; make them visible even if the shell profile
# that normally adds this directory to PATH was never sourced (CI, fresh images).
cargo_bin="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$cargo_bin:$PATH"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

command -v cargo >/dev/null || die "cargo not found; install Rust with rustup first"
command -v node >/dev/null || die "node not found; install Node.js 20 or newer"
command -v npm >/dev/null || die "npm not found"

# 1. The wasm target ---------------------------------------------------------
target=wasm32-unknown-unknown
if command -v rustup >/dev/null; then
  if ! rustup target list --installed | grep -qx "$target"; then
    say "adding Rust target $target"
    rustup target add "$target"
  fi
elif [ ! -d "$(rustc --print sysroot)/lib/rustlib/$target" ]; then
  die "Rust target $target is missing and rustup is not available to add it"
fi

# 2. wasm-bindgen-cli at the crate's pinned version ---------------------------
wb_version="$(bash scripts/wasm-bindgen-version.sh)"
installed_version() {
  # "wasm-bindgen 0.2.130" -> "0.2.130"; empty when the tool is missing.
  { "$1" --version 2>/dev/null || true; } | awk 'NR == 1 { print $2 }'
}
have_wb="$(installed_version wasm-bindgen)"
have_runner="$(installed_version wasm-bindgen-test-runner)"
if [ "$have_wb" != "$wb_version" ] || [ "$have_runner" != "$wb_version" ]; then
  say "installing wasm-bindgen-cli $wb_version (found: ${have_wb:-none}); this compiles from source and takes about 3-4 minutes"
  # Not --locked: that fails against this registry mirror.
  cargo install wasm-bindgen-cli --version "$wb_version" --force
  have_wb="$(installed_version wasm-bindgen)"
  [ "$have_wb" = "$wb_version" ] ||
    die "wasm-bindgen --version reports '${have_wb:-nothing}' after installing $wb_version (is $cargo_bin shadowed on PATH by another wasm-bindgen?)"
  say "wasm-bindgen-cli $wb_version installed"
fi

# 3. node_modules matching package-lock.json ------------------------------------
stamp=node_modules/.stepline-lock-sha256
lock_hash="$(node -e '
  const { createHash } = require("node:crypto");
  const { readFileSync } = require("node:fs");
  process.stdout.write(createHash("sha256").update(readFileSync("package-lock.json")).digest("hex"));
')"
if [ ! -d node_modules ] || [ "$(cat "$stamp" 2>/dev/null || true)" != "$lock_hash" ]; then
  say "installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund
  printf '%s\n' "$lock_hash" >"$stamp"
fi

say "ok (target $target, wasm-bindgen $wb_version, node $(node --version), node_modules current)"
