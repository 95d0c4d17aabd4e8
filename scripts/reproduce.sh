#!/usr/bin/env bash
# The main job: build the favorlab binary (not the tests: scripts/test.sh builds those), then
# `favorlab reproduce --quick` — every experiment, JSON in results/, PNG figures in results/figures/, the claims
# ledger in results/CLAIMS.md, and a summary of what was found. Pass --full for the paper-sized runs, written to
# results/full/ unless --out-dir says otherwise (results/ keeps the quick runs, CI's reference); other arguments go to
# `favorlab reproduce` (--verbose: one line per check).
set -euo pipefail
cd "$(dirname "$0")/.."
quick=(--quick)
args=()
out_dir=()
for a in "$@"; do
  if [ "$a" = "--full" ]; then quick=(); out_dir=(--out-dir results/full); else args+=("$a"); fi
done
for a in "${args[@]}"; do
  if [ "$a" = "--out-dir" ] || [ "${a#--out-dir=}" != "$a" ]; then out_dir=(); fi
done
bash scripts/build.sh release favorlab
./build/release/favorlab reproduce "${quick[@]}" "${out_dir[@]}" "${args[@]}"
