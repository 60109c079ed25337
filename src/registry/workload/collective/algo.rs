//! Each collective's step schedule: which rank sends which part of the
//! buffer to whom in which step, and which of its own receipts each send
//! waits on. The buffer is cut into N parts (N ranks); a transfer carries
//! a run of them. The algorithms are NCCL's and MPICH's, as nccl-tests
//! measures them (its `doc/PERFORMANCE.md` defines the bus bandwidth
//! factors used here):
//!
//! - ring all-reduce: a reduce-scatter then an all-gather around the ring,
//!   2(N-1) steps, each rank sending one part per step;
//! - halving-doubling all-reduce (Rabenseifner; Thakur, Rabenseifner and
//!   Gropp 2005): log2 N steps of recursive halving that exchange half of
//!   what a rank still reduces with the rank `N / 2^(k+1)` away, then log2
//!   N steps of recursive doubling back;
//! - ring all-gather and ring reduce-scatter: N-1 steps of one part;
//! - all-to-all: every rank sends its part d to rank d at once (direct),
//!   or one peer per step, rank r to r+s in step s, each step after the
//!   last one's receipt (serialised);
//! - broadcast: a chain from the root through every rank in ring order,
//!   each forwarding what it received (NCCL's ring broadcast);
//! - reduce: the chain the other way, from the rank after the root round
//!   to the root, each adding its buffer to what it received and
//!   forwarding the partial sum (NCCL's ring reduce);
//! - tree all-reduce: NCCL's double binary tree (`src/graph/trees.cc`,
//!   `ncclGetDtree`): two binary trees over the ranks, each reducing half
//!   of the buffer up to its root and broadcasting it back down, the
//!   second tree the first mirrored (N even) or shifted by one rank (N
//!   odd), so that most ranks that are leaves in one are inner nodes of
//!   the other. NCCL builds its trees over servers with a chain inside
//!   each; one rank per host, the trees here span the ranks;
//! - hierarchical all-reduce over GPU servers ([`hierarchical`]): a
//!   reduce-scatter inside each server, an all-reduce across servers among
//!   the GPUs of one local index (one rail each), an all-gather inside.

use serde::Deserialize;

mod hierarchical;
use hierarchical::Across;

/// One way to carry out an operation: a row of [`IMPLEMENTED`].
pub struct Implementation {
    /// The operation.
    pub op: Op,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Whether it needs a power of two of ranks.
    pub power_of_two: bool,
    /// Whether it splits the ranks by server (needs GPU servers).
    pub by_server: bool,
    /// Its schedule over `n` ranks from `root` (broadcast's; 0 otherwise)
    /// in servers of `local` consecutive ranks (1: hosts are no GPUs).
    schedule: fn(n: u32, root: u32, local: u32) -> Vec<Transfer>,
}

/// Every algorithm of every operation, each operation's default first:
/// the one list that the loader checks a workload against, that names the
/// valid choices in its errors and that schedules the transfers (a new
/// algorithm is its variant, its name and its row here).
pub static IMPLEMENTED: &[Implementation] = &[
    Implementation {
        op: Op::AllReduce,
        algorithm: Algorithm::Ring,
        power_of_two: false,
        by_server: false,
        schedule: |n, _, _| ring(n, 0, 2 * (n - 1)),
    },
    Implementation {
        op: Op::AllReduce,
        algorithm: Algorithm::HalvingDoubling,
        power_of_two: true,
        by_server: false,
        schedule: |n, _, _| halving_doubling(n),
    },
    Implementation {
        op: Op::AllReduce,
        algorithm: Algorithm::Tree,
        power_of_two: false,
        by_server: false,
        schedule: |n, _, _| double_binary_tree(n),
    },
    Implementation {
        op: Op::AllReduce,
        algorithm: Algorithm::Hierarchical,
        power_of_two: false,
        by_server: true,
        schedule: |n, _, local| hierarchical::all_reduce(n, local, Across::Ring),
    },
    Implementation {
        op: Op::AllReduce,
        algorithm: Algorithm::HierarchicalTree,
        power_of_two: false,
        by_server: true,
        schedule: |n, _, local| hierarchical::all_reduce(n, local, Across::Tree),
    },
    Implementation {
        op: Op::AllGather,
        algorithm: Algorithm::Ring,
        power_of_two: false,
        by_server: false,
        schedule: |n, _, _| ring(n, n - 1, 2 * (n - 1)),
    },
    Implementation {
        op: Op::ReduceScatter,
        algorithm: Algorithm::Ring,
        power_of_two: false,
        by_server: false,
        schedule: |n, _, _| ring(n, 0, n - 1),
    },
    Implementation {
        op: Op::AllToAll,
        algorithm: Algorithm::Direct,
        power_of_two: false,
        by_server: false,
        schedule: |n, _, _| all_to_all(n, false),
    },
    Implementation {
        op: Op::AllToAll,
        algorithm: Algorithm::Serialised,
        power_of_two: false,
        by_server: false,
        schedule: |n, _, _| all_to_all(n, true),
    },
    Implementation {
        op: Op::Broadcast,
        algorithm: Algorithm::Ring,
        power_of_two: false,
        by_server: false,
        schedule: |n, root, _| chain(n, root),
    },
    Implementation {
        op: Op::Reduce,
        algorithm: Algorithm::Ring,
        power_of_two: false,
        by_server: false,
        schedule: |n, root, _| chain(n, (root + 1) % n),
    },
];

