#!/usr/bin/env bash
# One run on many cores (docs/performance.md, "One run on many cores"):
# for each scenario, runs A and B alternately PAIRS times (A B A B ...) and
# prints each run's event-loop wall time (perf.json), its user+sys CPU
# time, and at the end the median ratio B/A of each over the pairs. The
# load average is printed before and after: the issue's measurement asks
# for an idle machine (below 0.5).
#
#   bash scripts/bench-threads.sh [DCNSIM] [PAIRS] [A] [B] [SCENARIO...]
#
# A and B are `dcnsim run` flags, e.g. "--threads 1" "--threads 2" (the
# default), or "--set simulation.partition=none --threads 1" against
# "--threads 1" (today's engine against the partitioned one on one
# thread). Every pair's outputs are compared byte for byte when A and B
# differ only in threads. Scenarios default to the k = 16 and k = 24
# permutations of benches/scenarios.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dcnsim=$(realpath "${1:-$root/target/release/dcnsim}")
pairs=${2:-3}
a_flags=${3:---threads 1}
b_flags=${4:---threads 2}
shift $(( $# < 4 ? $# : 4 ))
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(perm-k16-0.5ms perm-k24-0.5ms)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "A: $a_flags | B: $b_flags | $(nproc) cores"
printf '%-18s %4s %3s %10s %10s %8s %5s\n' scenario pair run loop_s cpu_s lps same
for sc in "${scenarios[@]}"; do
    file="$root/benches/scenarios/$sc.toml"
    [ -f "$file" ] || file="$sc"
    ratios=()
    for pair in $(seq 1 "$pairs"); do
        for run in A B; do
            flags=$a_flags
            [ "$run" = B ] && flags=$b_flags
            out="$work/$sc-$pair-$run"
            # shellcheck disable=SC2086
            /usr/bin/time -f '%U %S' -o "$work/time" \
                "$dcnsim" run "$file" --out "$out" --no-plots $flags >/dev/null 2>&1
            read -r user sys <"$work/time"
            read -r loop lps < <(python3 -c "import json,sys; p=json.load(open(sys.argv[1])); print(p['wall_seconds'], p['lps'])" "$out/perf.json")
            cpu=$(python3 -c "print(round($user + $sys, 2))")
            same=-
            if [ "$run" = B ]; then
                same=yes
                for f in summary.json flows.csv ports.csv; do
                    cmp -s "$work/$sc-$pair-A/$f" "$out/$f" || same=no
                done
                ratios+=("$(python3 -c "print($loop / $prev_loop, $cpu / $prev_cpu)")")
            fi
            prev_loop=$loop
            prev_cpu=$cpu
            printf '%-18s %4s %3s %10.3f %10.2f %8s %5s\n' "$sc" "$pair" "$run" "$loop" "$cpu" "$lps" "$same"
        done
    done
    python3 - "${ratios[@]}" <<'PY'
import statistics, sys
pairs = [tuple(map(float, r.split())) for r in sys.argv[1:]]
loop = statistics.median(p[0] for p in pairs)
cpu = statistics.median(p[1] for p in pairs)
print(f"  median B/A: loop wall {loop:.3f} (speed-up {1 / loop:.2f}x), cpu {cpu:.3f}")
PY
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
