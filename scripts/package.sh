#!/usr/bin/env bash
# Builds the Debian package (neardup_<version>_<arch>.deb) into ./build-package (or
# $BUILD_DIR): a Release build without tests, the desktop metadata validated, `cpack -G DEB`,
# then a check that the package holds both executables and that `neardup --version` runs from
# the unpacked files. Extra arguments go to CMake, e.g. scripts/package.sh -DNEARDUP_CUDA=OFF
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build-package}"
generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build_dir/Makefile" ]; then generator=(-G Ninja); fi

# The metadata first: a broken file would otherwise only show up after installation.
if command -v appstreamcli >/dev/null 2>&1; then
  appstreamcli validate --no-net resources/io.github.neardup.workbench.metainfo.xml
fi
if command -v desktop-file-validate >/dev/null 2>&1; then
  desktop-file-validate resources/neardup-workbench.desktop
fi
if command -v xmllint >/dev/null 2>&1; then
  xmllint --noout resources/neardup-project.xml resources/io.github.neardup.workbench.metainfo.xml
fi

# Without MPI by default: a desktop package should not pull in Open MPI (pass -DNEARDUP_MPI=ON
# for a cluster build; later -D options win).
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DNEARDUP_TESTS=OFF \
  -DNEARDUP_MPI=OFF "$@"
cmake --build "$build_dir" --parallel "$(nproc)" --target neardup neardup-workbench
(cd "$build_dir" && cpack -G DEB)

deb="$(ls -t "$build_dir"/neardup_*.deb | head -n 1)"
contents="$(dpkg-deb -c "$deb")"
for f in ./usr/bin/neardup ./usr/bin/neardup-workbench \
         ./usr/share/applications/neardup-workbench.desktop \
         ./usr/share/metainfo/io.github.neardup.workbench.metainfo.xml \
         ./usr/share/mime/packages/neardup-workbench.xml \
         ./usr/share/icons/hicolor/scalable/apps/neardup-workbench.svg; do
  grep -q " $f\$" <<<"$contents" || { echo "package.sh: $f missing from $deb" >&2; exit 1; }
done
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
"$root/usr/bin/neardup" --version
echo "Depends: $(dpkg-deb -f "$deb" Depends)"
echo "$deb"