/// The row of `op` by `algorithm`, if it is implemented.
pub fn implementation(op: Op, algorithm: Algorithm) -> Option<&'static Implementation> {
    IMPLEMENTED
        .iter()
        .find(|i| i.op == op && i.algorithm == algorithm)
}

/// A collective operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    /// Every rank ends with the sum of every rank's buffer.
    AllReduce,
    /// Every rank ends with every rank's part.
    AllGather,
    /// Rank r ends with part r of the sum.
    ReduceScatter,
    /// Rank r sends its part d to rank d.
    AllToAll,
    /// The root's buffer reaches every rank.
    Broadcast,
    /// The root ends with the sum of every rank's buffer.
    Reduce,
}

/// How an operation is carried out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// Around the ring of ranks.
    Ring,
    /// Recursive halving then doubling (all-reduce; N a power of two).
    HalvingDoubling,
    /// Every transfer at once (all-to-all).
    Direct,
    /// One peer per step (all-to-all).
    Serialised,
    /// NCCL's double binary tree (all-reduce).
    Tree,
    /// Inside each server, then across servers by rail, then inside
    /// (all-reduce over GPU servers).
    Hierarchical,
    /// As `Hierarchical`, NCCL's double binary tree across the servers.
    HierarchicalTree,
}

impl Op {
    /// Every operation, in the order of [`IMPLEMENTED`]'s first rows.
    pub const ALL: [Op; 6] = [
        Op::AllReduce,
        Op::AllGather,
        Op::ReduceScatter,
        Op::AllToAll,
        Op::Broadcast,
        Op::Reduce,
    ];

    /// Its name as written.
    pub fn name(self) -> &'static str {
        match self {
            Op::AllReduce => "all-reduce",
            Op::AllGather => "all-gather",
            Op::ReduceScatter => "reduce-scatter",
            Op::AllToAll => "all-to-all",
            Op::Broadcast => "broadcast",
            Op::Reduce => "reduce",
        }
    }

    /// The algorithms it may use, the default first ([`IMPLEMENTED`]).
    pub fn algorithms(self) -> impl Iterator<Item = Algorithm> {
        IMPLEMENTED
            .iter()
            .filter(move |i| i.op == self)
            .map(|i| i.algorithm)
    }

    /// Its default algorithm: its first in [`IMPLEMENTED`].
    pub fn default_algorithm(self) -> Algorithm {
        // Every operation has a row (a test holds the list to it).
        self.algorithms().next().unwrap_or(Algorithm::Ring)
    }

    /// nccl-tests' bus bandwidth factor: bus bandwidth = algorithm
    /// bandwidth (size / time) x this, the fraction of the size each
    /// rank's link must carry, so that it compares with the link rate.
    pub fn bus_factor(self, ranks: u32) -> f64 {
        let n = ranks as f64;
        match self {
            Op::AllReduce => 2.0 * (n - 1.0) / n,
            Op::AllGather | Op::ReduceScatter | Op::AllToAll => (n - 1.0) / n,
            Op::Broadcast | Op::Reduce => 1.0,
        }
    }
}

