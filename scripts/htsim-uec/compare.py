#!/usr/bin/env python3
"""Runs dcnsim's UEC scenarios and their htsim twins side by side.

usage: compare.py HTSIM_UEC [--dcnsim PATH] [--out DIR] [--seeds 1,2,3,4,5] [--only TEXT]

HTSIM_UEC is uet-htsim's `htsim_uec` built at commit 40ccb0526bb6
(github.com/ultraethernet/uet-htsim; `cd htsim/sim && mkdir build && cd
build && cmake -DCMAKE_BUILD_TYPE=Release .. && make htsim_uec`). Each
pair (PAIRS below) is one htsim flag setting and the dcnsim keys that
model it. For a pair of flows, dcnsim runs its scenario first; its
flows.csv gives the flows (source, destination, size, start), written as
the connection matrix htsim reads, so both simulate the same transfers,
and each FCT is finish - start. For a matrix pair both read the same
connection matrix, triggers and all, and the times are completion times
from the start. The p99 is the nearest-rank percentile in both. Each
seed runs both simulators (dcnsim's `simulation.seed`, which also draws
a permutation's pairs, and htsim's `-seed`); a cell is the mean over
seeds with the range in brackets, and a pair is within 10% when its mean,
p99 and last finish all are. Prints a Markdown table
(docs/reproductions/htsim-uec.md holds the measured one) and writes it to
OUT/table.md. Standard library only.
"""
import argparse, csv, math, os, re, subprocess, sys

# htsim's automatic settings for a 3-tier 100G fat tree with 1 us links
# are what the scenarios state: 4150 B packets, 1 x BDP queues, ECN
# 20%-80% of a BDP, trimming at 64 B. Every pair runs htsim with these
# and its own arguments after them (a later flag wins, as htsim parses).
COMMON = ["-paths", "64", "-end", "100000"]
NSCC = ["-sender_cc_only", "-sender_cc_algo", "nscc"]

PERM = "scenarios/ai-fabric/uec-perm-k8.toml"
INCAST = "scenarios/ai-fabric/uec-incast-k8.toml"
FAILED = "scenarios/ai-fabric/uec-failed-link-k8.toml"
RING = "scenarios/ai-fabric/htsim-allreduce-k8.toml"

# dcnsim's names for htsim's -load_balancing_algo values.
SPRAYS = [("oblivious", "oblivious"), ("reps", "reps"), ("bitmap", "bitmap"),
          ("reps_legacy", "reps-legacy"), ("mixed", "mixed")]

# htsim without trimming (-disable_trim) sizes its queues at 5 x BDP
# (DEFAULT_NONTRIMMING_QUEUESIZE_FACTOR) and keeps serving header-only
# packets first; its ECN thresholds stay at 20%-80% of one BDP.
NO_TRIM = ["switch.trim=false", "switch.header_priority=true", 'switch.buffer="892250B"']


def pair(name, scenario, sets, args, matrix=False):
    """One pair: dcnsim's scenario with `--set`s, htsim's arguments after
    COMMON; `matrix`: both read the scenario's own connection matrix (its
    triggers run as htsim's, instant, in dcnsim) instead of dcnsim's flows."""
    return {"name": name, "scenario": scenario, "sets": sets, "args": args, "matrix": matrix}


def spray(s):
    return [f'transport.spray="{s}"']


