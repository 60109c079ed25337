//! The fabric: every node, port and link, the packet arena, and routing.
//!
//! The layer above (transports, workloads) hands packets to a host's NIC with
//! [`Fabric::host_send`] and feeds [`NetEvent`]s back through
//! [`Fabric::handle`], which answers with an [`Outcome`]: a packet delivered
//! to a host, or a NIC that has room again. Two events drive everything:
//!
//! - `TxDone(port)`: the port finished serialising a packet; it starts the next.
//! - `Deliver(port)`: the head packet of the port's link reaches the peer.
//!
//! - `IngressTimer(port)`: the port's ingress hook asked to be woken.
//!
//! A switch passes each arriving packet through the ingress stage of the port
//! it arrives on ([`crate::ingress`]: accounting, the hook, the VIQ) and then
//! forwards it to an egress queue.
//! Hosts never drop their own packets: a NIC accepts everything it is given
//! and tells the caller whether it has room ([`Fabric::nic_has_room`]), so
//! transports hold data back instead (back-pressure).

use crate::aqm::{EgressAqm, Verdict};
use crate::buffer::{BufferPolicy, SharedBuffer};
use crate::ids::{HostId, NodeId, PortId};
use crate::ingress::{Arrival, Ingress, IngressHook, IngressView, ViqAction};
use crate::packet::{Ecn, NO_PORT, Packet, PacketArena, PacketId, WireFormat};
use crate::port::{ClassStats, DropCause, EgressQueue, Port, PortStats};
use crate::routing::RoutingTable;
use crate::sched::{Discipline, Scheduler as SchedState};
use crate::topology::{NodeKind, TopologyError, TopologyGraph};
use sim_core::{Bandwidth, EventQueue, QueueSize, SimTime};
use std::collections::VecDeque;

/// An event of the network model, addressed by port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetEvent {
    /// The port finished serialising its current packet.
    TxDone(PortId),
    /// The head packet of the port's link arrives at the peer.
    Deliver(PortId),
    /// The ingress hook of the port asked for its timer (stale ones are ignored).
    IngressTimer(PortId),
}

/// What the layer above must act on after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing for the layer above.
    Nothing,
    /// A packet reached its destination host. The receiver must `free` it.
    Delivered {
        /// The host it arrived at.
        host: HostId,
        /// The packet.
        pkt: PacketId,
    },
    /// A host's NIC started a transmission and may have room for more data.
    NicReady {
        /// The host.
        host: HostId,
    },
}

/// Where the fabric schedules its events: any event queue whose event type
/// can carry a [`NetEvent`].
pub trait Scheduler {
    /// The current time.
    fn now(&self) -> SimTime;
    /// Schedules a network event.
    fn schedule_net(&mut self, at: SimTime, ev: NetEvent);
}

impl<E: Copy + From<NetEvent>> Scheduler for EventQueue<E> {
    #[inline]
    fn now(&self) -> SimTime {
        EventQueue::now(self)
    }
    #[inline]
    fn schedule_net(&mut self, at: SimTime, ev: NetEvent) {
        self.schedule(at, E::from(ev));
    }
}

/// Fabric-wide settings.
#[derive(Clone, Debug, PartialEq)]
pub struct FabricConfig {
    /// Framing on the wire.
    pub wire: WireFormat,
    /// How switch buffers are divided: per-port limits or a shared buffer.
    pub buffer: BufferPolicy,
    /// A host NIC accepts more transport data only while it holds fewer than
    /// this many bytes (back-pressure; control packets are always accepted).
    pub nic_buffer_bytes: u64,
    /// Class queues per switch port (1 to 8) and how they are scheduled.
    pub discipline: Discipline,
    /// Number of class queues per switch port.
    pub classes: usize,
    /// The class queue of each packet priority (DSCP class) 0..8.
    pub class_of_priority: [u8; 8],
}

impl FabricConfig {
    /// One FIFO per switch port: the simplest switch.
    pub fn fifo(wire: WireFormat, switch_buffer: QueueSize, nic_buffer_bytes: u64) -> Self {
        FabricConfig {
            wire,
            buffer: BufferPolicy::PerPort(switch_buffer),
            nic_buffer_bytes,
            discipline: Discipline::StrictPriority,
            classes: 1,
            class_of_priority: [0; 8],
        }
    }
}

struct Node {
    kind: NodeKind,
}

