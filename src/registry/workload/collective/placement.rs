//! Which host runs which rank of a job: packed (rank order is the order
//! the hosts are given; hosts are numbered rack by rack, so consecutive
//! ranks share a rack and a ring crosses racks least), striped (rank i in
//! rack i mod R: consecutive ranks in different racks, every ring hop
//! crosses the fabric) or random (a seeded shuffle).

use net::{NodeKind, TopologyGraph};
use serde::Deserialize;
use sim_core::RngStream;

/// A placement rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// The hosts in the order given.
    #[default]
    Packed,
    /// Round-robin over the racks the hosts are in.
    Striped,
    /// A uniform shuffle from the run's seed.
    Random,
}

/// The rack (the switch a host is cabled to; through its NIC node on a
/// multi-plane fabric, the NIC's first switch) of every host of `g`.
pub fn racks(g: &TopologyGraph) -> Vec<u32> {
    let hosts = g.host_count();
    let mut first: Vec<Option<u32>> = vec![None; g.nodes.len()];
    for c in &g.cables {
        for (a, b) in [(c.a, c.b), (c.b, c.a)] {
            let slot = &mut first[a.idx()];
            // Hosts come first; a host's only neighbour is its ToR or NIC,
            // and a NIC's first switch neighbour (not its host) its plane-0 ToR.
            let b_is_host = matches!(g.nodes[b.idx()], NodeKind::Host);
            if slot.is_none() && !(b_is_host && a.idx() >= hosts) {
                *slot = Some(b.0);
            }
        }
    }
    (0..hosts)
        .map(|h| {
            let n = first[h].expect("every host is cabled");
            match g.nodes[n as usize] {
                NodeKind::Switch { tier } if tier == net::topology::NIC_TIER => {
                    first[n as usize].unwrap_or(n)
                }
                _ => n,
            }
        })
        .collect()
}

/// A job's `hosts` in rank order under `rule` for a run of `env`: its
/// racks read off the topology where the rule needs them, its shuffle
/// drawn from the workload's placement stream.
pub fn place_job(
    hosts: &[u32],
    rule: Placement,
    env: &crate::registry::workload::PlanEnv<'_>,
) -> Vec<u32> {
    let purpose = sim_core::rng::purpose::PLACEMENT;
    let mut rng = RngStream::new(env.seed, env.index as u64, purpose);
    let racks = match rule {
        Placement::Striped => racks(&env.topology.build()),
        _ => Vec::new(),
    };
    let rack = |h: u32| racks.get(h as usize).copied().unwrap_or(0);
    place(hosts, rule, rack, &mut rng)
}

/// The hosts of `hosts` in rank order under `rule`: `rack` gives a host's
/// rack (used by `Striped`), `rng` the shuffle (used by `Random`).
pub fn place(
    hosts: &[u32],
    rule: Placement,
    rack: impl Fn(u32) -> u32,
    rng: &mut RngStream,
) -> Vec<u32> {
    match rule {
        Placement::Packed => hosts.to_vec(),
        Placement::Random => {
            let mut v = hosts.to_vec();
            for i in (1..v.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                v.swap(i, j);
            }
            v
        }
        Placement::Striped => {
            // Racks in order of their first host; then the first host of
            // each rack, the second of each, ...
            let mut by_rack: Vec<(u32, Vec<u32>)> = Vec::new();
            for &h in hosts {
                let r = rack(h);
                match by_rack.iter_mut().find(|(id, _)| *id == r) {
                    Some((_, v)) => v.push(h),
                    None => by_rack.push((r, vec![h])),
                }
            }
            let deepest = by_rack.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
            (0..deepest)
                .flat_map(|i| by_rack.iter().filter_map(move |(_, v)| v.get(i).copied()))
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::{Bandwidth, SimDuration};

    #[test]
    fn striping_alternates_racks_and_packing_keeps_order() {
        // A leaf-spine of 2 leaves with 3 hosts each: hosts 0-2 under leaf 0.
        let g = TopologyGraph::leaf_spine(
            2,
            2,
            3,
            Bandwidth::from_gbps(100),
            Bandwidth::from_gbps(100),
            SimDuration::from_us(1),
        );
        let r = racks(&g);
        assert_eq!(r[0], r[2]);
        assert_ne!(r[2], r[3]);
        let hosts: Vec<u32> = (0..6).collect();
        let mut rng = RngStream::new(1, 0, 0);
        let rack = |h: u32| r[h as usize];
        assert_eq!(place(&hosts, Placement::Packed, rack, &mut rng), hosts);
        assert_eq!(
            place(&hosts, Placement::Striped, rack, &mut rng),
            vec![0, 3, 1, 4, 2, 5]
        );
        let mut shuffled = place(&hosts, Placement::Random, rack, &mut rng);
        assert_ne!(shuffled, hosts);
        shuffled.sort_unstable();
        assert_eq!(shuffled, hosts);
    }

    #[test]
    fn a_multi_plane_host_is_in_its_plane_zero_rack() {
        let g = TopologyGraph::leaf_spine(
            2,
            2,
            2,
            Bandwidth::from_gbps(100),
            Bandwidth::from_gbps(100),
            SimDuration::from_us(1),
        )
        .planes(2);
        let r = racks(&g);
        assert_eq!(r.len(), 4);
        assert_eq!(r[0], r[1]);
        assert_ne!(r[1], r[2]);
        assert!(
            r.iter()
                .all(|&n| matches!(g.nodes[n as usize], NodeKind::Switch { tier: 1 }))
        );
    }
}
