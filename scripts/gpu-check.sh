#!/usr/bin/env bash
# GPU check of the CUDA backend, for a machine with an NVIDIA GPU (designed for < 7 min on an H200):
#   1. configure and build favorlab + tests with FAVORLAB_CUDA=ON in its own build directory (build/gpu-check);
#   2. run the [cuda] tests with synchronous launches (GPU vs CPU with the same W in every mode to 1e-5, with float32
#      inputs and with inputs held as float16 / bfloat16, causality, the exact kernel) —
#      a skipped GPU test counts as a failure here, since this script exists to run them;
#   2b. run them again under compute-sanitizer's memcheck where the toolkit has it (150 s at most);
#   3. tune the causal chunk: causal FAVOR at L = 65536 (8 heads, d = 64, m = 256) for chunks 48 … 1024, device time
#      and device memory of each into summary.txt (chunk_sweep.txt; the JSON of each run beside it), and choose the
#      fastest;
#   4. run `favorlab speed --backend cuda --quick --chunk <that chunk>` (L = 512 … 65536, the GPU targets) and copy
#      its checks (the causal 10x target, the bidirectional 2x target, 16-bit against float32 inputs, bfloat16
#      products, device memory), the 16-bit input rows and the tensor-core rows (tf32, bfloat16 products) against
#      float32 into summary.txt;
#   5. run `favorlab attention-error --backend cuda --quick`: an experiment end to end on the GPU;
#   6. run scripts/gpu-peer-bench.sh (L up to 65536, 3 repeats) where python3 has torch: favorlab against PyTorch SDPA,
#      flash-linear-attention and performer-pytorch on the device, its table and crossovers into summary.txt.
# Everything goes to gpu-check-results/<UTC time>/ (log.txt, summary.txt, the test report, the results as JSON).
# Exits non-zero when the build or a test fails, the GPU tests did not run, or the time budget ran out first.
#   --build-only   stop after step 1 (proves that the CUDA sources compile and link on a machine without a GPU)
#   --no-build     skip step 1 and use the favorlab and favorlab_tests already in the build directory (a rerun)
#   --fetch-deps   only download the header-only Debian packages the build needs into .gpu-deps/ and exit: run it
#                  where apt-get works, for a GPU machine that has a compiler, CMake and CUDA but no Debian packages
#                  and no network. When .gpu-deps/ holds .deb files, the check unpacks them into its build directory
#                  and builds against them (and leaves out the one test that needs the compiled Armadillo).
# Environment: GPU_CHECK_BUILD_DIR (build directory), GPU_CHECK_RESULTS (results root, e.g. $OUT on a lent machine),
# GPU_CHECK_BUDGET (seconds for the whole check: each step's timeout is cut to what is left, and the check stops with
# result INCOMPLETE rather than be killed with its results half-written), GPU_CHECK_ARCHIVE (a .tar.gz path: the
# results folder packed there at the end, whatever the result), GPU_CHECK_CMAKE_ARGS (more configure arguments),
# CMAKE_CUDA_ARCHITECTURES (default 90), JOBS (parallel compile jobs, default nproc).
set -uo pipefail
cd "$(dirname "$0")/.."

build_only=0
fetch_deps=0
no_build=0
for arg in "$@"; do
  case "$arg" in
    --build-only) build_only=1 ;;
    --fetch-deps) fetch_deps=1 ;;
    --no-build) no_build=1 ;;
    *) echo "usage: scripts/gpu-check.sh [--build-only | --no-build | --fetch-deps]" >&2; exit 2 ;;
  esac
done
if [ $(( build_only + fetch_deps + no_build )) -gt 1 ]; then
  echo "gpu-check: --build-only, --no-build and --fetch-deps exclude each other" >&2
  exit 2
fi
began=$(date +%s)
if [ -n "${GPU_CHECK_BUDGET:-}" ] && ! [[ "$GPU_CHECK_BUDGET" =~ ^[1-9][0-9]{0,6}$ ]]; then
  echo "gpu-check: GPU_CHECK_BUDGET must be a positive whole number of seconds, got '$GPU_CHECK_BUDGET'" >&2
  exit 2
fi

