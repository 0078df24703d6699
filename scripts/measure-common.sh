# What the measure-*.sh scripts share, sourced as `. scripts/measure-common.sh NAME "$@"`: the
# repository root as the working folder, the binary ($NEARDUP, default the build's), DOCS and
# SEEDS from the arguments (defaults: 18000 documents, seeds 1 2 3), the scratch folder
# ($WORK_DIR, default build/NAME), and corpus_for SEED, which generates that seed's corpus and
# ground truth once (kept between calls, so that a second table reuses them) and names them in
# $corpus and $truth.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
neardup="${NEARDUP:-./build/app/neardup}"
work="${WORK_DIR:-build/$1}"
shift
docs="${1:-18000}"
shift || true
seeds=(1 2 3)
[ $# -gt 0 ] && seeds=("$@")
mkdir -p "$work"

corpus_for() {
  corpus="$work/corpus-$1.jsonl"
  truth="$work/truth-$1.json"
  [ -f "$truth" ] || "$neardup" gen --docs "$docs" --seed "$1" --out "$corpus" --truth "$truth" >/dev/null
}