impl Algorithm {
    /// Its name as written.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Ring => "ring",
            Algorithm::HalvingDoubling => "halving-doubling",
            Algorithm::Direct => "direct",
            Algorithm::Serialised => "serialised",
            Algorithm::Tree => "tree",
            Algorithm::Hierarchical => "hierarchical",
            Algorithm::HierarchicalTree => "hierarchical-tree",
        }
    }
}

/// One transfer of a schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer {
    /// Its step, from 0.
    pub step: u32,
    /// The sending rank.
    pub src: u32,
    /// The receiving rank.
    pub dst: u32,
    /// The parts of the buffer it carries, `first..end` (of N).
    pub parts: (u32, u32),
    /// Transfers (indices into the schedule) it waits on, each received
    /// at `src`; none: it waits only on the rank being ready.
    pub after: Vec<usize>,
}

/// The schedule of `op` by `algo` over `n` ranks (`root` for broadcast
/// and reduce)
/// in servers of `local` consecutive ranks: transfers in step order.
/// `n >= 2`; the pair is one the loader accepted (a row of
/// [`IMPLEMENTED`]), with a power of two of ranks where it needs one and
/// `local` dividing `n`.
pub fn schedule(op: Op, algo: Algorithm, n: u32, root: u32, local: u32) -> Vec<Transfer> {
    assert!(n >= 2, "a collective needs two ranks");
    let i = implementation(op, algo);
    assert!(i.is_some(), "{op:?} by {algo:?} is refused at load");
    i.map_or_else(Vec::new, |i| (i.schedule)(n, root, local))
}

/// Steps `from..to` of the ring all-reduce (reduce-scatter: steps `0..n-1`;
/// all-gather: `n-1..2(n-1)`, which send each rank's own part first).
/// Rank r sends to r+1 in every step: in reduce-scatter step s the part
/// `r - s`, in all-gather step t the part `r + 1 - t`; each send after
/// the step before's receipt from r-1.
fn ring(n: u32, from: u32, to: u32) -> Vec<Transfer> {
    let mut out = Vec::new();
    for (i, s) in (from..to).enumerate() {
        for r in 0..n {
            let part = if s < n - 1 {
                (r + n - s % n) % n
            } else {
                // All-gather alone starts with the rank's own part.
                let t = s - (n - 1);
                let shift = if from == 0 { 1 } else { 0 };
                (r + shift + n - t % n) % n
            };
            let after = if i == 0 {
                Vec::new()
            } else {
                // Sent by r-1 in the step before.
                vec![(i - 1) * n as usize + ((r + n - 1) % n) as usize]
            };
            out.push(Transfer {
                step: i as u32,
                src: r,
                dst: (r + 1) % n,
                parts: (part, part + 1),
                after,
            });
        }
    }
    out
}

/// Recursive halving (reduce-scatter) then recursive doubling
/// (all-gather): in halving step k rank r exchanges with r xor N/2^(k+1),
/// keeping the half of its range on its own side and sending the other;
/// doubling mirrors it, sending all it holds.
fn halving_doubling(n: u32) -> Vec<Transfer> {
    assert!(n.is_power_of_two(), "halving-doubling needs a power of two");
    let levels = n.trailing_zeros();
    let mut out: Vec<Transfer> = Vec::new();
    let mut held: Vec<(u32, u32)> = vec![(0, n); n as usize];
    // The index of the transfer each rank received in the last step.
    let mut last_in: Vec<Option<usize>> = vec![None; n as usize];
    let mut step =
        |out: &mut Vec<Transfer>, partner_of: &dyn Fn(u32) -> u32, halve: bool, s: u32| {
            let base = out.len();
            let mut next = held.clone();
            for r in 0..n {
                let p = partner_of(r);
                let (lo, hi) = held[r as usize];
                let parts = if halve {
                    let mid = (lo + hi) / 2;
                    // The lower rank keeps the lower half.
                    if r < p {
                        next[r as usize] = (lo, mid);
                        (mid, hi)
                    } else {
                        next[r as usize] = (mid, hi);
                        (lo, mid)
                    }
                } else {
                    let (plo, phi) = held[p as usize];
                    next[r as usize] = (lo.min(plo), hi.max(phi));
                    (lo, hi)
                };
                out.push(Transfer {
                    step: s,
                    src: r,
                    dst: p,
                    parts,
                    after: last_in[r as usize].into_iter().collect(),
                });
            }
            for r in 0..n {
                let p = partner_of(r);
                last_in[p as usize] = Some(base + r as usize);
            }
            held = next;
        };
    for k in 0..levels {
        step(&mut out, &|r| r ^ (n >> (k + 1)), true, k);
    }
    for k in 0..levels {
        step(&mut out, &|r| r ^ (1 << k), false, levels + k);
    }
    out
}

