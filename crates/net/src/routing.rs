//! Shortest-path routing with ordered, symmetric ECMP.
//!
//! Every host has one cable; the switch at its other end is the host's
//! *edge switch*. A shortest path to a host is a shortest path to its edge
//! switch plus the last hop, so the table is kept per (switch, edge switch),
//! not per (node, host): it grows with switches x ToRs, not nodes x hosts
//! (a k = 48 fat-tree: 2,880 x 1,152 entries instead of 30,528 x 27,648).
//! Each entry lists the egress ports on a shortest path, ordered by the id of
//! the neighbour they lead to. Equal lists are stored once (a ToR's uplinks
//! serve every other ToR), so the lists a run reads stay few and in cache.
//! A flow picks among them with a hash of its 5-tuple that is symmetric in
//! (source, destination), salted by the switch's tier and the run's seed
//! ([`ecmp_salt`]): the data and the ACKs of one flow hash alike, and
//! because candidates are ordered by neighbour id, switches at the same tier
//! on the two paths pick matching positions.
//! Hosts never forward: paths do not transit them, nor a multi-plane
//! host's NIC node other than the path's own ends. A GPU's second cable,
//! to its server's scale-up switch, is outside the table: a GPU's edge
//! switch is its NIC's, and the scale-up switch, reached only from its
//! own GPUs, sends each packet down to its destination GPU.

use crate::ids::{HostId, NodeId, PortId};
use crate::packet::Packet;
use crate::topology::{NodeKind, TopologyError};
use std::collections::{BTreeMap, VecDeque};

/// Marks "none" in the index vectors.
const NONE: u32 = u32::MAX;

/// `edge_of_switch` of a GPU server's scale-up switch.
const SCALE_UP: u32 = u32::MAX - 1;

/// What [`RoutingTable::select`] answers where no path is left (links
/// failed and rerouted around leave some destinations unreachable).
pub const NO_ROUTE: PortId = PortId(u32::MAX);

/// Next hops from every switch towards every edge switch, and each host's
/// last hop.
#[derive(Debug, Default, Clone)]
pub struct RoutingTable {
    /// Per node: its index among the switches, or `NONE` for a host.
    switch_index: Vec<u32>,
    /// Per switch (by index): its index among the edge switches, or `NONE`.
    edge_of_switch: Vec<u32>,
    /// Per host: its edge switch's index among the edge switches, or `NONE`
    /// for a host cabled to another host (a two-host network).
    host_edge: Vec<u32>,
    /// Per host: its edge switch's port towards it.
    last_hop: Vec<PortId>,
    /// Per host: its scale-up switch's port towards it (a GPU's), or
    /// `NONE`; empty where no host is a GPU.
    scale_up_hop: Vec<PortId>,
    /// Edge switches.
    edges: usize,
    /// `(start, len)` into `ports`, indexed `switch index * edges + edge index`.
    spans: Vec<(u32, u32)>,
    /// The distinct next-hop lists, end to end.
    ports: Vec<PortId>,
}

impl RoutingTable {
    /// Builds the table. `adjacency[n]` lists `(egress port, neighbour)` of
    /// node `n`; `host_nodes[h]` is the node of host `h`, which has exactly
    /// one cable.
    pub fn build(
        kinds: &[NodeKind],
        adjacency: &[Vec<(PortId, NodeId)>],
        host_nodes: &[NodeId],
    ) -> Result<Self, TopologyError> {
        Self::build_over(kinds, adjacency, host_nodes, false)
    }

    /// [`RoutingTable::build`] over the links still up after failures:
    /// a switch cut off from a ToR gets an empty list (its packets for
    /// it are dropped as unroutable) instead of an error.
    pub fn build_degraded(
        kinds: &[NodeKind],
        adjacency: &[Vec<(PortId, NodeId)>],
        host_nodes: &[NodeId],
    ) -> Self {
        Self::build_over(kinds, adjacency, host_nodes, true)
            .expect("a degraded table allows unreachable destinations")
    }

