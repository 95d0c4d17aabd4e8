#!/usr/bin/env bash
# A newcomer's first run, timed: a clean clone of this checkout's HEAD, then the README's two commands in their order,
# scripts/reproduce.sh (build favorlab, every quick experiment, figures, ledger) and scripts/test.sh (build the tests,
# run the whole suite). Records how long each took and writes them, with the machine and the commit, as JSON
# (schema favorlab.newcomer-times/1; default results/newcomer/times.json, which README.md quotes and
# tests/docs_numbers_check.py keeps in step). Run it on a machine doing nothing else: the times are its.
#
#   scripts/newcomer-times.sh [--out PATH] [--keep]
# --keep leaves the clone (and its logs, reproduce.log and test.log) in place and prints where. Exit status: 0 when
# both commands passed, 1 when one failed (the JSON is still written, with its exit status), 2 on bad usage.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$root/results/newcomer/times.json"
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || { echo "scripts/newcomer-times.sh: --out needs a path" >&2; exit 2; }
           out="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "usage: scripts/newcomer-times.sh [--out PATH] [--keep]" >&2; exit 2 ;;
  esac
done
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
[ -d "$(dirname "$out")" ] || { echo "scripts/newcomer-times.sh: no directory for $out" >&2; exit 2; }
clone=$(mktemp -d)
cleanup() { if [ "$keep" = 0 ]; then rm -rf "$clone"; fi; }
trap cleanup EXIT
git clone -q "$root" "$clone/favorlab"
cd "$clone/favorlab"
# Every line of output stamped with the seconds since the clone, so that the phases can be read back.
stamp() {
  local start=$1 line
  while IFS= read -r line; do echo "$((SECONDS - start)) $line"; done
}
SECONDS=0
set +e
bash scripts/reproduce.sh 2>&1 | stamp 0 > "$clone/reproduce.log"
reproduce_status=${PIPESTATUS[0]}
reproduce_seconds=$SECONDS
bash scripts/test.sh 2>&1 | stamp 0 > "$clone/test.log"
test_status=${PIPESTATUS[0]}
test_seconds=$((SECONDS - reproduce_seconds))
set -e
/usr/bin/python3 - "$clone" "$out" "$reproduce_status" "$reproduce_seconds" "$test_status" "$test_seconds" <<'PY'
import json, os, platform, re, subprocess, sys
clone, out = sys.argv[1], sys.argv[2]
reproduce_status, reproduce_seconds, test_status, test_seconds = map(int, sys.argv[3:7])
def lines(name):
    with open(os.path.join(clone, name), encoding="utf-8", errors="replace") as f:
        for line in f:
            stamp, _, text = line.rstrip("\n").partition(" ")
            yield int(stamp), text
def first(name, pattern):
    return next((s for s, text in lines(name) if re.search(pattern, text)), None)
tests = next((text for _, text in lines("test.log") if re.search(r"tests passed, \d+ tests? failed out of", text)), "")
counts = re.search(r"(\d+)% tests passed, (\d+) tests? failed out of (\d+)", tests)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.machine())
commit = subprocess.run(["git", "-C", os.path.join(clone, "favorlab"), "rev-parse", "--short", "HEAD"],
                        capture_output=True, text=True).stdout.strip()
doc = {
    "schema": "favorlab.newcomer-times/1",
    "commit": commit,
    "machine": {"cores": os.cpu_count(), "cpu": cpu, "system": platform.platform()},
    "reproduce": {"status": reproduce_status, "seconds": reproduce_seconds,
                  "build_seconds": first("reproduce.log", r"^build: done in"),
                  "first_result_seconds": first("reproduce.log", r": wrote "),
                  "experiments_seconds": None},
    "test": {"status": test_status, "seconds": test_seconds,
             "tests": int(counts.group(3)) if counts else None,
             "failed": int(counts.group(2)) if counts else None},
}
build = doc["reproduce"]["build_seconds"]
if build is not None:
    doc["reproduce"]["experiments_seconds"] = reproduce_seconds - build
tmp = out + ".tmp"
with open(tmp, "w", encoding="utf-8") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
os.replace(tmp, out)
print("newcomer: build %s s, first result %s s, reproduce %d s (status %d), tests %d s (status %d, %s of %s failed)"
      % (build, doc["reproduce"]["first_result_seconds"], reproduce_seconds, reproduce_status, test_seconds,
         test_status, doc["test"]["failed"], doc["test"]["tests"]))
print("newcomer: wrote " + out)
PY
if [ "$keep" = 1 ]; then echo "newcomer: the clone and its logs are in $clone"; fi
[ "$reproduce_status" = 0 ] && [ "$test_status" = 0 ]