/// All-to-all: rank r sends part d to every rank d != r, in step
/// `(d - r) mod n - 1`; serialised, each step waits on the receipt of
/// the step before (from r - s).
fn all_to_all(n: u32, serialised: bool) -> Vec<Transfer> {
    let mut out = Vec::new();
    for s in 1..n {
        for r in 0..n {
            let d = (r + s) % n;
            let after = if serialised && s > 1 {
                // Rank r - (s-1) sent to r in the step before.
                let from = (r + n - (s - 1)) % n;
                vec![((s - 2) * n + from) as usize]
            } else {
                Vec::new()
            };
            out.push(Transfer {
                step: if serialised { s - 1 } else { 0 },
                src: r,
                dst: d,
                parts: (d, d + 1),
                after,
            });
        }
    }
    out
}

/// Rank `rank`'s parent and children in NCCL's binary tree over `n`
/// ranks rooted at 0 (`ncclGetBtree`): a rank's lowest set bit `b` gives
/// its parent `(rank ^ b) | 2b` (or `rank ^ b` where that is out of
/// range) and its children `rank -+ b/2`, the upper one moved down by
/// halving until it is in range; rank 0's one child is the highest power
/// of two below `n`.
fn btree(n: u32, rank: u32) -> (Option<u32>, Vec<u32>) {
    let mut bit = 1;
    while bit < n && bit & rank == 0 {
        bit <<= 1;
    }
    if rank == 0 {
        let child = (n > 1).then_some(bit >> 1);
        return (None, child.into_iter().collect());
    }
    let mut up = (rank ^ bit) | (bit << 1);
    if up >= n {
        up = rank ^ bit;
    }
    let mut lowbit = bit >> 1;
    if lowbit == 0 {
        return (Some(up), Vec::new());
    }
    let down0 = rank - lowbit;
    let mut down1 = Some(rank + lowbit);
    while down1.is_some_and(|d| d >= n) {
        down1 = (lowbit != 0).then_some(rank + lowbit);
        lowbit >>= 1;
        if lowbit == 0 && down1.is_some_and(|d| d >= n) {
            down1 = None;
        }
    }
    (Some(up), [down0].into_iter().chain(down1).collect())
}

/// Each rank's parent in NCCL's two trees over `n` ranks
/// (`ncclGetDtree`): the binary tree, and the same mirrored (`n - 1 - r`,
/// `n` even) or shifted by one rank (`n` odd).
fn dtree(n: u32) -> [Vec<Option<u32>>; 2] {
    let first = (0..n).map(|r| btree(n, r).0).collect();
    let second = (0..n)
        .map(|r| {
            if n % 2 == 1 {
                btree(n, (r + n - 1) % n).0.map(|u| (u + 1) % n)
            } else {
                btree(n, n - 1 - r).0.map(|u| n - 1 - u)
            }
        })
        .collect();
    [first, second]
}

