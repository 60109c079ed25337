//! Building the fabric from a topology graph, in steps: its hosts, a port
//! at each end of every cable, the hosts' NIC ports, each node's path
//! choice, the routes and the failure plan. [`Fabric::new`] reads as the
//! list of them.

use super::ports::{PortFacts, Ports};
use super::{Fabric, FabricConfig, Node, cable_ports, cut_stage, fault_stage, trim_stage};
use crate::LinkFault;
use crate::aqm::EgressAqm;
use crate::buffer::{BufferPolicy, SharedBuffer};
use crate::ids::{NodeId, PortId};
use crate::ingress::Ingress;
use crate::int::IntTable;
use crate::packet::{NO_PORT, PacketArena};
use crate::partition::Partition;
use crate::path_choice::{PathChoice, SwitchPaths};
use crate::port::{ClassQueues, ClassStats, Port, PortStats};
use crate::routing::RoutingTable;
use crate::sched::{Discipline, Scheduler as SchedState};
use crate::topology::{Cable, NIC_TIER, NodeKind, TopologyError, TopologyGraph};
use sim_core::{Bandwidth, QueueSize};
use std::sync::Arc;

/// What every LP's copy of one cut fabric reads and none changes, built
/// once and shared: the routes and every port's facts.
pub struct Shared {
    routes: Arc<RoutingTable>,
    facts: Arc<[PortFacts]>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("ports", &self.facts.len())
            .finish_non_exhaustive()
    }
}

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
        Self::new_share(graph, config, None, aqm_for)
    }

    /// What every LP's copy of the fabric for `graph` under `config`
    /// shares ([`Fabric::new_lp`]), built once.
    pub fn shared(graph: &TopologyGraph, config: &FabricConfig) -> Result<Shared, TopologyError> {
        let (host_nodes, _) = hosts(graph)?;
        let (ports, adjacency) = cable_ends(graph, config, Held::None, |_, _, _| None)?;
        Ok(Shared {
            routes: Arc::new(RoutingTable::build(&graph.nodes, &adjacency, &host_nodes)?),
            facts: ports.facts_arc(),
        })
    }

    /// Builds LP `me`'s copy of the fabric for `graph` cut by `cut`: it
    /// holds its own nodes' ports only (`fabric::ports`), and `aqm_for` is
    /// called for those; the routes and the ports' facts are `shared`'s.
    pub fn new_lp(
        graph: &TopologyGraph,
        config: FabricConfig,
        (cut, me): (&Partition, u32),
        shared: &Shared,
        aqm_for: impl FnMut(PortId, NodeId, Bandwidth) -> Option<Box<dyn EgressAqm>>,
    ) -> Result<Fabric, TopologyError> {
        Self::new_share(graph, config, Some((cut, me, shared)), aqm_for)
    }

    /// Builds the whole fabric, or (with a cut, an LP and what the LPs
    /// share) that LP's share.
    fn new_share(
        graph: &TopologyGraph,
        config: FabricConfig,
        share: Option<(&Partition, u32, &Shared)>,
        aqm_for: impl FnMut(PortId, NodeId, Bandwidth) -> Option<Box<dyn EgressAqm>>,
    ) -> Result<Fabric, TopologyError> {
        let n = graph.nodes.len();
        let (host_nodes, host_of_node) = hosts(graph)?;
        let held = share.map_or(Held::All, |(cut, me, shared)| Held::Lp(cut, me, shared));
        let (ports, adjacency) = cable_ends(graph, &config, held, aqm_for)?;
        let host_ports = nic_ports(graph, &host_nodes, &adjacency)?;
        let headers = trim_stage::Headers::new(ports.len(), config.header_queue().is_some());
        let routes = match share {
            Some((_, _, shared)) => Arc::clone(&shared.routes),
            None => Arc::new(RoutingTable::build(&graph.nodes, &adjacency, &host_nodes)?),
        };
        let nodes = node_states(graph, &config);
        let paths = path_states(&nodes, &config, routes.edges(), &adjacency);
        let planes = planes(graph, &adjacency);
        let faults = fault_stage::Faults::prepare(
            &config.faults,
            &ports,
            |p| {
                let at_switch = ports.facts(p).at_switch;
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
            host_ports: host_ports.nic,
            scale_up_ports: host_ports.scale_up,
            scale_up_domain: host_ports.domain,
            planes,
            routes_before: faults.reroutes().then(|| Arc::clone(&routes)),
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

/// Which ports a build holds.
#[derive(Clone, Copy)]
enum Held<'a> {
    /// Every port: a whole fabric.
    All,
    /// LP `me`'s of a cut, with the facts every LP shares.
    Lp(&'a Partition, u32, &'a Shared),
    /// None: the facts alone, for what the LPs share.
    None,
}

/// A port at each end of every cable (cable i's are ports 2i and 2i + 1)
/// held where `share` says, and each node's cables; a cable that joins a
/// node to itself or to a node that does not exist is refused.
fn cable_ends(
    graph: &TopologyGraph,
    config: &FabricConfig,
    share: Held<'_>,
    mut aqm_for: impl FnMut(PortId, NodeId, Bandwidth) -> Option<Box<dyn EgressAqm>>,
) -> Result<(Ports, Adjacency), TopologyError> {
    let n = graph.nodes.len();
    let mut adjacency: Adjacency = vec![Vec::new(); n];
    let ports = graph.cables.len() * 2;
    // An LP reads the shared facts; a build of its own keeps them.
    let shared = match share {
        Held::Lp(cut, _, shared) => {
            assert_eq!(cut.port_slot.len(), ports, "the cut of this graph");
            assert_eq!(shared.facts.len(), ports, "the facts of this graph");
            Some(shared)
        }
        Held::All | Held::None => None,
    };
    let mut facts = Vec::with_capacity(if shared.is_some() { 0 } else { ports });
    let holds = |node: NodeId| match share {
        Held::All => true,
        Held::Lp(cut, me, _) => cut.lp(node) == me,
        Held::None => false,
    };
    // Room for exactly the held ports: a `Port` is several cache lines.
    let ends = graph.cables.iter().flat_map(|c| [c.a, c.b]);
    let held = ends
        .filter(|&n| n.idx() < graph.nodes.len() && holds(n))
        .count();
    let (mut own, mut ids) = (Vec::with_capacity(held), Vec::with_capacity(held));
    for (i, c) in graph.cables.iter().enumerate() {
        if c.a.idx() >= n || c.b.idx() >= n || c.a == c.b {
            let why = format!("joins {} and {} in a graph of {n} nodes", c.a, c.b);
            return Err(TopologyError::BadCable { index: i, why });
        }
        let (pa, pb) = cable_ports(i);
        for (me, node, peer, peer_node) in [(pa, c.a, pb, c.b), (pb, c.b, pa, c.a)] {
            let port = cable_end(
                graph,
                config,
                i,
                c,
                (node, peer, peer_node),
                |rate| aqm_for(me, node, rate),
                holds(node),
            );
            match shared {
                Some(s) => debug_assert_eq!(s.facts[me.idx()], port.facts, "{me}'s facts"),
                None => facts.push(port.facts),
            }
            if let Some(port) = port.state {
                own.push(port);
                ids.push(me);
            }
        }
        adjacency[c.a.idx()].push((pa, c.b));
        adjacency[c.b.idx()].push((pb, c.a));
    }
    let (slot, facts): (_, Arc<[PortFacts]>) = match share {
        Held::Lp(cut, _, shared) => (Arc::clone(&cut.port_slot), Arc::clone(&shared.facts)),
        Held::All | Held::None => (Ports::identity(), facts.into()),
    };
    Ok((Ports::new(own, ids, slot, facts), adjacency))
}

/// One end of a cable: its facts, and its state where it is held.
struct CableEnd {
    facts: PortFacts,
    state: Option<Port>,
}

/// The port of `node` at one end of cable `i`, towards `peer` on
/// `peer_node`: its facts, and its state where it is `held`; `aqm_for`
/// gives a switch port's AQM from its rate.
fn cable_end(
    graph: &TopologyGraph,
    config: &FabricConfig,
    i: usize,
    c: &Cable,
    (node, peer, peer_node): (NodeId, PortId, NodeId),
    aqm_for: impl FnOnce(Bandwidth) -> Option<Box<dyn EgressAqm>>,
    held: bool,
) -> CableEnd {
    // A multi-plane host's NIC node and a GPU server's scale-up switch
    // forward, but their ports are a NIC's: no AQM, no drop, one class.
    let is_switch = !graph.nodes[node.idx()].has_nic_ports();
    let buffer = port_buffer(is_switch, &config.buffer);
    let (rate, buffer) = match LinkFault::at_start(&config.faults, i, node) {
        Some((x, scales)) => LinkFault::degraded(c.rate, buffer, x, scales && is_switch),
        None => (c.rate, buffer),
    };
    let facts = PortFacts {
        node,
        peer_node,
        rate,
        delay: c.delay,
        at_switch: is_switch,
    };
    let state = held.then(|| {
        let aqm = if is_switch { aqm_for(rate) } else { None };
        new_port(config, &facts, peer, buffer, c.rate, aqm)
    });
    CableEnd { facts, state }
}

/// A port's state as built, from its facts: `buffer` its limit, `cable_rate`
/// its cable's rate before any failure (a credit queue's pace).
fn new_port(
    config: &FabricConfig,
    f: &PortFacts,
    peer: PortId,
    buffer: QueueSize,
    cable_rate: Bandwidth,
    aqm: Option<Box<dyn EgressAqm>>,
) -> Port {
    let classes = classes_at(config, f.at_switch);
    Port {
        node: f.node,
        at_switch: f.at_switch,
        peer,
        peer_node: f.peer_node,
        rate: f.rate,
        delay: f.delay,
        buffer,
        aqm,
        queues: ClassQueues::new(classes),
        sched: if f.at_switch {
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
            .map(|cfg| Box::new(crate::credit::CreditQueue::new(&cfg, cable_rate))),
        in_flight: Default::default(),
        stats: PortStats::default(),
        ingress: Ingress::default(),
    }
}

/// The class queues of a switch port (`at_switch`) or a NIC's: a NIC has
/// one, or under PFC a queue per class, so that a paused priority does
/// not stop the others.
pub(super) fn classes_at(config: &FabricConfig, at_switch: bool) -> usize {
    if at_switch || config.pfc.is_some() {
        config.classes
    } else {
        1
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

/// Each host's NIC port, and each GPU's NVLink port and server, by host;
/// a host with other than one cable into the fabric, or with more than
/// one to a scale-up switch, is refused.
fn nic_ports(
    graph: &TopologyGraph,
    host_nodes: &[NodeId],
    adjacency: &Adjacency,
) -> Result<HostPorts, TopologyError> {
    let mut out = HostPorts {
        nic: Vec::with_capacity(host_nodes.len()),
        scale_up: Vec::new(),
        domain: Vec::new(),
    };
    let gpus = graph.nodes.iter().any(|k| k.is_scale_up());
    for (h, hn) in host_nodes.iter().enumerate() {
        let cables = adjacency[hn.idx()].as_slice();
        let degree = || TopologyError::HostDegree {
            host: h as u32,
            cables: cables.len(),
        };
        let up = |&(_, n): &&(PortId, NodeId)| graph.nodes[n.idx()].is_scale_up();
        let (scale_up, fabric): (Vec<_>, Vec<_>) = cables.iter().partition(up);
        let (&[&(nic, _)], ups) = (fabric.as_slice(), scale_up.as_slice()) else {
            return Err(degree());
        };
        out.nic.push(nic);
        match ups {
            [] if gpus => {
                out.scale_up.push(PortId(NO_PORT));
                out.domain.push(u32::MAX);
            }
            [] => {}
            &[&(p, nvswitch)] => {
                out.scale_up.push(p);
                out.domain.push(nvswitch.0);
            }
            _ => return Err(degree()),
        }
    }
    Ok(out)
}

/// The planes a NIC node reaches (1 without them): every NIC has a cable
/// to each of its hosts and one per plane.
fn planes(graph: &TopologyGraph, adjacency: &Adjacency) -> u32 {
    let is_nic = |&i: &usize| graph.nodes[i] == NodeKind::Switch { tier: NIC_TIER };
    (0..graph.nodes.len()).find(is_nic).map_or(1, |i| {
        let to_switch = |&&(_, x): &&(PortId, NodeId)| graph.nodes[x.idx()] != NodeKind::Host;
        adjacency[i].iter().filter(to_switch).count() as u32
    })
}

/// Each host's egress ports: its NIC's, and a GPU's NVLink to its
/// server's scale-up switch (both empty where no host is a GPU).
pub(super) struct HostPorts {
    pub nic: Vec<PortId>,
    /// The port to the scale-up switch, or `PortId(NO_PORT)`.
    pub scale_up: Vec<PortId>,
    /// The scale-up switch's node id (the server), or `u32::MAX`.
    pub domain: Vec<u32>,
}

/// Each node's forwarding state: its path choice and ECMP salt.
fn node_states(graph: &TopologyGraph, config: &FabricConfig) -> Vec<Node> {
    (graph.nodes.iter())
        .map(|&kind| match kind {
            NodeKind::Switch { tier } => Node {
                kind,
                // A NIC picks its plane by the ECMP hash (per flow, or
                // per packet when its host sprays entropy values); a
                // scale-up switch has one way to each GPU.
                choice: if kind.has_nic_ports() {
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
