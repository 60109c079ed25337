//! Topology graphs: nodes and cables, and the builders for the named shapes.
//!
//! A [`TopologyGraph`] is plain data: which nodes exist and which cables join
//! them, with each cable's rate and delay (the same in both directions).
//! Hosts are numbered in the order they are added; that number is the host
//! index scenarios use. Each host has one cable into the fabric (its NIC);
//! a GPU of a GPU server has a second, its NVLink to the server's
//! scale-up switch ([`TopologyGraph::gpu_servers`], [`SCALE_UP_TIER`]).
//!
//! Multipath shapes: `leaf_spine` (every leaf to every spine), `three_tier`
//! (pods of ToR and aggregation switches fully meshed, aggregation switch j
//! of every pod linked to its own group of cores), and `k_ary_fat_tree`
//! (the three-tier shape with k pods of k/2 + k/2 switches, (k/2)^2 cores
//! and k/2 hosts per ToR). Nodes are created hosts first, then switches tier
//! by tier, pod by pod, so equal-cost neighbours are ordered alike everywhere.
//!
//! ```text
//! star (N hosts, 1 switch)        dumbbell (L left, R right hosts)
//!   h0  h1 ... hN-1                 h0 ..hL-1            hL .. hL+R-1
//!    \   |    /                       \  |   bottleneck   |  /
//!       sw0                             sw0 ------------ sw1
//! ```

use crate::ids::NodeId;
use sim_core::{Bandwidth, SimDuration};

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// An end host with one NIC.
    Host,
    /// A switch; `tier` is 1 for ToR/leaf, 2 for aggregation/spine, 3 for core.
    /// ECMP salts its hash with the tier so that successive tiers choose
    /// independently while both directions of a flow choose alike. Tier
    /// [`NIC_TIER`] is a multi-plane host's NIC ([`TopologyGraph::planes`]).
    Switch {
        /// The layer of the switch in the fabric.
        tier: u8,
    },
}

/// The tier of a multi-plane host's NIC: a node between the host and one
/// ToR per plane that forwards each packet to a plane (by ECMP: per flow,
/// or per packet when the host sprays entropy values) and never drops,
/// marks or trims, as a host's NIC port does not. Routes never pass
/// through a NIC that is not their end.
pub const NIC_TIER: u8 = 0;

/// The tier of a GPU server's scale-up switch (an NVSwitch, NVIDIA's
/// "NVLink Switch System"): a node cabled only to its server's GPUs, each
/// GPU's second cable (its NVLink; see [`TopologyGraph::gpu_servers`]).
/// It forwards among those GPUs only, so no route of the fabric passes
/// through it, and its ports are lossless as a NIC's are: NVLink is
/// flow-controlled by credits, never dropping.
pub const SCALE_UP_TIER: u8 = u8::MAX;

impl NodeKind {
    /// Whether this node is a GPU server's scale-up switch ([`SCALE_UP_TIER`]).
    #[inline]
    pub fn is_scale_up(self) -> bool {
        self == NodeKind::Switch {
            tier: SCALE_UP_TIER,
        }
    }

    /// Whether this node's ports are a NIC's (no AQM, no drop, one
    /// class): a host's, a multi-plane host's NIC node's, a scale-up
    /// switch's.
    #[inline]
    pub fn has_nic_ports(self) -> bool {
        matches!(
            self,
            NodeKind::Host
                | NodeKind::Switch {
                    tier: NIC_TIER | SCALE_UP_TIER
                }
        )
    }
}

