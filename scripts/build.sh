#!/usr/bin/env bash
# Configures and builds favorlab with a CMake preset (default: release) after installing missing packages.
# A second argument names one target to build (scripts/reproduce.sh builds only `favorlab`, not the tests).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
target=()
if [ $# -ge 2 ]; then target=(--target "$2"); fi
bash scripts/deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" "${target[@]}"
