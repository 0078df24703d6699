#!/usr/bin/env bash
# Release check: installs the Debian package into a fresh, minimal Debian 12 root and uses it
# there, proving that the package's declared Depends are complete (nothing the build machine
# happens to have is needed). Steps: the .deb (given, or built by scripts/package.sh);
# `debootstrap --variant=minbase bookworm` from this machine's configured apt source; inside
# the root (chroot) `apt-get install --no-install-recommends ./neardup_*.deb`; `neardup run`
# and `neardup eval` on the bundled sample, whose outputs must equal, byte for byte, those of
# the build tree's neardup on the host; and the workbench started offscreen (--version, then a
# screenshot of the sample project). Needs root and the network.
#
# Usage: scripts/fresh-root-check.sh [path/to/neardup_*.deb]
# Environment: MIRROR (overrides the mirror read from the apt sources), REFERENCE (the host
# neardup to compare with; default build/app/neardup, else build-package/app/neardup),
# KEEP_ROOT=1 (keep the work folder, /tmp/neardup-fresh-root.*, with the root in it; it is
# removed otherwise), JOBS (passed to scripts/package.sh when it builds the package).
# Exit status: 0 passed, 1 failed, 77 cannot run here (not root, or no debootstrap).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "fresh-root-check: $*"; }
die() {
  echo "fresh-root-check: $*" >&2
  exit 1
}
phase_start=$SECONDS
phase() {
  say "$1 took $((SECONDS - phase_start)) s"
  phase_start=$SECONDS
}

if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-root-check: skipped: needs root (debootstrap, chroot and mounts)" >&2
  exit 77
fi
command -v debootstrap >/dev/null 2>&1 || {
  echo "fresh-root-check: skipped: debootstrap is not installed (scripts/install-deps.sh)" >&2
  exit 77
}

# The package: the one given, else a fresh build.
if [ $# -ge 1 ]; then
  deb="$(realpath "$1")"
else
  ./scripts/package.sh
  deb="$(ls -t build-package/neardup_*.deb | head -n 1)"
  deb="$(realpath "$deb")"
  phase "building the package"
fi
[ -f "$deb" ] || die "no package at $deb"

# The host neardup whose outputs the installed one must reproduce.
reference="${REFERENCE:-}"
if [ -z "$reference" ]; then
  for candidate in build/app/neardup build-package/app/neardup; do
    if [ -x "$candidate" ]; then
      reference="$candidate"
      break
    fi
  done
fi
if [ -z "$reference" ] || [ ! -x "$reference" ]; then
  die "no neardup to compare with: build one (scripts/build.sh) or set REFERENCE"
fi
reference="$(realpath "$reference")"

# Every `deb` entry of this machine's apt sources, as "URI SUITE COMPONENTS...", from
# sources.list and sources.list.d/*.list (one-line format) and sources.list.d/*.sources
# (deb822 format), the files apt itself reads.
apt_entries() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    # Drop comments and the [option=value ...] block; keep "deb URI SUITE COMPONENTS...".
    sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" | awk '$1 == "deb" && NF >= 3 {
      line = $2; for (i = 3; i <= NF; i++) line = line " " $i; print line }'
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # One stanza per paragraph; continuation lines (leading space) belong to multi-line
    # fields such as an inline Signed-By key and are skipped.
    awk '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && enabled != "no")
          for (u = 1; u <= nu; u++) for (s = 1; s <= ns; s++) print uri[u], suite[s], comps
        types = ""; enabled = ""; comps = ""; nu = 0; ns = 0
      }
      /^#/ { next }
      /^[ \t]*$/ { flush(); next }
      /^[ \t]/ { next }
      {
        key = tolower($1); sub(/:$/, "", key)
        value = $0; sub(/^[^:]*:[ \t]*/, "", value)
        if (key == "types") types = value
        else if (key == "enabled") enabled = tolower(value)
        else if (key == "components") comps = value
        else if (key == "uris") nu = split(value, uri, /[ \t]+/)
        else if (key == "suites") ns = split(value, suite, /[ \t]+/)
      }
      END { flush() }' "$f"
  done
}

entries="$(apt_entries)"
mirror="${MIRROR:-$(awk '$2 == "bookworm" { print $1; exit }' <<<"$entries")}"
[ -n "$mirror" ] ||
  die "no 'deb ... bookworm' entry in /etc/apt/sources.list{,.d}; set MIRROR to a Debian mirror"
say "package $deb"
say "mirror $mirror (from this machine's apt sources)"

