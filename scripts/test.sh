#!/usr/bin/env bash
# Builds favorlab and its tests (release preset) and runs the whole suite with ctest.
# Optional argument: another preset (debug, asan).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
bash scripts/build.sh "$preset"
ctest --preset "$preset" -j "$(nproc)"