# The header-only part of scripts/deps.sh's packages: what favorlab and its tests compile against (Catch2 2 is
# header-only in Debian 12; Boost's Math and Multiprecision are headers). Armadillo, MPI and Google Benchmark are
# compiled libraries the check does without.
deps_dir=.gpu-deps
deps_packages=(libeigen3-dev libboost1.74-dev libxsimd-dev nlohmann-json3-dev libcli11-dev catch2 librandom123-dev)
if [ "$fetch_deps" = 1 ]; then
  command -v apt-get > /dev/null || { echo "gpu-check: --fetch-deps needs apt-get (a Debian machine)" >&2; exit 2; }
  rm -rf "$deps_dir.tmp" && mkdir -p "$deps_dir.tmp"
  if ! (cd "$deps_dir.tmp" && apt-get download "${deps_packages[@]}"); then
    rm -rf "$deps_dir.tmp"
    echo "gpu-check: apt-get download failed (run 'apt-get update' first?)" >&2
    exit 1
  fi
  # The cuDNN frontend's headers (PyPI), for exact attention in bfloat16 through cuDNN's fused attention.
  if ! bash scripts/cudnn-frontend.sh "$deps_dir.tmp/cudnn-frontend"; then
    rm -rf "$deps_dir.tmp"
    echo "gpu-check: the cuDNN frontend's headers could not be fetched" >&2
    exit 1
  fi
  rm -rf "$deps_dir" && mv "$deps_dir.tmp" "$deps_dir"
  echo "gpu-check: $(ls "$deps_dir"/*.deb | wc -l) packages and the cuDNN frontend in $deps_dir/" \
       "($(du -sh "$deps_dir" | cut -f1)); on the GPU machine, carry $deps_dir with the working tree and run" \
       "scripts/gpu-check.sh"
  exit 0
fi

build="${GPU_CHECK_BUILD_DIR:-build/gpu-check}"
if [ "$no_build" = 1 ] && ! { [ -x "$build/favorlab" ] && [ -x "$build/tests/favorlab_tests" ]; }; then
  echo "gpu-check: --no-build needs $build/favorlab and $build/tests/favorlab_tests (run without --no-build first)" >&2
  exit 2
fi
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
# Every end of the check goes through finish: the result line, then (GPU_CHECK_ARCHIVE) the results folder as one
# .tar.gz, for copying off a remote machine.
finish() {
  note "result: $1 (after $(( $(date +%s) - began )) s)"
  echo "results in $out"
  if [ -n "${GPU_CHECK_ARCHIVE:-}" ]; then
    tar -czf "$GPU_CHECK_ARCHIVE" -C "$(dirname "$out")" "$(basename "$out")" && echo "archive: $GPU_CHECK_ARCHIVE"
  fi
  exit "$2"
}

# Seconds a step may take: its own cap, cut to what is left of GPU_CHECK_BUDGET; the check ends INCOMPLETE when less
# than 10 s would be left for it.
step_time() {
  local cap=$1
  [ -z "${GPU_CHECK_BUDGET:-}" ] && { echo "$cap"; return 0; }
  local left=$(( began + GPU_CHECK_BUDGET - $(date +%s) ))
  [ "$left" -lt 10 ] && return 1
  [ "$left" -lt "$cap" ] && cap=$left
  echo "$cap"
}
# dpkg-deb where there is one; otherwise the .deb's ar member data.tar.* through a file, so tar detects its compression.
unpack_deb() {
  if command -v dpkg-deb > /dev/null; then dpkg-deb -x "$1" "$2"; return; fi
  local member tmp
  member=$(ar t "$1" | grep -m1 '^data\.tar') || return 1
  tmp=$(mktemp -d) || return 1
  ar x --output "$tmp" "$1" "$member" && tar -xf "$tmp/$member" -C "$2"
  local status=$?
  rm -rf "$tmp"
  return "$status"
}

note "favorlab GPU check, $stamp, commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
{ echo "--- nvidia-smi"; nvidia-smi 2>&1 || echo "nvidia-smi not available"; echo "--- nvcc"; nvcc --version 2>&1 || true; } >> "$log"
gpu="$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -n1 || true)"
note "gpu: ${gpu:-none found by nvidia-smi}"

# 1. Build, against the carried packages where there are any.
if [ "$no_build" = 1 ]; then
  note "build: skipped (--no-build): the binaries in $build"
