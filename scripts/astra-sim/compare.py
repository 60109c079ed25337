#!/usr/bin/env python3
"""dcnsim against ASTRA-sim's analytical network backend on the same
Chakra traces (docs/reproductions/astra-sim-analytical.md).

Each case is a set of Chakra execution traces, one per rank. ASTRA-sim's
analytical backends run them on its `Switch` topology: the
congestion-unaware one (AstraSim_Analytical_Congestion_Unaware) gives
every message 2 x latency + size / bandwidth whatever else is sent; the
congestion-aware one (AstraSim_Analytical_Congestion_Aware) queues the
messages that share a link, each hop storing a whole message before it
forwards it, so it runs with each collective cut into 16 chunks in
flight together (`preferred-dataset-splits`, `active-chunks-per-dimension`),
which a packet-level run's pipelining stands for. dcnsim runs
them on a star of as many hosts, each link at the same rate with the
same delay, RoCE at line rate (no congestion controller) with PFC, no
Ethernet framing. The collectives run the same algorithms on both sides
(ring all-reduce, all-gather and reduce-scatter; direct all-to-all), one
chunk each. The script prints the table and writes it to
target/astra-sim/table.md.

    python3 scripts/astra-sim/compare.py BUILD/bin/AstraSim_Analytical_Congestion_Unaware \
        BUILD/bin/AstraSim_Analytical_Congestion_Aware
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (name, trace prefix from the repository root, ranks)
CASES = [
    ("data-parallel, 4 layers (dp-4layer)", "scenarios/ai-training/traces/dp-4layer/dp-4layer", 8),
    ("all-reduce 1 MB (ASTRA-sim's microbenchmark)", "tests/traces/chakra/astra-sim/all_reduce_4npus_1MB/all_reduce", 4),
    ("all-gather 1 MB (ASTRA-sim's microbenchmark)", "tests/traces/chakra/astra-sim/all_gather_4npus_1MB/all_gather", 4),
    ("all-to-all 1 MB (ASTRA-sim's microbenchmark)", "tests/traces/chakra/astra-sim/all_to_all_4npus_1MB/all_to_all", 4),
]

RATE_GBPS = 100  # each link, per direction
DELAY_NS = 1000  # each link

SYSTEM = {
    "scheduling-policy": "FIFO",
    "endpoint-delay": 1,
    "all-reduce-implementation": ["ring"],
    "all-gather-implementation": ["ring"],
    "reduce-scatter-implementation": ["ring"],
    "all-to-all-implementation": ["direct"],
    "collective-optimization": "baseline",
    "local-mem-bw": 1000000,
    "boost-mode": 0,
    "roofline-enabled": 0,
}


def astra(binary, prefix, ranks, tmp, chunks):
    """ASTRA-sim's finish time (ns: a cycle is a nanosecond), the latest
    rank's, with each collective in `chunks` chunks."""
    system = os.path.join(tmp, "system.json")
    network = os.path.join(tmp, "network.yml")
    memory = os.path.join(tmp, "memory.json")
    with open(system, "w") as f:
        chunked = {"preferred-dataset-splits": chunks, "active-chunks-per-dimension": chunks}
        json.dump({**SYSTEM, **chunked}, f)
    # ASTRA-sim's GB is 2^30 B (NetworkFunction.cpp, bw_GBps_to_Bpns).
    gib_per_s = RATE_GBPS * 1e9 / 8 / 2**30
    with open(network, "w") as f:
        f.write(f"topology: [ Switch ]\nnpus_count: [ {ranks} ]\n")
        f.write(f"bandwidth: [ {gib_per_s!r} ]\nlatency: [ {DELAY_NS} ]\n")
    with open(memory, "w") as f:
        json.dump({"memory-type": "NO_MEMORY_EXPANSION"}, f)
    out = subprocess.run(
        [
            binary,
            f"--workload-configuration={os.path.join(ROOT, prefix)}",
            f"--system-configuration={system}",
            f"--remote-memory-configuration={memory}",
            f"--network-configuration={network}",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    done = [int(c) for c in re.findall(r"sys\[\d+\] finished, (\d+) cycles", out)]
    if len(done) != ranks:
        sys.exit(f"ASTRA-sim finished {len(done)} of {ranks} ranks:\n{out}")
    return max(done)


def dcnsim(binary, prefix, ranks, tmp):
    """dcnsim's iteration time (ns), the latest rank's end."""
    scenario = os.path.join(tmp, "case.toml")
    with open(scenario, "w") as f:
        f.write(
            f"""[simulation]
seed = 1

[topology]
kind = "star"
hosts = {ranks}
link_rate = "{RATE_GBPS}Gbps"
link_delay = "{DELAY_NS}ns"
framing = "none"

[switch]
shared_buffer = "16MB"

[switch.pfc]
lossless = [0]
mtu = "4096B"

[transport]
kind = "roce"
mtu = "4000B"
ack_interval = 16
cc = "none"

[[workload]]
kind = "chakra"
trace = "{os.path.join(ROOT, prefix)}"
hosts = "0-{ranks - 1}"
algorithms = {{ all-to-all = "direct" }}
"""
        )
    out = os.path.join(tmp, "out")
    subprocess.run(
        [binary, "run", scenario, "--out", out, "--no-plots"],
        capture_output=True,
        check=True,
    )
    ends = []
    with open(os.path.join(out, "iterations.csv")) as f:
        head = f.readline().strip().split(",")
        for line in f:
            row = dict(zip(head, line.strip().split(",")))
            ends.append(float(row["end_us"]) * 1000)
    return max(ends)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("unaware", help="AstraSim_Analytical_Congestion_Unaware")
    ap.add_argument("aware", help="AstraSim_Analytical_Congestion_Aware")
    ap.add_argument("--dcnsim", default=os.path.join(ROOT, "target/release/dcnsim"))
    args = ap.parse_args()
    rows = [
        "| case | ranks | ASTRA-sim unaware (us) | ASTRA-sim aware, 16 chunks (us) | dcnsim (us) "
        "| dcnsim / unaware | dcnsim / aware |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, prefix, ranks in CASES:
        with tempfile.TemporaryDirectory() as tmp:
            u = astra(args.unaware, prefix, ranks, tmp, 1)
            a = astra(args.aware, prefix, ranks, tmp, 16)
            d = dcnsim(args.dcnsim, prefix, ranks, tmp)
        rows.append(
            f"| {name} | {ranks} | {u / 1000:.2f} | {a / 1000:.2f} | {d / 1000:.2f} "
            f"| {d / u:.4f} | {d / a:.4f} |"
        )
        print(rows[-1], flush=True)
    os.makedirs(os.path.join(ROOT, "target/astra-sim"), exist_ok=True)
    with open(os.path.join(ROOT, "target/astra-sim/table.md"), "w") as f:
        f.write("\n".join(rows) + "\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