PAIRS = (
    # Host load balancers (-load_balancing_algo) on a permutation, on the
    # permutation with a degraded core link, and on an incast.
    [pair(f"permutation, {h}", PERM, spray(d), NSCC + ["-load_balancing_algo", h]) for h, d in SPRAYS]
    + [pair(f"permutation, {h}, one core link at 25 Gb/s", FAILED, spray(d),
            NSCC + ["-load_balancing_algo", h, "-failed", "1"]) for h, d in SPRAYS]
    + [pair(f"32-to-1 incast, {h}", INCAST, spray(d), NSCC + ["-load_balancing_algo", h])
       for h, d in SPRAYS]
    + [pair("permutation, oblivious over 16 entropy values", PERM,
            spray("oblivious") + ["transport.entropies=16"],
            NSCC + ["-load_balancing_algo", "oblivious", "-paths", "16"])]
    # Sender windows (-sender_cc_algo) and receiver credit alone.
    + [pair(f"{w}, {cc} window", f, spray("oblivious") + [f'transport.sender_cc="{cc}"'],
            ["-sender_cc_only", "-sender_cc_algo", cc, "-load_balancing_algo", "oblivious"])
       for w, f in (("permutation", PERM), ("32-to-1 incast", INCAST)) for cc in ("dctcp", "constant")]
    + [pair(f"{w}, receiver credit only", f,
            spray("oblivious") + ['transport.sender_cc="none"', "transport.rccc=true"],
            ["-receiver_cc_only", "-load_balancing_algo", "oblivious"])
       for w, f in (("permutation", PERM), ("32-to-1 incast", INCAST))]
    # Switch strategies (-strat) with one entropy value per flow, or with
    # spraying hosts and adaptive repair at the switches.
    + [
        pair("permutation, ECMP, one path per flow", PERM, spray("none"),
             NSCC + ["-load_balancing_algo", "oblivious", "-paths", "1"]),
        pair("permutation, switch adaptive routing per packet", PERM,
             spray("none") + ['routing.choice="adaptive"', 'routing.adaptive_rule="htsim"'],
             NSCC + ["-strat", "ecmp_ar", "-ar_granularity", "packet"]),
        pair("permutation, switch adaptive routing per flowlet (10 us)", PERM,
             spray("none") + ['routing.choice="adaptive-flowlet"', 'routing.adaptive_rule="htsim"',
                              'routing.flowlet_gap="10us"'],
             NSCC + ["-strat", "ecmp_ar", "-ar_granularity", "flow", "-ar_sticky_delta", "10"]),
        pair("permutation, switch adaptive routing per flowlet (1 us)", PERM,
             spray("none") + ['routing.choice="adaptive-flowlet"', 'routing.adaptive_rule="htsim"',
                              'routing.flowlet_gap="1us"'],
             NSCC + ["-strat", "ecmp_ar", "-ar_granularity", "flow", "-ar_sticky_delta", "1"]),
        pair("permutation, switch round robin", PERM, spray("none") + ['routing.choice="round-robin"'],
             NSCC + ["-strat", "ecmp_rr"]),
        pair("permutation, oblivious hosts, ECMP with adaptive repair", PERM,
             spray("oblivious") + ['routing.choice="ecmp-adaptive"', 'routing.adaptive_rule="htsim"'],
             NSCC + ["-load_balancing_algo", "oblivious", "-strat", "ecmp_host_ar"]),
    ]
    # Trimming off: drops, with headers still first.
    + [pair(f"{w}, no trimming", f, spray("oblivious") + NO_TRIM,
            NSCC + ["-load_balancing_algo", "oblivious", "-disable_trim"])
       for w, f in (("permutation", PERM), ("32-to-1 incast", INCAST))]
    # htsim's own ring all-reduce matrix, its triggers instant in both.
    + [pair("ring all-reduce matrix (16 ranks), instant triggers", RING,
            ['workload[0].triggers="instant"'], NSCC + ["-load_balancing_algo", "oblivious"],
            matrix=True)]
)


def stats(values):
    values = sorted(values)
    mean = sum(values) / len(values)
    p99 = values[max(0, math.ceil(0.99 * len(values)) - 1)]
    return mean, p99, values[-1]


def run_dcnsim(dcnsim, p, out, seed):
    """dcnsim's flows, and each flow's (start, finish) in microseconds."""
    cmd = [dcnsim, "run", p["scenario"], "--out", out, "--no-plots", "--set", f"simulation.seed={seed}"]
    for s in p["sets"]:
        cmd += ["--set", s]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"dcnsim failed: {' '.join(cmd)}\n{r.stderr}")
    flows = list(csv.DictReader(open(os.path.join(out, "flows.csv"))))
    done = [(float(f["start_us"]), float(f["finish_us"])) for f in flows if f["fct_us"]]
    if len(done) != len(flows):
        sys.exit(f"{p['name']}: {len(flows) - len(done)} flows did not finish in dcnsim")
    return flows, done


def write_cm(flows, hosts, path):
    with open(path, "w") as f:
        f.write(f"Nodes {hosts}\nConnections {len(flows)}\n")
        for i, fl in enumerate(flows):
            # htsim's UecSrc::connectPort reads a start as whole
            # microseconds (timeFromUs of its integer part).
            start_us = math.floor(float(fl["start_us"]))
            f.write(f"{fl['src']}->{fl['dst']} id {i + 1} start {start_us} size {fl['size_bytes']}\n")