/// A rail-optimised cluster of GPU servers, as NVIDIA's DGX SuperPOD
/// reference architecture builds it (each of a server's NICs, a "rail",
/// cabled to its own leaf of the server's group, "scalable unit"; the
/// leaves to spines above) and as Meta's and Alibaba's training clusters
/// describe theirs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rails {
    /// GPU servers.
    pub servers: u32,
    /// GPUs (ranks) per server.
    pub gpus_per_server: u32,
    /// NICs per server, a divisor of `gpus_per_server`: GPU g uses NIC
    /// g / (gpus_per_server / rails).
    pub rails: u32,
    /// Servers per group (a leaf per rail per group); the last group may
    /// hold fewer.
    pub servers_per_group: u32,
    /// Spine switches, each linked to every leaf.
    pub spines: u32,
    /// A GPU's NVLink rate into its server's scale-up switch, per direction.
    pub nvlink_rate: Bandwidth,
    /// A GPU's NVLink delay to the scale-up switch.
    pub nvlink_delay: SimDuration,
    /// A NIC's rate.
    pub nic_rate: Bandwidth,
    /// Leaf-spine link rate.
    pub fabric_rate: Bandwidth,
    /// Delay of every NIC and leaf-spine link.
    pub link_delay: SimDuration,
}

/// A bidirectional cable: two unidirectional links of the same rate and delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cable {
    /// One end.
    pub a: NodeId,
    /// The other end.
    pub b: NodeId,
    /// Rate of each direction.
    pub rate: Bandwidth,
    /// Propagation delay of each direction.
    pub delay: SimDuration,
}

/// A topology that does not make a network.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TopologyError {
    /// Some host cannot reach some other host.
    #[error("the topology is disconnected: {from} cannot reach {to}")]
    Disconnected {
        /// A host.
        from: String,
        /// A node it cannot reach.
        to: String,
    },
    /// A host with no cable to the fabric, or with more than one besides
    /// a GPU's cable to its server's scale-up switch.
    #[error(
        "host {host} has {cables} cables; a host needs exactly one, and a GPU one more to its \
         server's scale-up switch"
    )]
    HostDegree {
        /// The host index.
        host: u32,
        /// How many cables it has.
        cables: usize,
    },
    /// A cable from a node to itself, or naming a node that does not exist.
    #[error("cable {index} is invalid: {why}")]
    BadCable {
        /// Index of the cable.
        index: usize,
        /// What is wrong.
        why: String,
    },
    /// No hosts at all.
    #[error("the topology has no hosts")]
    NoHosts,
    /// PFC's reserves and headroom leave a switch no shared buffer.
    #[error(
        "PFC at {node}: {ports} ports' headroom ({headroom_bytes} B) and reserves \
         ({reserve_bytes} B) leave nothing of its {buffer_bytes} B buffer to share"
    )]
    PfcBufferTooSmall {
        /// The switch.
        node: String,
        /// Its ports.
        ports: usize,
        /// Their headroom, summed.
        headroom_bytes: u64,
        /// Their reserves, summed.
        reserve_bytes: u64,
        /// The switch's buffer.
        buffer_bytes: u64,
    },
    /// PFC needs a switch buffer shared by all ports.
    #[error("PFC needs a shared switch buffer ([switch] shared_buffer), not per-port buffers")]
    PfcNeedsSharedBuffer,
}

/// Nodes and cables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopologyGraph {
    /// Every node, indexed by `NodeId`.
    pub nodes: Vec<NodeKind>,
    /// Every cable.
    pub cables: Vec<Cable>,
}

impl TopologyGraph {
    /// Adds a node and returns its id.
    pub fn add_node(&mut self, kind: NodeKind) -> NodeId {
        self.nodes.push(kind);
        NodeId(self.nodes.len() as u32 - 1)
    }

    /// Adds a cable between `a` and `b`.
    pub fn connect(&mut self, a: NodeId, b: NodeId, rate: Bandwidth, delay: SimDuration) {
        self.cables.push(Cable { a, b, rate, delay });
    }

    /// Adds `n` nodes of one kind and returns their ids, in order.
    pub fn add_nodes(&mut self, n: u32, kind: NodeKind) -> Vec<NodeId> {
        (0..n).map(|_| self.add_node(kind)).collect()
    }

