#!/usr/bin/env bash
# Writes a gzipped man page for one of our executables with help2man, from the executable's own
# --help and --version, so the page never drifts from the command line. For `neardup`, every
# subcommand's --help becomes a subsection of COMMANDS.
#
#   packaging/manpage.sh EXECUTABLE OUT.1.gz
set -euo pipefail
exe="$1"
out="$2"
name="$(basename "$exe")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export QT_QPA_PLATFORM=offscreen  # the workbench answers --help without a display

# roff-safe preformatted text: backslashes escaped, no line starting a request.
roff() { sed -e 's/\\/\\e/g' -e "s/^\([.']\)/\\\\\&\1/"; }

include="$tmp/include.h2m"
{
  echo "[SEE ALSO]"
  if [ "$name" = neardup ]; then
    echo ".BR neardup-workbench (1)"
  else
    echo ".BR neardup (1)"
  fi
  echo ""
  echo "The user guide and reference, installed in /usr/share/doc/neardup/docs/ (README.md is"
  echo "their index), explain the algorithm, the parameters, the outputs and the project file."
  echo "[AUTHOR]"
  echo "The NearDup developers."
  echo "[COPYRIGHT]"
  echo "Copyright (c) 2026 The NearDup developers. MIT licence."
} >"$include"

if [ "$name" = neardup ]; then
  {
    echo "[COMMANDS]"
    "$exe" --help | sed -n '/^Subcommands:/,$p' | tail -n +2 | awk '{print $1}' | while read -r sub; do
      [ -n "$sub" ] || continue
      echo ".SS \"neardup $sub\""
      echo ".nf"
      "$exe" "$sub" --help | sed "s#$exe#neardup#g" | roff
      echo ".fi"
    done
  } >>"$include"
  summary="find and audit near-duplicate documents in text corpora (MinHash-LSH)"
else
  summary="desktop workbench for tuning and auditing near-duplicate detection"
fi

help2man --no-info --section 1 --name "$summary" --include "$include" \
  --version-string "$("$exe" --version | awk '{print $NF}')" "$exe" >"$tmp/$name.1"
gzip -9n <"$tmp/$name.1" >"$out"