/// Sets CE on a packet an AQM chose to mark, counting the mark once (a
/// packet already CE from an earlier hop is not counted again).
#[inline]
fn mark_ce(port: &mut Port, class: usize, pkt: &mut Packet) {
    assert_ne!(pkt.ecn, Ecn::NotEct, "AQM marked a non-ECT packet");
    if pkt.ecn != Ecn::Ce {
        pkt.ecn = Ecn::Ce;
        port.stats.ecn_marks += 1;
        port.class_stats[class].ecn_marks += 1;
    }
}

/// The dynamic-threshold factor when `port` draws on its switch's shared
/// buffer (a switch port under `BufferPolicy::Shared`), else `None`.
#[inline]
fn shared_alpha(policy: &BufferPolicy, port: &Port) -> Option<f64> {
    match policy {
        BufferPolicy::Shared { dt_alpha, .. } if port.at_switch => Some(*dt_alpha),
        _ => None,
    }
}

/// The whole network.
pub struct Fabric {
    /// Every live packet.
    pub packets: PacketArena,
    ports: Vec<Port>,
    nodes: Vec<Node>,
    host_nodes: Vec<NodeId>,
    host_ports: Vec<PortId>,
    routes: RoutingTable,
    config: FabricConfig,
    /// One shared buffer per node (used at switches under `BufferPolicy::Shared`).
    shared: Vec<SharedBuffer>,
    /// Bytes and packets in all egress queues of each node (its service pool).
    pool: Vec<(u64, u64)>,
    /// Packets delivered at a link's far end, of any kind.
    pub hops: u64,
}

impl Fabric {
    /// Builds the fabric for `graph`. `aqm_for` gives the AQM plugin of each
    /// switch egress port from its id and link rate (called once per port,
    /// in port order).
    pub fn new(
        graph: &TopologyGraph,
        config: FabricConfig,
        mut aqm_for: impl FnMut(PortId, Bandwidth) -> Option<Box<dyn EgressAqm>>,
    ) -> Result<Fabric, TopologyError> {
        let n = graph.nodes.len();
        let host_nodes: Vec<NodeId> = (0..n)
            .filter(|&i| graph.nodes[i] == NodeKind::Host)
            .map(|i| NodeId(i as u32))
            .collect();
        if host_nodes.is_empty() {
            return Err(TopologyError::NoHosts);
        }
        let mut adjacency: Vec<Vec<(PortId, NodeId)>> = vec![Vec::new(); n];
        let mut ports = Vec::with_capacity(graph.cables.len() * 2);
        for (i, c) in graph.cables.iter().enumerate() {
            if c.a.idx() >= n || c.b.idx() >= n || c.a == c.b {
                let why = format!("joins {} and {} in a graph of {n} nodes", c.a, c.b);
                return Err(TopologyError::BadCable { index: i, why });
            }
            let pa = PortId(ports.len() as u32);
            let pb = PortId(pa.0 + 1);
            for (node, peer) in [(c.a, pb), (c.b, pa)] {
                let is_switch = graph.nodes[node.idx()] != NodeKind::Host;
                let classes = if is_switch { config.classes } else { 1 };
                let me = PortId(ports.len() as u32);
                ports.push(Port {
                    node,
                    at_switch: is_switch,
                    peer,
                    rate: c.rate,
                    delay: c.delay,
                    buffer: match (is_switch, config.buffer) {
                        (true, BufferPolicy::PerPort(limit)) => limit,
                        // NICs never drop; a shared buffer admits at the switch level.
                        _ => QueueSize::Bytes(u64::MAX),
                    },
                    aqm: if is_switch { aqm_for(me, c.rate) } else { None },
                    queues: (0..classes).map(|_| EgressQueue::default()).collect(),
                    sched: if is_switch {
                        SchedState::new(config.discipline.clone(), classes)
                    } else {
                        SchedState::fifo()
                    },
                    bytes: 0,
                    packets: 0,
                    class_stats: vec![ClassStats::default(); classes],
                    busy: false,
                    in_flight: VecDeque::new(),
                    stats: PortStats::default(),
                    ingress: Ingress::default(),
                });
            }
            adjacency[c.a.idx()].push((pa, c.b));
            adjacency[c.b.idx()].push((pb, c.a));
        }
        let mut host_ports = Vec::with_capacity(host_nodes.len());
        for (h, hn) in host_nodes.iter().enumerate() {
            match adjacency[hn.idx()].as_slice() {
                [(p, _)] => host_ports.push(*p),
                other => {
                    return Err(TopologyError::HostDegree {
                        host: h as u32,
                        cables: other.len(),
                    });
                }
            }
        }
        let routes = RoutingTable::build(&graph.nodes, &adjacency, &host_nodes)?;
        let nodes = graph.nodes.iter().map(|&kind| Node { kind }).collect();
        let shared_bytes = match config.buffer {
            BufferPolicy::Shared { bytes, .. } => bytes,
            BufferPolicy::PerPort(_) => 0,
        };
        let shared = vec![SharedBuffer::new(shared_bytes); n];
        Ok(Fabric {
            packets: PacketArena::with_capacity(4096),
            ports,
            nodes,
            host_nodes,
            host_ports,
            routes,
            config,
            shared,
            pool: vec![(0, 0); n],
            hops: 0,
        })
    }

