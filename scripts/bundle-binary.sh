#!/usr/bin/env bash
# Copies BINARY into DIR with every shared library it needs except glibc's own, and sets
# RUNPATH $ORIGIN on each file, so that DIR starts on another x86-64 Linux (a newer glibc, none
# of our Debian packages). Refuses a binary that links libcuda (the driver is loaded at run time)
# and a bundle over LIMIT_MIB (default 64). Used by scripts/gpu-bundle.sh and by the test
# `gpu_bundle`.
#
#   scripts/bundle-binary.sh BINARY DIR
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 BINARY DIR" >&2; exit 2; }
binary="$1"
out="$2"
limit_mib="${LIMIT_MIB:-64}"
command -v patchelf >/dev/null || { echo "bundle: patchelf not found (scripts/install-deps.sh)" >&2; exit 1; }

# glibc's libraries come from the target system; everything else travels.
is_glibc() {
  case "$(basename "$1")" in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libresolv.so.* | \
      ld-linux*.so.* | libutil.so.* | libanl.so.*) return 0 ;;
  esac
  return 1
}
if ldd "$binary" | grep -q "not found"; then
  echo "bundle: unresolved libraries of $binary:" >&2; ldd "$binary" | grep "not found" >&2; exit 1
fi
if ldd "$binary" | grep -Eq 'libcuda\.so'; then
  echo "bundle: $binary links libcuda; the driver must be loaded at run time" >&2; exit 1
fi
mkdir -p "$out"
name="$(basename "$binary")"
cp "$binary" "$out/$name"
ldd "$binary" | awk '/=> \//{print $3}' | while read -r lib; do
  if ! is_glibc "$lib"; then cp -L "$lib" "$out/"; fi
done
for f in "$out/$name" "$out"/*.so*; do
  [ -e "$f" ] || continue
  chmod u+w "$f"
  patchelf --set-rpath '$ORIGIN' "$f"
done
strip --strip-unneeded "$out"/*.so* 2>/dev/null || true
strip "$out/$name"

size_kib=$(du -sk "$out" | cut -f1)
if [ "$size_kib" -gt $((limit_mib * 1024)) ]; then
  echo "bundle: $out is ${size_kib} KiB, over the ${limit_mib} MiB limit" >&2; exit 1
fi
echo "bundle: $out ($((size_kib / 1024)) MiB): $(cd "$out" && ls | tr '\n' ' ')"
