//! The fabric: every node, port and link, the packet arena, and routing.
//!
//! The layer above (transports, workloads) hands packets to a host's NIC with
//! [`Fabric::host_send`] and feeds [`NetEvent`]s back through
//! [`Fabric::handle`], which answers with an [`Outcome`]: a packet delivered
//! to a host, or a NIC that has room again. Three events drive everything:
//!
//! - `TxDone(port)`: the port finished serialising a packet; it starts the next.
//! - `Deliver(port)`: the head packet of the port's link reaches the peer.
//! - `IngressTimer(port)`: the port's ingress hook asked to be woken.
//!
//! A switch passes each arriving packet through the ingress stage of the port
//! it arrives on ([`crate::ingress`]: accounting, the hook, the VIQ) and then
//! forwards it to an egress queue.
//! Hosts never drop their own packets: a NIC accepts everything it is given
//! and tells the caller whether it has room ([`Fabric::nic_has_room`]), so
//! transports hold data back instead (back-pressure).

use crate::aqm::Verdict;
use crate::buffer::{BufferPolicy, SharedBuffer};
use crate::ids::{HostId, NodeId, PortId};
use crate::int::IntTable;
use crate::observe::{Observer, PacketEvent};
use crate::packet::{Ecn, Kind, NO_PORT, PRIORITIES, Packet, PacketArena, PacketId, WireFormat};
use crate::path_choice::{PathChoice, PathConfig, Spray, SwitchPaths};
use crate::port::{
    CREDITS_QUEUED, DropCause, HEADERS_QUEUED, LINK_CUT, LINK_FAILS, OBSERVED, PFC_FRAME, Port,
};
use crate::routing::RoutingTable;
use crate::sched::Discipline;
use crate::topology::{NIC_TIER, NodeKind};
use sim_core::{EventQueue, QueueSize, SimTime};
use std::sync::Arc;

/// An event of the network model, addressed by port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NetEvent {
    /// The port finished serialising its current packet.
    TxDone(PortId),
    /// The head packet of the port's link arrives at the peer.
    Deliver(PortId),
    /// A packet that crossed a cut link from another logical process
    /// arrives at the far end (its `ingress_port` names the port it
    /// arrives at until then).
    Arrive(PacketId),
    /// The ingress hook of the port asked for its timer (stale ones are ignored).
    IngressTimer(PortId),
    /// The head PFC frame on the port's link arrives at the peer.
    PfcDeliver(PortId),
    /// The port's PFC timer (quanta mode: pause expiry and refresh).
    PfcTimer(PortId),
    /// The port's credit limiter lets its head credit go.
    CreditTimer(PortId),
    /// A scheduled link failure's change (a rate, or a switch's routes
    /// after it detects a failure), by index (`fault_stage`).
    Fault(u32),
}

impl NetEvent {
    /// The tiebreak kinds of network events (`sim_core::queue::tiebreak_of`
    /// orders one picosecond's kinds anew at each picosecond). The kinds
    /// above [`NetEvent::LAST_KIND`] are the layer above's.
    const FAULT: u8 = 1;
    const TX_DONE: u8 = 2;
    const DELIVER: u8 = 3;
    const PFC_DELIVER: u8 = 4;
    const PFC_TIMER: u8 = 5;
    const INGRESS_TIMER: u8 = 6;
    const CREDIT_TIMER: u8 = 7;
    /// The last kind a network event uses.
    pub const LAST_KIND: u8 = 7;
    /// A landed packet's own kind, for a caller that schedules `Arrive`
    /// without the key of the delivery it stands for
    /// ([`Scheduler::schedule_net_as`]): still one key per packet.
    const UNKEYED_ARRIVE: u8 = 255;

    /// The event's tiebreak when due at `at` (`sim_core::Tiebreak`): its
    /// kind and the port (or failure) it is for, through
    /// [`sim_core::queue::tiebreak_of`]. An `Arrive` is keyed by the
    /// delivery it stands for where it is scheduled ([`Fabric::land`]).
    #[inline(always)]
    pub fn tiebreak(self, at: SimTime) -> u64 {
        let (kind, id) = match self {
            NetEvent::Fault(i) => (Self::FAULT, i),
            NetEvent::Deliver(p) => (Self::DELIVER, p.0),
            NetEvent::PfcDeliver(p) => (Self::PFC_DELIVER, p.0),
            NetEvent::TxDone(p) => (Self::TX_DONE, p.0),
            NetEvent::PfcTimer(p) => (Self::PFC_TIMER, p.0),
            NetEvent::IngressTimer(p) => (Self::INGRESS_TIMER, p.0),
            NetEvent::CreditTimer(p) => (Self::CREDIT_TIMER, p.0),
            NetEvent::Arrive(id) => (Self::UNKEYED_ARRIVE, id.0),
        };
        sim_core::queue::tiebreak_of(kind, id, at)
    }
}

