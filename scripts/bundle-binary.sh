#!/usr/bin/env bash
# Copies BINARY into DIR with every shared library it needs except glibc's own, and sets
# RUNPATH $ORIGIN on each file, so that DIR starts on another x86-64 Linux (a newer glibc, none
# of our Debian packages). Refuses a binary that links libcuda (the driver is loaded at run time)
# and a bundle over LIMIT_MIB (default 64). DIR/licences holds the licence of every file it
# copies: NearDup's, each library's (the copyright file of the Debian package that owns it, or
# the licence files of the Python wheel it comes from) and NVIDIA's for the CUDA runtime linked
# into the binary, with licences/INDEX saying which is which; a file whose licence cannot be
# found fails the bundle (scripts/check-licences.sh bundle). Used by scripts/gpu-bundle.sh and
# by the test `bundle`.
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
libs=()
while read -r lib; do
  if ! is_glibc "$lib"; then libs+=("$lib"); fi
done < <(ldd "$binary" | awk '/=> \//{print $3}')
for lib in "${libs[@]}"; do cp -L "$lib" "$out/"; done

# Licences. The Debian package owning each library, asked once for all of them, under each name
# the file may be registered by (as ldd gives it, resolved, and either side of the /usr merge).
here="$(cd "$(dirname "$0")" && pwd)"
lic="$out/licences"
mkdir -p "$lic"
index="$lic/INDEX"
cp "$here/../LICENSE" "$lic/neardup-MIT.txt"
printf '%s\t%s\t%s\n' "$name" neardup-MIT.txt "NearDup (MIT)" >"$index"
candidates() {
  local r
  r="$(readlink -f "$1")"
  printf '%s\n' "$1" "$r"
  case "$r" in /usr/*) printf '%s\n' "${r#/usr}" ;; *) printf '/usr%s\n' "$r" ;; esac
}
declare -A owner=()
if command -v dpkg >/dev/null && [ ${#libs[@]} -gt 0 ]; then
  mapfile -t paths < <(for lib in "${libs[@]}"; do candidates "$lib"; done)
  # Lines "package[:arch][, package...]: path"; diversions are reported on lines of their own.
  while IFS= read -r line; do
    case "$line" in diversion*) continue ;; *": /"*) ;; *) continue ;; esac
    pkg="${line%%: /*}"
    pkg="${pkg%%,*}"
    owner["${line##*: }"]="${pkg%%:*}"
  done < <(dpkg -S "${paths[@]}" 2>/dev/null || true)
fi
# A library from a Python wheel (Arrow's, from pyarrow): the dist-info whose RECORD lists it.
wheel_of() {
  local r d di
  r="$(readlink -f "$1")"
  d="$(dirname "$r")"
  for di in "$(dirname "$d")"/*.dist-info; do
    if grep -qF "$(basename "$d")/$(basename "$r")," "$di/RECORD" 2>/dev/null; then
      echo "$di"
      return 0
    fi
  done
  return 1
}
for lib in "${libs[@]}"; do
  base="$(basename "$lib")"
  pkg=""
  while read -r c; do
    if [ -n "${owner[$c]:-}" ]; then pkg="${owner[$c]}"; break; fi
  done < <(candidates "$lib")
  if [ -n "$pkg" ] && [ -s "/usr/share/doc/$pkg/copyright" ]; then
    cp -L "/usr/share/doc/$pkg/copyright" "$lic/$pkg.copyright"
    printf '%s\t%s\t%s\n' "$base" "$pkg.copyright" \
      "Debian package $pkg $(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)" >>"$index"
  elif di="$(wheel_of "$lib")"; then
    wheel="$(basename "$di" .dist-info)"
    found=0
    for f in "$di"/licenses/* "$di"/LICENSE* "$di"/NOTICE* "$di"/COPYING*; do
      [ -f "$f" ] || continue
      cp "$f" "$lic/$wheel-$(basename "$f")"
      printf '%s\t%s\t%s\n' "$base" "$wheel-$(basename "$f")" "Python wheel $wheel" >>"$index"
      found=1
    done
    [ "$found" = 1 ] || { echo "bundle: the wheel $wheel of $lib carries no licence file" >&2; exit 1; }
  else
    echo "bundle: no licence found for $lib (no Debian package owns it, no Python wheel lists it)" >&2
    exit 1
  fi
done
# The CUDA runtime, when linked in statically: NVIDIA's licence from the toolkit of nvcc (a
# runfile or NVIDIA's packages: EULA.txt; pip's nvidia-cuda-runtime: its licence; Debian's
# nvidia-cuda-toolkit: its copyright file), or the file CUDA_EULA names. The toolkit is the one
# CUDACXX names, else nvcc on PATH, else /usr/local/cuda, where CMake also looks: a build may
# have found nvcc there with /usr/local/cuda/bin off PATH. Its root is where nvcc lies (links
# resolved) or, for an nvcc that is a wrapper script elsewhere, the TOP that nvcc itself reports.
if grep -aqE 'libcudart_static_|/cudart\.shm\.' "$binary"; then
  eula="${CUDA_EULA:-}"
  nvcc=""
  for candidate in "${CUDACXX:-}" "$(command -v nvcc || true)" /usr/local/cuda/bin/nvcc; do
    if [ -n "$candidate" ] && [ -x "$candidate" ]; then nvcc="$candidate"; break; fi
  done
  if [ -z "$eula" ] && [ -n "$nvcc" ]; then
    roots=("$(readlink -f "$(dirname "$(readlink -f "$nvcc")")/..")")
    top="$("$nvcc" --dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1)" || true
    if [ -n "$top" ]; then roots+=("$(readlink -f "$top")"); fi
    for root in "${roots[@]}"; do
      for f in "$root/EULA.txt" "$root/doc/EULA.txt" "$root"/dist-info/nvidia_cuda_runtime*/licenses/License.txt; do
        if [ -s "$f" ]; then eula="$f"; break 2; fi
      done
    done
  fi
  if [ -z "$eula" ] && [ -s /usr/share/doc/nvidia-cuda-toolkit/copyright ]; then
    eula=/usr/share/doc/nvidia-cuda-toolkit/copyright
  fi
  [ -n "$eula" ] && [ -s "$eula" ] ||
    { echo "bundle: $binary has the CUDA runtime linked in, but no CUDA licence text was found (set CUDA_EULA)" >&2; exit 1; }
  cp "$eula" "$lic/NVIDIA-CUDA-EULA.txt"
  printf '%s\t%s\t%s\n' "$name" NVIDIA-CUDA-EULA.txt \
    "CUDA runtime (libcudart_static.a, linked in), NVIDIA CUDA Toolkit End User License Agreement" >>"$index"
fi
cat >"$lic/README" <<'EOT'
Licences of the files in this folder's parent. INDEX has one line per file and licence: the
file, its licence text here, and where the file came from. The executable is NearDup's (MIT,
neardup-MIT.txt). When it has NVIDIA's CUDA runtime linked in, INDEX lists NVIDIA's licence
for it (NVIDIA-CUDA-EULA.txt): the runtime stays under that licence, is distributed only as
part of NearDup, and NearDup's licence does not extend to it.
EOT
for f in "$out/$name" "$out"/*.so*; do
  [ -e "$f" ] || continue
  chmod u+w "$f"
  patchelf --set-rpath '$ORIGIN' "$f"
done
strip --strip-unneeded "$out"/*.so* 2>/dev/null || true
strip "$out/$name"
"$here/check-licences.sh" bundle "$out" >/dev/null

size_kib=$(du -sk "$out" | cut -f1)
if [ "$size_kib" -gt $((limit_mib * 1024)) ]; then
  echo "bundle: $out is ${size_kib} KiB, over the ${limit_mib} MiB limit" >&2; exit 1
fi
echo "bundle: $out ($((size_kib / 1024)) MiB): $(cd "$out" && ls | tr '\n' ' ')"