/// NCCL's double binary tree all-reduce: tree 0 carries the buffer's
/// first half (parts `0..n/2`), tree 1 the rest. In each, a rank sends
/// what it holds to its parent once its children's sums have arrived
/// (step: its height), and the root's sum comes back down, each rank
/// forwarding to its children once it has it (step: the root's height
/// plus the sender's depth).
fn double_binary_tree(n: u32) -> Vec<Transfer> {
    let mut out = Vec::new();
    for (t, parent) in dtree(n).iter().enumerate() {
        let parts = if t == 0 { (0, n / 2) } else { (n / 2, n) };
        let children = |r: u32| (0..n).filter(move |&c| parent[c as usize] == Some(r));
        // Heights, leaves first: ranks in order of their children's.
        let mut height = vec![0u32; n as usize];
        let mut depth = vec![0u32; n as usize];
        let mut order: Vec<u32> = (0..n).collect();
        for r in 0..n {
            let mut d = 0;
            let mut x = r;
            while let Some(p) = parent[x as usize] {
                d += 1;
                x = p;
            }
            depth[r as usize] = d;
        }
        order.sort_by_key(|&r| std::cmp::Reverse(depth[r as usize]));
        for &r in &order {
            if let Some(p) = parent[r as usize] {
                let h = height[r as usize] + 1;
                height[p as usize] = height[p as usize].max(h);
            }
        }
        let root_height = (0..n)
            .find(|&r| parent[r as usize].is_none())
            .map_or(0, |r| height[r as usize]);
        // Up: each rank's send to its parent, after its children's.
        let mut up_from: Vec<Option<usize>> = vec![None; n as usize];
        for &r in &order {
            let Some(p) = parent[r as usize] else {
                continue;
            };
            let after = children(r).filter_map(|c| up_from[c as usize]).collect();
            up_from[r as usize] = Some(out.len());
            out.push(Transfer {
                step: height[r as usize],
                src: r,
                dst: p,
                parts,
                after,
            });
        }
        // Down: from the root, each rank forwarding what it received.
        let mut down_to: Vec<Option<usize>> = vec![None; n as usize];
        for &r in order.iter().rev() {
            let after: Vec<usize> = match parent[r as usize] {
                None => children(r).filter_map(|c| up_from[c as usize]).collect(),
                Some(_) => down_to[r as usize].into_iter().collect(),
            };
            for c in children(r) {
                down_to[c as usize] = Some(out.len());
                out.push(Transfer {
                    step: root_height + depth[r as usize],
                    src: r,
                    dst: c,
                    parts,
                    after: after.clone(),
                });
            }
        }
    }
    out
}

