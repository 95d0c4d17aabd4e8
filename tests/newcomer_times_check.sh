#!/bin/bash
# scripts/newcomer-times.sh against stand-in commands: a throwaway git checkout whose reproduce.sh and test.sh print
# what the real ones print, with pauses. The JSON must carry their exit statuses, the phase times read from the
# output, and the test count; a failing test.sh must fail the script (JSON still written). No build, no favorlab.
set -u
script=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
repo="$tmp/repo"
mkdir -p "$repo/scripts"
cp "$script" "$repo/scripts/newcomer-times.sh"
cat > "$repo/scripts/reproduce.sh" <<'STUB'
echo "build: configuring (release preset)"
sleep 1
echo "build: done in 1 s, 0 compiler warnings (log: build/release-build.log)"
sleep 1
echo "unbiased: wrote results/unbiased.json (0.9s)"
echo "reproduce: done in 1 s"
STUB
printf 'sleep 1\necho "100%% tests passed, 0 tests failed out of 42"\n' > "$repo/scripts/test.sh"
git -C "$repo" init -q && git -C "$repo" add . && git -C "$repo" -c user.name=t -c user.email=t@t commit -qm stub
fail() { echo "FAIL: $1"; exit 1; }
bash "$repo/scripts/newcomer-times.sh" --out "$tmp/t.json" > "$tmp/out" 2>&1 || fail "a passing run failed: $(cat "$tmp/out")"
/usr/bin/python3 - "$tmp/t.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
r, t = d["reproduce"], d["test"]
ok = (d["schema"] == "favorlab.newcomer-times/1" and r["status"] == 0 and t["status"] == 0 and t["tests"] == 42
      and t["failed"] == 0 and 1 <= r["build_seconds"] <= r["first_result_seconds"] <= r["seconds"]
      and r["experiments_seconds"] == r["seconds"] - r["build_seconds"] and t["seconds"] >= 1)
if not ok:
    print("FAIL: unexpected times:", d)
    sys.exit(1)
PY
printf 'echo "97%% tests passed, 1 tests failed out of 42"\nexit 8\n' > "$repo/scripts/test.sh"
git -C "$repo" -c user.name=t -c user.email=t@t commit -qam failing
bash "$repo/scripts/newcomer-times.sh" --out "$tmp/f.json" > "$tmp/out" 2>&1 && fail "a failing test.sh passed"
grep -q '"failed": 1' "$tmp/f.json" || fail "the failing run's JSON does not say 1 failed"
grep -q '"status": 8' "$tmp/f.json" || fail "the failing run's JSON does not carry test.sh's status"
bash "$repo/scripts/newcomer-times.sh" --bogus > /dev/null 2>&1; [ $? = 2 ] || fail "bad usage did not exit 2"
echo "ok: times, statuses and the test count read back; a failing suite fails the script; bad usage exits 2"
