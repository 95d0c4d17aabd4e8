#!/usr/bin/env bash
# The main job: build, then `favorlab reproduce --quick` — every experiment, JSON in results/, PNG figures in
# results/figures/. Pass --full for the paper-sized runs; other arguments go to `favorlab reproduce`.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=(--quick)
args=()
for a in "$@"; do
  if [ "$a" = "--full" ]; then quick=(); else args+=("$a"); fi
done
bash scripts/build.sh release
./build/release/favorlab reproduce "${quick[@]}" "${args[@]}"
