#!/usr/bin/env bash
# Builds the Debian package (neardup_<version>_<arch>.deb) into ./build-package (or
# $BUILD_DIR): a hardened Release build without tests (CUDA on, MPI off), the desktop metadata
# validated, `cpack -G DEB`, a check that the package holds the executables, man pages,
# completions, copyright and changelog, that every file it carries that is not NearDup's has
# its stanza and licence text (scripts/check-licences.sh), that `neardup --version` runs from
# the unpacked files, and `lintian --pedantic` without errors or warnings. Extra arguments go to CMake; JOBS sets
# the build's parallelism (default: every core).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir="${BUILD_DIR:-build-package}"
generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build_dir/Makefile" ]; then generator=(-G Ninja); fi

./scripts/install-deps.sh >/dev/null

# The metadata first: a broken file would otherwise only show up after installation. The
# validators come from scripts/install-deps.sh: none of them is optional.
appstreamcli validate --no-net --pedantic resources/io.github.neardup.workbench.metainfo.xml
desktop-file-validate resources/neardup-workbench.desktop
xmllint --noout resources/neardup-project.xml resources/io.github.neardup.workbench.metainfo.xml

# Hardening as Debian builds packages (PIE, RELRO, BIND_NOW, FORTIFY, stack protector), from
# dpkg-buildflags; CMake reads CFLAGS/CXXFLAGS/LDFLAGS but not CPPFLAGS, so the latter (the
# FORTIFY define) goes into both. Effective at the first configure of the build directory.
export DEB_BUILD_MAINT_OPTIONS="hardening=+all"
CFLAGS="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
CXXFLAGS="$(dpkg-buildflags --get CXXFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
LDFLAGS="$(dpkg-buildflags --get LDFLAGS)"
export CFLAGS CXXFLAGS LDFLAGS

# CUDA on: the GPU path is the product's reason to exist, and the CUDA runtime is linked
# statically (no CUDA package needed; machines without a GPU or driver use the CPU). MPI off:
# a desktop package should not pull in Open MPI (pass -DNEARDUP_MPI=ON for a cluster build;
# later -D options win). Parquet on: Arrow's libraries come from the pyarrow wheel in the
# project-local environment (scripts/install-deps.sh) and the package carries them in
# /usr/lib/neardup/arrow, where the executables' RUNPATH finds them (NEARDUP_BUNDLE_ARROW).
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DNEARDUP_TESTS=OFF \
  -DNEARDUP_CUDA=ON -DNEARDUP_MPI=OFF -DNEARDUP_PARQUET=ON -DNEARDUP_BUNDLE_ARROW=ON "$@"
cmake --build "$build_dir" --parallel "${JOBS:-$(nproc)}"
(cd "$build_dir" && cpack -G DEB)

deb="$(ls -t "$build_dir"/neardup_*.deb | head -n 1)"
contents="$(dpkg-deb -c "$deb")"
for f in ./usr/bin/neardup ./usr/bin/neardup-workbench \
         ./usr/share/applications/neardup-workbench.desktop \
         ./usr/share/metainfo/io.github.neardup.workbench.metainfo.xml \
         ./usr/share/mime/packages/neardup-workbench.xml \
         ./usr/share/icons/hicolor/scalable/apps/neardup-workbench.svg \
         ./usr/share/man/man1/neardup.1.gz ./usr/share/man/man1/neardup-workbench.1.gz \
         ./usr/share/bash-completion/completions/neardup ./usr/share/zsh/vendor-completions/_neardup \
         ./usr/share/doc/neardup/copyright ./usr/share/doc/neardup/changelog.gz \
         ./usr/share/doc/neardup/NOTICE ./usr/share/doc/neardup/third-party/cuda/EULA.txt \
         ./usr/share/doc/neardup/docs/README.md ./usr/share/doc/neardup/docs/reference/cli.md \
         ./usr/share/doc/neardup/docs/reference/project-format.md \
         ./usr/share/doc/neardup/third-party/arrow/LICENSE.txt \
         ./usr/share/doc/neardup/third-party/arrow/NOTICE.txt \
         ./usr/share/icons/hicolor/48x48/apps/neardup-workbench.png \
         ./usr/share/icons/hicolor/256x256/apps/neardup-workbench.png; do
  grep -q " $f\$" <<<"$contents" || { echo "package.sh: $f missing from $deb" >&2; exit 1; }
done
# Licences: whatever the package carries outside /usr/bin and /usr/share, and the CUDA runtime
# inside the executables, has its stanza in the copyright file and its texts in the package.
./scripts/check-licences.sh package "$deb"
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
"$root/usr/bin/neardup" --version
# Parquet from the unpacked files alone: the executables load the package's Arrow libraries (not
# the build environment's) and deduplicate a Parquet file written by pyarrow.
for lib in libarrow libparquet; do
  grep -q " \./usr/lib/neardup/arrow/$lib\.so\.[0-9]*\$" <<<"$contents" ||
    { echo "package.sh: /usr/lib/neardup/arrow/$lib.so.* missing from $deb" >&2; exit 1; }
done
for exe in neardup neardup-workbench; do
  loaded="$(ldd "$root/usr/bin/$exe" | awk '/libparquet\.so/ { print $3 }')"
  [ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$root"/usr/lib/neardup/arrow/libparquet.so.*)" ] ||
    { echo "package.sh: $exe loads libparquet from '$loaded', not the package's" >&2; exit 1; }
done
.deps/arrow-venv/bin/python - "$root/sample.parquet" <<'PY'
import sys
import pyarrow as pa
import pyarrow.parquet as pq
text = "the packaged neardup reads parquet files through its own arrow libraries"
pq.write_table(pa.table({"id": ["a", "b", "c"], "text": [text, text + ".", "something else"]}),
               sys.argv[1])
PY
"$root/usr/bin/neardup" run "$root/sample.parquet" -p "$root/sample.ndw" -t 0.5 \
  --out-removed "$root/removed.txt" >/dev/null
[ "$(cat "$root/removed.txt")" = b ] || { echo "package.sh: Parquet run gave: $(cat "$root/removed.txt")" >&2; exit 1; }
echo "Depends: $(dpkg-deb -f "$deb" Depends)"
# Debian's own checker, strict: any error or warning fails the package.
lintian --pedantic --fail-on error,warning "$deb"
echo "$deb"
