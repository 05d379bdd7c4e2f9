#!/usr/bin/env bash
# Runs one fuzz target for N seconds (default 420) on one core, seeding its
# corpus first: fuzz/run.sh <target> [seconds] [extra libFuzzer flags...]
# No sanitizer (the core is safe Rust: ASan finds nothing there and costs
# 10x) but debug assertions on, so integer overflow panics as in `cargo test`.
set -euo pipefail
cd "$(dirname "$0")"
target=$1
secs=${2:-420}
shift $(( $# >= 2 ? 2 : 1 ))
node seed.mjs > /dev/null
mkdir -p "corpus/$target"
extra=()
if [ "$target" = session_ingest ]; then extra+=(-max_len=4096 -len_control=0); else extra+=(-dict=json.dict); fi
RUSTC_BOOTSTRAP=1 exec cargo fuzz run -s none -a "$target" "corpus/$target" -- \
  -max_total_time="$secs" -print_final_stats=1 "${extra[@]}" "$@"
