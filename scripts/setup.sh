#!/usr/bin/env bash
# Brings a machine that has only Rust (rustup), Node and npm up to what the build
# and the tests need. Idempotent: when everything is in place it only checks, in
# well under a second. Used by `npm test` and by .ci/run, and fine to run by hand.
#
#   - the wasm32-unknown-unknown Rust target
#   - wasm-bindgen-cli (wasm-bindgen + wasm-bindgen-test-runner) at exactly the
#     version Cargo.toml pins for the wasm-bindgen crate
#   - node_modules, reinstalled with `npm ci` whenever package-lock.json changed
#   - chromium, chromedriver and protoc from apt (the browser tests drive the
#     devtools panel in chromium; protoc is needed to compile sockudo)
#   - sockudo, the Pusher-protocol server the live-panel tests and demo run
#   - .venv, a Python virtualenv with opentelemetry-proto and protobuf (pinned), which
#     tests/otel/check_otlp.py uses to parse the OTLP export with the official
#     protobuf JSON mapping (python3-venv from apt when `python3 -m venv` is missing)
#
# STEPLINE_SETUP=core (what `npm start` uses) stops after step 3: serving the
# panel needs neither the browser nor the Pusher server.
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

if [ "${STEPLINE_SETUP:-}" = core ]; then
  say "ok (core: target $target, wasm-bindgen $wb_version, node $(node --version), node_modules current)"
  exit 0
fi

# 4. chromium, chromedriver, protoc (apt) -------------------------------------
apt_packages=(chromium chromium-driver protobuf-compiler)
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ] || ! command -v protoc >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    as_root=()
  elif command -v sudo >/dev/null; then
    as_root=(sudo)
  else
    die "chromium, chromedriver or protoc is missing and this is not root and sudo is not available; install ${apt_packages[*]} as root"
  fi
  command -v apt-get >/dev/null ||
    die "chromium, chromedriver or protoc is missing and apt-get is not available; install the equivalents of ${apt_packages[*]} yourself"
  say "installing ${apt_packages[*]} with apt-get"
  # `env` so the variable survives sudo, which drops the caller's environment.
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${apt_packages[@]}"
  [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && command -v protoc >/dev/null ||
    die "apt-get install ${apt_packages[*]} finished but /usr/bin/chromium, /usr/bin/chromedriver or protoc is still missing"
fi

# 5. sockudo ------------------------------------------------------------------
# Pinned: scripts/lib/sockudo.mjs configures it through environment variables
# checked against this version. Another installed version is left alone (it is
# the user's), with a note.
sockudo_pin=5.2.0
if ! command -v sockudo >/dev/null; then
  say "installing sockudo $sockudo_pin; this compiles from source and takes about 13 minutes"
  # Not --locked: that fails against this registry mirror.
  cargo install sockudo --version "$sockudo_pin"
  command -v sockudo >/dev/null || die "cargo install sockudo finished but sockudo is not in $cargo_bin"
elif [ "$(installed_version sockudo)" != "$sockudo_pin" ]; then
  say "note: sockudo $(installed_version sockudo) is installed; the tests were written against $sockudo_pin"
fi

# 6. The Python venv of the OTLP check -----------------------------------------
# Pinned: the test parses against these exact message definitions.
otel_proto_pin=1.45.2
protobuf_pin=7.36.2
venv_python="$root/.venv/bin/python"
venv_pins="opentelemetry-proto==$otel_proto_pin protobuf==$protobuf_pin"
# A stamp written after the install, so the check costs no Python start-up.
venv_current() {
  [ -x "$venv_python" ] && [ "$(cat "$root/.venv/stepline-pins" 2>/dev/null)" = "$venv_pins" ]
}
if ! venv_current; then
  # python3-venv brings python3 with it, so a machine without Python gets both.
  if ! command -v python3 >/dev/null || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    if [ "$(id -u)" -eq 0 ]; then as_root=(); elif command -v sudo >/dev/null; then as_root=(sudo); else
      die "python3 or python3-venv is missing and this is not root and sudo is not available; install python3-venv as root"
    fi
    say "installing python3-venv with apt-get"
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y python3-venv
  fi
  say "creating .venv with opentelemetry-proto $otel_proto_pin and protobuf $protobuf_pin"
  [ -x "$venv_python" ] || python3 -m venv "$root/.venv"
  # shellcheck disable=SC2086 # the pins are two words on purpose
  "$venv_python" -m pip install --quiet $venv_pins
  "$venv_python" -c "import importlib.metadata as m, sys; sys.exit(m.version('opentelemetry-proto') != '$otel_proto_pin' or m.version('protobuf') != '$protobuf_pin')" &&
    printf '%s\n' "$venv_pins" >"$root/.venv/stepline-pins"
  venv_current || die "pip finished but .venv does not have opentelemetry-proto $otel_proto_pin and protobuf $protobuf_pin"
fi

# "Chromium 156.0.8078.79 built on ...", "libprotoc 3.21.12", "sockudo 5.2.0": the second word.
chromium_version="$(installed_version /usr/bin/chromium)"
chromedriver_version="$(installed_version /usr/bin/chromedriver)"
protoc_version="$(installed_version protoc)"
sockudo_version="$(installed_version sockudo)"
say "ok (target $target, wasm-bindgen $wb_version, node $(node --version), node_modules current," \
  "chromium ${chromium_version:-?}, chromedriver ${chromedriver_version:-?}, protoc ${protoc_version:-?}, sockudo ${sockudo_version:-?}," \
  "opentelemetry-proto $otel_proto_pin)"
