#!/usr/bin/env bash
# The main job: build the favorlab binary (not the tests: scripts/test.sh builds those), then
# `favorlab reproduce --quick` — every experiment, JSON in results/, PNG figures in results/figures/, the claims
# ledger in results/CLAIMS.md, and a summary of what was found. Pass --full for the paper-sized runs, written to
# results/full/ unless --out-dir says otherwise (results/ keeps the quick runs, CI's reference); other arguments go to
# `favorlab reproduce` (--verbose: one line per check).
set -euo pipefail
caller="$PWD"
cd "$(dirname "$0")/.."
quick=(--quick)
args=()
out_dir=()
previous=""
for a in "$@"; do
  # A relative --out-dir is the caller's, not the checkout's (the default, results/, is the checkout's).
  if [ "$previous" = "--out-dir" ] && [ "${a#/}" = "$a" ]; then a="$caller/$a"; fi
  case "$a" in --out-dir=/*) ;; --out-dir=*) a="--out-dir=$caller/${a#--out-dir=}" ;; esac
  if [ "$a" = "--full" ]; then quick=(); out_dir=(--out-dir results/full); else args+=("$a"); fi
  previous="$a"
done
for a in "${args[@]}"; do
  if [ "$a" = "--out-dir" ] || [ "${a#--out-dir=}" != "$a" ]; then out_dir=(); fi
done
bash scripts/build.sh release favorlab
# exec: a signal to this script (Ctrl-C, SIGTERM from a job runner) reaches favorlab itself, which removes its
# temporary files; nothing keeps running after the script is gone.
exec ./build/release/favorlab reproduce "${quick[@]}" "${out_dir[@]}" "${args[@]}"
