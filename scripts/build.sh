#!/usr/bin/env bash
# Configures and builds favorlab with a CMake preset (default: release) after installing missing packages.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-release}"
bash scripts/deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
