#!/usr/bin/env bash
# Configures build/<preset> with its CMake preset. A build folder made by an older checkout with another generator
# (Unix Makefiles, before the presets named Ninja) is removed first: CMake cannot switch generators in place, and
# Ninja would not trust the other generator's objects. Extra arguments go to `cmake --preset`; CMake's output goes
# to stdout (callers redirect it).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:?usage: scripts/configure.sh PRESET [cmake arguments]}"
shift
case "$preset" in
  release | debug | asan | fuzz) ;;
  *) echo "scripts/configure.sh: unknown preset '$preset' (presets: release debug asan fuzz)" >&2; exit 2 ;;
esac
dir="build/$preset"
if [ -f "$dir/CMakeCache.txt" ]; then
  generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$dir/CMakeCache.txt")
  if [ "$generator" != "Ninja" ]; then
    echo "configure: $dir was made with ${generator:-another generator}; building it again from scratch with Ninja" >&2
    rm -rf "$dir"
  fi
fi
exec cmake --preset "$preset" "$@"
