#!/usr/bin/env bash
# The licence check of the package and the bundle (scripts/check-licences.sh) on small
# fabricated examples: it passes a complete one and fails, naming the file, a library without a
# stanza of its own, a licence text the copyright file points at but the package lacks, an
# executable with the CUDA runtime linked in under NearDup's licence alone, a licence without
# its paragraph, and a bundled library without a licence.
#
#   tests/packaging/check_licences.sh SOURCE_DIR
set -euo pipefail
src="$(cd "${1:-$(dirname "$0")/../..}" && pwd)"
check="$src/scripts/check-licences.sh"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# expect pass|fail MODE TARGET [TEXT]: the check's outcome, and TEXT in its messages on failure.
expect() {
  local want="$1" mode="$2" target="$3" text="${4:-}" out rc=0
  out="$("$check" "$mode" "$target" 2>&1)" || rc=$?
  if { [ "$want" = pass ] && [ "$rc" -ne 0 ]; } || { [ "$want" = fail ] && [ "$rc" -ne 1 ]; } ||
    { [ -n "$text" ] && ! grep -qF -- "$text" <<<"$out"; }; then
    echo "FAIL: expected $want${text:+ naming '$text'} for $mode $target (rc $rc):" >&2
    echo "$out" >&2
    failures=$((failures + 1))
  fi
}

# A package root as scripts/package.sh builds it, reduced to what the check looks at.
make_root() {
  local root="$1" doc="$1/usr/share/doc/neardup"
  mkdir -p "$doc/third-party/arrow" "$doc/third-party/cuda" "$root/usr/lib/neardup/arrow" \
    "$root/usr/bin"
  cp "$src/packaging/copyright" "$src/packaging/NOTICE" "$doc/"
  echo licence >"$doc/third-party/arrow/LICENSE.txt"
  echo notice >"$doc/third-party/arrow/NOTICE.txt"
  echo eula >"$doc/third-party/cuda/EULA.txt"
  echo library >"$root/usr/lib/neardup/arrow/libarrow.so.2600"
  ln -s libarrow.so.2600 "$root/usr/lib/neardup/arrow/libarrow.so"
  # The CUDA runtime's build tag, as the statically linked runtime leaves it in the executable
  # before stripping (the bundle below has the string that stripping keeps).
  printf 'ELF libcudart_static_0123456789abcdef\n' >"$root/usr/bin/neardup"
  chmod +x "$root/usr/bin/neardup"
}

make_root "$work/ok"
expect pass package "$work/ok"
if command -v dpkg-deb >/dev/null; then
  mkdir -p "$work/ok/DEBIAN"
  printf 'Package: neardup\nVersion: 0.0.1\nArchitecture: all\nMaintainer: t <t@t.invalid>\nDescription: t\n' \
    >"$work/ok/DEBIAN/control"
  dpkg-deb --root-owner-group -Zgzip -z1 -b "$work/ok" "$work/ok.deb" >/dev/null
  rm -rf "$work/ok/DEBIAN"
  expect pass package "$work/ok.deb"
fi

make_root "$work/extra"
mkdir -p "$work/extra/usr/lib/neardup/other"
echo library >"$work/extra/usr/lib/neardup/other/libz.so.1"
expect fail package "$work/extra" "usr/lib/neardup/other/libz.so.1"

make_root "$work/no-eula"
rm "$work/no-eula/usr/share/doc/neardup/third-party/cuda/EULA.txt"
expect fail package "$work/no-eula" "/usr/share/doc/neardup/third-party/cuda/EULA.txt"

make_root "$work/mit-only"
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^Files: usr\/bin\//' "$src/packaging/copyright" \
  >"$work/mit-only/usr/share/doc/neardup/copyright"
expect fail package "$work/mit-only" "usr/bin/neardup has the CUDA runtime"

make_root "$work/no-paragraph"
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^License: NVIDIA-CUDA-EULA/' "$src/packaging/copyright" \
  >"$work/no-paragraph/usr/share/doc/neardup/copyright"
expect fail package "$work/no-paragraph" "licence 'NVIDIA-CUDA-EULA' has no License paragraph"

# A bundle as scripts/bundle-binary.sh leaves it.
mkdir -p "$work/bundle/licences"
printf 'ELF /cudart.shm.%%x.%%x.%%llx\n' >"$work/bundle/neardup"
chmod +x "$work/bundle/neardup"
echo library >"$work/bundle/libfoo.so.1"
echo mit >"$work/bundle/licences/neardup-MIT.txt"
echo eula >"$work/bundle/licences/NVIDIA-CUDA-EULA.txt"
printf 'neardup\tneardup-MIT.txt\tNearDup (MIT)\nneardup\tNVIDIA-CUDA-EULA.txt\tCUDA runtime (linked in)\n' \
  >"$work/bundle/licences/INDEX"
expect fail bundle "$work/bundle" "libfoo.so.1 is in the bundle but not in licences/INDEX"
printf 'libfoo.so.1\tlibfoo1.copyright\tDebian package libfoo1\n' >>"$work/bundle/licences/INDEX"
: >"$work/bundle/licences/libfoo1.copyright"
expect fail bundle "$work/bundle" "licences/libfoo1.copyright is missing or empty"
echo copyright >"$work/bundle/licences/libfoo1.copyright"
expect pass bundle "$work/bundle"
sed -i '/NVIDIA/d' "$work/bundle/licences/INDEX"
expect fail bundle "$work/bundle" "neardup has the CUDA runtime linked in"

[ "$failures" -eq 0 ] || { echo "$failures check(s) failed" >&2; exit 1; }
echo "check_licences: all cases behave"