    fn build_over(
        kinds: &[NodeKind],
        adjacency: &[Vec<(PortId, NodeId)>],
        host_nodes: &[NodeId],
        unreachable_ok: bool,
    ) -> Result<Self, TopologyError> {
        let g = Graph { kinds, adjacency };
        let (switch_nodes, switch_index) = g.switches();
        let ends = g.host_ends(host_nodes, &switch_nodes, &switch_index)?;
        let edges = ends.edge_nodes.len();
        let mut spans = vec![(0u32, 0u32); switch_nodes.len() * edges];
        let mut lists = Lists::default();
        let mut dist = vec![u32::MAX; kinds.len()];
        let mut hops: Vec<(NodeId, PortId)> = Vec::new();
        for (e, &t) in ends.edge_nodes.iter().enumerate() {
            g.distances_to(t, &mut dist);
            for (i, &x) in switch_nodes.iter().enumerate() {
                if ends.edge_of_switch[i] == SCALE_UP {
                    continue; // outside the table: it sends down to its GPUs
                }
                if dist[x.idx()] == u32::MAX {
                    if unreachable_ok {
                        continue; // an empty span: no route
                    }
                    let host = (ends.host_edge.iter())
                        .position(|&he| he == e as u32)
                        .unwrap_or(0);
                    return Err(TopologyError::Disconnected {
                        from: describe(kinds, x),
                        to: format!("host {host}"),
                    });
                }
                if x != t {
                    g.next_hops(x, t, &dist, &mut hops);
                    spans[i * edges + e] = lists.intern(hops.iter().map(|&(_, p)| p));
                }
            }
        }
        Ok(RoutingTable {
            switch_index,
            edge_of_switch: ends.edge_of_switch,
            host_edge: ends.host_edge,
            last_hop: ends.last_hop,
            scale_up_hop: ends.scale_up_hop,
            edges,
            spans,
            ports: lists.ports,
        })
    }

    /// The bytes a table for this many nodes, hosts, switches, edge
    /// switches and links holds, without building it: a span per (switch,
    /// edge switch); the distinct next-hop lists, at most a list per
    /// (switch, edge switch) of as many ports as the switch has links to
    /// other switches, and in the shapes dcnsim builds (stars, dumbbells,
    /// leaf-spine and fat-trees: a list of uplinks and a port per
    /// downlink) about twice a switch's degree per switch; and a few words
    /// per node and host.
    pub fn estimate_bytes(nodes: u64, hosts: u64, switches: u64, edges: u64, links: u64) -> u64 {
        let spans = switches.saturating_mul(edges).saturating_mul(8);
        let per_pair = edges.saturating_mul(switches.max(links.saturating_sub(hosts)));
        let per_switch = links.saturating_mul(4);
        let hops = per_pair.min(per_switch);
        let per_node = nodes
            .saturating_mul(8)
            .saturating_add(hosts.saturating_mul(8));
        spans
            .saturating_add(hops.saturating_mul(size_of::<PortId>() as u64))
            .saturating_add(per_node)
    }

    /// The ordered equal-cost egress ports from switch `node` towards host `dst`.
    #[inline(always)]
    pub fn next_hops(&self, node: NodeId, dst: HostId) -> &[PortId] {
        let sw = self.switch_index[node.idx()];
        debug_assert_ne!(sw, NONE, "{node} is a host: hosts do not route");
        let edge = self.host_edge[dst.idx()];
        let mine = self.edge_of_switch[sw as usize];
        if mine == edge {
            return std::slice::from_ref(&self.last_hop[dst.idx()]);
        }
        if mine == SCALE_UP {
            return self.scale_up_hop(dst);
        }
        self.row(sw as usize, edge as usize)
    }

    /// The egress port a packet takes at a switch whose ECMP salt is `salt`
    /// (always inlined: forwarding calls it on every hop, and prefetching
    /// ahead once more), or [`NO_ROUTE`].
    #[inline(always)]
    pub fn select(&self, node: NodeId, salt: u64, pkt: &Packet) -> PortId {
        let hops = self.next_hops(node, pkt.dst);
        if hops.len() == 1 {
            return hops[0];
        }
        if hops.is_empty() {
            return NO_ROUTE;
        }
        hops[(flow_hash(pkt, salt) % hops.len() as u64) as usize]
    }

    /// A scale-up switch's port down to GPU `dst` (only its own GPUs
    /// send through it).
    #[inline(never)]
    fn scale_up_hop(&self, dst: HostId) -> &[PortId] {
        let hop = &self.scale_up_hop[dst.idx()];
        debug_assert_ne!(*hop, PortId(NONE), "{dst} is no GPU");
        std::slice::from_ref(hop)
    }

    /// The index of host `dst`'s ToR among the ToRs (per-destination
    /// state of a path choice).
    #[inline]
    pub fn edge_index(&self, dst: HostId) -> usize {
        self.host_edge[dst.idx()] as usize
    }

    /// The number of ToRs (switches with hosts).
    pub fn edges(&self) -> usize {
        self.edges
    }

