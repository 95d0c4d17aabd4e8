#!/usr/bin/env bash
# Builds and runs favorlab's libFuzzer targets (fuzz/) with the fuzz preset (clang, ASan + UBSan): build/fuzz.
#   scripts/fuzz.sh [SECONDS] [TARGET...]     default: 60 seconds, target npy
# Targets: npy (the .npy reader; builds in seconds), compare (compare's bounded JSON reader and comparison; builds in
# seconds), manifest (attention-report's capture manifest; builds in seconds) and cli (the command line; builds the whole library with the sanitizers first). Each runs for SECONDS on build/fuzz/corpus-<target>, which starts as a copy of the seed corpus
# tests/fuzz/corpus/<target>/ and keeps what earlier runs found (delete it to start over); the checkout is not touched.
# Extra libFuzzer flags: FAVORLAB_FUZZ_FLAGS="-jobs=4 -workers=4" scripts/fuzz.sh 3600 npy
# Exit status: 0 when every target ran clean; 1 when one found a crash (its reproducer's path is printed:
# build/fuzz/crashes-<target>/crash-…; replay it with build/fuzz/<target>_fuzz PATH), 2 for bad usage.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
  seconds="$1"
  shift
fi
if [ "$seconds" -lt 1 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: npy compare manifest cli; default: 60 npy)" >&2
  exit 2
fi
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(npy)
for t in "${targets[@]}"; do
  case "$t" in
    npy | compare | manifest | cli) ;;
    *) echo "scripts/fuzz.sh: unknown target '$t' (targets: npy compare manifest cli)" >&2; exit 2 ;;
  esac
done

# Prerequisites: favorlab's own packages and clang with its sanitizer/libFuzzer runtimes and OpenMP (Debian 12).
bash scripts/deps.sh clang libclang-rt-dev libomp-dev

build="$PWD/build/fuzz"  # absolute: cli_fuzz handles each input in a directory of its own
bash scripts/configure.sh fuzz >/dev/null
build_targets=()
for t in "${targets[@]}"; do build_targets+=(--target "${t}_fuzz"); done
cmake --build "$build" "${build_targets[@]}" -j "$(nproc)"

# The longest input per target (npy: 64 KiB, where version 2.0 headers start; compare: 64 KiB, two small results;
# cli: 16 arguments of 256 bytes). One
# allocation over -malloc_limit_mb (256 MiB, far above what such inputs need) is a finding: a size taken from the
# input before it was checked. A crash, a sanitizer report, an input running over -timeout, or the process over
# -rss_limit_mb is a finding too; each leaves its input in build/fuzz/crashes-<target>/ (crash-, oom-, timeout-…).
max_len() { case "$1" in npy | compare | manifest) echo 65536 ;; cli) echo 4112 ;; esac; }

status=0
for t in "${targets[@]}"; do
  corpus="$build/corpus-$t"
  crashes="$build/crashes-$t"
  log="$build/fuzz-$t.log"
  mkdir -p "$corpus" "$crashes"
  cp tests/fuzz/corpus/"$t"/* "$corpus"/
  find "$crashes" -type f | sort >"$build/.crashes-before-$t"
  dict=()
  [ -f "fuzz/$t.dict" ] && dict=(-dict="$PWD/fuzz/$t.dict")
  echo "fuzz.sh: $t: ${seconds}s on $corpus (log: $log)" >&2
  rc=0
  # shellcheck disable=SC2086  # FAVORLAB_FUZZ_FLAGS is a list of flags
  "$build/${t}_fuzz" -max_total_time="$seconds" -max_len="$(max_len "$t")" -rss_limit_mb=2048 -malloc_limit_mb=256 \
    -timeout=30 -print_final_stats=1 -artifact_prefix="$crashes/" "${dict[@]}" ${FAVORLAB_FUZZ_FLAGS:-} \
    "$corpus" >"$log" 2>&1 || rc=$?

  inited=$(grep -m1 -E '#[0-9]+[[:space:]]+INITED' "$log" || true)
  done_line=$(grep -E '#[0-9]+[[:space:]]+DONE' "$log" | tail -1 || true)
  field() { sed -nE "s/.*[[:space:]]$1: ([0-9]+).*/\\1/p" <<<"$2"; }
  final_stat() { sed -nE "s/^stat::$1:[[:space:]]*([0-9]+).*/\\1/p" "$log" | tail -1; }
  runs=$(final_stat number_of_executed_units)
  per_s=$(final_stat average_exec_per_sec)
  cov0=$(field cov "$inited"); cov1=$(field cov "$done_line")
  ft0=$(field ft "$inited"); ft1=$(field ft "$done_line")
  corp=$(field corp "$done_line")
  files=$(find "$corpus" -type f | wc -l)
  new_crashes=$(find "$crashes" -type f | sort | comm -13 "$build/.crashes-before-$t" -)
  rm -f "$build/.crashes-before-$t"
  if [ "$rc" -ne 0 ] || [ -n "$new_crashes" ]; then
    status=1
    tail -n 60 "$log" >&2
    echo "fuzz.sh: $t: FAILED (libFuzzer exit status $rc) after ${runs:-?} runs; reproducer:" >&2
    if [ -n "$new_crashes" ]; then sed 's/^/  /' <<<"$new_crashes" >&2; else echo "  (none written: see $log)" >&2; fi
    echo "fuzz.sh: $t: replay with: $build/${t}_fuzz REPRODUCER   (full log: $log)" >&2
  else
    echo "fuzz.sh: $t: ok: ${runs:-?} runs in ${seconds}s (${per_s:-?}/s), corpus ${corp:-?} inputs ($files files in the directory)," \
         "coverage ${cov0:-?} -> ${cov1:-?} edges (+$(( ${cov1:-0} - ${cov0:-0} ))), features ${ft0:-?} -> ${ft1:-?}," \
         "no crash"
  fi
done
exit "$status"
