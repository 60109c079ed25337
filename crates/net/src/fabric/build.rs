//! Building the fabric from a topology graph, in steps: its hosts, a port
//! at each end of every cable, the hosts' NIC ports, each node's path
//! choice, the routes and the failure plan. [`Fabric::new`] reads as the
//! list of them.

use super::{Fabric, FabricConfig, Node, cable_ports, cut_stage, fault_stage, trim_stage};
use crate::LinkFault;
use crate::aqm::EgressAqm;
use crate::buffer::{BufferPolicy, SharedBuffer};
use crate::ids::{NodeId, PortId};
use crate::ingress::Ingress;
use crate::int::IntTable;
use crate::packet::PacketArena;
use crate::path_choice::{PathChoice, SwitchPaths};
use crate::port::{ClassQueues, ClassStats, Port, PortStats};
use crate::routing::RoutingTable;
use crate::sched::{Discipline, Scheduler as SchedState};
use crate::topology::{Cable, NIC_TIER, NodeKind, TopologyError, TopologyGraph};
use sim_core::{Bandwidth, QueueSize};

/// Each node's cables: (its port, the node at the far end), in cable order.
type Adjacency = Vec<Vec<(PortId, NodeId)>>;

impl Fabric {
    /// Builds the fabric for `graph`. `aqm_for` gives the AQM plugin of each
    /// switch egress port from its id, its switch and its link rate
    /// (called once per port, in port order).
    pub fn new(
        graph: &TopologyGraph,
        config: FabricConfig,
        aqm_for: impl FnMut(PortId, NodeId, Bandwidth) -> Option<Box<dyn EgressAqm>>,
    ) -> Result<Fabric, TopologyError> {
        let n = graph.nodes.len();
        let (host_nodes, host_of_node) = hosts(graph)?;
        let (ports, adjacency) = cable_ends(graph, &config, aqm_for)?;
        let host_ports = nic_ports(&host_nodes, &adjacency)?;
        let headers = trim_stage::Headers::new(ports.len(), config.header_queue().is_some());
        let routes = RoutingTable::build(&graph.nodes, &adjacency, &host_nodes)?;
        let nodes = node_states(graph, &config);
        let paths = path_states(&nodes, &config, routes.edges(), &adjacency);
        // Every NIC has a cable to its host and one per plane.
        let planes = (0..n)
            .find(|&i| graph.nodes[i] == NodeKind::Switch { tier: NIC_TIER })
            .map_or(1, |i| adjacency[i].len() as u32 - 1);
        let faults = fault_stage::Faults::prepare(
            &config.faults,
            &ports,
            |p| {
                let at_switch = ports[p.idx()].at_switch;
                (
                    graph.cables[p.idx() / 2].rate,
                    port_buffer(at_switch, &config.buffer),
                )
            },
            &graph.nodes,
            &adjacency,
            &host_nodes,
            &routes,
        );
        let shared_bytes = match config.buffer {
            BufferPolicy::Shared { bytes, .. } => bytes,
            BufferPolicy::PerPort(_) => 0,
        };
        let mut fabric = Fabric {
            packets: PacketArena::with_capacity(4096),
            int: IntTable::default(),
            ports,
            nodes,
            host_nodes,
            host_of_node,
            host_ports,
            planes,
            routes_before: faults.reroutes().then(|| Box::new(routes.clone())),
            routes,
            config,
            shared: vec![SharedBuffer::new(shared_bytes); n],
            pool: vec![(0, 0); n],
            hops: 0,
            observer: None,
            cut: cut_stage::Outboxes::default(),
            paths,
            faults,
            headers,
        };
        fabric.mark_failing();
        fabric.pfc_setup()?;
        Ok(fabric)
    }
}

/// The hosts' nodes in node order, and each node's host index
/// (`u32::MAX` for a switch); a graph without hosts is refused.
fn hosts(graph: &TopologyGraph) -> Result<(Vec<NodeId>, Vec<u32>), TopologyError> {
    let n = graph.nodes.len();
    let host_nodes: Vec<NodeId> = (0..n)
        .filter(|&i| graph.nodes[i] == NodeKind::Host)
        .map(|i| NodeId(i as u32))
        .collect();
    if host_nodes.is_empty() {
        return Err(TopologyError::NoHosts);
    }
    let mut host_of_node = vec![u32::MAX; n];
    for (h, node) in host_nodes.iter().enumerate() {
        host_of_node[node.idx()] = h as u32;
    }
    Ok((host_nodes, host_of_node))
}

/// A port at each end of every cable (cable i's are ports 2i and 2i + 1),
/// and each node's cables; a cable that joins a node to itself or to a
/// node that does not exist is refused.
fn cable_ends(
    graph: &TopologyGraph,
    config: &FabricConfig,
    mut aqm_for: impl FnMut(PortId, NodeId, Bandwidth) -> Option<Box<dyn EgressAqm>>,
) -> Result<(Vec<Port>, Adjacency), TopologyError> {
    let n = graph.nodes.len();
    let mut adjacency: Adjacency = vec![Vec::new(); n];
    let mut ports = Vec::with_capacity(graph.cables.len() * 2);
    for (i, c) in graph.cables.iter().enumerate() {
        if c.a.idx() >= n || c.b.idx() >= n || c.a == c.b {
            let why = format!("joins {} and {} in a graph of {n} nodes", c.a, c.b);
            return Err(TopologyError::BadCable { index: i, why });
        }
        let (pa, pb) = cable_ports(i);
        debug_assert_eq!(pa.idx(), ports.len());
        for (node, peer, peer_node) in [(c.a, pb, c.b), (c.b, pa, c.a)] {
            let me = PortId(ports.len() as u32);
            ports.push(cable_end(
                graph,
                config,
                i,
                c,
                (node, peer, peer_node),
                |rate| aqm_for(me, node, rate),
            ));
        }
        adjacency[c.a.idx()].push((pa, c.b));
        adjacency[c.b.idx()].push((pb, c.a));
    }
    debug_assert!(ports.len() == 2 * graph.cables.len());
    Ok((ports, adjacency))
}