def run_htsim(htsim, cm, hosts, args, cwd, count, starts, seed):
    """htsim's (start, finish) per flow; `starts` by connection id, or None
    (a matrix with triggers: starts are not printed, finishes are)."""
    cmd = [htsim, "-tm", os.path.abspath(cm), "-nodes", str(hosts), "-seed", str(seed)] + COMMON + args
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    open(os.path.join(cwd, "htsim.out"), "w").write(r.stdout + r.stderr)
    if r.returncode != 0:
        sys.exit(f"htsim failed: {' '.join(cmd)}\n{r.stderr[-2000:]}")
    done = []
    for line in r.stdout.splitlines():
        m = re.match(r"Flow \S+ flowId (\d+) .* finished at ([\d.]+)", line)
        if m:
            start = starts[m.group(1)] if starts else 0.0
            done.append((start, float(m.group(2))))
    if len(done) != count:
        sys.exit(f"{cm}: {count - len(done)} of {count} flows did not finish in htsim")
    return done


def cell(values):
    mean = sum(values) / len(values)
    if len(values) == 1:
        return f"{mean:.1f}"
    return f"{mean:.1f} [{min(values):.1f}-{max(values):.1f}]"


def diff(d, h):
    return 100 * (sum(d) / len(d) / (sum(h) / len(h)) - 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("htsim")
    ap.add_argument("--dcnsim", default="target/release/dcnsim")
    ap.add_argument("--out", default="target/htsim-uec")
    ap.add_argument("--seeds", default="1,2,3,4,5")
    ap.add_argument("--only", default=None, help="run the pairs whose name contains this")
    a = ap.parse_args()
    seeds = [int(x) for x in a.seeds.split(",")]
    rows = ["| # | pair | flows | mean: dcnsim / htsim (us) | diff | p99: dcnsim / htsim (us) | diff "
            "| last finish: dcnsim / htsim (us) | diff | within 10% |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    worst = []
    for i, p in enumerate(PAIRS):
        if a.only and a.only not in p["name"]:
            continue
        got = {k: [] for k in ("dm", "hm", "dp", "hp", "dl", "hl")}
        for seed in seeds:
            d = os.path.join(a.out, str(i), str(seed))
            os.makedirs(os.path.join(d, "htsim"), exist_ok=True)
            if os.path.exists(os.path.join(d, "dcnsim")):
                subprocess.run(["rm", "-rf", os.path.join(d, "dcnsim")], check=True)
            flows, ddone = run_dcnsim(a.dcnsim, p, os.path.join(d, "dcnsim"), seed)
            if p["matrix"]:
                # FCTs of triggered connections are not in htsim's output:
                # both sides give completion times from the run's start.
                cm = os.path.join(os.path.dirname(p["scenario"]), "htsim-allreduce-16.cm")
                hdone = run_htsim(a.htsim, cm, 128, p["args"], os.path.join(d, "htsim"), len(flows), None, seed)
                dvals = [f for _, f in ddone]
                hvals = [f for _, f in hdone]
            else:
                cm = os.path.join(d, "flows.cm")
                write_cm(flows, 128, cm)
                starts = {str(k + 1): float(fl["start_us"]) for k, fl in enumerate(flows)}
                hdone = run_htsim(a.htsim, cm, 128, p["args"], os.path.join(d, "htsim"), len(flows), starts, seed)
                dvals = [f - s for s, f in ddone]
                hvals = [f - s for s, f in hdone]
            (dm, dp, _), (hm, hp, _) = stats(dvals), stats(hvals)
            dl, hl = max(f for _, f in ddone), max(f for _, f in hdone)
            for k, v in (("dm", dm), ("hm", hm), ("dp", dp), ("hp", hp), ("dl", dl), ("hl", hl)):
                got[k].append(v)
        diffs = [diff(got["dm"], got["hm"]), diff(got["dp"], got["hp"]), diff(got["dl"], got["hl"])]
        ok = all(abs(x) <= 10 for x in diffs)
        worst.append((max(abs(x) for x in diffs), p["name"]))
        what = " (completion times)" if p["matrix"] else ""
        rows.append(f"| {i + 1} | {p['name']}{what} | {len(flows)} | {cell(got['dm'])} / {cell(got['hm'])} "
                    f"| {diffs[0]:+.1f}% | {cell(got['dp'])} / {cell(got['hp'])} | {diffs[1]:+.1f}% "
                    f"| {cell(got['dl'])} / {cell(got['hl'])} | {diffs[2]:+.1f}% | {'yes' if ok else '**no**'} |")
        print(rows[-1], flush=True)
    table = "\n".join(rows) + "\n"
    os.makedirs(a.out, exist_ok=True)
    open(os.path.join(a.out, "table.md"), "w").write(table)
    inside = sum(1 for w, _ in worst if w <= 10)
    print(f"seeds {seeds}: {inside} of {len(worst)} pairs within 10% on mean, p99 and last finish\n" + table)


if __name__ == "__main__":
    main()
