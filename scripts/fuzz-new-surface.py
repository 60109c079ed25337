#!/usr/bin/env python3
"""A hostile user's campaign against dcnsim's newer surface: collectives,
htsim connection matrices, UEC and NDP keys, trimming, [[failure]],
planes, partitions and threads, captures, CoDel and PIE.

usage: fuzz-new-surface.py [--dcnsim PATH] [--cases N] [--seed S]
                           [--jobs J] [--timeout SECONDS] [--out DIR]

Each case takes a shipped scenario, applies a few mutations drawn from
the seed (`--set` overrides with values at the edges of or far outside
each key's range, failure tables naming real and unreal cables, and,
for the matrix scenario, a mutated copy of its connection matrix with
numbers pushed to extremes, lines dropped or doubled, junk words, a
byte-order mark, NUL bytes), and runs `dcnsim run` under a time bound
(a hang: killed at --timeout) and a 4 GiB address-space limit (an
abort: killed by a signal). Each run is bounded by the case
(simulation.stop_time and max_events are set low unless a mutation
sets them), so a sane run ends within seconds.

Outcomes, counted:
  ran       exit 0
  refused   exit 1 with one "error:" line naming a file and a key or
            the reason (what the loader or a run's own checks say)
  panic     "panicked" in stderr
  abort     killed by a signal other than the timeout's
  hang      killed at --timeout
  unclear   any other exit, or an error without a file and a reason
Prints the tally and the first case of each bad kind with its command
line, and writes every case's outcome to OUT/cases.tsv. Exits 1 if any
case panicked, aborted or hung. Standard library only; deterministic in
--seed (the same cases in the same order).
"""
import argparse, os, random, re, shutil, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The scenarios whose surface is under test, with the node names their
# failure mutations may pick from (real ones and near misses).
FAT_TREE = [("host0", "tor0"), ("tor0", "agg0"), ("agg0", "core0"), ("host4", "tor1"),
            ("tor1", "agg1")]
SCENARIOS = {
    "scenarios/ai-fabric/ring-allreduce-k8.toml": ("uec collective", FAT_TREE),
    "scenarios/ai-fabric/moe-alltoall-k8.toml": ("uec collective", FAT_TREE),
    "scenarios/ai-fabric/two-jobs-k8.toml": ("uec collective", FAT_TREE),
    "scenarios/ai-fabric/htsim-allreduce-k8.toml": ("uec matrix", FAT_TREE),
    "scenarios/ai-fabric/ndp-incast.toml": ("ndp", [("host0", "switch"), ("host1", "switch")]),
    "scenarios/ai-fabric/ndp-perm-k4.toml": ("ndp", FAT_TREE),
    "scenarios/ai-fabric/uec-incast-k8.toml": ("uec", FAT_TREE),
    "scenarios/ai-fabric/uec-perm-k8.toml": ("uec", FAT_TREE),
    "scenarios/ai-fabric/planes-k4.toml": ("uec planes", [("host0", "nic0"), ("nic0", "p0-tor0"),
                                                         ("p0-tor0", "p0-agg0"), ("nic1", "p1-tor0")]),
    "scenarios/ai-fabric/link-failure.toml": ("tcp", FAT_TREE),
    "scenarios/ai-fabric/degraded-link.toml": ("uec", FAT_TREE),
    "scenarios/ai-fabric/incast-trim.toml": ("tcp", [("host0", "switch"), ("host1", "switch")]),
    "scenarios/ai-fabric/spray-k4.toml": ("tcp", FAT_TREE),
    "scenarios/ai-fabric/adaptive-k4.toml": ("tcp", FAT_TREE),
    "scenarios/kinds/codel-cubic.toml": ("tcp codel", [("host0", "left"), ("left", "right")]),
    "scenarios/kinds/pie-cubic.toml": ("tcp pie", [("host0", "left"), ("left", "right")]),
}
MATRIX_SCENARIO = "scenarios/ai-fabric/htsim-allreduce-k8.toml"