else
  start=$(date +%s)
  configure=(-DCMAKE_BUILD_TYPE=Release -DFAVORLAB_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$archs")
  if ! t=$(step_time 600); then finish "INCOMPLETE (GPU_CHECK_BUDGET spent before the build)" 1; fi
  if compgen -G "$deps_dir/*.deb" > /dev/null; then
    case "$build" in /*) prefix="$build/deps" ;; *) prefix="$(pwd)/$build/deps" ;; esac
    rm -rf "$prefix" && mkdir -p "$prefix"
    for deb in "$deps_dir"/*.deb; do
      unpack_deb "$deb" "$prefix" >> "$log" 2>&1 || { note "unpacking $deb: FAILED (see log.txt)"; finish FAIL 1; }
    done
    note "dependencies: $(ls "$deps_dir"/*.deb | wc -l) carried packages unpacked into $build/deps"
    configure+=(-DCMAKE_PREFIX_PATH="$prefix/usr" -DFAVORLAB_TEST_ARMADILLO=OFF)
  fi
  # Ninja where make is missing (a CUDA image may have CMake and ninja from PyPI and no make).
  if ! command -v make > /dev/null && command -v ninja > /dev/null && [ ! -f "$build/CMakeCache.txt" ]; then
    configure+=(-G Ninja)
  fi
  # cuDNN: the toolkit's, else the one PyTorch ships (the nvidia-cudnn package), found through python3.
  if ! [ -f /usr/local/cuda/include/cudnn.h ]; then
    cudnn_root=$(python3 -c "import nvidia.cudnn as c; print(list(c.__path__)[0])" 2> /dev/null || true)
    [ -n "$cudnn_root" ] && configure+=(-DCUDNN_ROOT="$cudnn_root")
  fi
  read -r -a extra <<< "${GPU_CHECK_CMAKE_ARGS:-}"
  if ! t=$(step_time 600); then finish "INCOMPLETE (GPU_CHECK_BUDGET spent before the build)" 1; fi
  if ! timeout "$t" cmake -S . -B "$build" "${configure[@]}" "${extra[@]}" >> "$log" 2>&1; then
    note "configure: FAILED (see log.txt; FAVORLAB_CUDA=ON needs nvcc and cuBLAS; without Debian packages carry them:" \
         "scripts/gpu-check.sh --fetch-deps)"
    finish FAIL 1
  fi
  grep -h "favorlab: CUDA backend\|favorlab: cuDNN fused attention" "$log" | tail -n2 | tee -a "$summary"
  if ! t=$(step_time 1800); then finish "INCOMPLETE (GPU_CHECK_BUDGET spent before the build)" 1; fi
  if ! timeout "$t" cmake --build "$build" -j "$jobs" --target favorlab favorlab_tests >> "$log" 2>&1; then
    note "build: FAILED or out of time after $(( $(date +%s) - start )) s (see log.txt)"
    finish FAIL 1
  fi
  warnings=$(grep -c "warning" "$log" || true)
  note "build: ok in $(( $(date +%s) - start )) s ($warnings lines with 'warning' in log.txt)"
  if [ "$build_only" = 1 ]; then finish "BUILD OK (--build-only: no tests run)" 0; fi
fi

# 2. The [cuda] tests.
tests="$build/tests/favorlab_tests"
start=$(date +%s)
if ! t=$(step_time 240); then finish "INCOMPLETE (GPU_CHECK_BUDGET spent before the tests)" 1; fi
# CUDA_LAUNCH_BLOCKING=1: each launch returns when its kernel has finished, so a kernel that faults is named by its
# own launch check (check_launch) instead of surfacing at the next synchronizing call. The tests assert no timings.
CUDA_LAUNCH_BLOCKING=1 timeout "$t" "$tests" "[cuda]" --durations yes > "$out/cuda_tests.txt" 2>&1
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

# 2b. The same tests under compute-sanitizer's memcheck (out-of-bounds and misaligned device accesses, leaks of
# device memory), where the toolkit has it. An error fails the check; running out of its time slot is reported, not
# passed.
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$sanitizer" ] && t=$(step_time 150); then
  start=$(date +%s)
  timeout "$t" "$sanitizer" --tool memcheck --leak-check full --error-exitcode 3 "$tests" "[cuda]" \
    > "$out/cuda_memcheck.txt" 2>&1
  status=$?
  cat "$out/cuda_memcheck.txt" >> "$log"
  case "$status" in
    0) note "memcheck: the [cuda] tests ran clean in $(( $(date +%s) - start )) s" ;;
    124) note "memcheck: did not finish in its $t s (not a pass; see cuda_memcheck.txt for how far it got)" ;;
    *) note "memcheck: FAILED (exit $status; see cuda_memcheck.txt)"; finish FAIL 1 ;;
  esac
else
  note "memcheck: not run (no compute-sanitizer, or the budget is spent)"
fi

favorlab="$build/favorlab"
# 3. The causal chunk for this GPU, first, so that speed (step 4) runs at it. Each run times every method at
# L = 32768 and 65536; --time-cap 1 drops exact attention at 65536 when its time at 32768 predicts more than 1 s there.
# The line per chunk is favor_causal's median device time and memory ratio at L = 65536 from that run's JSON; the
# chunk of the least time is chosen (48, the CPU's default, if no line could be read).
start=$(date +%s)
for chunk in 48 64 128 256 512 1024; do
  json="$out/speed_cuda_chunk$chunk.json"
  if ! t=$(step_time 120); then
    cat "$out/chunk_sweep.txt" 2>/dev/null | tee -a "$summary" >> "$log"
    finish "INCOMPLETE (GPU_CHECK_BUDGET spent before chunk $chunk of the sweep)" 1
  fi
  if ! timeout "$t" "$favorlab" speed --backend cuda --shapes regular --min-L 32768 --max-L 65536 --chunk "$chunk" \
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
tee -a "$summary" "$log" < "$out/chunk_sweep.txt"
best_chunk=$(awk '$3 == "favor_causal" { sub(":", "", $2); print $4, $2 }' "$out/chunk_sweep.txt" | sort -g | head -n1 |
             cut -d' ' -f2)
note "chunk sweep: done in $(( $(date +%s) - start )) s; least time at chunk ${best_chunk:=48}"

# 4. The speed experiment on the GPU at the chunk the sweep chose. --time-cap 15 keeps exact attention in up to
# L = 65536 (the causal target's baseline) unless one forward is predicted to take longer than 15 s.
start=$(date +%s)
if ! t=$(step_time 240); then finish "INCOMPLETE (GPU_CHECK_BUDGET spent before speed)" 1; fi
if timeout "$t" "$favorlab" speed --backend cuda --quick --time-cap 15 --chunk "$best_chunk" \
     --out "$out/speed_cuda_quick.json" > "$out/speed.txt" 2>&1; then
  cat "$out/speed.txt" >> "$log"
  note "speed --backend cuda --quick --chunk $best_chunk: ok in $(( $(date +%s) - start )) s -> speed_cuda_quick.json"
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
  # FAVOR's products on the tensor cores (tf32, bfloat16) against float32, and each against its own bare products,
  # 8 heads at the largest L all reached.
  python3 - "$out/speed_cuda_quick.json" 2>> "$log" <<'PY' | tee -a "$summary" ||
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r.get("kind") == "time" and r.get("shape") == "regular"]
times = {(r["method"], r["L"]): r["seconds_median"] for r in rows}
for base in ("favor_bidirectional", "favor_causal", "gemm"):
    for fmt in ("tf32", "bfloat16"):
        name = f"{base}_{fmt}"
        common = sorted(L for (m, L) in times if m == name and (base, L) in times)
        if not common:
            continue
        L = common[-1]
        line = (f"tensor cores: {name} at L = {L}: {times[(name, L)] * 1e3:.3f} ms against float32 "
                f"{times[(base, L)] * 1e3:.3f} ms ({times[(name, L)] / times[(base, L)]:.3f}x)")
        if base != "gemm" and (f"gemm_{fmt}", L) in times:
            line += f"; {times[(name, L)] / times[(f'gemm_{fmt}', L)]:.2f}x its {fmt} products alone"
        print(line)
PY
    note "tensor-core rows: could not be read from speed_cuda_quick.json"
else
  cat "$out/speed.txt" >> "$log"
  note "speed --backend cuda --quick: FAILED (see log.txt)"
  finish FAIL 1
fi

# 5. An attention experiment end to end on the GPU.
start=$(date +%s)
if ! t=$(step_time 120); then finish "INCOMPLETE (GPU_CHECK_BUDGET spent before attention-error)" 1; fi
if timeout "$t" "$favorlab" attention-error --backend cuda --quick --out "$out/attention_error_cuda_quick.json" \
     >> "$log" 2>&1; then
  note "attention-error --backend cuda --quick: ok in $(( $(date +%s) - start )) s -> attention_error_cuda_quick.json"
else
  note "attention-error --backend cuda --quick: FAILED (see log.txt)"
  finish FAIL 1
fi

# 6. The peer benchmark (scripts/gpu-peer-bench.sh: PyTorch SDPA, flash-linear-attention, performer-pytorch), where
# python3 has a torch that sees the GPU; the peers' wheels come from .gpu-wheels/ when carried. Its failure is
# reported without failing favorlab's own checks above.
start=$(date +%s)
if ! python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2> /dev/null; then
  note "peer benchmark: not run (python3 has no torch that sees the GPU)"
elif ! t=$(step_time 240); then
  note "peer benchmark: not run (GPU_CHECK_BUDGET spent)"
elif timeout "$t" bash scripts/gpu-peer-bench.sh "$favorlab" --max-L 65536 --repeats 3 --chunk "$best_chunk" \
       --out "$out/gpu_peer_speed.json" > "$out/gpu_peer_speed.txt" 2>> "$log"; then
  note "peer benchmark: ok in $(( $(date +%s) - start )) s -> gpu_peer_speed.json"
  tee -a "$summary" < "$out/gpu_peer_speed.txt" > /dev/null
else
  note "peer benchmark: FAILED or out of time after $(( $(date +%s) - start )) s (see log.txt)"
  finish "PASS (favorlab's checks; the peer benchmark failed)" 0
fi

finish PASS 0
