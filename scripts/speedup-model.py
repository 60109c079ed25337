#!/usr/bin/env python3
"""The speed-up of one partitioned run on T cores, modelled from two
measured runs of it (docs/performance.md, "One run on many cores").

    python3 scripts/speedup-model.py ONE_THREAD/perf.json TWO_THREADS/perf.json

Both runs must use the same cut (the same `lps`). From the one-thread run:
W, the LPs' total work (`lp_seconds`), the per-window serial part s and
the number of windows N. From the two-thread run: the per-window
imbalance, read as c in

    wall(T) = W / P * m(T) * (1 + c * sqrt(2 ln T) / sqrt(m(T))) + N * (s + b * T)

where P is the LP count, m(T) = ceil(P / T) the LPs of the busiest thread
(each LP's work per window varies: the busiest of T threads, each the sum
of m LPs, runs sqrt(2 ln T) standard deviations over the mean, and a sum
of m LPs varies as sqrt(m)), and b the barrier's cost per thread per
window (std's barrier wakes the threads one by one: 2 us assumed, which a
2-core machine cannot measure). Printed for the measured P and for P = 64
(a cut by ToR, not built: with the same total work W), T = 2 to 64.
"""
import json
import math
import sys

BARRIER_S_PER_THREAD = 2e-6


def load(path):
    p = json.load(open(path))
    w = p["windows"]
    if w is None:
        sys.exit(f"{path}: a run of one LP has no windows")
    return p, w


def wall(T, P, W, N, s, c):
    m = math.ceil(P / T)
    spread = 1 + c * math.sqrt(2 * math.log(T)) / math.sqrt(m) if T > 1 else 1
    return W / P * m * spread + N * (s + BARRIER_S_PER_THREAD * T)


def main():
    p1, w1 = load(sys.argv[1])
    p2, w2 = load(sys.argv[2])
    P = len(w1["lp_seconds"])
    assert len(w2["lp_seconds"]) == P, "the same cut in both runs"
    W = sum(w1["lp_seconds"])
    N = w1["windows"]
    s = w1["serial_seconds"] / N
    # Calibrate c so that the model gives the two-thread run's wall time.
    target = p2["wall_seconds"]
    lo, hi = 0.0, 5.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if wall(2, P, W, N, s, mid) < target:
            lo = mid
        else:
            hi = mid
    c = lo
    one = p1["wall_seconds"]
    print(f"P = {P} LPs, W = {W:.2f} s of LP work, {N} windows, serial {s * 1e6:.1f} us a window")
    print(f"1 thread {one:.2f} s, 2 threads {target:.2f} s ({one / target:.2f}x); c = {c:.3f}")
    print(f"{'T':>4} {'P=' + str(P):>10} {'P=64':>10}")
    for T in (2, 4, 8, 16, 32, 64):
        a = one / wall(T, P, W, N, s, c)
        b = one / wall(T, 64, W, N, s, c)
        print(f"{T:>4} {a:>9.1f}x {b:>9.1f}x")


if __name__ == "__main__":
    main()
