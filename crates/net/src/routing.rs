//! Shortest-path routing with ordered, symmetric ECMP.
//!
//! For every (switch, destination host) the table lists the egress ports on
//! a shortest path, ordered by the id of the neighbour they lead to. A flow
//! picks among them with a hash of its 5-tuple that is symmetric in
//! (source, destination), salted by the switch's tier and the run's seed
//! ([`ecmp_salt`]): the data and the ACKs
//! of one flow hash alike, and because candidates are ordered by neighbour id,
//! switches at the same tier on the two paths pick matching positions.
//! Hosts never forward: paths do not transit them.

use crate::ids::{HostId, NodeId, PortId};
use crate::packet::Packet;
use crate::topology::{NodeKind, TopologyError};
use std::collections::VecDeque;

/// Next hops for every (node, destination host).
#[derive(Debug, Default)]
pub struct RoutingTable {
    host_count: usize,
    /// `(start, len)` into `ports`, indexed `node * host_count + host`.
    spans: Vec<(u32, u32)>,
    ports: Vec<PortId>,
}

impl RoutingTable {
    /// Builds the table. `adjacency[n]` lists `(egress port, neighbour)` of node `n`;
    /// `host_nodes[h]` is the node of host `h`.
    pub fn build(
        kinds: &[NodeKind],
        adjacency: &[Vec<(PortId, NodeId)>],
        host_nodes: &[NodeId],
    ) -> Result<Self, TopologyError> {
        let n = kinds.len();
        let hcount = host_nodes.len();
        let mut spans = vec![(0u32, 0u32); n * hcount];
        let mut ports = Vec::new();
        let mut dist = vec![u32::MAX; n];
        let mut frontier = VecDeque::new();
        for (h, &hn) in host_nodes.iter().enumerate() {
            // BFS from the destination host: dist[x] = hops from x to host h.
            dist.fill(u32::MAX);
            dist[hn.idx()] = 0;
            frontier.clear();
            frontier.push_back(hn);
            while let Some(x) = frontier.pop_front() {
                if x != hn && kinds[x.idx()] == NodeKind::Host {
                    continue; // hosts do not forward
                }
                for &(_, y) in &adjacency[x.idx()] {
                    if dist[y.idx()] == u32::MAX {
                        dist[y.idx()] = dist[x.idx()] + 1;
                        frontier.push_back(y);
                    }
                }
            }
            for (x, d) in dist.iter().enumerate() {
                if *d == u32::MAX {
                    return Err(TopologyError::Disconnected {
                        from: describe(kinds, NodeId(x as u32)),
                        to: format!("host {h}"),
                    });
                }
            }
            for x in 0..n {
                if x == hn.idx() {
                    continue;
                }
                let mut hops: Vec<(NodeId, PortId)> = adjacency[x]
                    .iter()
                    .filter(|(_, y)| dist[y.idx()] + 1 == dist[x])
                    .filter(|(_, y)| *y == hn || kinds[y.idx()] != NodeKind::Host)
                    .map(|&(p, y)| (y, p))
                    .collect();
                hops.sort();
                spans[x * hcount + h] = (ports.len() as u32, hops.len() as u32);
                ports.extend(hops.into_iter().map(|(_, p)| p));
            }
        }
        Ok(RoutingTable {
            host_count: hcount,
            spans,
            ports,
        })
    }

    /// The bytes a table for this many nodes, hosts, switches and links
    /// holds, without building it: a span per (node, host); one next hop per
    /// (host, host); and per (switch, host) about as many next hops as the
    /// switch has links to other switches, on average (exact for stars and
    /// dumbbells; for Clos fabrics, where half a switch's links lead up,
    /// within a few percent).
    pub fn estimate_bytes(nodes: u64, hosts: u64, switches: u64, links: u64) -> u64 {
        let spans = nodes.saturating_mul(hosts).saturating_mul(8);
        let per_host = hosts.saturating_add(switches.max(links.saturating_sub(hosts)));
        let hops = hosts.saturating_mul(per_host);
        spans.saturating_add(hops.saturating_mul(size_of::<PortId>() as u64))
    }

    /// The ordered equal-cost egress ports from `node` towards host `dst`.
    #[inline]
    pub fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        let (s, l) = self.spans[node.idx() * self.host_count + dst.idx()];
        &self.ports[s as usize..(s + l) as usize]
    }

    /// The egress port a packet takes at a switch whose ECMP salt is `salt`.
    #[inline]
    pub fn select(&self, node: NodeId, salt: u64, pkt: &Packet) -> PortId {
        let hops = self.next_hops(node, pkt.dst);
        debug_assert!(!hops.is_empty(), "no route from {node} to {}", pkt.dst);
        if hops.len() == 1 {
            return hops[0];
        }
        hops[(flow_hash(pkt, salt) % hops.len() as u64) as usize]
    }
}

fn describe(kinds: &[NodeKind], n: NodeId) -> String {
    match kinds[n.idx()] {
        NodeKind::Host => format!("host node {}", n.0),
        NodeKind::Switch { .. } => format!("switch node {}", n.0),
    }
}

/// A hash of the 5-tuple that is the same for both directions of a flow,
/// under a switch's salt.
#[inline]
pub fn flow_hash(pkt: &Packet, salt: u64) -> u64 {
    let a = ((pkt.src.0 as u64) << 16) | pkt.sport as u64;
    let b = ((pkt.dst.0 as u64) << 16) | pkt.dport as u64;
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    let proto = pkt.protocol as u64;
    sim_core::rng::mix64(lo ^ sim_core::rng::mix64(hi ^ (proto << 56) ^ salt))
}

/// The ECMP salt of the switches of `tier` under the run's `seed`. Real
/// switches are configured with a hash seed; a run's seed stands for that
/// configuration. Switches of one tier share it, so that with candidates
/// ordered by neighbour id the two directions of a flow take mirrored paths.
pub fn ecmp_salt(seed: u64, tier: u8) -> u64 {
    sim_core::RngStream::new(seed, tier as u64, sim_core::rng::purpose::ECMP_SALT).next_u64()
}
