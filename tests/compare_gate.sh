#!/usr/bin/env bash
# The statistics gate of favorlab's own CI (`favorlab compare`): a small fixed-seed `mse` sweep must match the
# committed baseline tests/baselines/mse.json statistically (exit 0) — on any machine or compiler, where bits differ.
# Power: the same sweep with the positive estimator's mean scaled by 1.01 (a 1 % bias) is flagged (exit 1) and named.
# Level: five reruns with other seeds are not flagged; each compare's family-wise false-flag rate is alpha = 1e-3, so
# this script fails by chance with probability at most 5e-3 (and at most 1e-3 more from each experiment below whose
# compare is statistical: a rerun of the same seed gives the same numbers on one build, and within the gate elsewhere).
# Uncompared: none (every statistic of the sweep gets a test: the z test, or past the gate a bound from its closed
# form, or sampled Chebyshev), so the gate keeps compare's default --max-uncompared.
# Then every other Monte Carlo experiment against its own baseline tests/baselines/EXPERIMENT.json (experiment_run):
# the same seed matches (exit 0); a planted shift of one row's statistic (tests/compare_plant.py: 3 times the
# threshold of the test compare gives it, from the report's judged statistics; a proportion's k -> 2k + 20, exact p
# far below alpha) is flagged (exit 1) and the row is named; a new file without its closed-form gate fields is not
# "unchanged" (tails and redraw declare none: a proportion needs no gate, redraw's skewness bound is sampled).
# Regenerate the baselines (after a deliberate change of the statistics) with:
#   tests/compare_gate.sh FAVORLAB --update [EXPERIMENT ...]   (no EXPERIMENT: mse and all the others)
set -euo pipefail
favorlab="$1"
here="$(cd "$(dirname "$0")" && pwd)"
baseline="$here/baselines/mse.json"
plant="/usr/bin/python3 $here/compare_plant.py"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
sweep() {  # seed out
  "$favorlab" mse --estimators trig,positive,hyperbolic --couplings iid,orthogonal --d 8 --m 16 \
    --x-norm 0.25,0.5 --y-norm 0.25,0.5 --cos -0.5,0.5 --trials 40000 --importance-trials 0 --seed "$1" --threads 2 \
    --quiet --out "$2"
}
# Each experiment's small run (a few seconds at --threads 2): experiment seed out.
experiment_run() {
  local e="$1" seed="$2" out="$3" grid
  case "$e" in
    orthogonal) grid="--d 4 --m 2,4 --cos -0.9999999,-0.9,-0.7 --trials 50000 --importance-trials 10000" ;;
    smreg) grid="--d 4,16 --z-norm 0.1,1,3 --C 2 --asymptote-d 1024 --trials 20000" ;;
    estimators) grid="--d 4 --x-norm 0.25 --y-norm 0.25 --cos -0.5,0.5 --trials 100000" ;;
    tails) grid="--d 2 --m 1,2 --x-norm 0.5 --y-norm 0.5 --delta 0.05,0.5,2 --trials 20000" ;;
    moments) grid="--d 4,64 --max-k 8 --tau-d-min 2 --tau-d-max 6 --tau-max-degree 12 --trials 20000" ;;
    structured)
      grid="--d 4,16 --x-norm 0.25 --y-norm 0.25 --cos 0,0.5 --trials 20000 --speed-d 64 --batch 64 --repeats 1" ;;
    perm-order) grid="--n 8,16 --heads 1,2 --head-size 16 --trials 20000" ;;
    redraw) grid="--L 64 --d 8 --m 64 --features positive --trials 30000 --groups 10000 --k-values 1,4" ;;
  esac
  # shellcheck disable=SC2086  # grid is a word list
  "$favorlab" "$e" --quick $grid --seed "$seed" --threads 2 --quiet --out "$out"
}
experiments="orthogonal smreg estimators tails moments structured perm-order redraw"
# The measured fraction of each baseline's statistics that compare cannot judge (past the heavy-tail gate with
# nothing to scale to, or non-finite), which --max-uncompared must allow and no more: none in any of them (a rerun
# with seed 8 of each small grid: every statistic gets the z test, a distribution-free bound or sampled Chebyshev).
declare -A max_uncompared=(
  [orthogonal]=0 [smreg]=0 [estimators]=0 [tails]=0 [moments]=0 [structured]=0 [perm-order]=0 [redraw]=0)
if [ "${2:-}" = "--update" ]; then
  shift 2
  for e in "${@:-mse $experiments}"; do
    for one in $e; do
      if [ "$one" = mse ]; then sweep 7 "$baseline"; else experiment_run "$one" 7 "$here/baselines/$one.json"; fi
      echo "wrote the $one baseline"
    done
  done
  exit 0
fi

sweep 7 "$dir/new.json"
"$favorlab" compare "$baseline" "$dir/new.json" > "$dir/same.txt" || { cat "$dir/same.txt" >&2; exit 1; }

