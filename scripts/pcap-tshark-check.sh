#!/usr/bin/env bash
# Decodes the captures of the two capture examples with tshark (Wireshark's
# command line) and compares what it counts with what dcnsim's own outputs
# say: frames and CE marks with ports.csv, retransmissions, NAKs and CNPs
# with flows.csv. Installs tshark from Debian's packages when it is missing
# (CI runs as root), as scripts/slurm/test-single-node.sh installs Slurm.
#
#   bash scripts/pcap-tshark-check.sh target/release/dcnsim
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-target/release/dcnsim}

if ! command -v tshark >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tshark >/dev/null
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# A column of ports.csv's row for port NAME (class all).
port_col() { # file name column
    awk -F, -v name="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
        $4 == name && $5 == "all" { print $c }' "$1"
}
# The sum of a column of flows.csv.
flows_sum() { # file column
    awk -F, -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next } { s += $c } END { print s + 0 }' "$1"
}
count() { # pcap filter
    tshark -r "$1" -Y "$2" 2>/dev/null | wc -l
}
same() { # what ours theirs
    if [ "$2" != "$3" ]; then
        echo "MISMATCH: $1: dcnsim $2, tshark $3" >&2
        exit 1
    fi
    echo "  $1: $2 = $3"
}

echo "== TCP: scenarios/examples/capture-tcp.toml"
"$bin" run scenarios/examples/capture-tcp.toml --out "$out/tcp" --no-plots >/dev/null
cap="$out/tcp/pcap-switch-host0.pcap"
test "$(count "$cap" "_ws.malformed")" = 0 || { echo "malformed frames in $cap" >&2; exit 1; }
same "frames leaving switch->host0" "$(port_col "$out/tcp/ports.csv" 'switch->host0' tx_packets)" "$(count "$cap" "tcp")"
same "CE marks leaving switch->host0" "$(port_col "$out/tcp/ports.csv" 'switch->host0' ecn_marks)" "$(count "$cap" "ip.dsfield.ecn == 3")"
# A retransmission repeats a data segment the sender sent before (one
# stream a file); Wireshark's own flags judge by times tuned for WANs.
resent=0
for h in 1 2 3 4; do
    n=$(tshark -r "$out/tcp/pcap-host$h-switch.pcap" -Y "tcp.len > 0" -T fields -e tcp.seq_raw -e tcp.len 2>/dev/null |
        sort | uniq -d -c | awk '{ s += $1 - 1 } END { print s + 0 }')
    resent=$((resent + n))
done
same "data retransmissions" "$(flows_sum "$out/tcp/flows.csv" retransmissions)" "$resent"
same "retransmissions in events.csv (flows 0, 1)" \
    "$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "retransmissions") c = i; next }
        $1 < 2 { s += $c } END { print s + 0 }' "$out/tcp/flows.csv")" \
    "$(grep -c ',retransmit,' "$out/tcp/events.csv" || true)"

echo "== RoCE: scenarios/examples/capture-roce.toml"
"$bin" run scenarios/examples/capture-roce.toml --out "$out/roce" --no-plots >/dev/null
down="$out/roce/pcap-switch-host0.pcap"
up="$out/roce/pcap-host0-switch.pcap"
test "$(count "$down" "_ws.malformed")" = 0 || { echo "malformed frames in $down" >&2; exit 1; }
same "frames leaving switch->host0" "$(port_col "$out/roce/ports.csv" 'switch->host0' tx_packets)" "$(count "$down" "infiniband")"
same "CE marks leaving switch->host0" "$(port_col "$out/roce/ports.csv" 'switch->host0' ecn_marks)" "$(count "$down" "ip.dsfield.ecn == 3")"
same "NAKs host0 sent" "$(flows_sum "$out/roce/flows.csv" naks_sent)" "$(count "$up" "infiniband.aeth.syndrome >= 0x60 && infiniband.aeth.syndrome < 0x80")"
same "CNPs host0 sent" "$(flows_sum "$out/roce/flows.csv" cnps_sent)" "$(count "$up" "infiniband.bth.opcode == 0x81")"
same "retransmissions in events.csv" "$(flows_sum "$out/roce/flows.csv" retransmissions)" "$(grep -c ',retransmit,' "$out/roce/events.csv" || true)"
echo "pcap check passed"
