#!/usr/bin/env bash
# Runs a paper's full reproduction and publishes its report in the docs:
# docs/reproductions/PAPER.md with the figures under docs/reproductions/PAPER/,
# and the quick run's verdicts.csv there as quick-verdicts.csv.
#
#   scripts/publish-reproduction.sh PAPER [DCNSIM [ARGS...]]     e.g. abq
#
# ARGS go to `dcnsim reproduce` (e.g. `--only sim`: run that experiment, and
# report every experiment whose runs are already in the folder; the
# others' claims are NOT RUN in the published report).
#
# PAPER names a folder of scenarios/ holding a reproduce.toml. The
# reproduction runs into results/reproduce-PAPER, its quick run into
# results/reproduce-PAPER-quick (both resumable: rerun after an
# interruption); the published report is rewritten whole.
set -euo pipefail
cd "$(dirname "$0")/.."
paper=${1:?usage: scripts/publish-reproduction.sh PAPER [DCNSIM]}
# Published timings come from the fully optimised build (docs/performance.md,
# "Build profiles").
bin=${2:-target/optimized/dcnsim}
[ -x "$bin" ] || { echo "no dcnsim at $bin: cargo build --profile optimized" >&2; exit 1; }
shift $(( $# < 2 ? $# : 2 ))
out=results/reproduce-$paper
# The quick run first, so that the full report lists the claims whose
# verdicts differ between the two (--against).
"$bin" reproduce "scenarios/$paper" --quick --out "$out-quick" --no-plots "$@"
"$bin" reproduce "scenarios/$paper" --out "$out" --against "$out-quick" "$@"
docs=docs/reproductions
rm -rf "${docs:?}/$paper"
mkdir -p "$docs/$paper"
# Each figure the report shows (EXPERIMENT/plots/NAME.png, or
# EXPERIMENT/runs/RUN/plots/NAME.png), as docs/reproductions/PAPER/ with the
# path's slashes turned into dashes.
{ grep -o '](\([A-Za-z0-9_/-]*\)/plots/[A-Za-z0-9_.-]*\.png)' "$out/report.md" || true; } | sed 's/^](//; s/)$//' |
while read -r fig; do
    flat=$(echo "$fig" | sed 's#/plots/#-#; s#/runs/#-#; s#/#-#g')
    cp "$out/$fig" "$docs/$paper/$flat"
done
{
    echo "<!-- Written by scripts/publish-reproduction.sh $paper from a full run; do not edit by hand: edit scenarios/$paper/reproduce.toml and publish again. -->"
    echo
    sed -E -e "s#\]\(([A-Za-z0-9_-]+)/runs/([A-Za-z0-9_-]+)/plots/([A-Za-z0-9_.-]+\.png)\)#](${paper}/\1-\2-\3)#g" \
        -e "s#\]\(([A-Za-z0-9_-]+)/plots/([A-Za-z0-9_.-]+\.png)\)#](${paper}/\1-\2)#g" "$out/report.md"
} > "$docs/$paper.md"
# The quick run's verdicts, which CI and cargo test hold HEAD's quick runs
# to (issue 57: a published report is what HEAD produces).
cp "$out-quick/verdicts.csv" "$docs/$paper/quick-verdicts.csv"
echo "published $docs/$paper.md and $(ls "$docs/$paper" | wc -l) figures"