/// The port of `node` at one end of cable `i`, towards `peer` on
/// `peer_node`; `aqm_for` gives a switch port's AQM from its rate.
fn cable_end(
    graph: &TopologyGraph,
    config: &FabricConfig,
    i: usize,
    c: &Cable,
    (node, peer, peer_node): (NodeId, PortId, NodeId),
    aqm_for: impl FnOnce(Bandwidth) -> Option<Box<dyn EgressAqm>>,
) -> Port {
    // A multi-plane host's NIC node forwards, but its ports are a NIC's:
    // no AQM, no drop, one class (NodeKind's NIC_TIER).
    let is_switch = !matches!(
        graph.nodes[node.idx()],
        NodeKind::Host | NodeKind::Switch { tier: NIC_TIER }
    );
    // Under PFC a NIC has a queue per class, so that a paused priority
    // does not stop the others.
    let per_class = is_switch || config.pfc.is_some();
    let classes = if per_class { config.classes } else { 1 };
    let buffer = port_buffer(is_switch, &config.buffer);
    let (rate, buffer) = match LinkFault::at_start(&config.faults, i, node) {
        Some((x, scales)) => LinkFault::degraded(c.rate, buffer, x, scales && is_switch),
        None => (c.rate, buffer),
    };
    Port {
        node,
        at_switch: is_switch,
        peer,
        peer_node,
        rate,
        delay: c.delay,
        buffer,
        aqm: if is_switch { aqm_for(rate) } else { None },
        queues: ClassQueues::new(classes),
        sched: if is_switch {
            SchedState::new(config.discipline.clone(), classes)
        } else if classes > 1 {
            SchedState::new(Discipline::StrictPriority, classes)
        } else {
            SchedState::fifo()
        },
        bytes: 0,
        packets: 0,
        // One class: the port's own counters are the class's, and a hop
        // need not touch a second copy.
        class_stats: match classes {
            1 => Vec::new(),
            n => vec![ClassStats::default(); n],
        },
        busy: false,
        hooked: false,
        pfc_attention: 0,
        paused_classes: 0,
        pfc: None,
        credit: config
            .credits
            .map(|cfg| Box::new(crate::credit::CreditQueue::new(&cfg, c.rate))),
        in_flight: Default::default(),
        stats: PortStats::default(),
        ingress: Ingress::default(),
    }
}

/// A port's buffer limit: a switch port's own under a per-port policy;
/// unbounded at a NIC (which never drops) and under a shared buffer
/// (admitted at the switch level).
fn port_buffer(at_switch: bool, policy: &BufferPolicy) -> QueueSize {
    match (at_switch, policy) {
        (true, BufferPolicy::PerPort(limit)) => *limit,
        _ => QueueSize::Bytes(u64::MAX),
    }
}

/// Each host's one NIC port, by host; a host with other than one cable is
/// refused.
fn nic_ports(host_nodes: &[NodeId], adjacency: &Adjacency) -> Result<Vec<PortId>, TopologyError> {
    (host_nodes.iter().enumerate())
        .map(|(h, hn)| match adjacency[hn.idx()].as_slice() {
            [(p, _)] => Ok(*p),
            other => Err(TopologyError::HostDegree {
                host: h as u32,
                cables: other.len(),
            }),
        })
        .collect()
}

/// Each node's forwarding state: its path choice and ECMP salt.
fn node_states(graph: &TopologyGraph, config: &FabricConfig) -> Vec<Node> {
    (graph.nodes.iter())
        .map(|&kind| match kind {
            NodeKind::Switch { tier } => Node {
                kind,
                // A NIC picks its plane by the ECMP hash (per flow, or
                // per packet when its host sprays entropy values).
                choice: if tier == NIC_TIER {
                    PathChoice::Ecmp
                } else {
                    config.paths.choice(tier)
                },
                ecmp_salt: crate::routing::ecmp_salt(config.seed, tier),
            },
            NodeKind::Host => Node {
                kind,
                choice: PathChoice::Ecmp,
                ecmp_salt: 0,
            },
        })
        .collect()
}

/// The path-choice state of each switch that does not use plain ECMP
/// (none at all when every switch does), each with its own random stream.
fn path_states(
    nodes: &[Node],
    config: &FabricConfig,
    edges: usize,
    adjacency: &[Vec<(PortId, NodeId)>],
) -> Vec<Option<Box<SwitchPaths>>> {
    if config.paths.all_ecmp() {
        return Vec::new();
    }
    let purpose = sim_core::rng::purpose::PATH_CHOICE;
    (nodes.iter().enumerate())
        .map(|(n, node)| {
            let ecmp = node.choice == PathChoice::Ecmp || node.kind == NodeKind::Host;
            (!ecmp).then(|| {
                let rng = sim_core::RngStream::new(config.seed, n as u64, purpose);
                let own: Vec<PortId> = adjacency[n].iter().map(|&(p, _)| p).collect();
                Box::new(SwitchPaths::new(
                    node.choice,
                    rng,
                    edges,
                    &config.paths,
                    &own,
                ))
            })
        })
        .collect()
}
