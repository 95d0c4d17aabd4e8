#!/bin/bash
# The layers point down (cmake/layers.cmake): the source tree passes the check, and the same tree with one include
# planted upwards (stats reaching attention) fails it with that file named — the check's power case.
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -DSOURCE_DIR="$src" -P "$src/cmake/layers.cmake" || { echo "FAIL: the source tree's includes point up"; exit 1; }
mkdir -p "$tmp/cmake"
cp -r "$src/src" "$src/experiments" "$tmp/"
cp "$src/cmake/layers.cmake" "$tmp/cmake/"
echo '#include "attention/attend.hpp"' >> "$tmp/src/stats/check.cpp"
out=$(cmake -DSOURCE_DIR="$tmp" -P "$tmp/cmake/layers.cmake" 2>&1) && { echo "FAIL: a planted upward include passed"; exit 1; }
grep -q 'src/stats/check.cpp: #include "attention/attend.hpp"' <<<"$out" ||
  { echo "FAIL: the planted include was not named:"; echo "$out"; exit 1; }
echo "ok: layers point down; a planted upward include is refused and named"
