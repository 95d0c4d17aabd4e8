#!/usr/bin/env bash
# GPU check of the CUDA backend, for a machine with an NVIDIA GPU (designed for < 7 min on an H200):
#   1. configure and build favorlab + tests with FAVORLAB_CUDA=ON in its own build directory (build/gpu-check);
#   2. run the [cuda] tests (GPU vs CPU with the same W in every mode to 1e-5, with float32 inputs and with inputs
#      held as float16 / bfloat16, causality, the exact kernel) —
#      a skipped GPU test counts as a failure here, since this script exists to run them;
#   3. run `favorlab speed --backend cuda --quick` (L = 512 … 65536, the GPU targets) and copy its checks
#      (the causal 10x target, the bidirectional 2x target, 16-bit against float32 inputs, device memory) and the
#      16-bit input rows against float32 into summary.txt;
#   4. run `favorlab attention-error --backend cuda --quick`: an experiment end to end on the GPU;
#   5. tune the causal chunk: causal FAVOR at L = 65536 (8 heads, d = 64, m = 256) for chunks 48 … 1024, device time
#      and device memory of each into summary.txt (chunk_sweep.txt; the JSON of each run beside it).
# Everything goes to gpu-check-results/<UTC time>/ (log.txt, summary.txt, the test report, the results as JSON).
# Exits non-zero when the build or a test fails, or the GPU tests did not run.
#   --build-only   stop after step 1 (proves that the CUDA sources compile and link on a machine without a GPU)
# Environment: GPU_CHECK_BUILD_DIR (build directory), GPU_CHECK_RESULTS (results root, e.g. $OUT on a lent machine),
# CMAKE_CUDA_ARCHITECTURES (default 90), JOBS (parallel compile jobs, default nproc).
set -uo pipefail
cd "$(dirname "$0")/.."

build_only=0
for arg in "$@"; do
  case "$arg" in
    --build-only) build_only=1 ;;
    *) echo "usage: scripts/gpu-check.sh [--build-only]" >&2; exit 2 ;;
  esac
done

build="${GPU_CHECK_BUILD_DIR:-build/gpu-check}"
archs="${CMAKE_CUDA_ARCHITECTURES:-90}"
jobs="${JOBS:-$(nproc)}"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
out="${GPU_CHECK_RESULTS:-gpu-check-results}/$stamp"
mkdir -p "$out"
log="$out/log.txt"
summary="$out/summary.txt"
: > "$summary"
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"

note() { echo "$*" | tee -a "$summary" "$log"; }
finish() { note "result: $1"; echo "results in $out"; exit "$2"; }

note "favorlab GPU check, $stamp, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
{ echo "--- nvidia-smi"; nvidia-smi 2>&1 || echo "nvidia-smi not available"; echo "--- nvcc"; nvcc --version 2>&1 || true; } >> "$log"
gpu="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n1 || true)"
note "gpu: ${gpu:-none found by nvidia-smi}"

# 1. Build.
start=$(date +%s)
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DFAVORLAB_CUDA=ON \
     -DCMAKE_CUDA_ARCHITECTURES="$archs" >> "$log" 2>&1; then
  note "configure: FAILED (see log.txt; FAVORLAB_CUDA=ON needs nvcc and cuBLAS)"
  finish FAIL 1
fi
grep -h "favorlab: CUDA backend" "$log" | tail -n1 | tee -a "$summary"
if ! cmake --build "$build" -j "$jobs" --target favorlab favorlab_tests >> "$log" 2>&1; then
  note "build: FAILED (see log.txt)"
  finish FAIL 1
fi
warnings=$(grep -c "warning" "$log" || true)
note "build: ok in $(( $(date +%s) - start )) s ($warnings lines with 'warning' in log.txt)"
if [ "$build_only" = 1 ]; then finish "BUILD OK (--build-only: no tests run)" 0; fi

# 2. The [cuda] tests.
tests="$build/tests/favorlab_tests"
start=$(date +%s)
timeout 240 "$tests" "[cuda]" --durations yes > "$out/cuda_tests.txt" 2>&1
status=$?
cat "$out/cuda_tests.txt" >> "$log"
tail -n 3 "$out/cuda_tests.txt" | tee -a "$summary"
if grep -q "SKIPPED: CUDA backend unavailable" "$out/cuda_tests.txt"; then
  note "cuda tests: did not run: $(grep -m1 -o 'SKIPPED: CUDA backend unavailable.*' "$out/cuda_tests.txt")"
  finish FAIL 1
