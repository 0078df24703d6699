#!/usr/bin/env bash
# Checks that whatever NearDup redistributes comes with the licence of each file that is not
# NearDup's own.
#
#   scripts/check-licences.sh package DEB|ROOT   a .deb, or a directory unpacked from one
#   scripts/check-licences.sh bundle DIR          a bundle made by scripts/bundle-binary.sh
#
# package: every file the package installs outside /usr/bin and /usr/share (libraries it
# carries) must fall, in usr/share/doc/neardup/copyright (DEP-5: the last matching stanza
# governs a file), under a stanza of its own rather than the catch-all `Files: *`; an executable
# with the CUDA runtime linked in must fall under a stanza whose licence names NVIDIA's; every
# licence short name used must have its License paragraph; every file under
# /usr/share/doc/neardup/ that the copyright file points at must be in the package.
# bundle: every file of the bundle (the executable and each library) must have a line in
# licences/INDEX ("FILE<TAB>licence file<TAB>where it came from") naming a non-empty file under
# licences/, and an executable with the CUDA runtime linked in must list NVIDIA's licence.
# Prints each problem and exits 1 when there is one.
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: $0 package DEB|ROOT | bundle DIR" >&2; exit 2; }
mode="$1"
target="$2"
problems=0
problem() {
  echo "check-licences: $*" >&2
  problems=$((problems + 1))
}
# Strings of the CUDA runtime itself, present when it is linked in: its static library's build
# tag (a symbol, gone once stripped) and the names of its shared-memory files (kept).
has_cudart() { grep -aqE 'libcudart_static_|/cudart\.shm\.' "$1"; }

# DEP-5 stanzas as lines "N<TAB>files<TAB>pattern" and "N<TAB>licence<TAB>expression" (N: the
# paragraph's index), plus "N<TAB>standalone<TAB>name" for License paragraphs without Files.
dep5_table() {
  awk '
    function flush() {
      if (files != "") {
        n = split(files, pats, /[ \t]+/)
        for (i = 1; i <= n; i++) if (pats[i] != "") print para "\tfiles\t" pats[i]
        print para "\tlicence\t" licence
      } else if (licence != "") {
        print para "\tstandalone\t" licence
      }
      files = ""; licence = ""; field = ""
    }
    /^[ \t]*$/ { flush(); para++; next }
    /^[^ \t]/ {
      field = $0; sub(/:.*/, "", field)
      value = $0; sub(/^[^:]*:[ \t]*/, "", value)
      if (field == "Files") files = value
      if (field == "License") licence = value
      next
    }
    { if (field == "Files") files = files " " $0 }
    END { flush() }
  ' "$1"
}

# The licence expression of the last stanza whose Files patterns match PATH, and whether that
# stanza was matched by the catch-all "*" alone; prints "catch-all" or "specific<TAB>licence".
governing_stanza() {
  local path="$1" table="$2" para kind value last="" last_kind="" pat
  local -A licence_of=()
  while IFS=$'\t' read -r para kind value; do
    case "$kind" in
      licence) licence_of[$para]="$value" ;;
      files)
        pat="${value//[/\\[}"
        pat="${pat//]/\\]}"
        # DEP-5: "*" matches any run of characters, "/" included, and "?" one character.
        # shellcheck disable=SC2053
        if [[ "$path" == $pat ]]; then
          last="$para"
          if [ "$value" = "*" ]; then last_kind=catch-all; else last_kind=specific; fi
        fi
        ;;
    esac
  done <<<"$table"
  [ -n "$last" ] || { echo none; return; }
  if [ "$last_kind" = catch-all ]; then echo catch-all; else printf 'specific\t%s\n' "${licence_of[$last]}"; fi
}

