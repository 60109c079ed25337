//! The fabric cut into logical processes (LPs), so that one run can use
//! many cores (the design is in the repository's docs/architecture.md,
//! "One run on many cores").
//!
//! The cut follows the topology alone, never the thread count, so every
//! thread count runs the same LPs and the same windows. Below the top tier
//! the fabric falls apart into pods once the top tier is taken away: a
//! fat-tree's pods, a leaf-spine's leaves; each pod, with its hosts, is an
//! LP, and the top tier's switches are dealt out among the pods in node
//! order. A fabric whose switches all sit in one tier (a star, a
//! dumbbell) has an LP per switch. Only cables between two LPs are cut;
//! a host always shares its switch's LP, and a GPU server (its GPUs,
//! their NICs and its scale-up switch) is never cut. The lookahead of the run is the
//! smallest delay of a cut cable: a frame put on a cut link at `t` arrives
//! at `t + L` or later, so each LP may run a window of `L` without hearing
//! from the others.

use crate::ids::NodeId;
use crate::topology::{NodeKind, TopologyGraph};
use sim_core::SimDuration;
use std::sync::Arc;

/// A cut that cannot be run: a zero-delay cable would join two LPs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the cable {a} - {b} has zero delay and joins two logical processes: no window can cross it \
     (give it a delay of at least 1 ps, or run the fabric as one process)"
)]
pub struct ZeroDelayCut {
    /// One end's node.
    pub a: NodeId,
    /// The other end's node.
    pub b: NodeId,
}

/// Which LP every node belongs to, and the window that the cut allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Partition {
    /// The LP of each node, by node id.
    pub lp_of_node: Vec<u32>,
    /// How many LPs.
    pub lps: u32,
    /// The smallest delay on a cut cable (the window's length);
    /// `SimDuration::MAX` when nothing is cut.
    pub lookahead: SimDuration,
    /// Each port's place among its LP's ports, by port id (cable `i`'s
    /// ends are ports `2i` and `2i + 1`): where an LP's copy of the fabric
    /// keeps it (`fabric::ports`), one map for every LP.
    pub port_slot: Arc<[u32]>,
}

impl Partition {
    /// Everything in one LP.
    pub fn whole(graph: &TopologyGraph) -> Partition {
        let lp_of_node = vec![0; graph.nodes.len()];
        Partition {
            port_slot: port_slots(graph, &lp_of_node, 1),
            lp_of_node,
            lps: 1,
            lookahead: SimDuration::MAX,
        }
    }

    /// The cut by pods (see the module's doc) into at most `max_lps` LPs,
    /// or why it cannot run. With more pods than that, consecutive pods
    /// share an LP, as evenly as the counts allow.
    pub fn by_pods(graph: &TopologyGraph, max_lps: u32) -> Result<Partition, ZeroDelayCut> {
        // A GPU server's scale-up switch goes with its GPUs, as a host
        // goes with its switch: it is no tier of the fabric.
        let tier = |n: NodeId| match graph.nodes[n.idx()] {
            k if k.is_scale_up() => None,
            NodeKind::Switch { tier } => Some(tier),
            NodeKind::Host => None,
        };
        let tiers = || (0..graph.nodes.len() as u32).filter_map(|n| tier(NodeId(n)));
        let top = tiers().max().unwrap_or(0);
        let one_tier = tiers().all(|t| t == top);
        // Nodes joined by a cable that stays inside a pod: host to switch
        // always; switch to switch below the top tier (or, in a one-tier
        // fabric, never).
        let mut sets = Sets::new(graph.nodes.len());
        for c in &graph.cables {
            let inside = match (tier(c.a), tier(c.b)) {
                (None, _) | (_, None) => true,
                (Some(x), Some(y)) => !one_tier && x < top && y < top,
            };
            if inside {
                sets.join(c.a.idx(), c.b.idx());
            }
        }
        // Pods in the order of their first node; top switches dealt out.
        let mut pod_of_root = vec![u32::MAX; graph.nodes.len()];
        let mut pods = 0u32;
        let mut tops = Vec::new();
        for n in 0..graph.nodes.len() {
            if !one_tier && tier(NodeId(n as u32)) == Some(top) {
                tops.push(n);
                continue;
            }
            let r = sets.root(n);
            if pod_of_root[r] == u32::MAX {
                pod_of_root[r] = pods;
                pods += 1;
            }
        }
        let pods = pods.max(1);
        let lps = pods.min(max_lps.max(1));
        let group = |pod: u32| (u64::from(pod) * u64::from(lps) / u64::from(pods)) as u32;
        let mut lp_of_node: Vec<u32> = (0..graph.nodes.len())
            .map(|n| group(pod_of_root[sets.root(n)].min(pods - 1)))
            .collect();
        for (i, &n) in tops.iter().enumerate() {
            lp_of_node[n] = i as u32 % lps;
        }
        Partition::of_nodes(graph, lp_of_node, lps)
    }