    /// Switch `node`'s rows that differ in `other` (a table of the same
    /// fabric over fewer links): `(ToR index, its list in other)`.
    pub fn rows_changed(&self, other: &RoutingTable, node: NodeId) -> Vec<(u32, Vec<PortId>)> {
        let sw = self.switch_index[node.idx()] as usize;
        (0..self.edges)
            .filter_map(|e| {
                let (a, b) = (self.row(sw, e), other.row(sw, e));
                (a != b).then(|| (e as u32, b.to_vec()))
            })
            .collect()
    }

    /// Replaces switch `node`'s rows by `rows` ([`RoutingTable::rows_changed`]):
    /// the switch's own routes after it detects a failure. The new lists
    /// are appended (a reroute is rare; the table never shrinks).
    pub fn patch(&mut self, node: NodeId, rows: &[(u32, Vec<PortId>)]) {
        let sw = self.switch_index[node.idx()] as usize;
        for (e, list) in rows {
            let start = u32::try_from(self.ports.len()).expect("next-hop lists fit u32");
            self.ports.extend_from_slice(list);
            self.spans[sw * self.edges + *e as usize] = (start, list.len() as u32);
        }
    }

    /// Switch `sw`'s (by index) list towards ToR `e`.
    #[inline(always)]
    fn row(&self, sw: usize, e: usize) -> &[PortId] {
        let (s, l) = self.spans[sw * self.edges + e];
        &self.ports[s as usize..(s + l) as usize]
    }
}

fn describe(kinds: &[NodeKind], n: NodeId) -> String {
    match kinds[n.idx()] {
        NodeKind::Host => format!("host node {}", n.0),
        NodeKind::Switch { .. } => format!("switch node {}", n.0),
    }
}

/// A hash of the 5-tuple that is the same for both directions of a flow,
/// under a switch's salt, with the packet's entropy value mixed in (UEC
/// 1.0's entropy field: a host that sprays gives each packet its own; 0,
/// every other host's, leaves the 5-tuple's hash as it was).
#[inline]
pub fn flow_hash(pkt: &Packet, salt: u64) -> u64 {
    let a = ((pkt.src.0 as u64) << 16) | pkt.sport as u64 | ((pkt.entropy as u64) << 48);
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

/// The topology as the table's build walks it.
struct Graph<'a> {
    kinds: &'a [NodeKind],
    adjacency: &'a [Vec<(PortId, NodeId)>],
}

/// Where the hosts hang: each switch's edge index (`NONE` for a switch
/// with no host, `SCALE_UP` for a scale-up switch), the edge switches in
/// order, each host's edge switch and its last hop (the edge switch's
/// port down to it), and each GPU's scale-up switch's port down to it.
struct HostEnds {
    edge_of_switch: Vec<u32>,
    edge_nodes: Vec<NodeId>,
    host_edge: Vec<u32>,
    last_hop: Vec<PortId>,
    scale_up_hop: Vec<PortId>,
}

