#!/usr/bin/env bash
# How often does `favorlab compare` call a rerun with another seed "changed"? For each Monte Carlo experiment with a
# row_schema, reruns it at its quick size with N other seeds (`FAVORLAB EXP --quick --seed S`) and compares each rerun
# against the committed quick file results/EXP.json, the way a user checks a rerun against the committed results.
# Nothing changed between them but the seed, so every "changed" is a false change and every "undecided" a failure to
# decide. Writes a summary (schema favorlab.compare-seeds/1) and prints the table docs/compare.md shows
# (scripts/compare_seeds_table.py; tests/compare_docs_check.py keeps the two in step):
#   per experiment: pairs, changed, undecided, rate = changed/pairs with its 95 % Clopper–Pearson interval, the least
#   and median fraction of statistics compared, wall seconds, and the first changes seen (field, test, seed).
#
#   scripts/compare-seeds.sh FAVORLAB [--seeds N] [--first-seed S] [--experiments "mse tails ..."] [--threads T]
#                            [--baselines DIR] [--out PATH]
# Defaults: 50 seeds from 1 (the baseline's own seed is skipped), all ten experiments, 2 threads, the committed quick
# files in results/ as baselines, results/compare/seeds.json. Builds nothing. A full measurement (50 seeds, ten
# experiments) takes about two hours on two cores. Exit status: 0 when every rerun was compared (whatever the
# verdicts), 2 on bad usage or when a run or a compare fails with bad input.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
usage() {
  echo "usage: scripts/compare-seeds.sh FAVORLAB [--seeds N] [--first-seed S] [--experiments LIST] [--threads T]" \
       "[--baselines DIR] [--out PATH]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
favorlab="$1"
shift
case "$favorlab" in /*) ;; *) favorlab="$PWD/$favorlab" ;; esac
if [ ! -x "$favorlab" ] || [ ! -f "$favorlab" ]; then
  echo "scripts/compare-seeds.sh: $favorlab is not an executable" >&2
  exit 2
fi
seeds=50 first=1 threads=2 out="$root/results/compare/seeds.json" baselines="$root/results"
experiments="unbiased mse orthogonal smreg estimators tails moments structured perm-order redraw"
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case "$1" in
    --seeds) seeds="$2" ;;
    --first-seed) first="$2" ;;
    --experiments) experiments="$2" ;;
    --threads) threads="$2" ;;
    --out) out="$2" ;;
    --baselines) baselines="$2" ;;
    *) usage ;;
  esac
  shift 2
done
for n in "$seeds" "$first" "$threads"; do [[ "$n" =~ ^[1-9][0-9]{0,5}$ ]] || usage; done
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
case "$baselines" in /*) ;; *) baselines="$PWD/$baselines" ;; esac
[ -d "$(dirname "$out")" ] || { echo "scripts/compare-seeds.sh: no directory for $out" >&2; exit 2; }
for e in $experiments; do
  case " unbiased mse orthogonal smreg estimators tails moments structured perm-order redraw " in
    *" $e "*) ;;
    *) echo "scripts/compare-seeds.sh: '$e' is not an experiment with a row_schema" >&2; exit 2 ;;
  esac
  [ -f "$baselines/$e.json" ] || { echo "scripts/compare-seeds.sh: no baseline $baselines/$e.json" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for e in $experiments; do
  base="$baselines/$e.json"
  own=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["params"]["seed"])' "$base")
  start=$SECONDS
  done_seeds=0 seed=$first
  while [ "$done_seeds" -lt "$seeds" ]; do
    if [ "$seed" != "$own" ]; then
      "$favorlab" "$e" --quick --seed "$seed" --threads "$threads" --quiet --out "$work/run.json" || {
        echo "scripts/compare-seeds.sh: favorlab $e --quick --seed $seed failed" >&2
        exit 2
      }
      rc=0
      "$favorlab" compare "$base" "$work/run.json" --out "$work/$e.$seed.report.json" > /dev/null 2> "$work/err" ||
        rc=$?
      if [ "$rc" -eq 2 ]; then
        echo "scripts/compare-seeds.sh: compare of $e seed $seed refused: $(cat "$work/err")" >&2
        exit 2
      fi
      rm -f "$work/run.json"
      done_seeds=$((done_seeds + 1))
    fi
    seed=$((seed + 1))
  done
  echo "$e $((SECONDS - start))" >> "$work/seconds"
  echo "compare-seeds: $e done ($seeds seeds)" >&2
done

/usr/bin/python3 - "$work" "$out.tmp" "$("$favorlab" --version | head -1)" "$baselines" $experiments <<'PY'
import glob, hashlib, json, os, statistics, sys
from scipy.stats import beta

work, out, version, baselines, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
seconds = dict(line.split() for line in open(os.path.join(work, "seconds")))
summary = {"schema": "favorlab.compare-seeds/1", "favorlab": version, "alpha": None, "experiments": {}}


def clopper_pearson(k, n, confidence=0.95):
    a = (1 - confidence) / 2
    return (0.0 if k == 0 else beta.ppf(a, k, n - k + 1), 1.0 if k == n else beta.isf(a, k + 1, n - k))


for name in names:
    reports = []
    for path in glob.glob(os.path.join(work, name + ".*.report.json")):
        seed = int(path[len(os.path.join(work, name)) + 1:-len(".report.json")])
        reports.append((seed, json.load(open(path))))
    reports.sort()
    pairs = len(reports)
    changed = sum(1 for _, r in reports if r["changed"])
    undecided = sum(1 for _, r in reports if not r["changed"] and r["too_many_uncompared"])
    coverage = [1 - r["uncompared_fraction"] for _, r in reports]
    first = []
    for seed, r in reports:
        for c in r["changes"][:3]:
            first.append({"seed": seed, "row": c["row"], "field": c["field"], "kind": c["kind"], "test": c["test"]})
        for m in r["exact_mismatches"][:3]:
            first.append({"seed": seed, "row": m["row"], "field": m["field"], "kind": "exact field", "test": None})
    summary["alpha"] = reports[0][1]["alpha"] if reports else None
    summary["experiments"][name] = {
        "pairs": pairs, "seeds": [s for s, _ in reports], "changed": changed, "undecided": undecided,
        "rate": changed / pairs, "interval": list(clopper_pearson(changed, pairs)), "confidence": 0.95,
        "coverage_min": min(coverage), "coverage_median": statistics.median(coverage),
        "wall_seconds": round(float(seconds[name]), 1), "first_changes": first[:20],
        "baseline_sha256": hashlib.sha256(open(os.path.join(baselines, name + ".json"), "rb").read()).hexdigest()}
with open(out, "w") as f:
    json.dump(summary, f, indent=1)
    f.write("\n")
PY
mv "$out.tmp" "$out"
/usr/bin/python3 "$root/scripts/compare_seeds_table.py" seeds "$out"
echo "compare-seeds: wrote $out" >&2