/// A chain from `root` through the ranks in ring order: the k-th rank
/// after the root forwards the whole buffer once it has it.
fn chain(n: u32, root: u32) -> Vec<Transfer> {
    (0..n - 1)
        .map(|k| Transfer {
            step: k,
            src: (root + k) % n,
            dst: (root + k + 1) % n,
            parts: (0, n),
            after: if k == 0 {
                Vec::new()
            } else {
                vec![k as usize - 1]
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks the invariants every schedule keeps: a send waits only on
    /// receipts at its own rank from earlier steps.
    fn well_formed(s: &[Transfer]) {
        for t in s {
            assert_ne!(t.src, t.dst);
            for &a in &t.after {
                assert_eq!(s[a].dst, t.src, "{t:?} waits on {:?}", s[a]);
                assert!(s[a].step < t.step);
            }
        }
    }

    /// Simulates a reduction: each rank starts holding a bit of its own
    /// in every part; a transfer ORs the sender's parts into the receiver.
    /// Sends are applied in step order (within a step, on the sender's
    /// state at the step's start).
    fn run(n: u32, s: &[Transfer], init: impl Fn(u32, u32) -> u64) -> Vec<Vec<u64>> {
        let mut bits: Vec<Vec<u64>> = (0..n)
            .map(|r| (0..n).map(|p| init(r, p)).collect())
            .collect();
        let steps = s.iter().map(|t| t.step).max().unwrap_or(0);
        for st in 0..=steps {
            let before = bits.clone();
            for t in s.iter().filter(|t| t.step == st) {
                for p in t.parts.0..t.parts.1 {
                    bits[t.dst as usize][p as usize] |= before[t.src as usize][p as usize];
                }
            }
        }
        bits
    }

    /// Every rank ends with every rank's contribution in every part.
    fn assert_all_reduced(n: u32, s: &[Transfer]) {
        let all = (1u64 << n) - 1;
        let out = run(n, s, |r, _| 1 << r);
        assert!(
            out.iter().all(|parts| parts.iter().all(|&b| b == all)),
            "{out:?}"
        );
    }

    #[test]
    fn ring_all_reduce_sends_one_part_a_step_and_reduces_everything() {
        let n = 4;
        let s = schedule(Op::AllReduce, Algorithm::Ring, n, 0, 1);
        well_formed(&s);
        assert_eq!(s.len(), (2 * (n - 1) * n) as usize);
        // Step 0: rank r sends its own part r to r+1; step 1: part r-1.
        let step = |k: u32| -> Vec<(u32, u32, u32)> {
            s.iter()
                .filter(|t| t.step == k)
                .map(|t| (t.src, t.dst, t.parts.0))
                .collect()
        };
        assert_eq!(step(0), vec![(0, 1, 0), (1, 2, 1), (2, 3, 2), (3, 0, 3)]);
        assert_eq!(step(1), vec![(0, 1, 3), (1, 2, 0), (2, 3, 1), (3, 0, 2)]);
        // All-gather's first step: rank r sends the part it finished, r+1.
        assert_eq!(step(3), vec![(0, 1, 1), (1, 2, 2), (2, 3, 3), (3, 0, 0)]);
        assert_all_reduced(n, &s);
    }

    #[test]
    fn ring_reduce_scatter_and_all_gather_end_where_they_should() {
        let n = 5;
        let rs = schedule(Op::ReduceScatter, Algorithm::Ring, n, 0, 1);
        well_formed(&rs);
        assert_eq!(rs.len(), ((n - 1) * n) as usize);
        let out = run(n, &rs, |r, _| 1 << r);
        // Rank r holds the full sum of part r + 1.
        for r in 0..n {
            assert_eq!(out[r as usize][((r + 1) % n) as usize], (1 << n) - 1);
        }
        let ag = schedule(Op::AllGather, Algorithm::Ring, n, 0, 1);
        well_formed(&ag);
        // Rank r starts with only its own part r; all ranks end with all.
        let out = run(n, &ag, |r, p| u64::from(r == p));
        assert!(
            out.iter().all(|parts| parts.iter().all(|&b| b == 1)),
            "{out:?}"
        );
    }

    #[test]
    fn halving_doubling_exchanges_with_partners_at_halving_distances() {
        let n = 8;
        let s = schedule(Op::AllReduce, Algorithm::HalvingDoubling, n, 0, 1);
        well_formed(&s);
        assert_eq!(s.len(), (2 * 3 * n) as usize);
        // Step 0: partner r xor 4, half the buffer; step 2: r xor 1, an eighth.
        let t0 = &s[0];
        assert_eq!((t0.src, t0.dst, t0.parts), (0, 4, (4, 8)));
        let t2 = &s[2 * n as usize];
        assert_eq!((t2.src, t2.dst, t2.parts.1 - t2.parts.0), (0, 1, 1));
        // Doubling: step 3 partner r xor 1, step 5 r xor 4 with half.
        let t5 = &s[5 * n as usize + 1];
        assert_eq!((t5.src, t5.dst, t5.parts.1 - t5.parts.0), (1, 5, 4));
        assert_all_reduced(n, &s);
    }

    #[test]
    fn all_to_all_delivers_every_part_to_its_rank() {
        for serialised in [false, true] {
            let n = 4;
            let algo = if serialised {
                Algorithm::Serialised
            } else {
                Algorithm::Direct
            };
            let s = schedule(Op::AllToAll, algo, n, 0, 1);
            well_formed(&s);
            assert_eq!(s.len(), (n * (n - 1)) as usize);
            for t in &s {
                assert_eq!(t.parts, (t.dst, t.dst + 1));
            }
            let mut pairs: Vec<(u32, u32)> = s.iter().map(|t| (t.src, t.dst)).collect();
            pairs.sort_unstable();
            pairs.dedup();
            assert_eq!(pairs.len(), (n * (n - 1)) as usize);
            let steps = s.iter().map(|t| t.step).max().unwrap();
            assert_eq!(steps, if serialised { n - 2 } else { 0 });
            if serialised {
                // Rank 0's step-1 send (to 2) waits on what rank 3 sent it in step 0.
                let t = s.iter().find(|t| t.src == 0 && t.step == 1).unwrap();
                assert_eq!(t.dst, 2);
                assert_eq!((s[t.after[0]].src, s[t.after[0]].dst), (3, 0));
            }
        }
    }

    #[test]
    fn reduce_is_a_chain_that_ends_at_the_root() {
        let s = schedule(Op::Reduce, Algorithm::Ring, 4, 2, 1);
        well_formed(&s);
        let hops: Vec<(u32, u32)> = s.iter().map(|t| (t.src, t.dst)).collect();
        assert_eq!(hops, vec![(3, 0), (0, 1), (1, 2)]);
        // The root holds every rank's contribution in every part.
        let out = run(4, &s, |r, _| 1 << r);
        assert!(out[2].iter().all(|&b| b == 0b1111), "{out:?}");
        assert_eq!(Op::Reduce.bus_factor(4), 1.0);
    }

    #[test]
    fn broadcast_is_a_chain_from_the_root() {
        let s = schedule(Op::Broadcast, Algorithm::Ring, 4, 2, 1);
        well_formed(&s);
        let hops: Vec<(u32, u32)> = s.iter().map(|t| (t.src, t.dst)).collect();
        assert_eq!(hops, vec![(2, 3), (3, 0), (0, 1)]);
        let out = run(4, &s, |r, _| u64::from(r == 2));
        assert!(out.iter().all(|parts| parts.iter().all(|&b| b == 1)));
    }

    /// NCCL's trees (trees.cc's illustrations): over 14 ranks, 8's parent
    /// is 0 and its children 4 and 12, 12's child is 10 and then 13 (14 is
    /// out of range); the second tree over 12 ranks is the first mirrored
    /// (root 11), over 13 the first shifted by one (root 1).
    #[test]
    fn the_double_binary_tree_is_nccls() {
        assert_eq!(btree(14, 0), (None, vec![8]));
        assert_eq!(btree(14, 8), (Some(0), vec![4, 12]));
        assert_eq!(btree(14, 12), (Some(8), vec![10, 13]));
        assert_eq!(btree(14, 13), (Some(12), vec![]));
        assert_eq!(btree(14, 6), (Some(4), vec![5, 7]));
        let [a, b] = dtree(12);
        assert_eq!((a[8], b[3], b[11]), (Some(0), Some(11), None));
        assert_eq!((b[7], b[1], b[0]), (Some(3), Some(3), Some(1)));
        let [_, c] = dtree(13);
        assert_eq!((c[1], c[9], c[0], c[5]), (None, Some(1), Some(9), Some(9)));
        // Most ranks that are leaves in one tree are inner in the other.
        let [a, b] = dtree(16);
        let inner = |t: &[Option<u32>], r: u32| t.contains(&Some(r));
        let both_leaves = (0..16).filter(|&r| !inner(&a, r) && !inner(&b, r)).count();
        assert_eq!(both_leaves, 0);
    }

    #[test]
    fn tree_all_reduce_reduces_everything_in_two_halves() {
        for n in [2, 3, 5, 8, 13, 16] {
            let s = schedule(Op::AllReduce, Algorithm::Tree, n, 0, 1);
            well_formed(&s);
            // Each tree: n - 1 edges up and n - 1 down.
            assert_eq!(s.len(), 4 * (n - 1) as usize, "{n}");
            assert_all_reduced(n, &s);
            let halves: Vec<(u32, u32)> = s.iter().map(|t| t.parts).collect();
            assert!(halves.iter().all(|&p| p == (0, n / 2) || p == (n / 2, n)));
        }
        // A leaf's send to its parent waits on nothing; the root's first
        // send down waits on every child's sum.
        let s = schedule(Op::AllReduce, Algorithm::Tree, 8, 0, 1);
        let first = s
            .iter()
            .find(|t| t.src == 7 && t.parts == (0, 4))
            .expect("7 up");
        assert_eq!((first.dst, first.after.len(), first.step), (6, 0, 0));
        let root_down = s
            .iter()
            .find(|t| t.src == 0 && t.parts == (0, 4))
            .expect("0 down");
        assert_eq!(
            (root_down.dst, root_down.after.len(), root_down.step),
            (4, 1, 3)
        );
    }

    #[test]
    fn hierarchical_all_reduce_keeps_cross_server_sends_on_one_local_index() {
        for (n, local) in [(8, 4), (12, 4), (6, 2), (4, 1), (4, 4), (16, 8)] {
            let tree = schedule(Op::AllReduce, Algorithm::HierarchicalTree, n, 0, local);
            well_formed(&tree);
            assert_all_reduced(n, &tree);
            for t in tree.iter().filter(|t| t.src / local != t.dst / local) {
                assert_eq!(t.src % local, t.dst % local, "{t:?} changes rail");
            }
            let s = schedule(Op::AllReduce, Algorithm::Hierarchical, n, 0, local);
            well_formed(&s);
            assert_all_reduced(n, &s);
            let m = n / local;
            // Inside: 2 (L - 1) steps of L sends per server; across:
            // 2 (M - 1) steps of M sends per local index.
            let want = 2 * (local - 1) * n + 2 * (m - 1) * n;
            assert_eq!(s.len(), want as usize, "n {n}, local {local}");
            for t in &s {
                let (a, b) = (t.src / local, t.dst / local);
                if a != b {
                    assert_eq!(t.src % local, t.dst % local, "{t:?} changes rail");
                    assert_eq!(t.parts.1 - t.parts.0, 1, "one part a step across");
                } else {
                    assert_eq!(t.parts.1 - t.parts.0, m, "a block a step inside");
                }
            }
        }
        // 2 servers of 4: steps 0-2 inside, 3-4 across, 5-7 inside; local
        // rank 0 reduces block 1 (parts 2-3) with rank 4.
        let s = schedule(Op::AllReduce, Algorithm::Hierarchical, 8, 0, 4);
        let across: Vec<(u32, u32, u32, u32)> = (s.iter())
            .filter(|t| t.src / 4 != t.dst / 4 && t.src % 4 == 0)
            .map(|t| (t.step, t.src, t.dst, t.parts.0))
            .collect();
        assert_eq!(
            across,
            vec![(3, 0, 4, 2), (3, 4, 0, 3), (4, 0, 4, 3), (4, 4, 0, 2)]
        );
    }

    #[test]
    fn bus_factors_are_nccl_tests() {
        assert_eq!(Op::AllReduce.bus_factor(8), 14.0 / 8.0);
        assert_eq!(Op::AllGather.bus_factor(8), 7.0 / 8.0);
        assert_eq!(Op::AllToAll.bus_factor(4), 0.75);
        assert_eq!(Op::Broadcast.bus_factor(4), 1.0);
    }

    /// The one list: each row's names are the ones a scenario writes
    /// (serde's), each operation has a default, no pair is listed twice,
    /// and docs/scenarios.md names every operation and algorithm.
    #[test]
    fn the_implementations_are_one_list_with_names_the_loader_reads() {
        let docs =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/scenarios.md"))
                .expect("docs/scenarios.md");
        for (k, i) in IMPLEMENTED.iter().enumerate() {
            let op: Op = serde_json::from_str(&format!("\"{}\"", i.op.name())).expect("op");
            let algo: Algorithm =
                serde_json::from_str(&format!("\"{}\"", i.algorithm.name())).expect("algorithm");
            assert_eq!((op, algo), (i.op, i.algorithm));
            let again = IMPLEMENTED[..k]
                .iter()
                .any(|j| j.op == i.op && j.algorithm == i.algorithm);
            assert!(!again, "{:?} by {:?} twice", i.op, i.algorithm);
            for name in [i.op.name(), i.algorithm.name()] {
                assert!(
                    docs.contains(&format!("`{name}`")),
                    "docs/scenarios.md lacks {name}"
                );
            }
        }
        for op in Op::ALL {
            let first = IMPLEMENTED.iter().find(|i| i.op == op).expect("a row");
            assert_eq!(op.default_algorithm(), first.algorithm);
        }
        // Halving-doubling, the one that needs a power of two, says so.
        let hd = implementation(Op::AllReduce, Algorithm::HalvingDoubling).expect("listed");
        assert!(hd.power_of_two);
        assert!(implementation(Op::AllToAll, Algorithm::Ring).is_none());
    }
}
