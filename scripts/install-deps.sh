#!/usr/bin/env bash
# Installs the Debian 12 packages NearDup needs to build and test. Idempotent; skips apt-get
# when everything is already installed. The CUDA toolkit is optional and not installed here:
# when nvcc is on PATH the CUDA backend is built too.
# Open MPI is optional for the build too (NEARDUP_MPI=AUTO) but installed here, so that MPI
# support is built and its tests (mpirun -np 1..3) run. debootstrap is for
# scripts/fresh-root-check.sh (the package installed into a fresh Debian 12 root).
# Parquet input is optional too (NEARDUP_PARQUET=AUTO): Debian 12 packages no Apache Arrow, so
# the pinned pyarrow wheel, which ships Arrow C++'s headers and shared libraries, is installed
# from PyPI into a project-local virtual environment (.deps/arrow-venv, never the system
# Python), where CMake finds it. NEARDUP_PARQUET=OFF in the environment skips it.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config git
  libsimdjson-dev libsqlite3-dev sqlite3 libutf8proc-dev zlib1g-dev libzstd-dev libtbb-dev
  libcli11-dev libfmt-dev libssl-dev
  libopenmpi-dev openmpi-bin
  qt6-base-dev qt6-base-dev-tools libqt6sql6-sqlite libgl1-mesa-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  python3-venv
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
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Apache Arrow C++ for Parquet input, from the pyarrow wheel (pinned; about 55 MB to download).
pyarrow_version=26.0.1
venv=.deps/arrow-venv
if [ "${NEARDUP_PARQUET:-AUTO}" = "OFF" ]; then
  echo "install-deps: NEARDUP_PARQUET=OFF, pyarrow not installed"
elif "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('pyarrow') != '$pyarrow_version')" \
  2>/dev/null; then
  echo "install-deps: pyarrow $pyarrow_version present in $venv"
else
  echo "install-deps: installing pyarrow $pyarrow_version into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "pyarrow==$pyarrow_version"
fi
