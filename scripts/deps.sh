#!/usr/bin/env bash
# Installs the Debian 12 packages favorlab needs (nothing from any other source), and any packages named as arguments
# (scripts/fuzz.sh adds clang's). As root: apt-get installs what is missing. Otherwise: prints the exact command to
# run and exits 1.
set -euo pipefail

packages=(
  cmake ninja-build g++ make git
  libeigen3-dev libxsimd-dev libboost-math-dev libarmadillo-dev libcli11-dev nlohmann-json3-dev
  catch2 librandom123-dev libbenchmark-dev
  python3 python3-matplotlib python3-numpy
  libopenmpi-dev openmpi-bin
  libdnnl-dev
  "$@"
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "favorlab: missing Debian packages: ${missing[*]}" >&2
  echo "favorlab: run as root:  $cmd" >&2
  exit 1
fi
echo "favorlab: installing ${missing[*]}" >&2
apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