impl Graph<'_> {
    fn is_switch(&self, n: NodeId) -> bool {
        self.kinds[n.idx()] != NodeKind::Host
    }

    fn is_nic(&self, n: NodeId) -> bool {
        self.kinds[n.idx()]
            == NodeKind::Switch {
                tier: crate::topology::NIC_TIER,
            }
    }

    /// The switches in node order, and each node's index among them
    /// (`NONE` for a host).
    fn switches(&self) -> (Vec<NodeId>, Vec<u32>) {
        let mut switch_nodes = Vec::new();
        let switch_index: Vec<u32> = (0..self.kinds.len())
            .map(|n| {
                if self.is_switch(NodeId(n as u32)) {
                    switch_nodes.push(NodeId(n as u32));
                    (switch_nodes.len() - 1) as u32
                } else {
                    NONE
                }
            })
            .collect();
        (switch_nodes, switch_index)
    }

    /// Where each host hangs; a host cabled to another host while there
    /// are switches is refused (the fabric has checked that every host
    /// has one cable).
    fn host_ends(
        &self,
        host_nodes: &[NodeId],
        switch_nodes: &[NodeId],
        switch_index: &[u32],
    ) -> Result<HostEnds, TopologyError> {
        // The switch port down to each host, from one pass over the
        // switches' cables: a search of the switch's cables per host was
        // quadratic in a large star (200k hosts: 9 s).
        let mut down_to = vec![PortId(NONE); self.kinds.len()];
        let mut scale_up_to = Vec::new();
        let mut ends = HostEnds {
            edge_of_switch: vec![NONE; switch_nodes.len()],
            edge_nodes: Vec::new(),
            host_edge: Vec::with_capacity(host_nodes.len()),
            last_hop: Vec::with_capacity(host_nodes.len()),
            scale_up_hop: Vec::new(),
        };
        for &s in switch_nodes {
            let down = if self.kinds[s.idx()].is_scale_up() {
                ends.edge_of_switch[switch_index[s.idx()] as usize] = SCALE_UP;
                if scale_up_to.is_empty() {
                    scale_up_to = vec![PortId(NONE); self.kinds.len()];
                }
                &mut scale_up_to
            } else {
                &mut down_to
            };
            for &(p, n) in &self.adjacency[s.idx()] {
                if !self.is_switch(n) && down[n.idx()] == PortId(NONE) {
                    down[n.idx()] = p;
                }
            }
        }
        if !scale_up_to.is_empty() {
            ends.scale_up_hop = host_nodes.iter().map(|n| scale_up_to[n.idx()]).collect();
        }
        for (h, &hn) in host_nodes.iter().enumerate() {
            let mut fabric = (self.adjacency[hn.idx()].iter())
                .filter(|&&(_, n)| !self.kinds[n.idx()].is_scale_up());
            let (Some(&(_, peer)), None) = (fabric.next(), fabric.next()) else {
                unreachable!("the fabric checks that a host has one cable into the fabric")
            };
            if !self.is_switch(peer) {
                if !switch_nodes.is_empty() {
                    return Err(TopologyError::Disconnected {
                        from: format!("host {h}"),
                        to: "any switch".into(),
                    });
                }
                ends.host_edge.push(NONE);
                ends.last_hop.push(PortId(NONE));
                continue;
            }
            let sw = switch_index[peer.idx()] as usize;
            if ends.edge_of_switch[sw] == NONE {
                ends.edge_of_switch[sw] = ends.edge_nodes.len() as u32;
                ends.edge_nodes.push(peer);
            }
            ends.host_edge.push(ends.edge_of_switch[sw]);
            let down = down_to[hn.idx()];
            assert!(down != PortId(NONE), "cables are two-way");
            ends.last_hop.push(down);
        }
        Ok(ends)
    }

    /// Breadth-first over the switches from edge switch `t`: `dist[x]`
    /// becomes the hops from `x` to `t` (`u32::MAX`: unreachable).
    fn distances_to(&self, t: NodeId, dist: &mut [u32]) {
        dist.fill(u32::MAX);
        dist[t.idx()] = 0;
        let mut frontier = VecDeque::from([t]);
        while let Some(x) = frontier.pop_front() {
            if x != t && self.is_nic(x) {
                continue; // a NIC forwards only its own host's packets
            }
            for &(_, y) in &self.adjacency[x.idx()] {
                if self.is_switch(y) && dist[y.idx()] == u32::MAX {
                    dist[y.idx()] = dist[x.idx()] + 1;
                    frontier.push_back(y);
                }
            }
        }
    }

    /// Switch `x`'s next hops towards edge switch `t` on a shortest path,
    /// as (neighbour, port), ordered by neighbour node id.
    fn next_hops(&self, x: NodeId, t: NodeId, dist: &[u32], hops: &mut Vec<(NodeId, PortId)>) {
        hops.clear();
        hops.extend(
            self.adjacency[x.idx()]
                .iter()
                .filter(|&&(_, y)| {
                    // A neighbour the search never reached (a plane cut
                    // off behind a NIC it may not transit) is no next hop.
                    self.is_switch(y)
                        && (y == t || !self.is_nic(y))
                        && dist[y.idx()].checked_add(1) == Some(dist[x.idx()])
                })
                .map(|&(p, y)| (y, p)),
        );
        hops.sort();
    }
}

/// The distinct next-hop lists, stored once each in `ports`.
#[derive(Default)]
struct Lists {
    ports: Vec<PortId>,
    list: Vec<PortId>,
    /// Where each distinct list starts in `ports` (offsets follow the
    /// build order; an ordered map keeps the simulation free of hashing).
    interned: BTreeMap<Vec<PortId>, u32>,
}

impl Lists {
    /// The span (start, length) of the list `hops`, stored if it is new.
    fn intern(&mut self, hops: impl Iterator<Item = PortId>) -> (u32, u32) {
        self.list.clear();
        self.list.extend(hops);
        let start = match self.interned.get(&self.list) {
            Some(&start) => start,
            None => {
                let start = u32::try_from(self.ports.len()).expect("next-hop lists fit u32");
                self.ports.extend_from_slice(&self.list);
                self.interned.insert(self.list.clone(), start);
                start
            }
        };
        (start, self.list.len() as u32)
    }
}