    /// Installs an ingress hook at switch ports: `hook_for` gets each switch
    /// port's id and link rate, in port order, and may answer `None`.
    pub fn install_ingress(
        &mut self,
        mut hook_for: impl FnMut(PortId, Bandwidth) -> Option<Box<dyn IngressHook>>,
    ) {
        for (i, port) in self.ports.iter_mut().enumerate() {
            if port.at_switch {
                port.ingress.hook = hook_for(PortId(i as u32), port.rate);
            }
        }
    }

    /// Whether an `IngressTimer(p)` event at `now` is the live one (not
    /// superseded by a later request of the hook).
    pub fn ingress_timer_due(&self, p: PortId, now: SimTime) -> bool {
        self.ports[p.idx()].ingress.timer_at == Some(now)
    }

    /// The number of hosts.
    pub fn host_count(&self) -> usize {
        self.host_nodes.len()
    }

    /// Every port, indexed by `PortId`.
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }

    /// One port.
    pub fn port(&self, p: PortId) -> &Port {
        &self.ports[p.idx()]
    }

    /// The NIC (egress) port of a host.
    pub fn host_port(&self, h: HostId) -> PortId {
        self.host_ports[h.idx()]
    }

    /// The egress port that delivers to host `h` (the last hop's switch port).
    pub fn port_towards_host(&self, h: HostId) -> PortId {
        self.ports[self.host_ports[h.idx()].idx()].peer
    }

    /// The configuration the fabric was built with.
    pub fn config(&self) -> &FabricConfig {
        &self.config
    }

    /// The node's kind.
    pub fn node_kind(&self, n: NodeId) -> NodeKind {
        self.nodes[n.idx()].kind
    }

    /// Routing (for tests of path properties).
    pub fn routes(&self) -> &RoutingTable {
        &self.routes
    }

    /// Whether host `h`'s NIC accepts more transport data now.
    #[inline]
    pub fn nic_has_room(&self, h: HostId) -> bool {
        self.ports[self.host_ports[h.idx()].idx()].bytes < self.config.nic_buffer_bytes
    }

    /// Hands a packet to host `h`'s NIC. Hosts never drop their own packets.
    #[inline]
    pub fn host_send<S: Scheduler>(&mut self, h: HostId, pkt: Packet, sched: &mut S) -> PacketId {
        let id = self.packets.alloc(Packet {
            ingress_port: NO_PORT,
            ..pkt
        });
        let port = self.host_ports[h.idx()];
        self.enqueue(port, id, sched);
        id
    }

    /// Admits a packet at a switch egress port as if it had just come
    /// through the ingress stage (benchmarks and tests of one port).
    pub fn inject<S: Scheduler>(&mut self, port: PortId, pkt: Packet, sched: &mut S) {
        assert!(self.ports[port.idx()].at_switch, "inject at a switch port");
        let id = self.packets.alloc(Packet {
            ingress_port: NO_PORT,
            ..pkt
        });
        self.enqueue(port, id, sched);
    }

    /// Processes one network event.
    #[inline]
    pub fn handle<S: Scheduler>(&mut self, ev: NetEvent, sched: &mut S) -> Outcome {
        match ev {
            NetEvent::TxDone(p) => {
                let port = &mut self.ports[p.idx()];
                debug_assert!(port.busy, "TxDone on idle {p}");
                port.busy = false;
                if port.packets > 0 {
                    self.start_tx(p, sched);
                }
                let node = self.ports[p.idx()].node;
                match self.nodes[node.idx()].kind {
                    NodeKind::Host => Outcome::NicReady {
                        host: self.host_of(node),
                    },
                    NodeKind::Switch { .. } => Outcome::Nothing,
                }
            }
            NetEvent::Deliver(p) => self.deliver(p, sched),
            NetEvent::IngressTimer(p) => {
                let now = sched.now();
                let ingress = &mut self.ports[p.idx()].ingress;
                if ingress.timer_at == Some(now) {
                    ingress.timer_at = None;
                    let view = self.ingress_view(p);
                    if let Some(h) = self.ports[p.idx()].ingress.hook.as_mut() {
                        h.on_timer(now, &view);
                    }
                    self.service_viq(p, sched);
                }
                Outcome::Nothing
            }
        }
    }

    fn host_of(&self, node: NodeId) -> HostId {
        // Host nodes are few relative to events only at NIC completions; a
        // binary search keeps this allocation-free and exact.
        let i = self
            .host_nodes
            .binary_search(&node)
            .expect("node is a host");
        HostId(i as u32)
    }

    fn deliver<S: Scheduler>(&mut self, p: PortId, sched: &mut S) -> Outcome {
        let now = sched.now();
        let port = &mut self.ports[p.idx()];
        let (at, id) = port
            .in_flight
            .pop_front()
            .expect("Deliver with nothing in flight");
        assert_eq!(at, now, "link {p} delivered out of time");
        if let Some(&(next, _)) = port.in_flight.front() {
            sched.schedule_net(next, NetEvent::Deliver(p));
        }
        let in_port = port.peer;
        self.hops += 1;
        let pkt = self.packets.get_mut(id);
        pkt.hops = pkt.hops.saturating_add(1);
        let node = self.ports[in_port.idx()].node;
        match self.nodes[node.idx()].kind {
            NodeKind::Host => Outcome::Delivered {
                host: self.host_of(node),
                pkt: id,
            },
            NodeKind::Switch { .. } => {
                self.ingress(in_port, id, sched);
                Outcome::Nothing
            }
        }
    }

    /// The switch ingress stage of port `p`: accounting per (port, priority),
    /// the hook's verdict, then forwarding or holding.
    #[inline]
    fn ingress<S: Scheduler>(&mut self, p: PortId, id: PacketId, sched: &mut S) {
        let now = sched.now();
        let pkt = self.packets.get_mut(id);
        pkt.ingress_port = p.0;
        pkt.ingress_priority = pkt.priority;
        let ingress = &mut self.ports[p.idx()].ingress;
        ingress.account(pkt.priority, pkt.size_bytes);
        ingress.stats.arrived += 1;
        if ingress.hook.is_none() {
            return self.forward(p, id, sched);
        }
        let view = self.ingress_view(p);
        let ingress = &mut self.ports[p.idx()].ingress;
        let hook = ingress.hook.as_mut().expect("checked above");
        let pkt = self.packets.get_mut(id);
        match hook.on_arrival(now, &view, pkt) {
            Arrival::Forward => self.forward(p, id, sched),
            Arrival::Hold => {
                let size = pkt.size_bytes;
                let capacity = hook.viq_capacity();
                if ingress.viq_fits(capacity, size) {
                    pkt.enqueued_at = now;
                    ingress.viq.push(id, size);
                    ingress.stats.held += 1;
                    ingress.note_viq(now);
                } else {
                    ingress.stats.viq_drops_full += 1;
                    ingress.stats.dropped_bytes += size as u64;
                    self.leave_switch(id);
                    self.packets.free(id);
                }
            }
        }
        self.service_viq(p, sched);
    }

    /// Forwards a packet that passed port `p`'s ingress to its egress queue.
    #[inline]
    fn forward<S: Scheduler>(&mut self, p: PortId, id: PacketId, sched: &mut S) {
        let node = self.ports[p.idx()].node;
        let NodeKind::Switch { tier } = self.nodes[node.idx()].kind else {
            unreachable!("ingress stage at a host")
        };
        let out = self.routes.select(node, tier, self.packets.get(id));
        self.enqueue(out, id, sched);
    }

    /// What port `p`'s ingress hook sees now.
    #[inline]
    fn ingress_view(&self, p: PortId) -> IngressView {
        let port = &self.ports[p.idx()];
        let head = port
            .ingress
            .viq
            .head()
            .map(|h| self.packets.get(h).enqueued_at);
        port.view(head)
    }

    /// A packet leaves its switch (transmitted or dropped): its ingress
    /// port stops counting it.
    #[inline]
    fn leave_switch(&mut self, id: PacketId) {
        let pkt = self.packets.get(id);
        if pkt.ingress_port != NO_PORT {
            let (ip, prio, size) = (pkt.ingress_port, pkt.ingress_priority, pkt.size_bytes);
            self.ports[ip as usize].ingress.unaccount(prio, size);
            self.packets.get_mut(id).ingress_port = NO_PORT;
        }
    }

    /// Lets port `p`'s hook release or drop held packets until it waits,
    /// then re-arms its timer. Releases forward at once (which may run other
    /// ports' hooks: each call re-reads the state it needs).
    fn service_viq<S: Scheduler>(&mut self, p: PortId, sched: &mut S) {
        let now = sched.now();
        if self.ports[p.idx()].ingress.hook.is_none() {
            return;
        }
        while let Some(head) = self.ports[p.idx()].ingress.viq.head() {
            let view = self.ingress_view(p);
            let ingress = &mut self.ports[p.idx()].ingress;
            let hook = ingress.hook.as_mut().expect("checked above");
            let action = hook.poll(now, &view);
            if action == ViqAction::Wait {
                break;
            }
            let size = self.packets.get(head).size_bytes;
            ingress.viq.pop(size);
            ingress.note_viq(now);
            if action == ViqAction::DropAged {
                ingress.stats.viq_drops_aged += 1;
                ingress.stats.dropped_bytes += size as u64;
                self.leave_switch(head);
                self.packets.free(head);
                continue;
            }
            ingress.stats.released += 1;
            let view = self.ingress_view(p);
            let ingress = &mut self.ports[p.idx()].ingress;
            let hook = ingress.hook.as_mut().expect("checked above");
            hook.on_release(now, &view, self.packets.get_mut(head));
            self.forward(p, head, sched);
        }
        let view = self.ingress_view(p);
        let ingress = &mut self.ports[p.idx()].ingress;
        // A time already past means "as soon as possible".
        let next = ingress
            .hook
            .as_ref()
            .and_then(|h| h.next_timer(&view))
            .map(|t| t.max(now));
        if next != ingress.timer_at {
            ingress.timer_at = next;
            if let Some(t) = next {
                sched.schedule_net(t, NetEvent::IngressTimer(p));
            }
        }
    }

    /// Admits a packet to its class queue (buffer check on the port's
    /// total, then the AQM's verdict) and starts transmission if the port is idle.
    #[inline]
    fn enqueue<S: Scheduler>(&mut self, p: PortId, id: PacketId, sched: &mut S) {
        let now = sched.now();
        let port = &mut self.ports[p.idx()];
        let pkt = self.packets.get_mut(id);
        let size = pkt.size_bytes;
        let class = if port.queues.len() == 1 {
            0
        } else {
            self.config.class_of_priority[(pkt.priority as usize) % 8] as usize
        };
        debug_assert!(class < port.queues.len());
        let shared = shared_alpha(&self.config.buffer, port);
        let fits = match shared {
            Some(dt_alpha) => {
                self.shared[port.node.idx()].admits(port.queues[class].bytes(), size, dt_alpha)
            }
            None => port.fits(size),
        };
        if !fits {
            return self.drop_packet(p, class, id, DropCause::BufferOverflow);
        }
        let state = port.state(class, self.pool[port.node.idx()]);
        if let Some(aqm) = port.aqm.as_mut() {
            match aqm.on_enqueue(now, state, pkt) {
                Verdict::Accept => {}
                Verdict::Mark => mark_ce(port, class, pkt),
                Verdict::Drop => return self.drop_packet(p, class, id, DropCause::Aqm),
            }
        }
        pkt.enqueued_at = now;
        if shared.is_some() {
            self.shared[port.node.idx()].take(size);
        }
        port.queues[class].push(id, size);
        port.bytes += size as u64;
        port.packets += 1;
        let pool = &mut self.pool[port.node.idx()];
        pool.0 += size as u64;
        pool.1 += 1;
        port.note_occupancy(now, class);
        let view = port.view(None);
        let mark = match port.ingress.hook.as_mut() {
            Some(hook) => hook.on_egress_enqueue(now, &view, pkt),
            None => false,
        };
        if mark {
            mark_ce(port, class, pkt);
        }
        if !port.busy {
            self.start_tx(p, sched);
        }
        self.service_viq(p, sched);
    }

    /// The shared buffer of a switch (empty under per-port buffers).
    pub fn shared_buffer(&self, node: NodeId) -> &SharedBuffer {
        &self.shared[node.idx()]
    }

    fn drop_packet(&mut self, p: PortId, class: usize, id: PacketId, cause: DropCause) {
        self.leave_switch(id);
        let port = &mut self.ports[p.idx()];
        port.stats.dropped_bytes += self.packets.get(id).size_bytes as u64;
        port.class_stats[class].drops += 1;
        let stats = &mut port.stats;
        match cause {
            DropCause::BufferOverflow => stats.drops_overflow += 1,
            DropCause::Aqm => {
                stats.drops_aqm += 1;
                port.class_stats[class].drops_aqm += 1;
            }
        }
        self.packets.free(id);
    }

    /// Takes the head of the queue onto the wire.
    #[inline]
    fn start_tx<S: Scheduler>(&mut self, p: PortId, sched: &mut S) {
        let now = sched.now();
        let wire = self.config.wire;
        let port = &mut self.ports[p.idx()];
        let class = if port.queues.len() == 1 {
            0 // one FIFO: nothing to schedule
        } else {
            let packets = &self.packets;
            let Port {
                queues,
                sched: scheduler,
                aqm,
                ..
            } = port;
            let queues = &*queues;
            scheduler
                .pick(
                    |c| queues[c].head().map(|h| packets.get(h).size_bytes),
                    |c, active| {
                        if let Some(a) = aqm.as_mut() {
                            a.on_round(now, c, active);
                        }
                    },
                )
                .expect("start_tx on an empty port")
        };
        let id = port.queues[class]
            .pop()
            .expect("the scheduler picked a backlogged class");
        let pkt = self.packets.get_mut(id);
        let size = pkt.size_bytes;
        port.queues[class].release(size);
        if shared_alpha(&self.config.buffer, port).is_some() {
            self.shared[port.node.idx()].release(size);
        }
        port.bytes -= size as u64;
        port.packets -= 1;
        let pool = &mut self.pool[port.node.idx()];
        pool.0 -= size as u64;
        pool.1 -= 1;
        // One class: no scheduling happened, so no scheduler bookkeeping either.
        let single = port.queues.len() == 1;
        if !single
            && port
                .sched
                .on_sent(class, size, port.queues[class].is_empty())
        {
            // The class emptied and so ended an active turn (MQ-ECN samples it).
            if let Some(a) = port.aqm.as_mut() {
                a.on_round(now, class, true);
            }
        }
        let state = port.state(class, *pool);
        if let Some(aqm) = port.aqm.as_mut() {
            match aqm.on_dequeue(now, state, pkt) {
                Verdict::Accept => {}
                Verdict::Mark => mark_ce(port, class, pkt),
                Verdict::Drop => {
                    panic!("an AQM may not drop at dequeue: the packet is on the wire")
                }
            }
        }
        port.note_occupancy(now, class);
        let view = port.view(None);
        if let Some(hook) = port.ingress.hook.as_mut() {
            hook.on_egress_departure(now, &view, pkt);
        }
        port.class_stats[class].tx_packets += 1;
        port.class_stats[class].tx_bytes += size as u64;
        port.stats.tx_packets += 1;
        port.stats.tx_bytes += pkt.size_bytes as u64;
        port.stats.wait_sum_ps += now.since(pkt.enqueued_at).ps() as u128;
        port.stats.wait_count += 1;
        let wire_bytes = wire.wire_bytes(pkt.size_bytes);
        port.stats.tx_wire_bytes += wire_bytes;
        let tx_end = now + port.rate.tx_time(wire_bytes);
        port.busy = true;
        sched.schedule_net(tx_end, NetEvent::TxDone(p));
        let arrival = tx_end + port.delay;
        port.in_flight.push_back((arrival, id));
        if port.in_flight.len() == 1 {
            sched.schedule_net(arrival, NetEvent::Deliver(p));
        }
        self.leave_switch(id);
        self.service_viq(p, sched);
    }

    /// The egress ports a packet would take from its source host to its
    /// destination, by routing alone (no queues involved).
    pub fn path(&self, pkt: &Packet) -> Vec<PortId> {
        let mut out = vec![self.host_ports[pkt.src.idx()]];
        loop {
            let last = *out.last().expect("non-empty");
            let node = self.ports[self.ports[last.idx()].peer.idx()].node;
            match self.nodes[node.idx()].kind {
                NodeKind::Host => return out,
                NodeKind::Switch { tier } => {
                    assert!(out.len() <= self.nodes.len(), "routing loop");
                    out.push(self.routes.select(node, tier, pkt));
                }
            }
        }
    }

    /// Bytes queued, held or in flight anywhere (for conservation checks).
    pub fn bytes_in_network(&self) -> u64 {
        self.ports
            .iter()
            .map(|p| {
                let flying: u64 = p
                    .in_flight
                    .iter()
                    .map(|&(_, id)| self.packets.get(id).size_bytes as u64)
                    .sum();
                p.bytes + p.ingress.viq.bytes() + flying
            })
            .sum()
    }

    /// Packets queued, held or in flight anywhere (for conservation checks).
    pub fn packets_in_network(&self) -> usize {
        self.ports
            .iter()
            .map(|p| p.packets as usize + p.in_flight.len() + p.ingress.viq.packets() as usize)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;
    use sim_core::SimDuration;

    #[derive(Clone, Copy, Debug)]
    struct Ev(NetEvent);
    impl From<NetEvent> for Ev {
        fn from(e: NetEvent) -> Self {
            Ev(e)
        }
    }

    fn fabric(graph: &TopologyGraph, buffer: QueueSize) -> Fabric {
        let cfg = FabricConfig::fifo(WireFormat::ETHERNET, buffer, 1 << 20);
        Fabric::new(graph, cfg, |_, _| None).unwrap()
    }

    fn data(src: u32, dst: u32, size: u32) -> Packet {
        Packet {
            src: HostId(src),
            dst: HostId(dst),
            size_bytes: size,
            flow: FlowId(0),
            ..Default::default()
        }
    }

    /// Runs to completion, returning (arrival time, host, seq) per delivery.
    fn drain(f: &mut Fabric, q: &mut EventQueue<Ev>) -> Vec<(SimTime, HostId, u64)> {
        let mut out = Vec::new();
        while let Some((t, Ev(e))) = q.pop() {
            if let Outcome::Delivered { host, pkt } = f.handle(e, q) {
                out.push((t, host, f.packets.get(pkt).seq));
                f.packets.free(pkt);
            }
        }
        out
    }

    #[test]
    fn store_and_forward_timing_is_exact() {
        let g = TopologyGraph::star(2, Bandwidth::from_gbps(10), SimDuration::from_us(1));
        let mut f = fabric(&g, QueueSize::Packets(100));
        let mut q = EventQueue::new();
        f.host_send(
            HostId(0),
            Packet {
                seq: 1,
                ..data(0, 1, 1500)
            },
            &mut q,
        );
        f.host_send(
            HostId(0),
            Packet {
                seq: 2,
                ..data(0, 1, 1500)
            },
            &mut q,
        );
        let got = drain(&mut f, &mut q);
        // 1538 wire bytes at 10 Gb/s = 1230.4 ns per hop, + 1 us per link, two hops.
        let hop = 1_230_400 + 1_000_000;
        assert_eq!(
            got,
            vec![
                (SimTime(2 * hop), HostId(1), 1),
                (SimTime(2 * hop + 1_230_400), HostId(1), 2)
            ]
        );
        assert_eq!(f.hops, 4);
        assert_eq!(f.packets.live(), 0);
    }

    #[test]
    fn droptail_drops_beyond_the_buffer() {
        // Two senders into one receiver: the switch port to host 2 overflows.
        let g = TopologyGraph::star(3, Bandwidth::from_gbps(10), SimDuration::from_us(1));
        let mut f = fabric(&g, QueueSize::Packets(3));
        let mut q = EventQueue::new();
        for s in 0..10 {
            f.host_send(
                HostId(0),
                Packet {
                    seq: s,
                    ..data(0, 2, 1500)
                },
                &mut q,
            );
            f.host_send(
                HostId(1),
                Packet {
                    seq: 100 + s,
                    ..data(1, 2, 1500)
                },
                &mut q,
            );
        }
        let got = drain(&mut f, &mut q);
        let out = f.port_towards_host(HostId(2));
        let st = &f.port(out).stats;
        assert!(st.drops_overflow > 0);
        assert_eq!(got.len() as u64 + st.drops_overflow, 20);
        assert!(st.max_packets <= 3);
        assert_eq!(f.packets.live(), 0);
    }

    /// Data and ACKs of every flow take exactly reverse paths (R-AQM, ABQ and
    /// FairQ depend on it), on every topology shape.
    #[test]
    fn acks_take_the_reverse_of_the_data_path_on_every_topology() {
        let r = Bandwidth::from_gbps(10);
        let d = SimDuration::from_us(1);
        let graphs = [
            ("star", TopologyGraph::star(8, r, d)),
            ("dumbbell", TopologyGraph::dumbbell(3, 3, r, d, r, d)),
            ("leaf-spine", TopologyGraph::leaf_spine(4, 3, 3, r, r, d)),
            (
                "fat-tree",
                TopologyGraph::three_tier(5, 4, 4, 16, 2, r, Bandwidth::from_gbps(40), d),
            ),
            ("k-ary", TopologyGraph::k_ary_fat_tree(4, r, d)),
        ];
        for (name, g) in graphs {
            let f = fabric(&g, QueueSize::Packets(10));
            let n = f.host_count() as u32;
            let mut cores_used = std::collections::BTreeSet::new();
            for i in 0..400u32 {
                let (src, dst) = (i % n, (i * 7 + 3) % n);
                if src == dst {
                    continue;
                }
                let data = Packet {
                    sport: 1000 + i as u16,
                    dport: 80,
                    ..data(src, dst, 1500)
                };
                let ack = Packet {
                    src: data.dst,
                    dst: data.src,
                    sport: data.dport,
                    dport: data.sport,
                    ..data
                };
                let fwd = f.path(&data);
                let back = f.path(&ack);
                let mirrored: Vec<PortId> = fwd.iter().rev().map(|p| f.port(*p).peer).collect();
                assert_eq!(
                    back, mirrored,
                    "{name}: flow {src}->{dst} port {}",
                    data.sport
                );
                if fwd.len() == 6 {
                    cores_used.insert(f.port(fwd[2]).peer); // the core-facing hop
                }
            }
            if name == "fat-tree" {
                // Path diversity: the tier-salted hash spreads flows over the cores.
                assert!(
                    cores_used.len() >= 12,
                    "only {} of 16 cores used",
                    cores_used.len()
                );
            }
        }
    }

    #[test]
    fn fat_tree_shapes_are_as_documented() {
        let r = Bandwidth::from_gbps(10);
        let g = TopologyGraph::three_tier(
            5,
            4,
            4,
            16,
            16,
            r,
            Bandwidth::from_gbps(40),
            SimDuration::from_us(1),
        );
        assert_eq!(g.host_count(), 320);
        assert_eq!(g.nodes.len(), 320 + 20 + 20 + 16);
        let f = fabric(&g, QueueSize::Packets(10));
        // Hosts in different pods: host-ToR-agg-core-agg-ToR-host, 6 links,
        // so the base RTT is 12 us of propagation at 1 us per link.
        let p = Packet {
            sport: 5,
            dport: 6,
            ..data(0, 319, 1500)
        };
        assert_eq!(f.path(&p).len(), 6);
        let k = TopologyGraph::k_ary_fat_tree(8, r, SimDuration::from_us(1));
        assert_eq!(k.host_count(), 128);
        assert_eq!(k.nodes.len() - 128, 8 * 8 + 16);
    }

    #[test]
    fn disconnected_topology_is_an_error() {
        let mut g = TopologyGraph::star(2, Bandwidth::from_gbps(10), SimDuration::from_us(1));
        let h = g.add_node(NodeKind::Host);
        let s = g.add_node(NodeKind::Switch { tier: 1 });
        g.connect(h, s, Bandwidth::from_gbps(10), SimDuration::from_us(1));
        let cfg = FabricConfig::fifo(WireFormat::NONE, QueueSize::Packets(1), 1);
        let e = Fabric::new(&g, cfg, |_, _| None).err().unwrap();
        assert!(matches!(e, TopologyError::Disconnected { .. }), "{e}");
    }

    #[test]
    fn dumbbell_routes_over_the_bottleneck() {
        let r = Bandwidth::from_gbps(10);
        let d = SimDuration::from_us(1);
        let g = TopologyGraph::dumbbell(2, 2, r, d, Bandwidth::from_gbps(1), d);
        let mut f = fabric(&g, QueueSize::Packets(100));
        let mut q = EventQueue::new();
        f.host_send(HostId(0), data(0, 3, 1500), &mut q);
        f.host_send(HostId(3), data(3, 1, 1500), &mut q);
        let got = drain(&mut f, &mut q);
        let hosts: Vec<HostId> = got.iter().map(|g| g.1).collect();
        assert_eq!(hosts.len(), 2);
        assert!(hosts.contains(&HostId(3)) && hosts.contains(&HostId(1)));
        assert_eq!(f.hops, 6);
    }
}