DURATIONS = ['"0s"', '"1ps"', '"7ps"', '"1ns"', '"1us"', '"100us"', '"10ms"', '"1s"',
             '"1000s"', '"10000000s"', '"1e9s"', '"-1us"', '"1us5"', '"us"', '0', '1e300']
SIZES = ['"0B"', '"1B"', '"7B"', '"63B"', '"64B"', '"300B"', '"1500B"', '"9KB"', '"1MB"',
         '"1PB"', '"2PB"', '"1.5KB"', '"-1B"', '"1pkt"', '0']
NUMBERS = ['0', '-1', '1', '2', '3', '17', '1024', '4096', '65536', '1e-300', '1e300',
           '0.5', '1e-12', 'nan', 'inf', '4294967296', '9223372036854775807']
WORDS = ['"none"', '"oblivious"', '"reps"', '"ring"', '"direct"', '"all-to-all"', '"random"',
         '"pods"', '"auto"', '"x"', '""', 'true', 'false', '[]', '{}']
# Values inside each key's range, drawn half the time so that most cases
# reach a run: a crash or a hang hides in runs as much as in the loader.
SANE = {
    "durations": ['"1us"', '"20us"', '"100us"', '"1ms"'],
    "sizes": ['"256B"', '"4KB"', '"64KB"', '"1MB"'],
    "numbers": ['1', '2', '4', '8', '64'],
}
HOSTS = ['"0-3"', '"0-0"', '"5-2"', '"0-100000"', '[0, 0]', '[0, 1, 2, 3]', '[]', '"0-127"', '[-1]']

# Keys of the newer surface and the value pools they draw from.
KEYS = [
    ("transport.rto", DURATIONS), ("transport.spray", WORDS), ("transport.entropies", NUMBERS),
    ("transport.reps_buffer", NUMBERS), ("transport.reps_freeze", DURATIONS),
    ("transport.rccc", WORDS), ("transport.credit_packets", NUMBERS),
    ("transport.pull_rate", NUMBERS), ("transport.initial_window", NUMBERS),
    ("transport.mss", SIZES), ("transport.target_qdelay", DURATIONS),
    ("transport.max_cwnd", NUMBERS), ("transport.ack_coalesce", SIZES),
    ("switch.trim", WORDS), ("switch.trim.header", SIZES), ("switch.trim.threshold", SIZES),
    ("switch.trim.header_queue", SIZES), ("switch.buffer", SIZES),
    ("topology.nic_buffer", SIZES), ("topology.planes", NUMBERS),
    ("simulation.partition", WORDS), ("simulation.lps", NUMBERS),
    ("simulation.threads", NUMBERS), ("simulation.stop_time", DURATIONS),
    ("routing.choice", WORDS), ("routing.spray", WORDS), ("routing.flowlet_gap", DURATIONS),
    ("workload[0].chunk", SIZES), ("workload[0].channels", NUMBERS),
    ("workload[0].iterations", NUMBERS), ("workload[0].compute", DURATIONS),
    ("workload[0].size", SIZES), ("workload[0].hosts", HOSTS),
    ("workload[0].algorithm", WORDS), ("workload[0].op", WORDS), ("workload[0].root", NUMBERS),
    ("workload[0].placement", WORDS), ("workload[0].start", DURATIONS),
    ("workload[0].notify_size", SIZES),
    ("workload[0].then", ['[{ op = "all-to-all", size = "1MB" }]', '[{ op = "x" }]', '[]',
                          '[{ op = "all-reduce", size = "1B", chunk = "1B" }]',
                          '[{ op = "all-to-all", size = "1MB", hosts = "0-3" }]']),
    ("workload", ['[]']),
    ("switch.aqm.t_update", DURATIONS), ("switch.aqm.target", DURATIONS),
    ("switch.aqm.interval", DURATIONS), ("switch.aqm.max_burst", DURATIONS),
    ("switch.aqm.alpha", NUMBERS), ("switch.aqm.beta", NUMBERS),
    ("switch.aqm.dq_threshold_bytes", NUMBERS), ("switch.aqm.mark_ecnth", NUMBERS),
    ("switch.aqm.delay_estimate", ['"timestamp"', '"departure-rate"', '"x"']),
    ("switch.aqm.ecn", WORDS),
    ("output.queue_interval", DURATIONS),
    ("output.pcap", ['{ ports = ["s0->s1"] }', '{ ports = ["tor0->host0"] }',
                     '{ ports = ["left->right"] }', '{ ports = ["x->y"] }', '{ ports = [] }',
                     '{ ports = ["host0->tor0"], snaplen = 1 }']),
    ("output.events", ['{ kinds = ["trim", "drop"] }', '{ ports = ["nope"] }', '{ flows = [] }',
                       '{ flows = [0, 999999] }']),
]


