#!/usr/bin/env bash
# Installs the Debian 12 packages NearDup needs to build and test. Idempotent; skips apt-get
# when everything is already installed. The CUDA toolkit is optional and not installed here:
# when nvcc is on PATH the CUDA backend is built too.
# Open MPI is optional for the build too (NEARDUP_MPI=AUTO) but installed here, so that MPI
# support is built and its tests (mpirun -np 1..3) run. debootstrap is for
# scripts/fresh-root-check.sh (the package installed into a fresh Debian 12 root).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libsimdjson-dev libsqlite3-dev sqlite3 libutf8proc-dev zlib1g-dev libzstd-dev libtbb-dev
  libcli11-dev libfmt-dev
  libopenmpi-dev openmpi-bin
  qt6-base-dev qt6-base-dev-tools libqt6sql6-sqlite libgl1-mesa-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  xvfb xauth dpkg-dev
  patchelf zsh help2man lintian appstream desktop-file-utils libxml2-utils librsvg2-bin
  debootstrap
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
