#!/usr/bin/env bash
# How the cost per event grows with the fabric (docs/performance.md,
# "Scaling"): runs the k-ary permutations of benches/scenarios (k = 4 to
# 24, 0.5 ms) and the k = 32 fat-tree with 4,096 flows (0.1 ms), one run
# each, and prints per scenario the events, the event loop's ns per event
# (perf.json's events_per_second, which times the loop alone), the whole
# process's wall time and its peak RSS. With CACHEGRIND_K=N (and valgrind
# installed) the scenarios up to k = N also run under cachegrind with a
# 4 MiB last level, and the table gains its misses per event there (slow:
# about 50 times the run).
#
#   bash scripts/bench-scaling.sh [DCNSIM]
#
# The machine is shared and noisy: compare two builds in one sitting,
# alternating, and read ratios.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dcnsim=$(realpath "${1:-$root/target/optimized/dcnsim}")
cachegrind_k=${CACHEGRIND_K:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-26s %12s %10s %9s %10s %12s\n' scenario events ns/event wall_s rss_MiB "LL miss/ev"
for sc in perm-k4-0.5ms perm-k8-0.5ms perm-k12-0.5ms perm-k16-0.5ms perm-k20-0.5ms \
    perm-k24-0.5ms ft32-4096flows-0.1ms; do
    file="$root/benches/scenarios/$sc.toml"
    start=$(date +%s.%N)
    "$dcnsim" run "$file" --out "$work/$sc" --no-plots >/dev/null 2>&1
    end=$(date +%s.%N)
    read -r events ns rss < <(python3 - "$work/$sc" <<'PY'
import json, sys
d = sys.argv[1]
perf = json.load(open(f"{d}/perf.json"))
events = json.load(open(f"{d}/summary.json"))["events"]
print(events, round(1e9 / perf["events_per_second"]), round(perf["peak_rss_bytes"] / 2**20, 1))
PY
)
    k=$(echo "$sc" | sed -n 's/^perm-k\([0-9]*\)-.*/\1/p; s/^ft\([0-9]*\)-.*/\1/p')
    misses=-
    if [ "$k" -le "$cachegrind_k" ] && command -v valgrind >/dev/null; then
        valgrind --tool=cachegrind --cache-sim=yes --LL=4194304,16,64 \
            --cachegrind-out-file="$work/cg.out" \
            "$dcnsim" run "$file" --out "$work/$sc-cg" --no-plots >/dev/null 2>&1
        misses=$(python3 - "$work/cg.out" "$events" <<'PY'
import sys
events = int(sys.argv[2])
for line in open(sys.argv[1]):
    if line.startswith("events:"):
        names = line.split()[1:]
    if line.startswith("summary:"):
        v = dict(zip(names, map(int, line.split()[1:])))
        print(round((v["ILmr"] + v["DLmr"] + v["DLmw"]) / events, 3))
PY
)
    fi
    printf '%-26s %12s %10s %9.2f %10s %12s\n' "$sc" "$events" "$ns" "$(echo "$end - $start" | bc)" "$rss" "$misses"
done