def applies(key, tags):
    """Whether mutating `key` makes sense on a scenario of `tags` (most
    mutations should reach a run; the rest are refusals worth trying)."""
    families = {
        "transport.rccc": "uec", "transport.credit_packets": "uec",
        "transport.reps_buffer": "uec", "transport.reps_freeze": "uec",
        "transport.target_qdelay": "uec", "transport.max_cwnd": "uec",
        "transport.ack_coalesce": "uec", "transport.pull_rate": "ndp",
        "transport.initial_window": "ndp", "transport.spray": "uec ndp",
        "transport.entropies": "uec ndp", "transport.mss": "uec ndp",
        "workload[0].notify_size": "matrix", "topology.planes": "planes",
        "switch.aqm.interval": "codel", "switch.aqm.target": "codel pie",
        "switch.aqm.ecn": "codel pie",
    }
    need = families.get(key)
    if need is None and key.startswith("switch.aqm."):
        need = "pie"
    if need is None and key.startswith("workload[0].") and key not in (
            "workload[0].start", "workload[0].size", "workload[0].hosts"):
        need = "collective"
    return need is None or any(t in tags.split() for t in need.split())


def failure_table(rng, cables):
    """A [[failure]] list of one to three tables, mostly over real cables."""
    tables = []
    for _ in range(rng.randint(1, 3)):
        a, b = rng.choice(cables)
        if rng.random() < 0.15:
            b = rng.choice(["nowhere", "s0", "h0", a])
        at = rng.choice(SANE["durations"] if rng.random() < 0.7 else DURATIONS)
        parts = [f'between = ["{a}", "{b}"]', f"at = {at}"]
        if rng.random() < 0.4:
            parts.append(f"degrade = {rng.choice(['0.5', '0.1', '0.999'] + NUMBERS)}")
        elif rng.random() < 0.6:
            parts.append(f"reroute_after = {rng.choice(SANE['durations'] + DURATIONS)}")
        if rng.random() < 0.2:
            parts.append(f"one_way = {rng.choice(['true', 'false'])}")
        tables.append("{ " + ", ".join(parts) + " }")
    return "failure=[" + ", ".join(tables) + "]"


def mutate_matrix(rng, text):
    """The matrix with a few of its lines and numbers mangled."""
    lines = text.splitlines()
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        i = rng.randrange(len(lines)) if lines else 0
        if op == 0 and lines:
            del lines[i]
        elif op == 1 and lines:
            lines.insert(i, lines[i])
        elif op == 2 and lines:
            words = lines[i].split()
            if words:
                j = rng.randrange(len(words))
                words[j] = rng.choice(["1e14", "1e300", "-1", "0", "4294967296", "x", "",
                                       "99", "nan", "0->0", "5->999"])
                lines[i] = " ".join(words)
        elif op == 3:
            lines.insert(i, rng.choice(["Nodes 2", "Connections 0", "Triggers 99",
                                        "trigger id 1 barrier", "failure x", "prio 3",
                                        "0->1 start 0 size 10 trigger 7"]))
        elif op == 4 and lines:
            lines[i] = lines[i] + "\0"
        elif op == 5:
            lines = ["\ufeff" + (lines[0] if lines else "")] + lines[1:]
        elif op == 6:
            lines = []
    return "\n".join(lines) + ("\n" if lines else "")


