#!/usr/bin/env bash
# Builds a self-contained, CLI-only `neardup` with the CUDA backend and copies it into DIR with
# every shared library it needs except glibc's own, so that it starts on another x86-64 Linux
# (a GPU machine with a newer glibc and none of our Debian packages). Each file's RUNPATH is
# $ORIGIN, so the bundle works from wherever it is unpacked. Also copies scripts/gpu-check.sh,
# which runs the whole GPU check from the bundle.
#
#   scripts/gpu-bundle.sh DIR        (build dir: build-gpu-bundle, or $BUILD_DIR)
#
# Architectures: SASS for sm_75, 80, 86, 89 and 90 (H100/H200) plus compute_90 PTX, which the
# driver JIT-compiles for newer GPUs. MPI is left out: a bundle carries no MPI launcher.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
out="$1"
build_dir="${BUILD_DIR:-build-gpu-bundle}"
limit_mib=64

command -v nvcc >/dev/null || { echo "gpu-bundle: nvcc not found; the bundle needs CUDA" >&2; exit 1; }
./scripts/install-deps.sh >/dev/null
if ! command -v patchelf >/dev/null; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends patchelf >/dev/null
fi

generator=()
if command -v ninja >/dev/null 2>&1 && [ ! -f "$build_dir/Makefile" ]; then generator=(-G Ninja); fi
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DNEARDUP_GUI=OFF \
  -DNEARDUP_TESTS=OFF -DNEARDUP_CUDA=ON -DNEARDUP_MPI=OFF \
  "-DCMAKE_CUDA_ARCHITECTURES=75-real;80-real;86-real;89-real;90" >/dev/null
cmake --build "$build_dir" --parallel "$(nproc)" --target neardup

rm -rf "$out"
mkdir -p "$out"
cp "$build_dir/app/neardup" "$out/neardup"
cp scripts/gpu-check.sh "$out/gpu-check.sh"

# glibc's libraries come from the target system; everything else travels.
is_glibc() {
  case "$(basename "$1")" in
    libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libresolv.so.* | \
      ld-linux*.so.* | libutil.so.* | libanl.so.*) return 0 ;;
  esac
  return 1
}
ldd "$out/neardup" | awk '/=> \//{print $3}' | while read -r lib; do
  if ! is_glibc "$lib"; then cp -L "$lib" "$out/"; fi
done
if ldd "$out/neardup" | grep -q "not found"; then
  echo "gpu-bundle: unresolved libraries:" >&2; ldd "$out/neardup" | grep "not found" >&2; exit 1
fi
if ldd "$out/neardup" | grep -Eq 'libcuda\.so'; then
  echo "gpu-bundle: neardup links libcuda; the driver must be loaded at run time" >&2; exit 1
fi
for f in "$out"/neardup "$out"/*.so*; do
  patchelf --set-rpath '$ORIGIN' "$f"
done
strip --strip-unneeded "$out"/*.so* 2>/dev/null || true
strip "$out/neardup"

size_kib=$(du -sk "$out" | cut -f1)
if [ "$size_kib" -gt $((limit_mib * 1024)) ]; then
  echo "gpu-bundle: $out is ${size_kib} KiB, over the ${limit_mib} MiB limit" >&2; exit 1
fi
echo "gpu-bundle: $out ($((size_kib / 1024)) MiB):"
ls -1 "$out"
