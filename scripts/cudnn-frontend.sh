#!/usr/bin/env bash
# Puts the cuDNN frontend's headers (header-only C++, NVIDIA's `nvidia-cudnn-frontend` on PyPI, pinned) where the
# build finds them: build/cudnn-frontend/include by default, or DEST/include.
#   scripts/cudnn-frontend.sh [DEST]
# Only the optional CUDA backend uses them (exact attention in bfloat16 through cuDNN's fused attention:
# cmake/cudnn_attention.cmake); favorlab builds and runs without them. Needs pip and PyPI; reconfigure afterwards
# (bash scripts/configure.sh release, or cmake -S . -B BUILD). Exit status: 0 done, 1 the download failed.
set -euo pipefail
cd "$(dirname "$0")/.."
version=1.32.0
dest="${1:-build/cudnn-frontend}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
     --platform manylinux_2_27_x86_64 --platform manylinux_2_28_x86_64 -d "$tmp" "nvidia-cudnn-frontend==$version" >&2
then
  echo "cudnn-frontend: pip download of nvidia-cudnn-frontend==$version failed (is PyPI reachable?)" >&2
  exit 1
fi
python3 - "$tmp"/*.whl "$tmp/unpacked" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as whl:
    whl.extractall(sys.argv[2], [n for n in whl.namelist() if n.startswith("include/")])
PY
rm -rf "$dest.tmp" && mkdir -p "$dest.tmp" && mv "$tmp/unpacked/include" "$dest.tmp/include"
rm -rf "$dest" && mv "$dest.tmp" "$dest"
echo "cudnn-frontend: $version headers in $dest/include ($(find "$dest/include" -name '*.h' | wc -l) files)" >&2
