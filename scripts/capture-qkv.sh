#!/usr/bin/env bash
# Captures the queries, keys and values every attention call of a Hugging Face model receives, for
# `favorlab attention-report --input-dir DIR`:
#   scripts/capture-qkv.sh MODEL (--text FILE | --tokens N) --out-dir DIR [--layers LIST] [--max-length L]
#                          [--seed S] [--with-outputs]
#   scripts/capture-qkv.sh --setup        (only create the venv, e.g. for CI)
# MODEL: a local model directory (config.json + weights), or a hub name where the network allows.
# --text FILE: the text to run, tokenized with the model's own tokenizer; --tokens N: N token ids drawn uniformly
# (seed --seed, default 0) from the vocabulary instead, for a model without a tokenizer. --max-length: at most L
# tokens (default 512). --layers: e.g. 0,2,5-7 (default: all). --with-outputs: also write layer{i}_attn.npy, the
# attention output the model itself computed, (H, L, dv) float32.
# Writes DIR/layer{i}_q.npy, _k.npy, _v.npy ((H, L, d) float32, batch item 0), DIR/tokens.npy and DIR/manifest.json
# (see docs/real-models.md). Exit status: 0 done, 1 a step failed, 2 bad arguments or a model whose attention the
# layout cannot represent (one line on stderr says which).
#
# torch and transformers are never dependencies of favorlab: they live in build/capture-venv, created here once
# (Debian's /usr/bin/python3 -m venv; reused while `import numpy, torch, transformers` works; delete it to start
# over). torch goes in the lean way scripts/peer-bench.sh explains (the PyPI wheel is the CUDA build; its nvidia-*
# libraries come along, triton is left out), then transformers and numpy from PyPI.
set -euo pipefail
# No cd: MODEL, --text and --out-dir are the caller's paths, relative to the caller's directory. The checkout is named
# by absolute paths, and the Python side is told where it is (it refuses to write over it).
root="$(cd "$(dirname "$0")/.." && pwd)"
export FAVORLAB_CHECKOUT="$root"
source "$root/scripts/torch_venv.sh"

say() { echo "capture-qkv: $*" >&2; }

venv="$root/build/capture-venv"
py="$venv/bin/python"
imports_ok() { [ -x "$py" ] && "$py" -W ignore -c 'import numpy, torch, transformers' >/dev/null 2>&1; }

setup_venv() {
  mkdir -p "$venv"
  if command -v flock >/dev/null; then  # two runs at once must not install into the venv together
    exec 9>"$venv/.capture.lock"
    flock 9
  fi
  imports_ok && return 0
  local start=$SECONDS
  say "setting up $venv: torch, transformers and numpy from PyPI (minutes, about 4.5 GB: see scripts/torch_venv.sh)"
  torch_venv_create "$venv"
  local pip=("$py" -m pip install --disable-pip-version-check --progress-bar off --quiet)
  # transformers does not require torch, so this does not pull triton back in.
  say "pip: transformers, numpy"
  "${pip[@]}" transformers numpy >&2
  imports_ok || { echo "capture-qkv: error: $venv cannot import numpy, torch, transformers" >&2; exit 1; }
  say "$venv ready in $((SECONDS - start)) s ($(du -sh "$venv" | cut -f1))"
}

if [ "${1:-}" = "--setup" ]; then
  [ $# -eq 1 ] || { echo "capture-qkv: error: --setup takes no other arguments" >&2; exit 2; }
  setup_venv
  exit 0
fi
case "${1:-}" in
  -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
# The arguments are checked before the venv is set up, so a typo does not cost minutes of downloads.
/usr/bin/python3 "$root/scripts/capture_qkv.py" --check-args-only "$@"
setup_venv
exec "$py" -W ignore::FutureWarning "$root/scripts/capture_qkv.py" "$@"
