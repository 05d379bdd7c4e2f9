#!/usr/bin/env bash
# Prints the exact wasm-bindgen version the crate is built with, so that the CLI
# (wasm-bindgen, wasm-bindgen-test-runner) can be installed at that version.
# The pin lives in Cargo.toml (`wasm-bindgen = "=x.y.z"`); Cargo.lock must agree.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pinned="$(sed -n 's/^[[:space:]]*wasm-bindgen[[:space:]]*=[[:space:]]*"=\([0-9][0-9.]*\)".*/\1/p' Cargo.toml | head -n 1)"
if [ -z "$pinned" ]; then
  # The table form: wasm-bindgen = { version = "=x.y.z", ... }
  pinned="$(sed -n 's/^[[:space:]]*wasm-bindgen[[:space:]]*=[[:space:]]*{.*version[[:space:]]*=[[:space:]]*"=\([0-9][0-9.]*\)".*/\1/p' Cargo.toml | head -n 1)"
fi
[ -n "$pinned" ] || { echo "wasm-bindgen-version: Cargo.toml does not pin wasm-bindgen with \"=x.y.z\"" >&2; exit 1; }

if [ -f Cargo.lock ]; then
  locked="$(awk '$0 == "name = \"wasm-bindgen\"" { found = 1; next }
                 found && /^version = / { gsub(/"/, "", $3); print $3; exit }' Cargo.lock)"
  if [ -n "$locked" ] && [ "$locked" != "$pinned" ]; then
    echo "wasm-bindgen-version: Cargo.toml pins $pinned but Cargo.lock has $locked" >&2
    exit 1
  fi
fi

printf '%s\n' "$pinned"