check_package() {
  local root cleanup="" copyright table f kind licence name ref
  if [ -d "$target" ]; then
    root="$target"
  else
    root="$(mktemp -d)"
    cleanup="$root"
    dpkg-deb -x "$target" "$root"
  fi
  copyright="$root/usr/share/doc/neardup/copyright"
  if [ ! -f "$copyright" ]; then
    problem "no usr/share/doc/neardup/copyright in $target"
  else
    table="$(dep5_table "$copyright")"
    # Files and links, as the package lists them (paths without the leading ./ or /).
    while IFS= read -r f; do
      case "$f" in
        usr/share/*) continue ;;
        usr/bin/*)
          if [ -f "$root/$f" ] && has_cudart "$root/$f"; then
            IFS=$'\t' read -r kind licence < <(governing_stanza "$f" "$table")
            if [ "$kind" != specific ] || [[ "$licence" != *NVIDIA* ]]; then
              problem "$f has the CUDA runtime linked in, but no stanza of the copyright file names NVIDIA's licence for it"
            fi
          fi
          continue
          ;;
      esac
      IFS=$'\t' read -r kind licence < <(governing_stanza "$f" "$table")
      if [ "$kind" != specific ]; then
        problem "$f is in the package but has no stanza of its own in the copyright file (only: $kind)"
      fi
    done < <(cd "$root" && find . \( -type f -o -type l \) -printf '%P\n' | LC_ALL=C sort)
    # Every licence short name used has its paragraph.
    while IFS= read -r name; do
      [ -n "$name" ] || continue
      awk -F'\t' -v n="$name" '$2 == "standalone" && $3 == n' <<<"$table" | grep -q . ||
        problem "licence '$name' has no License paragraph in the copyright file"
    done < <(awk -F'\t' '$2 == "licence" { print $3 }' <<<"$table" | sed -E 's/ (and|or) /\n/g' |
      sed -E 's/^ +| +$//g; s/ with .*//' | LC_ALL=C sort -u)
    # Every file of the package the copyright file points at is there.
    while IFS= read -r ref; do
      [ -e "$root$ref" ] || problem "the copyright file points at $ref, which the package lacks"
    done < <(grep -o '/usr/share/doc/neardup/[^ ,;)]*[^ ,;).]' "$copyright" | LC_ALL=C sort -u)
  fi
  [ -z "$cleanup" ] || rm -rf "$cleanup"
}

check_bundle() {
  local index="$target/licences/INDEX" f name licence origin
  if [ ! -f "$index" ]; then
    problem "no licences/INDEX in $target"
    return
  fi
  while IFS= read -r f; do
    name="$(basename "$f")"
    licence="$(awk -F'\t' -v n="$name" '$1 == n { print $2; exit }' "$index")"
    if [ -z "$licence" ]; then
      problem "$name is in the bundle but not in licences/INDEX"
    elif [ ! -s "$target/licences/$licence" ]; then
      problem "$name: its licence file licences/$licence is missing or empty"
    fi
    if has_cudart "$f" && ! awk -F'\t' -v n="$name" '$1 == n && $3 ~ /CUDA runtime/' "$index" | grep -q .; then
      problem "$name has the CUDA runtime linked in, but licences/INDEX gives no NVIDIA licence for it"
    fi
  done < <(find "$target" -maxdepth 1 -type f \( -name '*.so*' -o -perm -u+x \) ! -name '*.sh' | LC_ALL=C sort)
  # Every licence file the index names is there (a line per origin: a file may have several).
  while IFS=$'\t' read -r name licence origin; do
    [ -s "$target/licences/$licence" ] || problem "licences/INDEX names licences/$licence (for $name, $origin), which is missing or empty"
  done <"$index"
}

case "$mode" in
  package) check_package ;;
  bundle) check_bundle ;;
  *) echo "usage: $0 package DEB|ROOT | bundle DIR" >&2; exit 2 ;;
esac
if [ "$problems" -gt 0 ]; then
  echo "check-licences: $problems problem(s) in $target" >&2
  exit 1
fi
echo "check-licences: $mode $target: every file that is not NearDup's has its licence"
