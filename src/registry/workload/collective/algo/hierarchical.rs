//! NCCL's hierarchical split of an all-reduce over GPU servers: inside a
//! server over its scale-up domain, across servers over the rails.
//!
//! The ranks are M servers of L consecutive ranks (rank = server x L +
//! local index). The buffer's N = L x M parts are L blocks of M. Three
//! phases, each a ring (NCCL's `ring` algorithm, one part a step):
//!
//! 1. reduce-scatter inside each server over its L ranks, a block a step
//!    (L - 1 steps): local rank l ends with block (l + 1) mod L summed
//!    over its server;
//! 2. all-reduce of that block across the servers, among the M ranks of
//!    local index l, a part a step (2(M - 1) steps): GPU l of every server
//!    talks only to GPU l of the others, over rail l of a rail-optimised
//!    fabric, and the L rings run side by side on the L rails;
//! 3. all-gather inside each server, a block a step (L - 1 steps).
//!
//! `hierarchical-tree` runs phase 2 as NCCL's double binary tree over
//! the M servers' GPUs of one local index, half the block in each tree
//! (about 2 log2 M steps instead of 2(M - 1)): across many servers the
//! ring's steps, each with its latency, grow with M, and NCCL crosses
//! nodes by trees.
//!
//! This is the decomposition NCCL documents for its `CollNet` and NVLS
//! tree algorithms and that Horovod's and ASTRA-sim's hierarchical
//! all-reduce use (reduce-scatter, all-reduce, all-gather over the
//! dimensions); each rank's NIC carries 2(M - 1)/M of one block, 1/L of
//! what a flat ring puts on it.

use super::Transfer;

/// How phase 2 crosses the servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Across {
    /// A ring all-reduce, a part a step.
    Ring,
    /// NCCL's double binary tree, half the block per tree.
    Tree,
}

/// The hierarchical all-reduce over `n` ranks, servers of `local`,
/// crossing the servers `across`.
pub(super) fn all_reduce(n: u32, local: u32, across: Across) -> Vec<Transfer> {
    assert!(
        local >= 1 && n.is_multiple_of(local),
        "{n} ranks are not servers of {local}"
    );
    let (l, m) = (local, n / local);
    let mut out = Vec::new();
    // What each rank's next send waits on: its receipts so far that matter.
    let mut last: Vec<Vec<usize>> = vec![Vec::new(); n as usize];
    // 1: reduce-scatter in each server; unit u is block u.
    let block = |u: u32| (u * m, (u + 1) * m);
    for s in 0..m {
        let members: Vec<u32> = (0..l).map(|i| s * l + i).collect();
        ring(&mut out, &mut last, 0, &members, Half::ReduceScatter, block);
    }
    let mut step = l - 1;
    // 2: all-reduce of block (i + 1) mod L among local rank i's.
    let mut steps = 0;
    for i in 0..l {
        let members: Vec<u32> = (0..m).map(|s| s * l + i).collect();
        let b = (i + 1) % l;
        steps = match across {
            Across::Ring => {
                // Unit u: part u of block b.
                let part = |u: u32| (b * m + u, b * m + u + 1);
                ring(
                    &mut out,
                    &mut last,
                    step,
                    &members,
                    Half::ReduceScatter,
                    part,
                );
                ring(
                    &mut out,
                    &mut last,
                    step + m - 1,
                    &members,
                    Half::AllGather,
                    part,
                );
                2 * (m - 1)
            }
            Across::Tree => tree(&mut out, &mut last, step, &members, b * m),
        };
    }
    step += steps;
    // 3: all-gather in each server.
    for s in 0..m {
        let members: Vec<u32> = (0..l).map(|i| s * l + i).collect();
        ring(&mut out, &mut last, step, &members, Half::AllGather, block);
    }
    renumber(out)
}

/// Appends NCCL's double binary tree all-reduce over `members` on the
/// parts `first..first + k` (k members), from step `step0`; returns its
/// steps. Every send also waits on its rank's receipts before (`last`),
/// and `last` becomes each rank's receipts in the trees: a rank's block
/// is whole only once both halves are in.
fn tree(
    out: &mut Vec<Transfer>,
    last: &mut [Vec<usize>],
    step0: u32,
    members: &[u32],
    first: u32,
) -> u32 {
    let k = members.len() as u32;
    if k < 2 {
        return 0;
    }
    let base = out.len();
    let schedule = super::double_binary_tree(k);
    let steps = schedule.iter().map(|t| t.step + 1).max().unwrap_or(0);
    let mut got: Vec<Vec<usize>> = vec![Vec::new(); last.len()];
    for t in schedule {
        let (src, dst) = (members[t.src as usize], members[t.dst as usize]);
        let mut after: Vec<usize> = t.after.iter().map(|&a| base + a).collect();
        after.extend(&last[src as usize]);
        after.sort_unstable();
        after.dedup();
        got[dst as usize].push(out.len());
        out.push(Transfer {
            step: step0 + t.step,
            src,
            dst,
            parts: (first + t.parts.0, first + t.parts.1),
            after,
        });
    }
    for &r in members {
        last[r as usize] = std::mem::take(&mut got[r as usize]);
    }
    steps
}

/// Which half of a ring all-reduce.
#[derive(Clone, Copy)]
enum Half {
    /// Member i sends unit (i - t) mod k in step t: it ends with unit
    /// (i + 1) mod k summed over the ring.
    ReduceScatter,
    /// Member i sends unit (i + 1 - t) mod k in step t, starting with the
    /// one it finished.
    AllGather,
}

/// Appends the k - 1 steps of one half of a ring over `members` (in ring
/// order), from step `step0`: member i sends to i + 1 the parts `unit(u)`
/// of its unit u. Its first send waits on its rank's last receipt before
/// (`last`), each later one on the receipt of the step before; `last`
/// becomes each rank's last receipt. Indices in `after` are into `out`
/// before [`renumber`] sorts it.
fn ring(
    out: &mut Vec<Transfer>,
    last: &mut [Vec<usize>],
    step0: u32,
    members: &[u32],
    half: Half,
    unit: impl Fn(u32) -> (u32, u32),
) {
    let k = members.len() as u32;
    for t in 0..k.saturating_sub(1) {
        let base = out.len();
        for i in 0..k {
            let u = match half {
                Half::ReduceScatter => (i + k - t % k) % k,
                Half::AllGather => (i + 1 + k - t % k) % k,
            };
            let src = members[i as usize];
            out.push(Transfer {
                step: step0 + t,
                src,
                dst: members[((i + 1) % k) as usize],
                parts: unit(u),
                after: last[src as usize].clone(),
            });
        }
        for i in 0..k {
            let dst = members[((i + 1) % k) as usize];
            last[dst as usize] = vec![base + i as usize];
        }
    }
}

/// `out` sorted by step (stably), its `after` indices moved with it.
fn renumber(out: Vec<Transfer>) -> Vec<Transfer> {
    let mut order: Vec<usize> = (0..out.len()).collect();
    order.sort_by_key(|&i| out[i].step);
    let mut at = vec![0; out.len()];
    for (new, &old) in order.iter().enumerate() {
        at[old] = new;
    }
    let mut slots: Vec<Option<Transfer>> = out.into_iter().map(Some).collect();
    (order.iter())
        .map(|&old| {
            let mut t = slots[old].take().expect("each once");
            t.after.iter_mut().for_each(|a| *a = at[*a]);
            t
        })
        .collect()
}
