#!/usr/bin/env bash
# Optional benchmark: favorlab's attention next to PyTorch's scaled_dot_product_attention and performer-pytorch's
# FastAttention on the shapes of `favorlab speed` (8 heads, d = dv = 64, m = 256, float32, 1 and 2 threads), all
# measured in one interleaved run, plus performer-pytorch's numerical agreement with favorlab on a shared projection W.
#   scripts/peer-bench.sh [FAVORLAB_BINARY] [--quick] [--max-L N] [--repeats R] [--time-cap S] [--threads LIST]
# FAVORLAB_BINARY defaults to build/release/favorlab; a relative path is taken from the repository root.
# --max-L: largest L, a power of 2 >= 1024 (default 16384; --quick 4096). --repeats: default 5 (--quick 3).
# --time-cap: a peer method is skipped at larger L once one call took longer (seconds, default 60).
# --threads: thread counts, comma-separated (default 1,2). Prints the ratio table (stdout) at the end.
# Writes results/peer-speed.json (favorlab's result schema, experiment "peer-speed"; scripts/peer_bench.py measures)
# and results/figures/peer-speed.png (plotting/plot_peer_speed.py, Debian's /usr/bin/python3 + matplotlib).
# Progress goes to stderr. Exit status: 0 done, 1 a step failed, 2 bad arguments.
#
# PyTorch is never a dependency of favorlab: it lives in its own venv, build/peer-venv (created here with Debian's
# /usr/bin/python3 -m venv, reused while `import numpy, torch, performer_pytorch` works; delete it to start over).
# How torch is installed, and why: PyPI is the only index reachable, and PyPI has no CPU-only torch for Linux x86_64
# (PyTorch's CPU wheels live on its own index). The PyPI wheel is a CUDA build, and `pip install torch --no-deps`
# plus the pure-Python deps does NOT import: libtorch_cpu.so itself links libcudart and libcupti, and libtorch_cuda.so
# (loaded by torch._C) links cuDNN, cuBLAS, cuFFT, cuSPARSE(Lt), cuSOLVER, NCCL, NVSHMEM, cuFile and NVRTC
# ("ImportError: libcufile.so.0"). So the nvidia-* wheels must be there (about 2.2 GB downloaded, 3 GB installed,
# never used on CPU). What can be left out is triton (the torch.compile/inductor compiler, imported lazily, 286 MB
# download, 1 GB installed): torch goes in with --no-deps, then every requirement its own metadata lists except
# triton and the extras. performer-pytorch and its torch-dependent helpers (local-attention, which now imports
# hyper-connections and torch-einops-utils, and axial-positional-embedding) go in with --no-deps as well, since pip's
# resolver would otherwise complete torch's requirements and pull triton back in; einops and numpy normally. Should
# that lean set ever fail to import (a helper gaining a dependency), the script falls back to a plain
# `pip install torch performer-pytorch numpy` (triton included) and tries again.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/torch_venv.sh

usage="scripts/peer-bench.sh [FAVORLAB_BINARY] [--quick] [--max-L N] [--repeats R] [--time-cap S] [--threads LIST]"
say() { echo "peer-bench: $*" >&2; }
die() { echo "peer-bench: error: $*" >&2; exit 2; }

binary=""
py_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --quick) py_args+=(--quick) ;;
    --max-L | --repeats | --time-cap | --threads)
      [ $# -ge 2 ] || die "$1 needs a value"
      py_args+=("$1" "$2")
      shift ;;
    --max-L=* | --repeats=* | --time-cap=* | --threads=*) py_args+=("${1%%=*}" "${1#*=}") ;;
    -*) die "unknown option '$1' (usage: $usage)" ;;
    *)
      [ -z "$binary" ] || die "more than one favorlab binary given: '$binary' and '$1'"
      binary="$1" ;;
  esac
  shift
done
# Checked here as well as in peer_bench.py, so that a bad value fails before a venv is set up.
for ((i = 0; i < ${#py_args[@]}; i++)); do
  n="${py_args[i + 1]:-}"
  case "${py_args[i]}" in
    --max-L)
      if ! [[ "$n" =~ ^[0-9]{1,9}$ ]] || [ "$((10#$n))" -lt 1024 ] || [ $((10#$n & (10#$n - 1))) -ne 0 ]; then
        die "--max-L must be a power of 2 >= 1024, got '$n'"
      fi ;;
    --repeats)
      if ! [[ "$n" =~ ^[0-9]{1,4}$ ]] || [ "$((10#$n))" -lt 1 ] || [ "$((10#$n))" -gt 1000 ]; then
        die "--repeats must be an integer between 1 and 1000, got '$n'"
      fi ;;
    --threads)
      if ! [[ "$n" =~ ^[0-9]{1,3}(,[0-9]{1,3})*$ ]] || [[ "$n" =~ (^|,)0+(,|$) ]]; then
        die "--threads must be comma-separated thread counts >= 1, got '$n'"
      fi ;;
    --time-cap)
      if ! [[ "$n" =~ ^([0-9]+\.?[0-9]*|\.[0-9]+)$ ]] || ! [[ "$n" =~ [1-9] ]]; then
        die "--time-cap must be a positive number of seconds, got '$n'"
      fi ;;
  esac
done
binary="${binary:-build/release/favorlab}"
if ! [ -f "$binary" ] || ! [ -x "$binary" ]; then
  die "favorlab binary not found or not executable: $binary (build it: scripts/build.sh)"
fi
binary="$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")"

venv=build/peer-venv
py="$venv/bin/python"
imports_ok() { [ -x "$py" ] && "$py" -W ignore -c 'import numpy, torch, performer_pytorch' >/dev/null 2>&1; }

mkdir -p "$venv"
if command -v flock >/dev/null; then  # two runs at once must not install into the venv together
  exec 9>"$venv/.peer-bench.lock"
  flock 9
fi
if imports_ok; then
  say "reusing $venv"
else
  start=$SECONDS
  say "setting up $venv: torch, performer-pytorch and numpy from PyPI (a few minutes, about 4.5 GB: see the" \
    "comment at the top of this script)"
  torch_venv_create "$venv"
  pip=("$py" -m pip install --disable-pip-version-check --progress-bar off --quiet)
  say "pip: numpy, einops; performer-pytorch, local-attention, axial-positional-embedding, hyper-connections," \
    "torch-einops-utils (--no-deps)"
  "${pip[@]}" numpy einops >&2
  "${pip[@]}" --no-deps performer-pytorch local-attention axial-positional-embedding hyper-connections \
    torch-einops-utils >&2
  if ! imports_ok; then
    say "the lean install does not import; falling back to a plain pip install torch performer-pytorch numpy"
    "${pip[@]}" torch performer-pytorch numpy >&2
  fi
  imports_ok || { echo "peer-bench: error: $venv cannot import numpy, torch, performer_pytorch" >&2; exit 1; }
  say "$venv ready in $((SECONDS - start)) s ($(du -sh "$venv" | cut -f1))"
fi

mkdir -p results/figures
"$py" scripts/peer_bench.py --favorlab "$binary" --out results/peer-speed.json "${py_args[@]}"
/usr/bin/python3 plotting/plot_peer_speed.py results/peer-speed.json --out results/figures/peer-speed.png
echo "results/peer-speed.json"
echo "results/figures/peer-speed.png"
