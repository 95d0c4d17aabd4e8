#!/usr/bin/env bash
# scripts/configure.sh on a stand-in project that uses the repository's own presets: a build folder left by Make is
# removed and configured again with Ninja; a Ninja folder is kept as it is; a preset name that is not one of the four
# is refused with one line and status 2, nothing removed.
#   tests/configure_script_check.sh REPO_ROOT
set -euo pipefail
root="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts" "$work/build/release"
cp "$root/scripts/configure.sh" "$work/scripts/"
cp "$root/CMakePresets.json" "$work/"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(standin NONE)\n' > "$work/CMakeLists.txt"
fail() { echo "FAIL: $*" >&2; exit 1; }

# An older checkout's folder: Make's cache and an object of its own.
printf 'CMAKE_GENERATOR:INTERNAL=Unix Makefiles\n' > "$work/build/release/CMakeCache.txt"
touch "$work/build/release/stale.o"
bash "$work/scripts/configure.sh" release > "$work/out" 2> "$work/err" || fail "Make's folder: $(cat "$work/err")"
grep -q "made with Unix Makefiles" "$work/err" || fail "no word of the Make folder: $(cat "$work/err")"
[ ! -e "$work/build/release/stale.o" ] || fail "the Make folder's objects were kept"
[ -f "$work/build/release/build.ninja" ] || fail "no build.ninja: the release preset does not build with Ninja"

# A Ninja folder: configured in place, nothing removed, nothing said.
touch "$work/build/release/kept"
bash "$work/scripts/configure.sh" release > "$work/out" 2> "$work/err" || fail "Ninja folder: $(cat "$work/err")"
[ -e "$work/build/release/kept" ] || fail "a Ninja folder was removed"
[ ! -s "$work/err" ] || fail "a Ninja folder drew a message: $(cat "$work/err")"

# A preset that would name a folder outside build/: refused before anything is touched.
status=0
bash "$work/scripts/configure.sh" ../release > "$work/out" 2> "$work/err" || status=$?
[ "$status" = 2 ] || fail "preset '../release' gave status $status, not 2"
[ "$(wc -l < "$work/err")" = 1 ] || fail "preset '../release' gave more than one line: $(cat "$work/err")"
[ -e "$work/build/release/kept" ] || fail "a refused preset removed a folder"
echo "ok: configure.sh resets Make folders, keeps Ninja ones, refuses unknown presets"