fi
if [ "$status" -ne 0 ]; then
  note "cuda tests: FAILED (exit $status after $(( $(date +%s) - start )) s; see cuda_tests.txt)"
  finish FAIL 1
fi
note "cuda tests: passed in $(( $(date +%s) - start )) s"

favorlab="$build/favorlab"
# 3. The speed experiment on the GPU. --time-cap 15 keeps exact attention in up to L = 65536 (the causal target's
# baseline) unless one forward is predicted to take longer than 15 s.
start=$(date +%s)
if timeout 240 "$favorlab" speed --backend cuda --quick --time-cap 15 --out "$out/speed_cuda_quick.json" \
     > "$out/speed.txt" 2>&1; then
  cat "$out/speed.txt" >> "$log"
  note "speed --backend cuda --quick: ok in $(( $(date +%s) - start )) s -> speed_cuda_quick.json"
  grep -E "^ +(holds|violated|inconclusive|measured) " "$out/speed.txt" | tee -a "$summary"
  # Inputs held as float16 / bfloat16 against float32, 8 heads at the largest L both reached: device time and the
  # bytes the inputs and one forward hold.
  python3 - "$out/speed_cuda_quick.json" 2>> "$log" <<'PY' | tee -a "$summary" ||
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r.get("kind") == "time" and r.get("shape") == "regular"]
for base in ("favor_bidirectional", "favor_causal"):
    for fmt in ("float16", "bfloat16"):
        name = f"{base}_{fmt}_inputs"
        full = {r["L"]: r for r in rows if r["method"] == base}
        half = {r["L"]: r for r in rows if r["method"] == name}
        common = sorted(set(full) & set(half))
        if not common:
            continue
        L = common[-1]
        a, b = full[L], half[L]
        print(f"16-bit inputs: {name} at L = {L}: {b['seconds_median'] * 1e3:.3f} ms against "
              f"{a['seconds_median'] * 1e3:.3f} ms ({b['seconds_median'] / a['seconds_median']:.3f}x); device bytes "
              f"above the inputs {b['peak_bytes']} against {a['peak_bytes']}")
PY
    note "16-bit input rows: could not be read from speed_cuda_quick.json"
else
  cat "$out/speed.txt" >> "$log"
  note "speed --backend cuda --quick: FAILED (see log.txt)"
  finish FAIL 1
fi

# 4. An attention experiment end to end on the GPU.
start=$(date +%s)
if timeout 120 "$favorlab" attention-error --backend cuda --quick --out "$out/attention_error_cuda_quick.json" \
     >> "$log" 2>&1; then
  note "attention-error --backend cuda --quick: ok in $(( $(date +%s) - start )) s -> attention_error_cuda_quick.json"
else
  note "attention-error --backend cuda --quick: FAILED (see log.txt)"
  finish FAIL 1
fi

# 5. The causal chunk for this GPU. Each run times every method at L = 32768 and 65536; --time-cap 1 drops exact
# attention at 65536 when its time at 32768 predicts more than 1 s there. The line per chunk is favor_causal's median
# device time and memory ratio at L = 65536 from that run's JSON.
start=$(date +%s)
for chunk in 48 64 128 256 512 1024; do
  json="$out/speed_cuda_chunk$chunk.json"
  if ! timeout 120 "$favorlab" speed --backend cuda --shapes regular --min-L 32768 --max-L 65536 --chunk "$chunk" \
       --trials 5 --time-cap 1 --quiet --out "$json" >> "$log" 2>&1; then
    note "chunk sweep: chunk $chunk FAILED (see log.txt)"
    finish FAIL 1
  fi
  python3 - "$json" "$chunk" >> "$out/chunk_sweep.txt" 2>> "$log" <<'PY' ||
import json, sys
for r in json.load(open(sys.argv[1]))["rows"]:
    if r.get("method") == "favor_causal" and r.get("L") == 65536:
        ms, ratio = r["seconds_median"] * 1e3, r.get("memory_ratio")
        print(f"chunk {sys.argv[2]:>5}: favor_causal {ms:9.2f} ms, memory ratio {ratio}")
PY
    echo "chunk $chunk: see $json" >> "$out/chunk_sweep.txt"
done
cat "$out/chunk_sweep.txt" | tee -a "$summary" >> "$log"
note "chunk sweep: done in $(( $(date +%s) - start )) s"
finish PASS 0