def make_case(rng, case, work):
    """The command line of case `case` (and the files it needs, in `work`)."""
    scenario = rng.choice(sorted(SCENARIOS))
    tags, names = SCENARIOS[scenario]
    # Most runs stop at 2 ms; the rest run to their end, within the event cap.
    sets = ["simulation.max_events=3000000"]
    if rng.random() < 0.7:
        sets.append('simulation.stop_time="2ms"')
    path = os.path.join(ROOT, scenario)
    if scenario == MATRIX_SCENARIO and rng.random() < 0.6:
        d = os.path.join(work, f"m{case}")
        os.makedirs(d, exist_ok=True)
        src = open(path, encoding="utf-8").read()
        matrix = open(os.path.join(ROOT, "scenarios/ai-fabric/htsim-allreduce-16.cm"),
                      encoding="utf-8").read()
        with open(os.path.join(d, "htsim-allreduce-16.cm"), "w", encoding="utf-8") as f:
            f.write(mutate_matrix(rng, matrix))
        path = os.path.join(d, "s.toml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(src)
    for _ in range(rng.randint(1, 2)):
        if rng.random() < 0.25:
            sets.append(failure_table(rng, names))
        else:
            fitting = [k for k in KEYS if applies(k[0], tags)]
            key, pool = rng.choice(fitting if rng.random() < 0.9 else KEYS)
            sane = {id(DURATIONS): "durations", id(SIZES): "sizes", id(NUMBERS): "numbers"}
            if id(pool) in sane and rng.random() < 0.5:
                pool = SANE[sane[id(pool)]]
            sets.append(f"{key}={rng.choice(pool)}")
    args = ["run", path, "--out", os.path.join(work, f"o{case}"), "--no-plots",
            "--max-memory", "2GB", "--threads", str(rng.choice([1, 2]))]
    for s in sets:
        args += ["--set", s]
    return args


def run_case(dcnsim, args, timeout):
    # The address-space limit by the shell (preexec_fn is unsafe beside
    # this script's threads).
    cmd = ["sh", "-c", 'ulimit -v 4194304; exec "$0" "$@"', dcnsim] + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return "hang", ""
    err = p.stderr
    if "panicked" in err:
        return "panic", err
    if p.returncode < 0:
        return "abort", f"signal {-p.returncode}\n{err}"
    if p.returncode == 0:
        return "ran", err
    errors = [l for l in err.splitlines() if l.startswith("error:")]
    # A clear refusal names where: a file (and a key, an override or a line).
    if p.returncode == 1 and len(errors) == 1 and re.search(r"\.(toml|cm)\b", errors[0]):
        return "refused", errors[0]
    return "unclear", err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dcnsim", default=os.path.join(ROOT, "target/release/dcnsim"))
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="dcnsim-fuzz-")
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dcnsim-fuzz-work-")
    rng = random.Random(a.seed)
    cases = [make_case(rng, i, work) for i in range(a.cases)]
    with ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(lambda c: run_case(a.dcnsim, c, a.timeout), cases))
    shutil.rmtree(work, ignore_errors=True)
    tally = {}
    first = {}
    with open(os.path.join(out, "cases.tsv"), "w", encoding="utf-8") as f:
        for i, (args, (kind, detail)) in enumerate(zip(cases, results)):
            tally[kind] = tally.get(kind, 0) + 1
            first.setdefault(kind, (args, detail))
            line = detail.strip().splitlines()[-1] if detail.strip() else ""
            f.write(f"{i}\t{kind}\t{' '.join(args[1:])}\t{line}\n")
    print(f"{a.cases} cases (seed {a.seed}): " +
          ", ".join(f"{k} {tally.get(k, 0)}" for k in
                    ["ran", "refused", "panic", "abort", "hang", "unclear"]))
    for kind in ["panic", "abort", "hang", "unclear"]:
        if kind in first:
            args, detail = first[kind]
            print(f"\nfirst {kind}: dcnsim {' '.join(args)}\n{detail[-2000:]}")
    print(f"\ncases: {os.path.join(out, 'cases.tsv')}")
    bad = sum(tally.get(k, 0) for k in ["panic", "abort", "hang"])
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
