#!/usr/bin/env bash
# Small experiment runs through the plotting scripts: every figure is written and is a PNG.
set -euo pipefail
favorlab="$1"; plotting="$2"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
grid=(--x-norm 0.5,1 --y-norm 0.5,1 --cos -0.9,0,0.9 --trials 500 --quiet)
"$favorlab" unbiased "${grid[@]}" --out "$dir/unbiased.json"
"$favorlab" mse "${grid[@]}" --out "$dir/mse.json"
"$favorlab" smreg --d 2,16 --z-norm 0.1,1,10 --C 1.5,3 --asymptote-d 1024 --trials 500 --quiet --out "$dir/smreg.json"
"$favorlab" tails --d 2 --trials 500 --quiet --out "$dir/tails.json"
"$favorlab" orthogonal --d 4 --m 1,4 --trials 500 --quiet --out "$dir/orthogonal.json"
"$favorlab" estimators --d 4 --x-norm 0.5 --y-norm 0.5,1 --cos 0,0.9 --trials 500 --quiet --out "$dir/estimators.json"
"$favorlab" moments --d 2,8 --max-k 2 --trials 500 --tau-d-max 6 --quiet --out "$dir/moments.json"
"$favorlab" structured --d 4,16 --x-norm 1 --y-norm 1 --cos 0,0.9 --speed-d 64 --batch 64 --repeats 1 \
  --trials 300 --quiet --out "$dir/structured.json"
"$favorlab" perm-order --n 8,16,64 --heads 1,12 --trials 300 --quiet --out "$dir/perm-order.json"
"$favorlab" permute-properties --trials 2 --m 12 --d 4 --positions 64 --grid 6x5 --lengths 100,1000 \
  --overhead-L 256,512 --overhead-m 64,256 --overhead-d 16 --repeats 1 --quiet --out "$dir/permute-properties.json"
"$favorlab" attention-error --L 64 --d 8 --m-values 8,16 --trials 4 --quiet --out "$dir/attention-error.json"
"$favorlab" attention-report --L 32 --d 4 --heads 2 --m-values 4,8 --trials 3 --features positive,trig --quiet \
  --out "$dir/attention-report.json" > /dev/null
"$favorlab" redraw --L 64 --d 8 --m 8 --trials 40 --groups 4 --k-values 1,2,4 --quiet --out "$dir/redraw.json"
"$favorlab" attention-matrix --L 16 --d 4 --m 8 --quiet --out "$dir/attention-matrix.json"
"$favorlab" speed --min-L 64 --max-L 128 --d 8 --m 16 --trials 2 --quiet --out "$dir/speed.json"
"$favorlab" uniform --L 16,32 --d 4,8 --m 4,16 --trials 10 --quiet --out "$dir/uniform.json"
"$favorlab" kernels --kernels relu,trig,positive --scales 0.5,2 --L 32 --d 4 --m 8 --trials 2 --quiet \
  --out "$dir/kernels.json"
"$favorlab" layers --layers 2 --width 8 --heads 2 --L 16 --m 8 --trials 2 --quiet --out "$dir/layers.json"
# Extra series colours (another m of one estimator) must not be any family's colour.
/usr/bin/python3 -c "import sys; sys.path.insert(0, sys.argv[1]); import families, style
assert not set(style.EXTRA_COLORS) & set(families.COLORS.values()), 'an extra colour is a family colour'" "$plotting"
/usr/bin/python3 "$plotting/make_figures.py" --results "$dir" --quiet
for f in mse.png mse_ratio.png unbiased.png unbiased_bias.png smreg_ratio.png smreg_bound.png \
         tails_d2.png estimators.png orthogonal_positive.png orthogonal_smreg.png orthogonal_gap.png moments.png moments_tau.png \
         structured_bias.png structured_mse.png structured_speed.png \
         perm_order.png perm_order_heads.png \
         permute_offsets.png permute_wrap.png permute_overhead.png \
         attention_error.png attention_report_error.png attention_report_heatmap.png \
         attention_report_diagnostics.png attention_report_target.png redraw.png attention_matrix.png speed.png \
         uniform.png uniform_needed_m.png kernels.png layers.png; do
  head -c 8 "$dir/figures/$f" | od -An -tx1 | grep -q "89 50 4e 47" || { echo "not a PNG: $f" >&2; exit 1; }
done
# A speed result as `speed --backend cuda` writes it (no GPU here): one thread count, device peaks, exact_causal.
/usr/bin/python3 - "$dir" "$plotting" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[2])
from plot_speed import plot_speed
result = json.load(open(sys.argv[1] + "/speed.json"))
result["params"].update(backend="cuda", cuda_device="CUDA device 0: synthetic", thread_counts=[1])
rows = [r for r in result["rows"] if r.get("threads") == 1 and r.get("method") != "permuteformer"]
rows += [dict(r, method="exact_causal") for r in rows if r.get("kind") in ("time", "fit") and r["method"] == "exact"]
result["rows"] = [dict(r, peak_kind="device") if r.get("kind") == "time" else r for r in rows]
plot_speed(result)["speed.png"].savefig(sys.argv[1] + "/speed_cuda.png")
PY
head -c 8 "$dir/speed_cuda.png" | od -An -tx1 | grep -q "89 50 4e 47" || { echo "not a PNG: speed_cuda.png" >&2; exit 1; }
# The claims ledger over these runs: every check of every experiment has its source (a claim missing from
# src/ledger/claim_sources.cpp already failed its run above), and each format is written.
"$favorlab" claims "$dir" > "$dir/claims.txt"
"$favorlab" claims "$dir" --format md --out "$dir/CLAIMS.md"
"$favorlab" claims "$dir" --format json --out "$dir/claims.json"
grep -q "^Found false as printed" "$dir/claims.txt" || { echo "claims: no 'found false' section" >&2; exit 1; }
grep -q "^## Still open" "$dir/CLAIMS.md" || { echo "CLAIMS.md: no 'still open' section" >&2; exit 1; }
echo "figures ok"