    /// The cut that puts node `n` in LP `lp_of_node[n]` (of `lps`), or why
    /// it cannot run; one LP where no cable joins two. Any such cut runs
    /// (the tests cut small fabrics at random): what a run needs of it is
    /// that a host shares its switch's LP, which this does not check.
    pub fn of_nodes(
        graph: &TopologyGraph,
        lp_of_node: Vec<u32>,
        lps: u32,
    ) -> Result<Partition, ZeroDelayCut> {
        assert_eq!(lp_of_node.len(), graph.nodes.len(), "an LP per node");
        assert!(lp_of_node.iter().all(|&lp| lp < lps), "LPs below {lps}");
        let mut lookahead = SimDuration::MAX;
        for c in &graph.cables {
            if lp_of_node[c.a.idx()] != lp_of_node[c.b.idx()] {
                if c.delay.ps() == 0 {
                    return Err(ZeroDelayCut { a: c.a, b: c.b });
                }
                lookahead = lookahead.min(c.delay);
            }
        }
        if lookahead == SimDuration::MAX {
            return Ok(Partition::whole(graph));
        }
        Ok(Partition {
            port_slot: port_slots(graph, &lp_of_node, lps),
            lp_of_node,
            lps,
            lookahead,
        })
    }

    /// The LP of node `n`.
    #[inline]
    pub fn lp(&self, n: NodeId) -> u32 {
        self.lp_of_node[n.idx()]
    }

    /// The LPs that process `rank` of `ranks` holds in a run across
    /// processes (MPI ranks): consecutive LPs, as evenly as the counts
    /// allow, so that a rank holds whole pods (an LP is consecutive pods)
    /// and the ranks' cut is a coarsening of the LPs' cut
    /// (docs/architecture.md, "Across machines"). `None` if a rank would
    /// hold no LP.
    pub fn lps_of_rank(&self, rank: u32, ranks: u32) -> Option<std::ops::Range<u32>> {
        assert!(rank < ranks, "rank {rank} of {ranks}");
        if ranks > self.lps {
            return None;
        }
        let first = |r: u32| (u64::from(r) * u64::from(self.lps) / u64::from(ranks)) as u32;
        Some(first(rank)..first(rank + 1))
    }

    /// The ports (cable ends) each LP holds, by LP: its share of the
    /// fabric's ports and of the work.
    pub fn ports_per_lp(&self, graph: &TopologyGraph) -> Vec<u64> {
        let mut ports = vec![0u64; self.lps as usize];
        for c in &graph.cables {
            ports[self.lp(c.a) as usize] += 1;
            ports[self.lp(c.b) as usize] += 1;
        }
        ports
    }
}

/// Each port's index among its LP's ports, in port order (a cable's `a`
/// end first, as `Fabric::new` numbers them).
fn port_slots(graph: &TopologyGraph, lp_of_node: &[u32], lps: u32) -> Arc<[u32]> {
    let mut next = vec![0u32; lps as usize];
    let ends = graph.cables.iter().flat_map(|c| [c.a, c.b]);
    ends.map(|n| {
        let lp = lp_of_node.get(n.idx()).map_or(0, |&lp| lp as usize);
        let i = next[lp];
        next[lp] += 1;
        i
    })
    .collect()
}

/// Disjoint sets of node indices (union by index, path halving).
struct Sets(Vec<usize>);

impl Sets {
    fn new(n: usize) -> Sets {
        Sets((0..n).collect())
    }
    fn root(&mut self, mut i: usize) -> usize {
        while self.0[i] != i {
            self.0[i] = self.0[self.0[i]];
            i = self.0[i];
        }
        i
    }
    fn join(&mut self, a: usize, b: usize) {
        let (ra, rb) = (self.root(a), self.root(b));
        // The smaller index is the root, so roots do not depend on the
        // order cables are listed in.
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.0[hi] = lo;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::Bandwidth;

    fn gbps(g: u64) -> Bandwidth {
        Bandwidth::from_gbps(g)
    }

    #[test]
    fn a_fat_tree_is_cut_into_its_pods_with_the_cores_dealt_out() {
        let g = TopologyGraph::k_ary_fat_tree(4, gbps(100), SimDuration::from_us(1));
        let p = Partition::by_pods(&g, 64).expect("cuts");
        assert_eq!(p.lps, 4);
        assert_eq!(p.lookahead, SimDuration::from_us(1));
        // 16 hosts, 4 per pod, in host order.
        let hosts: Vec<u32> = p.lp_of_node[..16].to_vec();
        assert_eq!(hosts, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3]);
        // Every cut cable joins a core to an aggregation switch.
        for c in &g.cables {
            if p.lp(c.a) != p.lp(c.b) {
                let tiers = [g.nodes[c.a.idx()], g.nodes[c.b.idx()]];
                assert!(tiers.contains(&NodeKind::Switch { tier: 3 }), "{c:?}");
            }
        }
        // The four cores, one per pod.
        let cores: Vec<u32> = p.lp_of_node[g.nodes.len() - 4..].to_vec();
        assert_eq!(cores, [0, 1, 2, 3]);
    }

