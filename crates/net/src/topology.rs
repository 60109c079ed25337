//! Topology graphs: nodes and cables, and the builders for the named shapes.
//!
//! A [`TopologyGraph`] is plain data: which nodes exist and which cables join
//! them, with each cable's rate and delay (the same in both directions).
//! Hosts are numbered in the order they are added; that number is the host
//! index scenarios use. Each host has exactly one cable (its NIC).
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
    /// independently while both directions of a flow choose alike.
    Switch {
        /// The layer of the switch in the fabric.
        tier: u8,
    },
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
    /// A host with zero or several cables.
    #[error("host {host} has {cables} cables; a host needs exactly one")]
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

    /// The number of hosts.
    pub fn host_count(&self) -> usize {
        self.nodes.iter().filter(|k| **k == NodeKind::Host).count()
    }

    /// `n` hosts on one switch.
    pub fn star(n: u32, rate: Bandwidth, delay: SimDuration) -> Self {
        let mut g = TopologyGraph::default();
        let hosts: Vec<NodeId> = (0..n).map(|_| g.add_node(NodeKind::Host)).collect();
        let sw = g.add_node(NodeKind::Switch { tier: 1 });
        for h in hosts {
            g.connect(h, sw, rate, delay);
        }
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
        let l: Vec<NodeId> = (0..left).map(|_| g.add_node(NodeKind::Host)).collect();
        let r: Vec<NodeId> = (0..right).map(|_| g.add_node(NodeKind::Host)).collect();
        let s0 = g.add_node(NodeKind::Switch { tier: 1 });
        let s1 = g.add_node(NodeKind::Switch { tier: 1 });
        for h in l {
            g.connect(h, s0, host_rate, host_delay);
        }
        for h in r {
            g.connect(h, s1, host_rate, host_delay);
        }
        g.connect(s0, s1, bottleneck_rate, bottleneck_delay);
        g
    }
}
