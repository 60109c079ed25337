#!/bin/bash
# Times a 16-run sweep at -j 1 and at -j 2 (docs/sweeps.md, "Performance"):
# 32 and 16 senders x 40 MB each, DropTail and DCTCP, 4 seeds, on the
# example incast base. Checks that both give the same sweep.csv.
#
#   bash scripts/bench-sweep.sh [DCNSIM]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dcnsim=$(realpath "${1:-$root/target/optimized/dcnsim}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/scenarios/examples/incast.toml" "$work/base.toml"
cat > "$work/s16.toml" <<'TOML'
[sweep]
base = "base.toml"
seeds = 4
set = { "workload[0].size" = "40MB" }
[sweep.grid]
"workload[0].senders" = ["1-16", "1-32"]
[[sweep.case]]
name = "DropTail"
[[sweep.case]]
name = "DCTCP"
set = { "switch.aqm" = { kind = "step-ecn", k = "65pkt" }, "transport.cc" = "dctcp" }
TOML
for j in 1 2; do
    start=$(date +%s.%N)
    "$dcnsim" sweep "$work/s16.toml" --out "$work/j$j" -j "$j" >/dev/null 2>&1
    end=$(date +%s.%N)
    echo "-j $j: $(echo "$end - $start" | bc) s"
done
cmp "$work/j1/sweep.csv" "$work/j2/sweep.csv" && echo "sweep.csv identical at -j 1 and -j 2"