    /// Cables `hosts` to `switches`, `per_switch` hosts each, in order.
    fn attach_hosts(
        &mut self,
        hosts: &[NodeId],
        switches: &[NodeId],
        per_switch: u32,
        rate: Bandwidth,
        delay: SimDuration,
    ) {
        for (i, h) in hosts.iter().enumerate() {
            self.connect(*h, switches[i / per_switch as usize], rate, delay);
        }
    }

    /// `n` parallel copies (planes) of this fabric's switches and the
    /// cables between them, each host joined to its ToR in every plane
    /// through a NIC node of its own ([`NIC_TIER`]): the host's one cable
    /// runs at `n` times its rate with no delay (the NIC's ports together),
    /// each NIC-to-ToR cable as the host's did. Node ids: hosts as before,
    /// then the NICs by host, then plane 0's switches, plane 1's, ...
    /// (in each, the single plane's order). One plane is the fabric as it is.
    pub fn planes(self, n: u32) -> TopologyGraph {
        if n <= 1 {
            return self;
        }
        let hosts: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i] == NodeKind::Host)
            .collect();
        let switches: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i] != NodeKind::Host)
            .collect();
        let mut g = TopologyGraph::default();
        let mut host_id = vec![NodeId(u32::MAX); self.nodes.len()];
        for &h in &hosts {
            host_id[h] = g.add_node(NodeKind::Host);
        }
        let mut nic = vec![NodeId(u32::MAX); self.nodes.len()];
        for &h in &hosts {
            nic[h] = g.add_node(NodeKind::Switch { tier: NIC_TIER });
        }
        let mut in_plane = vec![vec![NodeId(u32::MAX); self.nodes.len()]; n as usize];
        for plane in in_plane.iter_mut() {
            for &s in &switches {
                plane[s] = g.add_node(self.nodes[s]);
            }
        }
        let is_host = |x: NodeId| self.nodes[x.idx()] == NodeKind::Host;
        for c in &self.cables {
            match (is_host(c.a), is_host(c.b)) {
                (true, true) => g.connect(host_id[c.a.idx()], host_id[c.b.idx()], c.rate, c.delay),
                (false, false) => {
                    for plane in &in_plane {
                        g.connect(plane[c.a.idx()], plane[c.b.idx()], c.rate, c.delay);
                    }
                }
                (host_a, _) => {
                    let (h, s) = if host_a { (c.a, c.b) } else { (c.b, c.a) };
                    let rate = Bandwidth::from_bps(c.rate.bps().saturating_mul(n as u64));
                    g.connect(host_id[h.idx()], nic[h.idx()], rate, SimDuration::ZERO);
                    for plane in &in_plane {
                        g.connect(nic[h.idx()], plane[s.idx()], c.rate, c.delay);
                    }
                }
            }
        }
        g
    }

    /// These hosts as the GPUs of servers of `gpus` each (hosts
    /// `s x gpus .. (s + 1) x gpus - 1` are server `s`'s), each server's
    /// GPUs joined by a scale-up switch of its own ([`SCALE_UP_TIER`]):
    /// a second cable per GPU, its NVLink, at `rate` (per GPU and
    /// direction) with `delay`. The switches follow every other node,
    /// server by server. The host count must be a multiple of `gpus`;
    /// one GPU per server is the fabric as it is.
    pub fn gpu_servers(mut self, gpus: u32, rate: Bandwidth, delay: SimDuration) -> TopologyGraph {
        if gpus <= 1 {
            return self;
        }
        let hosts: Vec<NodeId> = (0..self.nodes.len() as u32)
            .map(NodeId)
            .filter(|&n| self.nodes[n.idx()] == NodeKind::Host)
            .collect();
        assert!(
            hosts.len().is_multiple_of(gpus as usize),
            "{} hosts are not servers of {gpus} GPUs",
            hosts.len()
        );
        for server in hosts.chunks(gpus as usize) {
            let nvswitch = self.add_node(NodeKind::Switch {
                tier: SCALE_UP_TIER,
            });
            for &gpu in server {
                self.connect(gpu, nvswitch, rate, delay);
            }
        }
        self
    }

    /// A rail-optimised cluster ([`Rails`]): rail r of every server of
    /// group k cabled to leaf (k, r), every leaf to every spine, each
    /// server's GPUs joined by its scale-up switch. Node ids: the GPUs
    /// server by server (host = server x G + GPU); where a NIC serves
    /// several GPUs (`rails` < G), the NICs server by server in rail
    /// order ([`NIC_TIER`]); the leaves group by group in rail order; the
    /// spines; the scale-up switches server by server.
    pub fn rail_optimised(r: &Rails) -> TopologyGraph {
        let mut g = TopologyGraph::default();
        let gpus = g.add_nodes(r.servers * r.gpus_per_server, NodeKind::Host);
        let shared = r.rails < r.gpus_per_server;
        let nics = if shared {
            g.add_nodes(r.servers * r.rails, NodeKind::Switch { tier: NIC_TIER })
        } else {
            Vec::new()
        };
        let groups = r.servers.div_ceil(r.servers_per_group);
        let leaves = g.add_nodes(groups * r.rails, NodeKind::Switch { tier: 1 });
        let spines = g.add_nodes(r.spines, NodeKind::Switch { tier: 2 });
        let per_nic = r.gpus_per_server / r.rails;
        for s in 0..r.servers {
            let group = s / r.servers_per_group;
            for rail in 0..r.rails {
                let leaf = leaves[(group * r.rails + rail) as usize];
                let first = s * r.gpus_per_server + rail * per_nic;
                if shared {
                    // Each GPU reaches its NIC over PCIe at the NIC's rate
                    // with no delay, so that the GPUs sharing it share its rate.
                    let nic = nics[(s * r.rails + rail) as usize];
                    for gpu in first..first + per_nic {
                        g.connect(gpus[gpu as usize], nic, r.nic_rate, SimDuration::ZERO);
                    }
                    g.connect(nic, leaf, r.nic_rate, r.link_delay);
                } else {
                    g.connect(gpus[first as usize], leaf, r.nic_rate, r.link_delay);
                }
            }
        }
        for &l in &leaves {
            for &s in &spines {
                g.connect(l, s, r.fabric_rate, r.link_delay);
            }
        }
        g.gpu_servers(r.gpus_per_server, r.nvlink_rate, r.nvlink_delay)
    }

    /// The number of hosts.
    pub fn host_count(&self) -> usize {
        self.nodes.iter().filter(|k| **k == NodeKind::Host).count()
    }

    /// `n` hosts on one switch.
    pub fn star(n: u32, rate: Bandwidth, delay: SimDuration) -> Self {
        let mut g = TopologyGraph::default();
        let hosts: Vec<NodeId> = g.add_nodes(n, NodeKind::Host);
        let sw = g.add_node(NodeKind::Switch { tier: 1 });
        g.attach_hosts(&hosts, &[sw], n.max(1), rate, delay);
        g
    }

    /// `left` hosts on one switch, `right` hosts on another, the two switches
    /// joined by one bottleneck cable. Hosts 0..left are on the left.
    pub fn dumbbell(
        left: u32,
        right: u32,
        host_rate: Bandwidth,
        host_delay: SimDuration,
        bottleneck_rate: Bandwidth,
        bottleneck_delay: SimDuration,
    ) -> Self {
        let mut g = TopologyGraph::default();
        let l: Vec<NodeId> = g.add_nodes(left, NodeKind::Host);
        let r: Vec<NodeId> = g.add_nodes(right, NodeKind::Host);
        let s0 = g.add_node(NodeKind::Switch { tier: 1 });
        let s1 = g.add_node(NodeKind::Switch { tier: 1 });
        g.attach_hosts(&l, &[s0], left.max(1), host_rate, host_delay);
        g.attach_hosts(&r, &[s1], right.max(1), host_rate, host_delay);
        g.connect(s0, s1, bottleneck_rate, bottleneck_delay);
        g
    }

    /// `leaves` leaf switches with `hosts_per_leaf` hosts each, every leaf
    /// linked to every one of `spines` spines (MQ-ECN 5.2 uses 12 x 12, 144 hosts).
    /// Hosts are numbered leaf by leaf.
    pub fn leaf_spine(
        leaves: u32,
        spines: u32,
        hosts_per_leaf: u32,
        host_rate: Bandwidth,
        fabric_rate: Bandwidth,
        delay: SimDuration,
    ) -> Self {
        let mut g = TopologyGraph::default();
        let hosts: Vec<NodeId> = g.add_nodes(leaves * hosts_per_leaf, NodeKind::Host);
        let leaf: Vec<NodeId> = g.add_nodes(leaves, NodeKind::Switch { tier: 1 });
        let spine: Vec<NodeId> = g.add_nodes(spines, NodeKind::Switch { tier: 2 });
        g.attach_hosts(&hosts, &leaf, hosts_per_leaf, host_rate, delay);
        for &l in &leaf {
            for &s in &spine {
                g.connect(l, s, fabric_rate, delay);
            }
        }
        g
    }

    /// A three-tier fat-tree: `pods` pods of `tors` ToR and `aggs` aggregation
    /// switches, fully meshed inside the pod; aggregation switch j of every
    /// pod links to cores `j x cores/aggs .. (j + 1) x cores/aggs - 1`;
    /// `hosts_per_tor` hosts per ToR, numbered ToR by ToR. Non-blocking when
    /// the fabric rate makes up for the fan-in (R-AQM's and RCC's 320-host
    /// tree: 5 pods of 4 + 4, 16 cores, 16 hosts per ToR, 10/40 Gb/s).
    /// `cores` must be a multiple of `aggs`.
    #[allow(clippy::too_many_arguments)]
    pub fn three_tier(
        pods: u32,
        tors: u32,
        aggs: u32,
        cores: u32,
        hosts_per_tor: u32,
        host_rate: Bandwidth,
        fabric_rate: Bandwidth,
        delay: SimDuration,
    ) -> Self {
        assert!(
            aggs > 0 && cores.is_multiple_of(aggs),
            "cores must be a multiple of aggs"
        );
        let mut g = TopologyGraph::default();
        let hosts: Vec<NodeId> = g.add_nodes(pods * tors * hosts_per_tor, NodeKind::Host);
        let tor: Vec<NodeId> = g.add_nodes(pods * tors, NodeKind::Switch { tier: 1 });
        let agg: Vec<NodeId> = g.add_nodes(pods * aggs, NodeKind::Switch { tier: 2 });
        let core: Vec<NodeId> = g.add_nodes(cores, NodeKind::Switch { tier: 3 });
        g.attach_hosts(&hosts, &tor, hosts_per_tor, host_rate, delay);
        let per_agg = cores / aggs;
        for p in 0..pods {
            for t in 0..tors {
                for a in 0..aggs {
                    g.connect(
                        tor[(p * tors + t) as usize],
                        agg[(p * aggs + a) as usize],
                        fabric_rate,
                        delay,
                    );
                }
            }
            for a in 0..aggs {
                for c in 0..per_agg {
                    g.connect(
                        agg[(p * aggs + a) as usize],
                        core[(a * per_agg + c) as usize],
                        fabric_rate,
                        delay,
                    );
                }
            }
        }
        g
    }

    /// The k-ary fat-tree (Al-Fares et al. 2008): k pods of k/2 edge and k/2
    /// aggregation switches, (k/2)^2 cores, k/2 hosts per edge switch (k^3/4
    /// hosts). `k` must be even.
    pub fn k_ary_fat_tree(k: u32, rate: Bandwidth, delay: SimDuration) -> Self {
        assert!(k >= 2 && k.is_multiple_of(2), "k must be even");
        let h = k / 2;
        Self::three_tier(k, h, h, h * h, h, rate, rate, delay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rails(rails: u32) -> Rails {
        Rails {
            servers: 3,
            gpus_per_server: 4,
            rails,
            servers_per_group: 2,
            spines: 2,
            nvlink_rate: Bandwidth::from_gbps(900),
            nvlink_delay: SimDuration::from_ns(100),
            nic_rate: Bandwidth::from_gbps(400),
            fabric_rate: Bandwidth::from_gbps(400),
            link_delay: SimDuration::from_ns(500),
        }
    }

    /// The neighbours of node `n`, in cable order.
    fn neighbours(g: &TopologyGraph, n: u32) -> Vec<u32> {
        (g.cables.iter())
            .filter_map(|c| match (c.a.0, c.b.0) {
                (a, b) if a == n => Some(b),
                (a, b) if b == n => Some(a),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_rail_optimised_fabric_cables_rail_r_of_a_group_to_its_leaf_r() {
        // 3 servers of 4 GPUs in groups of 2 (the last alone): GPUs 0-11,
        // leaves 12-19 (group 0's rails 0-3, group 1's), spines 20-21,
        // NVSwitches 22-24.
        let g = TopologyGraph::rail_optimised(&rails(4));
        assert_eq!(g.nodes.len(), 12 + 8 + 2 + 3);
        assert_eq!(
            neighbours(&g, 1),
            [13, 22],
            "GPU 1: rail 1 of group 0, NVSwitch 0"
        );
        assert_eq!(
            neighbours(&g, 5),
            [13, 23],
            "GPU 1 of server 1: the same leaf"
        );
        assert_eq!(
            neighbours(&g, 9),
            [17, 24],
            "GPU 1 of server 2: group 1's rail 1"
        );
        assert_eq!(neighbours(&g, 22), [0, 1, 2, 3]);
        assert!(g.nodes[22].is_scale_up() && g.nodes[22].has_nic_ports());
        // Every leaf to every spine, at the fabric's rate.
        assert_eq!(neighbours(&g, 20), (12..20).collect::<Vec<_>>());
    }

    #[test]
    fn gpus_that_share_a_nic_reach_it_through_a_nic_node() {
        // 2 NICs per server: GPUs 0-1 share NIC node 12, 2-3 NIC node 13.
        let g = TopologyGraph::rail_optimised(&rails(2));
        assert_eq!(g.nodes[12], NodeKind::Switch { tier: NIC_TIER });
        assert_eq!(neighbours(&g, 12)[..2], [0, 1]);
        let leaf = neighbours(&g, 12)[2];
        assert_eq!(g.nodes[leaf as usize], NodeKind::Switch { tier: 1 });
        let up = g
            .cables
            .iter()
            .find(|c| c.a.0 == 0 && c.b.0 == 12)
            .expect("GPU 0 to its NIC");
        assert_eq!(
            (up.rate, up.delay),
            (Bandwidth::from_gbps(400), SimDuration::ZERO)
        );
    }

    #[test]
    fn gpu_servers_join_each_run_of_hosts_by_a_scale_up_switch() {
        let g = TopologyGraph::leaf_spine(
            2,
            1,
            4,
            Bandwidth::from_gbps(100),
            Bandwidth::from_gbps(100),
            SimDuration::from_us(1),
        );
        let nodes = g.nodes.len() as u32;
        let g = g.gpu_servers(2, Bandwidth::from_gbps(900), SimDuration::from_ns(100));
        assert_eq!(g.nodes.len() as u32, nodes + 4);
        assert_eq!(neighbours(&g, nodes), [0, 1]);
        assert_eq!(neighbours(&g, nodes + 3), [6, 7]);
        assert_eq!(
            neighbours(&g, 2),
            [8, nodes + 1],
            "host 2: its leaf, then its NVLink"
        );
    }
}
