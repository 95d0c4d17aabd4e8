#!/usr/bin/env bash
# Builds favorlab and its tests (release preset) and runs the whole suite with ctest.
# Optional argument: another preset (debug, asan).
# capture_qkv_matches_model_attention needs the optional venv build/capture-venv (torch, transformers) and is skipped
# without it; `scripts/capture-qkv.sh --setup` creates it (about 3.5 minutes and 4.6 GB on a fresh 2-core machine,
# mostly downloads). CI (.ci/run) creates it first, so CI runs that test.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j "$(nproc)"