# The root and its mounts; everything mounted is unmounted on any exit, and the work folder is
# only removed once nothing is mounted under it.
work="$(mktemp -d /tmp/neardup-fresh-root.XXXXXX)"
root="$work/root"
host="$work/host"
mkdir -p "$root" "$host"
mounted=()
cleanup() {
  local status=$? i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
  done
  if [ "${KEEP_ROOT:-0}" = 1 ]; then
    say "root kept in $root"
  elif findmnt -rn -o TARGET | grep -q "^$work/"; then
    echo "fresh-root-check: something is still mounted under $work; not removing it" >&2
  else
    rm -rf --one-file-system "$work"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mount_in_root() { # mount_in_root TARGET MOUNT-ARGUMENTS...
  local target="$root/$1"
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  mounted+=("$target")
}

say "debootstrap --variant=minbase bookworm $root"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 30 "$work/debootstrap.log" >&2
  die "debootstrap failed"
}
phase "debootstrap (download and unpack the base system)"

mount_in_root proc -t proc proc
mount_in_root sys -t sysfs sysfs
mount_in_root dev --bind /dev
mount_in_root dev/pts --bind /dev/pts
cp /etc/resolv.conf "$root/etc/resolv.conf"
# The root's sources: the bookworm suites this machine uses (base, updates, security), as a
# freshly installed Debian 12 has them.
awk '$2 ~ /^bookworm(-updates|-security)?$/ { print "deb " $0 }' <<<"$entries" |
  sort -u >"$root/etc/apt/sources.list"
[ -s "$root/etc/apt/sources.list" ] || echo "deb $mirror bookworm main" >"$root/etc/apt/sources.list"

in_root() {
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}

# Depends only: recommended packages would hide a missing dependency.
cp "$deb" "$root/root/"
base_packages="$(in_root dpkg-query -W | wc -l)"
in_root apt-get update -qq
in_root sh -c "cd /root && apt-get install -y --no-install-recommends ./$(basename "$deb")" \
  >"$work/install.log" 2>&1 || {
  tail -n 40 "$work/install.log" >&2
  die "apt-get install of the package failed in the fresh root"
}
grep -E '^(Need to get|After this operation)' "$work/install.log" || true
say "$(($(in_root dpkg-query -W | wc -l) - base_packages)) packages installed over the" \
  "$base_packages of the minimal base"
phase "apt-get install of the package and its dependencies"

# The sample, deduplicated in the root by the installed neardup and on the host by the
# reference build; the outputs must be the same bytes.
samples=(sample.jsonl sample-bad-lines.jsonl)
mkdir -p "$root/root/sample"
cp resources/samples/sample.jsonl resources/samples/sample-bad-lines.jsonl \
  resources/samples/sample.truth.json "$root/root/sample/"
run_args=(run "${samples[@]}" --project sample.ndw --out-jsonl deduplicated.jsonl
  --out-removed removed-ids.txt --out-clusters clusters.jsonl --summary-json summary.json)
in_root sh -c 'cd /root/sample && exec neardup "$@"' neardup "${run_args[@]}"
in_root sh -c 'cd /root/sample && exec neardup eval --truth sample.truth.json --clusters clusters.jsonl'
cp resources/samples/sample.jsonl resources/samples/sample-bad-lines.jsonl "$host/"
(cd "$host" && "$reference" "${run_args[@]}" >"$work/host.log" 2>&1) || {
  cat "$work/host.log" >&2
  die "$reference failed on the sample"
}
for f in deduplicated.jsonl removed-ids.txt clusters.jsonl; do
  cmp "$host/$f" "$root/root/sample/$f" ||
    die "$f differs between the installed neardup and $reference"
done
say "same outputs as $reference: $(wc -l <"$host/removed-ids.txt") removed ids," \
  "$(wc -l <"$host/deduplicated.jsonl") kept lines, $(wc -l <"$host/clusters.jsonl") cluster lines"

# The workbench, offscreen: its libraries and Qt plugins load, and it opens the project the
# run wrote and renders its window.
version="$(in_root sh -c 'QT_QPA_PLATFORM=offscreen timeout 120 neardup-workbench --version')"
say "$version"
in_root sh -c 'cd /root/sample && QT_QPA_PLATFORM=offscreen timeout 120 \
  neardup-workbench --screenshot /root/sample/window.png sample.ndw'
[ -s "$root/root/sample/window.png" ] || die "the workbench saved no screenshot"
phase "deduplicating the sample and starting the workbench"
say "passed in ${SECONDS} s"
