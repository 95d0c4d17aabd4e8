#!/usr/bin/env bash
# GPU peer benchmark: favorlab's exact and FAVOR kernels on the device next to PyTorch's scaled_dot_product_attention
# (flash, memory-efficient and cuDNN backends), flash-linear-attention's chunked linear attention fed favorlab's own
# features, and performer-pytorch's FastAttention, all timed with CUDA events in one interleaved run
# (scripts/gpu_peer_bench.py says how), plus fla's agreement with favorlab on the same features.
#   scripts/gpu-peer-bench.sh [FAVORLAB_BINARY] [--quick] [--max-L N] [--repeats R] [--time-cap S] [--chunk C]
#                             [--out FILE]
#   scripts/gpu-peer-bench.sh --fetch-wheels
# FAVORLAB_BINARY: a build with the CUDA backend (default build/gpu-check/favorlab, scripts/gpu-check.sh's build).
# --out: default results/gpu/peer-speed.json; the figure goes beside the results' figures
# (results/figures/gpu-peer-speed.png, or FILE's name with .png for another --out).
# Needs python3 with torch and a GPU it sees (GPU_PEER_PYTHON names another interpreter). The peers are pure-Python
# wheels: --fetch-wheels downloads them (pinned) into .gpu-wheels/ where pip reaches PyPI; carried with the source
# tree to a machine without network, they are installed into build/gpu-peer-site (never into the system) and put on
# PYTHONPATH. A peer that is missing is left out and said so. Exit status: 0 done, 1 a step failed, 2 bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "gpu-peer-bench: $*" >&2; }
die() { echo "gpu-peer-bench: error: $*" >&2; exit 2; }

wheels_dir=.gpu-wheels
# Pure-Python, for Python 3.12 and any platform. fla-core holds fla.ops (the kernels); performer-pytorch needs the
# four after it. einops, numpy, torch and triton are on the device machine already.
wheels=(fla-core==0.6.0 performer-pytorch==1.1.4 local-attention==1.11.2 axial-positional-embedding==0.3.12
        hyper-connections==0.4.11 torch-einops-utils==0.2.0)

binary=""
out=""
py_args=()
fetch=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --fetch-wheels) fetch=1 ;;
    --quick) py_args+=(--quick) ;;
    --out)
      [ $# -ge 2 ] || die "--out needs a value"
      out="$2"; shift ;;
    --max-L | --repeats | --time-cap | --chunk)
      [ $# -ge 2 ] || die "$1 needs a value"
      py_args+=("$1" "$2"); shift ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *)
      [ -z "$binary" ] || die "more than one favorlab binary given: '$binary' and '$1'"
      binary="$1" ;;
  esac
  shift
done

if [ "$fetch" = 1 ]; then
  rm -rf "$wheels_dir.tmp" && mkdir -p "$wheels_dir.tmp"
  if ! python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
       --platform any -d "$wheels_dir.tmp" "${wheels[@]}" >&2; then
    rm -rf "$wheels_dir.tmp"
    die "pip download failed (is PyPI reachable?)"
  fi
  rm -rf "$wheels_dir" && mv "$wheels_dir.tmp" "$wheels_dir"
  say "$(ls "$wheels_dir"/*.whl | wc -l) wheels in $wheels_dir/ ($(du -sh "$wheels_dir" | cut -f1)); carry that" \
      "folder with the source tree to the GPU machine"
  exit 0
fi

binary="${binary:-build/gpu-check/favorlab}"
[ -f "$binary" ] && [ -x "$binary" ] || die "favorlab binary not found or not executable: $binary (a CUDA build:" \
                                           "scripts/gpu-check.sh --build-only)"
out="${out:-results/gpu/peer-speed.json}"
case "$out" in
  results/gpu/peer-speed.json) figure=results/figures/gpu-peer-speed.png ;;
  *) figure="${out%.json}.png" ;;
esac
py="${GPU_PEER_PYTHON:-python3}"
if compgen -G "$wheels_dir/*.whl" > /dev/null; then
  site=build/gpu-peer-site
  rm -rf "$site" && mkdir -p "$site"
  "$py" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" "$wheels_dir"/*.whl >&2 ||
    { say "installing the wheels of $wheels_dir into $site failed"; exit 1; }
  export PYTHONPATH="$(pwd)/$site${PYTHONPATH:+:$PYTHONPATH}"
  say "peers from $wheels_dir: $(ls "$wheels_dir" | tr '\n' ' ')"
fi
"$py" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)" 2> /dev/null ||
  { say "$py has no torch that sees a GPU: nothing to compare with here"; exit 1; }
PYTHONUNBUFFERED=1 "$py" scripts/gpu_peer_bench.py "$binary" --out "$out" "${py_args[@]}"
if plot="$(command -v python3)" && "$plot" -c "import matplotlib" 2> /dev/null; then
  if "$plot" plotting/plot_gpu_peer_speed.py "$out" --out "$figure" > /dev/null; then
    say "figure: $figure"
  else
    say "the figure could not be drawn (see above); the result file stands"
  fi
fi
