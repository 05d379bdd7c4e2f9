#!/usr/bin/env bash
# npm run lint: rustfmt and clippy (warnings are errors), natively and for the wasm
# target, where src/wasm/ is compiled: with the default `full` feature and without it
# (the live entry's build), then rustdoc. src/lib.rs denies missing docs, unwrap,
# panic! and unchecked indexing, so clippy fails on any of them. Runs every check
# and reports each one.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

failed=()
check() {
  local name="$1"; shift
  printf '\n=== lint: %s\n' "$*"
  if "$@"; then printf 'lint: %s ok\n' "$name"; else failed+=("$name"); printf 'lint: %s FAILED\n' "$name"; fi
}

check fmt cargo fmt --check
check clippy-native cargo clippy --all-targets -- -D warnings
check clippy-wasm cargo clippy --all-targets --target wasm32-unknown-unknown -- -D warnings
check clippy-schema cargo clippy --features schema --lib --bin stepline-schemas -- -D warnings
check generated node scripts/gen-types.mjs --check
check clippy-wasm-live cargo clippy --lib --target wasm32-unknown-unknown --no-default-features -- -D warnings
# The `stepline` entry's build: every feature but `devtools` (scripts/build.mjs).
check clippy-wasm-core cargo clippy --lib --target wasm32-unknown-unknown --no-default-features --features full -- -D warnings
# The public Rust API's docs: no broken or private intra-doc links.
check doc env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet

if [ "${#failed[@]}" -gt 0 ]; then
  printf '\nlint: failed: %s\n' "${failed[*]}"
  exit 1
fi
printf '\nlint: all checks passed\n'