impl sim_core::Tiebreak for NetEvent {
    #[inline(always)]
    fn tiebreak(&self, at: SimTime) -> u64 {
        NetEvent::tiebreak(*self, at)
    }
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
    /// A host's NIC finished a transmission, or a PFC frame or timer
    /// touched it: it may have room for more data.
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
    /// Schedules a network event (ordered among its picosecond's events
    /// by [`NetEvent::tiebreak`]).
    fn schedule_net(&mut self, at: SimTime, ev: NetEvent);
    /// Schedules a network event with the tiebreak of the event it stands
    /// for (a landed packet's `Arrive` for its link's `Deliver`).
    fn schedule_net_as(&mut self, at: SimTime, ev: NetEvent, tiebreak: u64);
}

/// The layer above's events carry network events with the same tiebreak.
impl<E: Copy + From<NetEvent> + sim_core::Tiebreak> Scheduler for EventQueue<E> {
    #[inline]
    fn now(&self) -> SimTime {
        EventQueue::now(self)
    }
    #[inline(always)]
    fn schedule_net(&mut self, at: SimTime, ev: NetEvent) {
        self.schedule_as(at, E::from(ev), ev.tiebreak(at));
    }
    #[inline(always)]
    fn schedule_net_as(&mut self, at: SimTime, ev: NetEvent, tiebreak: u64) {
        self.schedule_as(at, E::from(ev), tiebreak);
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
    /// Class queues per switch port (1 to [`crate::sched::MAX_CLASSES`]) and how they are scheduled.
    pub discipline: Discipline,
    /// Number of class queues per switch port.
    pub classes: usize,
    /// The class queue of each packet priority (DSCP class) 0..64.
    pub class_of_priority: [u8; PRIORITIES],
    /// The run's seed, which sets the switches' ECMP hash salts.
    pub seed: u64,
    /// Priority flow control, if on (it needs a shared switch buffer).
    pub pfc: Option<crate::pfc::PfcConfig>,
    /// Credit queues on every port, if a transport uses credits.
    pub credits: Option<crate::credit::CreditConfig>,
    /// How switches choose among equal-cost paths.
    pub paths: PathConfig,
    /// How hosts set their packets' entropy values.
    pub spray: Spray,
    /// Link failures, known before the run.
    pub faults: Vec<LinkFault>,
    /// Packet trimming at switch ports, if on.
    pub trim: Option<TrimConfig>,
    /// Header priority without trimming: header-only packets (UEC's and
    /// NDP's control packets) are served from each switch port's header
    /// queue ahead of the data, as htsim's composite queue serves them
    /// under `-disable_trim`. Trimming always does (NDP 3.1).
    pub header_priority: bool,
}

impl FabricConfig {
    /// The most bytes each switch port's header queue holds, when
    /// header-only packets go ahead of the data: trimming's
    /// `header_queue`, or with header priority alone its default; `None`:
    /// they queue with the data.
    #[inline]
    pub fn header_queue(&self) -> Option<u64> {
        match self.trim {
            Some(t) => Some(t.header_queue_bytes),
            None => self.header_priority.then_some(TRIM_HEADER_QUEUE_BYTES),
        }
    }

