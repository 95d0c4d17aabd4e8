#!/usr/bin/env bash
# scripts/gpu-check.sh's own handling, checked without a GPU and without building anything: an unknown argument and a
# GPU_CHECK_BUDGET that is not a positive whole number exit 2 before writing anything; a budget too small for the build
# ends the check at once with exit 1 and "result: INCOMPLETE" in its summary, before configuring (each run is under a
# 60 s timeout, so a budget that failed to stop the build fails this test instead of building).
set -uo pipefail
script="$1"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
export GPU_CHECK_RESULTS="$dir/results" GPU_CHECK_BUILD_DIR="$dir/build"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

run() {  # expected-status description [VAR=value ...] -- arguments
  local want=$1 what=$2; shift 2
  local env=()
  while [ "$1" != "--" ]; do env+=("$1"); shift; done
  shift
  env "${env[@]}" timeout 60 bash "$script" "$@" > "$dir/out.txt" 2>&1
  local got=$?
  [ "$got" = "$want" ] || { fail "$what: exit $got, expected $want"; cat "$dir/out.txt" >&2; }
}

run 2 "unknown argument" -- --bogus
run 2 "budget 'abc'" GPU_CHECK_BUDGET=abc --
run 2 "budget 0" GPU_CHECK_BUDGET=0 --
run 2 "budget -5" GPU_CHECK_BUDGET=-5 --
run 2 "budget 1.5" GPU_CHECK_BUDGET=1.5 --
[ -e "$dir/results" ] && fail "a refused invocation wrote $dir/results"
grep -q "GPU_CHECK_BUDGET must be a positive whole number" "$dir/out.txt" || fail "the budget error does not name it"

run 1 "budget 1 s" GPU_CHECK_BUDGET=1 --
summary=$(ls "$dir"/results/*/summary.txt 2>/dev/null | head -n1)
if [ -z "$summary" ]; then
  fail "no summary.txt after the budget ran out"
else
  grep -q "^result: INCOMPLETE (GPU_CHECK_BUDGET spent before the build)" "$summary" ||
    { fail "summary does not say INCOMPLETE before the build:"; cat "$summary" >&2; }
fi
[ -e "$dir/build/CMakeCache.txt" ] && fail "the check configured a build with no budget left"

[ "$failures" = 0 ] && echo "gpu-check script: all checks passed"
exit $(( failures > 0 ))