    #[test]
    fn pods_beyond_the_most_lps_share_them_evenly() {
        let g = TopologyGraph::k_ary_fat_tree(8, gbps(100), SimDuration::from_us(1));
        let p = Partition::by_pods(&g, 3).expect("cuts");
        assert_eq!(p.lps, 3);
        // 8 pods of 16 hosts in 3 LPs: 3, 3 and 2 pods.
        let per_lp = |lp| p.lp_of_node[..128].iter().filter(|&&l| l == lp).count();
        assert_eq!([per_lp(0), per_lp(1), per_lp(2)], [48, 48, 32]);
        assert_eq!(Partition::by_pods(&g, 1).expect("whole").lps, 1);
    }

    /// Ranks hold consecutive LPs, every LP once, as evenly as the counts
    /// allow; more ranks than LPs would leave one empty.
    #[test]
    fn ranks_hold_consecutive_lps_evenly() {
        let g = TopologyGraph::k_ary_fat_tree(8, gbps(100), SimDuration::from_us(1));
        let p = Partition::by_pods(&g, 8).expect("cuts");
        let of = |ranks: u32| -> Vec<std::ops::Range<u32>> {
            (0..ranks)
                .map(|r| p.lps_of_rank(r, ranks).expect("an LP each"))
                .collect()
        };
        assert_eq!(of(1), vec![(0..8)]);
        assert_eq!(of(3), [0..2, 2..5, 5..8]);
        assert_eq!(of(8).iter().map(|r| r.len()).collect::<Vec<_>>(), [1; 8]);
        assert_eq!(p.lps_of_rank(0, 9), None);
        // Every cable end is some LP's port.
        let ports = p.ports_per_lp(&g);
        assert_eq!(ports.iter().sum::<u64>(), 2 * g.cables.len() as u64);
        // A pod's 16 hosts, 8 switches' links up and down: the same in each.
        assert!(ports.iter().all(|&n| n == ports[0]), "{ports:?}");
    }

    #[test]
    fn a_star_is_one_process_and_a_dumbbell_two() {
        let star = TopologyGraph::star(8, gbps(10), SimDuration::from_us(1));
        assert_eq!(Partition::by_pods(&star, 64).expect("cuts").lps, 1);
        let us = SimDuration::from_us;
        let bell = TopologyGraph::dumbbell(4, 4, gbps(10), us(1), gbps(10), us(2));
        let p = Partition::by_pods(&bell, 64).expect("cuts");
        assert_eq!(p.lps, 2);
        assert_eq!(p.lookahead, SimDuration::from_us(2));
    }

    /// A rail-optimised cluster of 2 groups of 2 servers of 4 GPUs (4
    /// rails, 2 spines): each group, its servers and their leaves, is one
    /// LP; no NVLink cable is cut.
    #[test]
    fn a_rail_optimised_cluster_is_cut_by_groups_and_never_inside_a_server() {
        let us = SimDuration::from_us;
        let g = TopologyGraph::rail_optimised(&crate::topology::Rails {
            servers: 4,
            gpus_per_server: 4,
            rails: 4,
            servers_per_group: 2,
            spines: 2,
            nvlink_rate: gbps(900),
            nvlink_delay: SimDuration::from_ns(100),
            nic_rate: gbps(400),
            fabric_rate: gbps(400),
            link_delay: us(1),
        });
        let p = Partition::by_pods(&g, 64).expect("cuts");
        assert_eq!(p.lps, 2);
        // GPUs 0-7 (servers 0 and 1) in LP 0, 8-15 in LP 1.
        let gpus: Vec<u32> = p.lp_of_node[..16].to_vec();
        assert_eq!(gpus, [[0; 8], [1; 8]].concat());
        for c in &g.cables {
            let up = [c.a, c.b].iter().any(|n| g.nodes[n.idx()].is_scale_up());
            if up {
                assert_eq!(p.lp(c.a), p.lp(c.b), "an NVLink is cut: {c:?}");
            }
            if p.lp(c.a) != p.lp(c.b) {
                let spine = NodeKind::Switch { tier: 2 };
                assert!(
                    [g.nodes[c.a.idx()], g.nodes[c.b.idx()]].contains(&spine),
                    "{c:?}"
                );
            }
        }
    }

    #[test]
    fn a_zero_delay_cut_is_refused() {
        let g = TopologyGraph::k_ary_fat_tree(4, gbps(100), SimDuration::ZERO);
        let e = Partition::by_pods(&g, 64).expect_err("no window crosses a zero delay");
        assert!(e.to_string().contains("zero delay"), "{e}");
    }
}
