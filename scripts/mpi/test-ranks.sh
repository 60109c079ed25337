#!/bin/bash
# One run across MPI ranks writes one process's bytes (issue 62).
#
#   bash scripts/mpi/test-ranks.sh [DCNSIM] [DCNSIM_MPI]
#
# Runs four cut fabrics (simulation.partition = "pods", 4 LPs, ordered by
# the model) once as one process with DCNSIM (the default build,
# target/release/dcnsim) and under `mpirun -np 2` and `-np 4` with
# DCNSIM_MPI (the `mpi` feature's build, target/mpi/release/dcnsim),
# oversubscribed on the machine's cores, and checks that every file the
# runs write, but perf.json (wall-clock times, and its entry in the
# manifest .dcnsim), is byte for byte the one process's:
#   - a k = 4 fat-tree permutation of RoCE flows under PFC
#     (tests/mpi/pfc-permutation-k4.toml),
#   - a trimming UEC incast on a k = 8 fat-tree,
#   - a permutation through a link that fails and is routed around,
#   - a ring all-reduce job on a k = 8 fat-tree.
# Then checks that a rank's error reaches rank 0 alone, once, naming it,
# and that a series-sampling scenario is refused by its key.
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
one=$(realpath "${1:-$root/target/release/dcnsim}")
mpi=$(realpath "${2:-$root/target/mpi/release/dcnsim}")
for b in "$one" "$mpi"; do
    [ -x "$b" ] || { echo "mpi: no dcnsim binary at $b" >&2; exit 1; }
done
command -v mpirun >/dev/null || { echo "mpi: no mpirun (apt-get install openmpi-bin)" >&2; exit 1; }

# Open MPI as root (CI runs as root), more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# Ranks that wait for others give their core away (oversubscribed).
export OMPI_MCA_mpi_yield_when_idle=1

work=$(mktemp -d /tmp/dcnsim-mpi.XXXXXX)
trap 'rm -rf "$work"' EXIT
cut=(--set simulation.partition=pods --set simulation.lps=4 --set simulation.order=model)

same() { # same CASE DIR_ONE DIR_RANKS
    local f rel bad=0
    while IFS= read -r f; do
        rel=${f#"$2"/}
        [ "$rel" = perf.json ] && continue
        if [ "$rel" = .dcnsim ]; then
            # The manifest: its perf.json entry (wall-clock times) aside.
            if [ "$(sed 's/"perf.json":{[^}]*},//' "$f")" != \
                "$(sed 's/"perf.json":{[^}]*},//' "$3/$rel")" ]; then
                echo "mpi: $1: the manifest .dcnsim differs from one process's" >&2
                bad=1
            fi
            continue
        fi
        if ! cmp -s "$f" "$3/$rel"; then
            echo "mpi: $1: $rel differs from one process's" >&2
            bad=1
        fi
    done < <(find "$2" -type f | sort)
    local a b
    a=$(cd "$2" && find . -type f | sort); b=$(cd "$3" && find . -type f | sort)
    [ "$a" = "$b" ] || { echo "mpi: $1: the ranks wrote other files" >&2; bad=1; }
    return $bad
}

failed=0
check() { # check NAME SCENARIO [--set ...]
    local name=$1 sc=$2; shift 2
    local t0 t1
    "$one" run "$sc" "${cut[@]}" "$@" --out "$work/$name-1" --no-plots --threads 1 >/dev/null
    for np in 2 4; do
        t0=$(date +%s.%N)
        mpirun -np $np "$mpi" run "$sc" "${cut[@]}" "$@" --out "$work/$name-np$np" \
            --no-plots --threads 1 > "$work/$name-np$np.out" 2>&1 || {
            echo "mpi: $name: mpirun -np $np failed:" >&2
            cat "$work/$name-np$np.out" >&2
            failed=1
            continue
        }
        t1=$(date +%s.%N)
        if same "$name" "$work/$name-1" "$work/$name-np$np"; then
            ranks=$(grep -o '"ranks": *[0-9]*' "$work/$name-np$np/perf.json" | grep -o '[0-9]*$')
            [ "$ranks" = "$np" ] || { echo "mpi: $name: perf.json says $ranks ranks" >&2; failed=1; }
            printf 'mpi: ok: %-16s -np %d writes one process'"'"'s bytes (%d files, %.1f s)\n' \
                "$name" "$np" "$(find "$work/$name-1" -type f | wc -l)" "$(echo "$t1 - $t0" | bc)"
        else
            failed=1
        fi
    done
}

check pfc-permutation "$root/tests/mpi/pfc-permutation-k4.toml"
check uec-incast-trim "$root/scenarios/ai-fabric/uec-incast-k8.toml"
check link-failure "$root/scenarios/ai-fabric/link-failure.toml"
check ring-allreduce "$root/scenarios/ai-fabric/ring-allreduce-k8.toml"

# An error reaches rank 0 once: more ranks than LPs, named by count.
if mpirun -np 4 "$mpi" run "$root/tests/mpi/pfc-permutation-k4.toml" \
    --set simulation.partition=pods --set simulation.lps=2 --out "$work/too-many" --no-plots \
    > "$work/too-many.out" 2>&1; then
    echo "mpi: 4 ranks for 2 LPs ran" >&2; failed=1
elif [ "$(grep -c '4 processes for a run cut into 2 LPs' "$work/too-many.out")" != 1 ] \
    || [ -e "$work/too-many" ]; then
    echo "mpi: 4 ranks for 2 LPs: not refused once, or wrote a folder:" >&2
    cat "$work/too-many.out" >&2; failed=1
else
    echo "mpi: ok: 4 ranks for 2 LPs refused once, nothing written"
fi
# A sampled series is refused by its key.
if mpirun -np 2 "$mpi" run "$root/tests/mpi/pfc-permutation-k4.toml" "${cut[@]}" \
    --set output.goodput_interval=10us --out "$work/series" --no-plots \
    > "$work/series.out" 2>&1; then
    echo "mpi: a sampled series ran across ranks" >&2; failed=1
elif ! grep -q 'output.goodput_interval' "$work/series.out" || [ -e "$work/series" ]; then
    echo "mpi: a sampled series: not refused by its key, or wrote a folder:" >&2
    cat "$work/series.out" >&2; failed=1
else
    echo "mpi: ok: a sampled series refused by its key, nothing written"
fi
exit $failed
