#!/usr/bin/env bash
# scripts/gpu-check.sh's own handling, checked without a GPU and without building anything:
# - an unknown argument, two exclusive modes, --no-build without binaries, and a GPU_CHECK_BUDGET that is not a
#   positive whole number exit 2 before writing anything;
# - a budget too small for the build ends the check at once with exit 1 and "result: INCOMPLETE" in its summary,
#   before configuring (each run is under a 60 s timeout, so a budget that failed to stop the build fails this test
#   instead of building);
# - steps 2-5 against stand-in binaries (--no-build): a test binary that says all passed and a favorlab whose causal
#   time at L = 65536 is least at chunk 256 of the sweep. The check must pass, list the six chunks in its summary,
#   choose 256 and run speed with --chunk 256, and report the 16-bit and the tensor-core rows. Power: a test binary
#   that reports the GPU tests skipped must fail the check (and GPU_CHECK_ARCHIVE still packs the results); a sweep
#   whose least time is at 512 must choose 512.
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

run 2 "two modes" -- --no-build --build-only
run 2 "--no-build without binaries" -- --no-build
[ -e "$dir/results" ] && [ "$(ls "$dir/results" | wc -l)" -gt 1 ] && fail "a refused invocation wrote a results folder"

# Stand-ins for the build's two binaries.
mkdir -p "$dir/build/tests"
cat > "$dir/build/tests/favorlab_tests" <<'SH'
#!/usr/bin/env bash
if [ -n "${MOCK_SKIP:-}" ]; then echo "SKIPPED: CUDA backend unavailable: no CUDA device present"; fi
echo "All tests passed (1 assertion in 1 test case)"
SH
cat > "$dir/build/favorlab" <<'PY'
#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
opt = lambda name, default=None: args[args.index(name) + 1] if name in args else default
with open(os.environ["MOCK_CALLS"], "a") as calls:
    print(" ".join(args), file=calls)
best = int(os.environ.get("MOCK_BEST", "256"))
chunk = int(opt("--chunk", "48"))
rows = [{"kind": "time", "method": "favor_causal", "shape": "regular", "L": 65536,
         "seconds_median": 0.01 * (1 + abs(chunk - best) / best), "peak_bytes": 1, "memory_ratio": 1.26}]
for name in ("favor_bidirectional", "favor_causal_float16_inputs", "favor_causal_bfloat16_inputs", "gemm",
             "favor_causal_bfloat16", "gemm_bfloat16"):
    rows.append({"kind": "time", "method": name, "shape": "regular", "L": 65536, "seconds_median": 0.008,
                 "peak_bytes": 1})
json.dump({"rows": rows}, open(opt("--out"), "w"))
PY
chmod +x "$dir/build/favorlab" "$dir/build/tests/favorlab_tests"
export MOCK_CALLS="$dir/calls.txt"

check_run() {  # expected-best-chunk
  local summary
  summary=$(ls -t "$dir"/results/*/summary.txt | head -n1)
  [ "$(grep -c '^chunk .*: favor_causal' "$summary")" = 6 ] || fail "the summary does not list the six chunks"
  grep -q "least time at chunk $1\$" "$summary" || fail "the sweep did not choose chunk $1"
  grep -q "^speed .*--quick .*--chunk $1 " "$MOCK_CALLS" || fail "speed --quick did not run at chunk $1"
  grep -q "^16-bit inputs: favor_causal_bfloat16_inputs at L = 65536" "$summary" || fail "no 16-bit row in the summary"
  tensor_row="^tensor cores: favor_causal_bfloat16 at L = 65536: 8.000 ms against float32 10.000 ms (0.800x);"
  grep -q "$tensor_row 1.00x its bfloat16 products alone" "$summary" || fail "no tensor-core row in the summary"
  grep -q "^result: PASS" "$summary" || fail "the summary does not end with PASS"
}
: > "$MOCK_CALLS"; run 0 "steps 2-5, least time at chunk 256" -- --no-build; check_run 256
: > "$MOCK_CALLS"; run 0 "steps 2-5, least time at chunk 512" MOCK_BEST=512 -- --no-build; check_run 512
run 1 "GPU tests skipped" MOCK_SKIP=1 GPU_CHECK_ARCHIVE="$dir/check.tar.gz" -- --no-build
summary=$(ls -t "$dir"/results/*/summary.txt | head -n1)
grep -q "^cuda tests: did not run" "$summary" || fail "skipped GPU tests were not reported as not run"
# The listing is read whole before it is searched: under pipefail, grep -q leaving the pipe at its first match can
# end tar with SIGPIPE and fail the pipeline even though the summary is in the archive.
listing=$(tar -tzf "$dir/check.tar.gz" 2>/dev/null)
grep -q "/summary.txt$" <<< "$listing" || fail "GPU_CHECK_ARCHIVE: no archive with the summary"

[ "$failures" = 0 ] && echo "gpu-check script: all checks passed"
exit $(( failures > 0 ))
