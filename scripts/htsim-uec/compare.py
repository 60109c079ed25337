#!/usr/bin/env python3
"""Runs dcnsim's UEC scenarios and their htsim twins and compares FCTs.

usage: compare.py HTSIM_UEC [--dcnsim PATH] [--out DIR] [--seeds 1,2,3]

HTSIM_UEC is uet-htsim's `htsim_uec` built at commit 40ccb0526bb6
(github.com/ultraethernet/uet-htsim; `cd htsim/sim && mkdir build && cd
build && cmake -DCMAKE_BUILD_TYPE=Release .. && make htsim_uec`). For each
pair below, dcnsim runs the shipped scenario first; its flows.csv gives the
flows (source, destination, size, start), written as the connection
matrix htsim reads, so both simulate the same transfers. Each FCT is
finish - start; the p99 is the nearest-rank percentile in both. Each
seed runs both simulators (dcnsim's `simulation.seed`, which also draws
a permutation's pairs, and htsim's `-seed`); the table gives the mean
over seeds with the range in brackets. Prints a
Markdown table (docs/reproductions/htsim-uec.md holds the measured one)
and writes it to OUT/table.md. Standard library only.
"""
import argparse, csv, math, os, re, resource, subprocess, sys

# htsim's automatic settings for a 3-tier 100G fat tree with 1 us links
# are what the scenarios state: 4150 B packets, 1 x BDP queues, ECN
# 20%-80% of a BDP, trimming at 64 B, NSCC.
NSCC = ["-sender_cc_only", "-sender_cc_algo", "nscc", "-paths", "64", "-end", "100000"]

PAIRS = [
    # (name, scenario, hosts, htsim arguments beyond NSCC)
    ("permutation, oblivious spraying, trimming", "scenarios/ai-fabric/uec-perm-k8.toml", 128,
     ["-load_balancing_algo", "oblivious"]),
    ("32-to-1 incast, trimming", "scenarios/ai-fabric/uec-incast-k8.toml", 128,
     ["-load_balancing_algo", "oblivious"]),
    ("permutation, REPS, one core link at 25 Gb/s", "scenarios/ai-fabric/uec-failed-link-k8.toml", 128,
     ["-load_balancing_algo", "reps", "-failed", "1"]),
]


def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def stats(fcts):
    fcts = sorted(fcts)
    mean = sum(fcts) / len(fcts)
    p99 = fcts[max(0, math.ceil(0.99 * len(fcts)) - 1)]
    return mean, p99


def run_dcnsim(dcnsim, scenario, out, seed):
    r = subprocess.run([dcnsim, "run", scenario, "--out", out, "--set", f"simulation.seed={seed}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"dcnsim failed on {scenario}:\n{r.stderr}")
    flows = list(csv.DictReader(open(os.path.join(out, "flows.csv"))))
    fcts = [float(f["fct_us"]) for f in flows if f["fct_us"]]
    if len(fcts) != len(flows):
        sys.exit(f"{scenario}: {len(flows) - len(fcts)} flows did not finish in dcnsim")
    return flows, fcts


def write_cm(flows, hosts, path):
    with open(path, "w") as f:
        f.write(f"Nodes {hosts}\nConnections {len(flows)}\n")
        for i, fl in enumerate(flows):
            # htsim's UecSrc::connectPort reads a start as whole
            # microseconds (timeFromUs of its integer part).
            start_us = math.floor(float(fl["start_us"]))
            f.write(f"{fl['src']}->{fl['dst']} id {i + 1} start {start_us} size {fl['size_bytes']}\n")


def run_htsim(htsim, cm, hosts, args, cwd, flows, seed):
    cmd = [htsim, "-tm", os.path.abspath(cm), "-nodes", str(hosts), "-seed", str(seed)] + NSCC + args
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    open(os.path.join(cwd, "htsim.out"), "w").write(r.stdout + r.stderr)
    if r.returncode != 0:
        sys.exit(f"htsim failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    starts = {str(i + 1): float(fl["start_us"]) for i, fl in enumerate(flows)}
    fcts = []
    for line in r.stdout.splitlines():
        m = re.match(r"Flow \S+ flowId (\d+) .* finished at ([\d.]+)", line)
        if m:
            fcts.append(float(m.group(2)) - starts[m.group(1)])
    if len(fcts) != len(flows):
        sys.exit(f"{cm}: {len(flows) - len(fcts)} flows did not finish in htsim")
    return fcts


def cell(values, fmt="{:.1f} us"):
    mean = sum(values) / len(values)
    if len(values) == 1:
        return fmt.format(mean)
    return fmt.format(mean) + f" [{min(values):.1f}-{max(values):.1f}]"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("htsim")
    ap.add_argument("--dcnsim", default="target/release/dcnsim")
    ap.add_argument("--out", default="target/htsim-uec")
    ap.add_argument("--seeds", default="1,2,3")
    a = ap.parse_args()
    seeds = [int(x) for x in a.seeds.split(",")]
    rows = ["| scenario | flows | dcnsim mean | htsim mean | diff | dcnsim p99 | htsim p99 | diff | CPU dcnsim / htsim |",
            "|---|---|---|---|---|---|---|---|---|"]
    for i, (name, scenario, hosts, args) in enumerate(PAIRS):
        got = {"dm": [], "hm": [], "dp": [], "hp": []}
        cpu = [0.0, 0.0]
        for seed in seeds:
            d = os.path.join(a.out, str(i), str(seed))
            os.makedirs(os.path.join(d, "htsim"), exist_ok=True)
            t0 = child_cpu()
            flows, dfct = run_dcnsim(a.dcnsim, scenario, os.path.join(d, "dcnsim"), seed)
            t1 = child_cpu()
            cm = os.path.join(d, "flows.cm")
            write_cm(flows, hosts, cm)
            hfct = run_htsim(a.htsim, cm, hosts, args, os.path.join(d, "htsim"), flows, seed)
            cpu[0] += t1 - t0
            cpu[1] += child_cpu() - t1
            (dm, dp), (hm, hp) = stats(dfct), stats(hfct)
            for k, v in (("dm", dm), ("hm", hm), ("dp", dp), ("hp", hp)):
                got[k].append(v)
        mean = lambda k: sum(got[k]) / len(got[k])
        rows.append(f"| {name} | {len(flows)} | {cell(got['dm'])} | {cell(got['hm'])} "
                    f"| {100 * (mean('dm') / mean('hm') - 1):+.1f}% | {cell(got['dp'])} | {cell(got['hp'])} "
                    f"| {100 * (mean('dp') / mean('hp') - 1):+.1f}% | {cpu[0]:.2f} s / {cpu[1]:.2f} s |")
        print(rows[-1], flush=True)
    table = "\n".join(rows) + "\n"
    open(os.path.join(a.out, "table.md"), "w").write(table)
    print(f"seeds {seeds}\n" + table)


if __name__ == "__main__":
    main()
