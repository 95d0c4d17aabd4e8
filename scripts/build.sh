#!/usr/bin/env bash
# Configures and builds favorlab with a CMake preset (default: release) after installing missing packages.
# A second argument names one target to build (scripts/reproduce.sh builds only `favorlab`, not the tests).
# The compiler's output goes to build/<preset>-build.log; the terminal gets a line per phase, the percentage now and
# then, and on failure the log's last lines and its path. FAVORLAB_BUILD_VERBOSE=1 shows the whole output instead.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
target=()
what="favorlab and its tests"
if [ $# -ge 2 ]; then
  target=(--target "$2")
  what="$2"
fi
bash scripts/deps.sh
if [ "${FAVORLAB_BUILD_VERBOSE:-0}" = 1 ]; then
  bash scripts/configure.sh "$preset" >/dev/null
  exec cmake --build --preset "$preset" -j "$(nproc)" "${target[@]}"
fi
mkdir -p build
log="build/$preset-build.log"
start=$SECONDS
failed() {
  echo "build: $1 failed; the last lines of $log:" >&2
  tail -n 25 "$log" >&2
  echo "build: the whole output is in $log" >&2
  exit 1
}
echo "build: configuring ($preset preset)"
bash scripts/configure.sh "$preset" >"$log" 2>&1 || failed "configuring"
echo "build: compiling $what on $(nproc) cores (a fresh clone takes minutes; output in $log)"
cmake --build --preset "$preset" -j "$(nproc)" "${target[@]}" >>"$log" 2>&1 &
builder=$!
# A signal to this script ends the compiler too, not just the script.
trap 'kill "$builder" 2>/dev/null; exit 130' INT TERM
shown=""
while kill -0 "$builder" 2>/dev/null; do
  sleep 5
  # Ninja's progress, "[done/total]", as a percentage.
  percent=$(grep -o '^\[[0-9]*/[0-9]*\]' "$log" | tail -n 1 | tr -d '[]' |
            awk -F/ '$2 > 0 { printf "%d", 100 * $1 / $2 }' || true)
  # One line when the percentage has moved by ten points or more: a heartbeat, not a transcript.
  if [ -n "$percent" ] && { [ -z "$shown" ] || [ "$percent" -ge $((shown + 10)) ]; }; then
    echo "build: $percent % ($((SECONDS - start)) s)"
    shown=$percent
  fi
done
wait "$builder" || failed "compiling"
trap - INT TERM
warnings=$(grep -c 'warning:' "$log" || true)
echo "build: done in $((SECONDS - start)) s, $warnings compiler warnings (log: $log)"