    /// One FIFO per switch port: the simplest switch.
    pub fn fifo(wire: WireFormat, switch_buffer: QueueSize, nic_buffer_bytes: u64) -> Self {
        FabricConfig {
            wire,
            buffer: BufferPolicy::PerPort(switch_buffer),
            nic_buffer_bytes,
            discipline: Discipline::StrictPriority,
            classes: 1,
            class_of_priority: [0; PRIORITIES],
            seed: 1,
            pfc: None,
            credits: None,
            paths: PathConfig::default(),
            spray: Spray::None,
            faults: Vec::new(),
            trim: None,
            header_priority: false,
        }
    }
}

struct Node {
    kind: NodeKind,
    /// How a switch picks among equal-cost ports (ECMP at hosts, unused).
    choice: PathChoice,
    /// A switch's ECMP hash salt (`routing::ecmp_salt`); 0 at hosts.
    ecmp_salt: u64,
}

/// Starts serialising packet `id` of `wire_bytes` on port `p` at `now`:
/// the port is busy until its `TxDone`, and the packet joins the link's
/// in-flight FIFO (whose head alone has a `Deliver` pending). A cut
/// link's packet goes nowhere yet: its arrival time is returned, for the
/// caller to post for crossing at the window's end; so is a packet's on
/// a link that fails, for the caller to judge ([`Fabric::off_wire`]).
#[inline(always)]
#[must_use]
fn put_on_wire<S: Scheduler>(
    port: &mut Port,
    p: PortId,
    id: PacketId,
    wire_bytes: u64,
    now: SimTime,
    sched: &mut S,
) -> Option<SimTime> {
    let tx_end = now + port.rate.tx_time(wire_bytes);
    port.busy = true;
    sched.schedule_net(tx_end, NetEvent::TxDone(p));
    let arrival = tx_end + port.delay;
    if port.pfc_attention & (LINK_CUT | LINK_FAILS) != 0 {
        return Some(arrival);
    }
    let first = port.in_flight.is_empty();
    port.in_flight.push_back(arrival, id);
    if first {
        sched.schedule_net(arrival, NetEvent::Deliver(p));
    }
    None
}

/// Sets CE on a packet an AQM chose to mark, counting the mark once (a
/// packet already CE from an earlier hop is not counted again): whether
/// it marked it.
#[inline]
fn mark_ce(port: &mut Port, class: usize, pkt: &mut Packet) -> bool {
    assert_ne!(pkt.ecn, Ecn::NotEct, "AQM marked a non-ECT packet");
    if pkt.ecn == Ecn::Ce {
        return false;
    }
    pkt.ecn = Ecn::Ce;
    port.stats.ecn_marks += 1;
    if let Some(cs) = port.class_stats_mut(class) {
        cs.ecn_marks += 1;
    }
    true
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

/// The two ports of cable `i`, its `a` end's first: `Fabric::new` makes
/// each cable's pair in cable order.
fn cable_ports(i: usize) -> (PortId, PortId) {
    let a = PortId(2 * i as u32);
    (a, PortId(a.0 + 1))
}

/// The whole network.
pub struct Fabric {
    /// Every live packet.
    pub packets: PacketArena,
    /// The INT stacks of the packets that carry one (HPCC).
    pub int: IntTable,
    /// The ports this copy holds (every port, unless it is an LP's).
    ports: ports::Ports,
    nodes: Vec<Node>,
    host_nodes: Vec<NodeId>,
    /// Each node's host index (`u32::MAX` for a switch): the inverse of
    /// `host_nodes`, read at every delivery to a host and NIC completion.
    host_of_node: Vec<u32>,
    host_ports: Vec<PortId>,
    /// Each GPU's NVLink port to its server's scale-up switch (`u32::MAX`
    /// for a host that is no GPU); empty where no host is a GPU.
    scale_up_ports: Vec<PortId>,
    /// Each GPU's server (its scale-up switch's node id; `u32::MAX` for
    /// a host that is no GPU); empty where no host is a GPU.
    scale_up_domain: Vec<u32>,
    /// The planes a multi-plane host's NIC reaches (1 without planes).
    planes: u32,
    /// The routes, shared by the LPs' copies of a cut fabric until a
    /// failure makes a copy's switches route around it (copy on write).
    routes: Arc<RoutingTable>,
    /// The routes before any failure, where switches reroute around
    /// some: paths and ideal times are those of the whole fabric.
    routes_before: Option<Arc<RoutingTable>>,
    config: FabricConfig,
    /// One shared buffer per node (used at switches under `BufferPolicy::Shared`).
    shared: Vec<SharedBuffer>,
    /// Bytes and packets in all egress queues of each node (its service pool).
    pool: Vec<(u64, u64)>,
    /// Packets delivered at a link's far end, of any kind.
    pub hops: u64,
    /// Whoever records what the observed ports report ([`crate::observe`]).
    observer: Option<Box<dyn Observer>>,
    /// What left on cut links for other LPs ([`cut_stage`]).
    cut: cut_stage::Outboxes,
    /// The path-choice state of each switch that does not use plain
    /// ECMP, by node (empty when every switch does).
    paths: Vec<Option<Box<SwitchPaths>>>,
    /// Link failures ([`fault_stage`]).
    faults: fault_stage::Faults,
    /// Trimmed headers waiting at each port ([`trim_stage`]).
    headers: trim_stage::Headers,
}

impl Fabric {
    /// The number of hosts.
    pub fn host_count(&self) -> usize {
        self.host_nodes.len()
    }

    /// The ports this copy holds: every port of a whole fabric (an LP's
    /// copy holds its own nodes' only), by `PortId`.
    pub fn ports(&self) -> &ports::Ports {
        &self.ports
    }

    /// One port this copy holds.
    pub fn port(&self, p: PortId) -> &Port {
        &self.ports[p]
    }

    /// What any port of the fabric is as built, held here or not.
    pub fn port_facts(&self, p: PortId) -> &ports::PortFacts {
        self.ports.facts(p)
    }

    /// Port `p`'s link rate and delay: now, where this copy holds the port;
    /// as built, where it does not (an LP's copy building a flow's path
    /// over other LPs' ports, before anything has changed them).
    pub fn link(&self, p: PortId) -> (sim_core::Bandwidth, sim_core::SimDuration) {
        if self.ports.holds(p) {
            let port = &self.ports[p];
            (port.rate, port.delay)
        } else {
            let f = self.ports.facts(p);
            (f.rate, f.delay)
        }
    }

    /// What every port of the fabric is as built, by `PortId`.
    pub fn port_facts_all(&self) -> impl ExactSizeIterator<Item = &ports::PortFacts> + Clone {
        self.ports.all_facts()
    }

    /// The node of host `h`.
    pub fn host_node(&self, h: HostId) -> NodeId {
        self.host_nodes[h.idx()]
    }

    /// The two ports of cable `cable` (an index into the topology's
    /// cables): the one at its first node, then the one at its second.
    pub fn cable_ports(cable: usize) -> [PortId; 2] {
        let (a, b) = cable_ports(cable);
        [a, b]
    }

    /// Whether node `n` forwards packets between its other neighbours:
    /// a switch does; a host does not, nor a multi-plane host's NIC node,
    /// which forwards only its own host's packets, nor a scale-up switch,
    /// which forwards only among its server's GPUs.
    pub fn transits(&self, n: NodeId) -> bool {
        !self.nodes[n.idx()].kind.has_nic_ports()
    }

    /// The NIC (egress) port of a host.
    pub fn host_port(&self, h: HostId) -> PortId {
        self.host_ports[h.idx()]
    }

    /// Which of its links host `src` sends to `dst` by: a GPU's NVLink to
    /// a GPU of its own server, else its NIC (the GPU's own rail, as
    /// NCCL picks it). Fixed per pair, so a flow's port never changes.
    #[inline(always)]
    pub fn link_towards(&self, src: HostId, dst: HostId) -> HostLink {
        match self.scale_up_domain.get(src.idx()) {
            Some(&d) if d != u32::MAX && self.scale_up_domain[dst.idx()] == d => HostLink::ScaleUp,
            _ => HostLink::Nic,
        }
    }

    /// Host `h`'s egress port on `link`.
    #[inline(always)]
    pub fn host_link_port(&self, h: HostId, link: HostLink) -> PortId {
        match link {
            HostLink::Nic => self.host_ports[h.idx()],
            HostLink::ScaleUp => self.scale_up_ports[h.idx()],
        }
    }

    /// Host `h`'s egress port for packets to `peer` (its link towards it,
    /// [`Fabric::link_towards`]); both ends of a pair use the same link.
    #[inline(always)]
    pub fn host_port_towards(&self, h: HostId, peer: HostId) -> PortId {
        self.host_link_port(h, self.link_towards(h, peer))
    }

    /// Whether any host is a GPU with a scale-up link.
    pub fn has_scale_up(&self) -> bool {
        !self.scale_up_domain.is_empty()
    }

    /// The planes host `h` reaches through its NIC node (1 without planes).
    pub fn nic_planes(&self, h: HostId) -> u32 {
        let nic = self.ports.facts(self.host_ports[h.idx()]).peer_node;
        match self.nodes[nic.idx()].kind {
            NodeKind::Switch { tier: NIC_TIER } => self.planes,
            _ => 1,
        }
    }

    /// The port of host `h`'s switch (its NIC node's, with planes) towards it.
    pub fn port_towards_host(&self, h: HostId) -> PortId {
        Self::peer(self.host_ports[h.idx()])
    }

    /// The port at the far end of port `p`'s cable (its cable's other end).
    pub fn peer(p: PortId) -> PortId {
        PortId(p.0 ^ 1)
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

    /// Admits a packet at a switch egress port as if it had just come
    /// through the ingress stage (benchmarks and tests of one port).
    pub fn inject<S: Scheduler>(&mut self, port: PortId, pkt: Packet, sched: &mut S) {
        assert!(self.ports[port].at_switch, "inject at a switch port");
        let id = self.packets.alloc(Packet {
            ingress_port: NO_PORT,
            ..pkt
        });
        self.enqueue(port, id, sched);
    }

    /// Processes one network event.
    #[inline]
    pub fn handle<S: Scheduler>(&mut self, ev: NetEvent, sched: &mut S) -> Outcome {
        // The two events of every hop first, the rare ones out of line: a
        // five-way match compiles to a jump table whose target alternates
        // between TxDone and Deliver, an indirect branch mispredicted about
        // every other hop (cachegrind: 29 k indirect mispredictions became
        // 556 k on the 128-to-1 incast when PFC added two events).
        if let NetEvent::Deliver(p) = ev {
            return self.deliver(p, sched);
        }
        if let NetEvent::TxDone(p) = ev {
            return self.tx_done(p, sched);
        }
        if let NetEvent::Arrive(id) = ev {
            return self.arrive(id, sched);
        }
        self.handle_rare(ev, sched)
    }

    /// The port finished serialising: it starts its next frame, if any.
    #[inline]
    fn tx_done<S: Scheduler>(&mut self, p: PortId, sched: &mut S) -> Outcome {
        let port = &mut self.ports[p];
        assert!(port.busy, "TxDone on idle {p}"); // pairs with start_tx's
        port.busy = false;
        if port.packets > 0
            || port.pfc_attention & (PFC_FRAME | CREDITS_QUEUED | HEADERS_QUEUED) != 0
        {
            self.start_tx(p, sched);
        }
        self.nic_ready(p)
    }

    /// `NicReady` if port `p` is a host's NIC, else nothing.
    #[inline(always)]
    fn nic_ready(&self, p: PortId) -> Outcome {
        let node = self.ports[p].node;
        match self.nodes[node.idx()].kind {
            NodeKind::Host => Outcome::NicReady {
                host: self.host_of(node),
            },
            NodeKind::Switch { .. } => Outcome::Nothing,
        }
    }

    /// The events that are not a hop's: hook timers and PFC.
    #[inline(never)]
    fn handle_rare<S: Scheduler>(&mut self, ev: NetEvent, sched: &mut S) -> Outcome {
        // A PFC frame or timer at a host's port may have resumed a class
        // whose flows build their packets at the wire: the NIC asks them.
        let upstream = match ev {
            NetEvent::TxDone(_) | NetEvent::Deliver(_) | NetEvent::Arrive(_) => {
                unreachable!("handled inline")
            }
            NetEvent::IngressTimer(p) => {
                self.on_ingress_timer(p, sched);
                return Outcome::Nothing;
            }
            NetEvent::PfcDeliver(p) => {
                self.pfc_deliver(p, sched);
                Self::peer(p)
            }
            NetEvent::PfcTimer(p) => {
                self.pfc_timer(p, sched);
                p
            }
            NetEvent::CreditTimer(p) => {
                self.credit_timer(p, sched);
                p
            }
            NetEvent::Fault(i) => {
                self.on_fault(i);
                return Outcome::Nothing;
            }
        };
        self.nic_ready(upstream)
    }

    #[inline]
    fn host_of(&self, node: NodeId) -> HostId {
        let h = self.host_of_node[node.idx()];
        assert!(h != u32::MAX, "node {node} is not a host");
        HostId(h)
    }

    fn deliver<S: Scheduler>(&mut self, p: PortId, sched: &mut S) -> Outcome {
        let now = sched.now();
        let port = &mut self.ports[p];
        let (at, id) = port
            .in_flight
            .pop_front()
            .expect("Deliver with nothing in flight");
        assert_eq!(at, now, "link {p} delivered out of time");
        if let Some(next) = port.in_flight.front_time() {
            sched.schedule_net(next, NetEvent::Deliver(p));
        }
        let (in_port, node) = (port.peer, port.peer_node);
        self.reach(in_port, node, id, sched)
    }

    /// Packet `id` reaches port `in_port` of `node` from the link: a host
    /// takes it, a switch's ingress stage admits it.
    #[inline(always)]
    fn reach<S: Scheduler>(
        &mut self,
        in_port: PortId,
        node: NodeId,
        id: PacketId,
        sched: &mut S,
    ) -> Outcome {
        self.hops += 1;
        let pkt = self.packets.get_mut(id);
        pkt.hops = pkt.hops.saturating_add(1);
        assert!(
            (pkt.hops as usize) <= self.nodes.len(),
            "a packet of {} looped",
            pkt.origin
        );
        let dst = pkt.dst;
        debug_assert_eq!(node, self.ports[in_port].node);
        match self.nodes[node.idx()].kind {
            NodeKind::Host => {
                let host = self.host_of(node);
                // Pairs with host_send's: packets leave their source and reach their destination.
                assert_eq!(dst, host, "a packet for {dst} reached {host}");
                Outcome::Delivered { host, pkt: id }
            }
            NodeKind::Switch { .. } => {
                self.ingress(in_port, id, sched);
                Outcome::Nothing
            }
        }
    }

    /// Admits a packet to its class queue (buffer check on the port's
    /// total, then the AQM's verdict) and starts transmission if the port is idle.
    #[inline]
    fn enqueue<S: Scheduler>(&mut self, p: PortId, id: PacketId, sched: &mut S) {
        let now = sched.now();
        let port = &mut self.ports[p];
        let pkt = self.packets.get_mut(id);
        if pkt.kind == Kind::Credit && port.credit.is_some() {
            return self.enqueue_credit(p, id, sched);
        }
        if self.config.header_queue().is_some() && pkt.rides_header_queue() {
            return self.forward_header(p, id, sched);
        }
        let size = pkt.size_bytes;
        let class = if port.queues.is_single() {
            0
        } else {
            self.config.class_of_priority[pkt.priority as usize % PRIORITIES] as usize
        };
        debug_assert!(class < port.queues.len());
        // A lossless packet the PFC memory manager charged is in the buffer already.
        let shared = shared_alpha(&self.config.buffer, port).filter(|_| !pkt.mmu_charged);
        let fits = match shared {
            Some(dt_alpha) => {
                self.shared[port.node.idx()].admits(port.queues[class].bytes(), size, dt_alpha)
            }
            None => port.fits(size),
        };
        if !fits || trim_stage::over(&self.config.trim, port, class, size) {
            return self.drop_or_trim(p, class, id, DropCause::BufferOverflow, sched);
        }
        let state = port.state(class, self.pool[port.node.idx()]);
        let mut marked = false;
        if let Some(aqm) = port.aqm.as_mut() {
            match aqm.on_enqueue(now, state, pkt) {
                Verdict::Accept => {}
                Verdict::Mark => marked = mark_ce(port, class, pkt),
                Verdict::Drop => return self.drop_or_trim(p, class, id, DropCause::Aqm, sched),
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
        port.note_growth(now, class);
        // The view reads the VIQ, a line that ports without a hook never touch.
        let view = port.has_ingress_hook().then(|| port.view(None));
        let mark = match (view, port.ingress.hook.as_mut()) {
            (Some(view), Some(hook)) => hook.on_egress_enqueue(now, &view, pkt),
            _ => false,
        };
        if mark {
            marked |= mark_ce(port, class, pkt);
        }
        let busy = port.busy;
        if port.pfc_attention & OBSERVED != 0 {
            self.report(p, PacketEvent::Enqueue, id, now);
            if marked {
                self.report(p, PacketEvent::Mark, id, now);
            }
        }
        if busy {
            self.service_viq(p, sched);
        } else {
            self.start_tx(p, sched); // serves the VIQ after the departure
        }
    }

    /// The shared buffer of a switch (empty under per-port buffers).
    pub fn shared_buffer(&self, node: NodeId) -> &SharedBuffer {
        &self.shared[node.idx()]
    }

    /// Trims packet `id` at port `p` where trimming is on and the packet
    /// may be trimmed, else drops it for `cause`.
    #[inline(never)]
    fn drop_or_trim<S: Scheduler>(
        &mut self,
        p: PortId,
        class: usize,
        id: PacketId,
        cause: DropCause,
        sched: &mut S,
    ) {
        if let Some(t) = self.config.trim
            && trim_stage::trimmable(self.packets.get(id))
            && self.headers.room(p, t.header_bytes, t.header_queue_bytes)
        {
            return self.trim(p, id, sched);
        }
        self.drop_packet(p, class, id, cause, sched)
    }

    fn drop_packet<S: Scheduler>(
        &mut self,
        p: PortId,
        class: usize,
        id: PacketId,
        cause: DropCause,
        sched: &mut S,
    ) {
        if self.ports[p].pfc_attention & OBSERVED != 0 {
            self.report(p, PacketEvent::Drop(cause.into()), id, sched.now());
        }
        let pkt = self.packets.get(id);
        if let Some(cfg) = self.config.pfc
            && cfg.is_lossless(pkt.priority)
        {
            let q = (pkt.priority % 8) as usize;
            if let Some(st) = self.ports[p].pfc.as_deref_mut() {
                st.stats.lossless_drops[q] += 1; // a lossless violation, never hidden
            }
        }
        self.leave_switch(id, sched);
        let port = &mut self.ports[p];
        port.stats.dropped_bytes += self.packets.get(id).size_bytes as u64;
        if let Some(cs) = port.class_stats_mut(class) {
            cs.drops += 1;
            cs.drops_aqm += (cause == DropCause::Aqm) as u64;
            cs.drops_aqm_dequeue += (cause == DropCause::AqmDequeue) as u64;
        }
        let stats = &mut port.stats;
        match cause {
            DropCause::BufferOverflow => stats.drops_overflow += 1,
            DropCause::Aqm => stats.drops_aqm += 1,
            DropCause::AqmDequeue => stats.drops_aqm_dequeue += 1,
        }
        self.packets.free(id);
    }

    /// The egress ports a packet would take from its source host to its
    /// destination, by routing alone (no queues involved), before any
    /// link failed.
    pub fn path(&self, pkt: &Packet) -> Vec<PortId> {
        let routes = self.routes_before.as_deref().unwrap_or(&self.routes);
        let mut out = vec![self.host_port_towards(pkt.src, pkt.dst)];
        loop {
            let last = *out.last().expect("non-empty");
            let node = self.ports.facts(last).peer_node;
            match self.nodes[node.idx()].kind {
                NodeKind::Host => return out,
                NodeKind::Switch { .. } => {
                    assert!(out.len() <= self.nodes.len(), "routing loop");
                    let salt = self.nodes[node.idx()].ecmp_salt;
                    out.push(routes.select(node, salt, pkt));
                }
            }
        }
    }

    /// Bytes queued, held or in flight anywhere (for conservation checks).
    pub fn bytes_in_network(&self) -> u64 {
        self.ports
            .iter()
            .map(|(_, p)| {
                let flying: u64 = p
                    .in_flight
                    .iter()
                    .map(|(_, id)| self.packets.get(id).size_bytes as u64)
                    .sum();
                p.bytes + p.ingress.viq.bytes() + flying
            })
            .sum::<u64>()
            + self.headers.total_bytes()
    }

    /// Packets queued, held or in flight anywhere (for conservation checks).
    pub fn packets_in_network(&self) -> usize {
        self.ports
            .iter()
            .map(|(_, p)| p.packets as usize + p.in_flight.len() + p.ingress.viq.packets() as usize)
            .sum::<usize>()
            + self.headers.packets()
    }
}

mod build;
mod credit_stage;
mod cut_stage;
mod egress;
mod fault_stage;
mod ingress_stage;
mod nic;
mod observe_stage;
mod pfc_stage;
pub mod ports;
mod prefetch;
mod trim_stage;
pub use build::Shared;
pub use cut_stage::{Cargo, Crossing};
pub use fault_stage::{FaultKind, LinkFault};
pub use nic::HostLink;
pub use pfc_stage::MmuSnapshot;
pub use trim_stage::{TRIM_HEADER_BYTES, TRIM_HEADER_QUEUE_BYTES, TrimConfig};
#[cfg(test)]
mod pfc_tests;
#[cfg(test)]
mod tests;
