#!/bin/bash
# Times one run across MPI ranks against one process (issue 62;
# docs/performance.md, "Across MPI ranks").
#
#   bash scripts/mpi/bench-ranks.sh SCENARIO [DCNSIM] [DCNSIM_MPI] [RANKSxTHREADS...]
#
# Runs SCENARIO (cut by its own [simulation], or `auto`) as one process
# with DCNSIM at 1 and 2 threads, then under `mpirun -np R` with
# DCNSIM_MPI at each RxT given (default: 2x1 2x2 4x1), oversubscribed
# where R x T passes the cores, and prints per configuration the event
# loop's wall time, each rank's peak RSS (GNU time's maximum resident
# set) and rank 0's time in the ranks' exchanges, and checks that every
# run wrote one process's bytes.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
sc=$(realpath "$1")
one=$(realpath "${2:-$root/target/release/dcnsim}")
mpi=$(realpath "${3:-$root/target/mpi/release/dcnsim}")
shift $(( $# < 3 ? $# : 3 ))
configs=("${@:-2x1 2x2 4x1}")
[ $# -gt 0 ] || configs=(2x1 2x2 4x1)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
work=$(mktemp -d /tmp/dcnsim-bench-ranks.XXXXXX)
trap 'rm -rf "$work"' EXIT

field() { grep -o "\"$2\": *[0-9.e+-]*" "$1" | head -1 | grep -o '[0-9.e+-]*$'; }
report() { # report LABEL DIR RSS_FILE
    local wall ex
    wall=$(field "$2/perf.json" wall_seconds)
    ex=$(field "$2/perf.json" exchange_seconds || echo 0)
    printf '%-22s loop %7.3f s   exchanges (rank 0) %6.3f s   peak RSS per rank MiB: %s\n' \
        "$1" "$wall" "${ex:-0}" "$(awk '{printf "%.1f ", $1/1024}' "$3")"
}
same() {
    local f
    for f in flows.csv ports.csv summary.json; do
        cmp -s "$work/one-1/$f" "$1/$f" || { echo "bench: $1: $f differs" >&2; exit 1; }
    done
}

for t in 1 2; do
    /usr/bin/time -f %M -o "$work/rss-one-$t" "$one" run "$sc" --out "$work/one-$t" \
        --no-plots --threads "$t" >/dev/null
    report "1 process x $t thread" "$work/one-$t" "$work/rss-one-$t"
    same "$work/one-$t"
done
for c in "${configs[@]}"; do
    r=${c%x*}; t=${c#*x}
    mpirun -np "$r" /usr/bin/time -f %M -a -o "$work/rss-$c" "$mpi" run "$sc" \
        --out "$work/np-$c" --no-plots --threads "$t" >/dev/null
    report "$r ranks x $t thread" "$work/np-$c" "$work/rss-$c"
    same "$work/np-$c"
done
