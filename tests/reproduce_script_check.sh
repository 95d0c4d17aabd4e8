#!/usr/bin/env bash
# scripts/reproduce.sh with a stub build and a stub favorlab (no build, no experiments): a relative --out-dir is the
# caller's directory, not the checkout's, and a SIGTERM to the script ends favorlab too (the script execs it).
#   tests/reproduce_script_check.sh REPO_ROOT
set -euo pipefail
root="$1"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fake="$work/checkout"
mkdir -p "$fake/scripts" "$fake/build/release" "$work/caller"
cp "$root/scripts/reproduce.sh" "$fake/scripts/"
printf '#!/bin/sh\nexit 0\n' > "$fake/scripts/build.sh"
record="$work/record"
# The stub favorlab records where it runs and what it got, then becomes a long sleep in the same process.
printf '#!/bin/sh\necho "$PWD" > "%s.tmp"; echo "$*" >> "%s.tmp"; mv "%s.tmp" "%s"\nexec sleep 60\n' \
  "$record" "$record" "$record" "$record" > "$fake/build/release/favorlab"
chmod +x "$fake/build/release/favorlab"

fail() { echo "FAIL: $*" >&2; exit 1; }
(cd "$work/caller" && exec bash "$fake/scripts/reproduce.sh" --out-dir out --no-figures) &
pid=$!
for _ in $(seq 100); do [ -f "$record" ] && break; sleep 0.1; done
[ -f "$record" ] || fail "the stub favorlab never started"
[ "$(sed -n 2p "$record")" = "reproduce --quick --out-dir $work/caller/out --no-figures" ] ||
  fail "favorlab got '$(sed -n 2p "$record")', not the caller's --out-dir"
kill -TERM "$pid"
for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "favorlab still runs after SIGTERM to scripts/reproduce.sh"
if pgrep -f "sleep 60" -P "$pid" >/dev/null 2>&1; then fail "a child of the script survived"; fi
wait "$pid" 2>/dev/null || true

# The default and --full keep the checkout's results directories; an absolute --out-dir is passed as given.
rm -f "$record"
(cd "$work/caller" && exec bash "$fake/scripts/reproduce.sh" --full --out-dir /abs/dir) &
pid=$!
for _ in $(seq 100); do [ -f "$record" ] && break; sleep 0.1; done
[ "$(sed -n 1p "$record")" = "$fake" ] || fail "favorlab ran in $(sed -n 1p "$record"), not the checkout"
[ "$(sed -n 2p "$record")" = "reproduce --out-dir /abs/dir" ] || fail "got '$(sed -n 2p "$record")'"
kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
echo "reproduce.sh: the caller's --out-dir, favorlab ended by SIGTERM to the script: ok"