/usr/bin/python3 - "$dir/new.json" "$dir/biased.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for row in r["rows"]:
    if row["estimator"] == "positive":
        row["mean"] *= 1.01
        row["stderr"] *= 1.01
json.dump(r, open(sys.argv[2], "w"))
PY
if "$favorlab" compare "$baseline" "$dir/biased.json" > "$dir/biased.txt"; then
  echo "a 1 % bias of the positive estimator was not flagged:" >&2; cat "$dir/biased.txt" >&2; exit 1
fi
grep -q "estimator=positive" "$dir/biased.txt" || { cat "$dir/biased.txt" >&2; exit 1; }

for seed in 8 9 10 11 12; do
  sweep "$seed" "$dir/seed.json"
  "$favorlab" compare "$baseline" "$dir/seed.json" > "$dir/seed.txt" || {
    echo "seed $seed flagged against the baseline (false-flag rate 1e-3 per compare):" >&2; cat "$dir/seed.txt" >&2
    exit 1
  }
done

# compare BASE NEW TXT [--out JSON]: the experiment's gate; its exit status.
gate() {
  local e="$1"; shift
  "$favorlab" compare --max-uncompared "${max_uncompared[$e]}" "$@"
}
# expect_caught EXPERIMENT NEW WHAT [GREP]: exit 1, naming the planted row's FIELD change (and GREP on that line).
expect_caught() {
  local e="$1" new="$2" what="$3" line
  if gate "$e" "$here/baselines/$e.json" "$new" > "$dir/caught.txt"; then
    echo "$e: $what was not flagged:" >&2; cat "$dir/caught.txt" >&2; exit 1
  fi
  line=$(grep -F "$(cat "$dir/field") changed at $(cat "$dir/row"):" "$dir/caught.txt") || {
    echo "$e: $what: the report does not name the row:" >&2; cat "$dir/caught.txt" >&2; exit 1; }
  if [ -n "${4:-}" ] && ! grep -q -- "$4" <<< "$line"; then
    echo "$e: $what: expected '$4' in: $line" >&2; exit 1
  fi
}
# shift_one EXPERIMENT FIELD [CONDITION]: plant a shift of FIELD in the row CONDITION picks (tests/compare_plant.py).
shift_one() {
  echo "$2" > "$dir/field"
  $plant shift "$dir/$1.json" "$dir/planted.json" "$dir/$1.report.json" "$2" "${3:-True}" > "$dir/row"
}

for e in $experiments; do
  experiment_run "$e" 7 "$dir/$e.json"
  gate "$e" "$here/baselines/$e.json" "$dir/$e.json" --out "$dir/$e.report.json" > "$dir/same.txt" || {
    echo "$e: the baseline's own seed does not match it:" >&2; cat "$dir/same.txt" >&2; exit 1; }
  case "$e" in
    tails) shift_one "$e" p_hat ;;
    perm-order) shift_one "$e" mc_mean_log_order ;;
    moments) shift_one "$e" mean ;;
    redraw|estimators) shift_one "$e" mse ;;
    *) shift_one "$e" mean ;;
  esac
  expect_caught "$e" "$dir/planted.json" "a planted shift"
  if [ "$e" != tails ] && [ "$e" != redraw ]; then  # no closed-form gate fields there
    $plant strip-gates "$dir/$e.json" "$dir/stripped.json"
    if gate "$e" "$here/baselines/$e.json" "$dir/stripped.json" > "$dir/stripped.txt"; then
      echo "$e: a file without its gate fields passed:" >&2; cat "$dir/stripped.txt" >&2; exit 1
    fi
    grep -q "^gate field" "$dir/stripped.txt" || { cat "$dir/stripped.txt" >&2; exit 1; }
  fi
done
# A heavy-tailed statistic: E[u1^16] at d = 64 (2.6e-9, skewness of one draw 1621, far past the z test's gate at 2e4
# draws) is judged by Chebyshev's inequality on its closed-form variance; moved by 3 times its threshold it is caught.
shift_one moments mean 'row["d"] == 64 and row["power"] == 16'
expect_caught moments "$dir/planted.json" "a shift of a heavy-tailed statistic" "Chebyshev"
# A tiny statistic: the simplex MSE at m = 4, cos -0.9999999 (7.9e-10 +- 5.5e-12, a z test on the baseline's
# spread): moved by 3 times the z test's threshold (z = 3 z_crit), far above the rounding floor (1e-9 of the value
# plus (1e-9 truth)^2 = 1e-19), it is caught.
shift_one orthogonal mse 'row["coupling"] == "simplex" and row["m"] == 4 and row["cos_angle"] == -0.9999999'
expect_caught orthogonal "$dir/planted.json" "a shift of an MSE of 8e-10" "z = "
echo "compare_gate: baseline matched, a 1 % bias flagged, 5 other seeds not flagged; $experiments: baselines" \
  "matched, planted shifts flagged (heavy-tailed and 1e-9 ones too), files without gate fields refused"
