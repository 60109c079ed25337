//! Link failures: a cable that goes down at a time (both directions, and
//! whatever is on it then is lost) or runs on at a fraction of its rate
//! from a time, and each switch's routes after it detects a failure.
//!
//! A scenario names its failures before the run, so everything about them
//! is known at build time. A packet is lost on a failed link when it is
//! still on the wire at the failure time or later: its arrival time,
//! known as it starts onto the wire, is after the failure. The verdict is
//! taken there, so it needs no event and reads the same whichever logical
//! process holds the far end. Before a switch detects a failure it keeps
//! sending into the dead link (a black hole). At failure time + the
//! failure's `reroute_after` each switch takes the routes it will use
//! from then on: shortest paths over the links whose failures have been
//! detected, computed at build time and applied by an event of the switch
//! itself, so no switch waits on a global recomputation. A failure
//! without `reroute_after` is never detected. Links to hosts cannot be
//! routed around: their failure is a black hole for the host.

use super::{Fabric, NetEvent, Scheduler, cable_ports};
use crate::ids::{NodeId, PortId};
use crate::observe::{Dropped, PacketEvent};
use crate::packet::PacketId;
use crate::port::{LINK_CUT, LINK_FAILS, OBSERVED};
use crate::routing::RoutingTable;
use crate::topology::NodeKind;
use sim_core::{Bandwidth, QueueSize, SimDuration, SimTime};

/// A failure of one cable, from the scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkFault {
    /// The cable (an index into the topology's cables).
    pub cable: usize,
    /// When it happens.
    pub at: SimTime,
    /// What happens.
    pub kind: FaultKind,
    /// How long after `at` every switch routes around it (`None`: never,
    /// a black hole). Only a link that goes down is routed around.
    pub reroute_after: Option<SimDuration>,
    /// A degraded link slows only the direction that leaves this node
    /// (`None`: both directions).
    pub only_from: Option<NodeId>,
    /// A degraded port's buffer shrinks by the fraction its rate keeps
    /// (htsim's failed links), so that its queue drains in the same time.
    pub buffer_scales: bool,
}

/// What a failure does to its cable.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FaultKind {
    /// Down in both directions: everything on it or sent to it is lost.
    Down,
    /// Both directions run at this fraction of the rate (0 to 1,
    /// exclusive of 0): a degraded link, still up.
    Degrade(f64),
}

impl LinkFault {
    /// The fraction of its rate the port that `node` sends on over cable
    /// `cable` runs at from the start, and whether its buffer shrinks
    /// with it, if a failure of `faults` degrades it at time zero (such
    /// a port is built degraded, so that its AQM knows its rate).
    pub fn at_start(faults: &[LinkFault], cable: usize, node: NodeId) -> Option<(f64, bool)> {
        faults.iter().find_map(|f| match f.kind {
            FaultKind::Degrade(x)
                if f.cable == cable
                    && f.at == SimTime::ZERO
                    && f.only_from.is_none_or(|n| n == node) =>
            {
                Some((x, f.buffer_scales))
            }
            _ => None,
        })
    }

    /// `rate` and `buffer` scaled by `fraction` (the buffer only if
    /// `buffer_scales`).
    pub fn degraded(
        rate: Bandwidth,
        buffer: QueueSize,
        fraction: f64,
        buffer_scales: bool,
    ) -> (Bandwidth, QueueSize) {
        let bps = (rate.bps() as f64 * fraction).round().max(1.0);
        let scaled = |n: u64| ((n as f64 * fraction).round() as u64).max(1);
        let buffer = match buffer {
            QueueSize::Bytes(n) if buffer_scales => QueueSize::Bytes(scaled(n)),
            QueueSize::Packets(n) if buffer_scales => QueueSize::Packets(scaled(n)),
            b => b,
        };
        (Bandwidth::from_bps(bps as u64), buffer)
    }
}

/// One scheduled change at a node.
#[derive(Clone, Debug)]
enum Change {
    /// A port's link rate changes, and its buffer if given.
    Rate(PortId, Bandwidth, Option<QueueSize>),
    /// The switch takes new routes to the ToRs listed.
    Reroute(Vec<(u32, Vec<PortId>)>),
}

/// The failures of a fabric, prepared at build time.
#[derive(Debug, Default)]
pub(super) struct Faults {
    /// The ports whose link goes down, with the time, by port.
    down: Vec<(PortId, SimTime)>,
    /// The changes, each at its time and node.
    changes: Vec<(SimTime, NodeId, Change)>,
    /// Packets lost on each failed link, by port (`down`'s order).
    lost: Vec<u64>,
    /// Packets a switch dropped for want of any route, by node.
    unroutable: Vec<u64>,
}

impl Faults {
    /// The failures of `faults` over a fabric of `ports` whose routes
    /// are `base`; `original` gives a port's rate and buffer before any
    /// failure (a degradation is a fraction of these: the latest in effect
    /// wins, it does not compound the one before).
    pub(super) fn prepare(
        faults: &[LinkFault],
        ports: &super::ports::Ports,
        original: impl Fn(PortId) -> (Bandwidth, QueueSize),
        kinds: &[NodeKind],
        adjacency: &[Vec<(PortId, NodeId)>],
        host_nodes: &[NodeId],
        base: &RoutingTable,
    ) -> Faults {
        let mut out = Faults {
            unroutable: vec![0; kinds.len()],
            ..Faults::default()
        };
        for f in faults {
            let (a, b) = cable_ports(f.cable);
            for p in [a, b] {
                let node = ports.facts(p).node;
                match f.kind {
                    FaultKind::Down => out.down.push((p, f.at)),
                    FaultKind::Degrade(_) if f.only_from.is_some_and(|n| n != node) => {}
                    // Degraded from the start: the port is built so (`at_start`).
                    FaultKind::Degrade(_) if f.at == SimTime::ZERO => {}
                    FaultKind::Degrade(x) => {
                        let port = ports.facts(p);
                        let (rate0, buffer0) = original(p);
                        let (rate, buffer) = LinkFault::degraded(
                            rate0,
                            buffer0,
                            x,
                            f.buffer_scales && port.at_switch,
                        );
                        // The buffer too is this failure's: scaled, or the
                        // original again after an earlier one scaled it.
                        let buffer = port.at_switch.then_some(buffer);
                        out.changes
                            .push((f.at, node, Change::Rate(p, rate, buffer)));
                    }
                }
            }
        }
        // A port whose cable fails twice goes down at the first.
        out.down.sort_by_key(|&(p, at)| (p, at));
        out.down.dedup_by_key(|&mut (p, _)| p);
        out.lost = vec![0; out.down.len()];
        out.plan_reroutes(faults, kinds, adjacency, host_nodes, base);
        out
    }

    /// Each switch's route changes: one table per detection time, over
    /// the switch links whose failures are detected by then; a switch
    /// whose rows change gets them at that time.
    fn plan_reroutes(
        &mut self,
        faults: &[LinkFault],
        kinds: &[NodeKind],
        adjacency: &[Vec<(PortId, NodeId)>],
        host_nodes: &[NodeId],
        base: &RoutingTable,
    ) {
        let mut detected: Vec<(SimTime, usize)> = faults
            .iter()
            .filter(|f| f.kind == FaultKind::Down)
            .filter_map(|f| f.reroute_after.map(|d| (f.at + d, f.cable)))
            .collect();
        detected.sort(); // stable in (time, cable): the order events are scheduled
        let is_switch = |n: NodeId| kinds[n.idx()] != NodeKind::Host;
        let mut gone: Vec<PortId> = Vec::new();
        let mut previous: Option<RoutingTable> = None;
        for group in detected.chunk_by(|x, y| x.0 == y.0) {
            let at = group[0].0;
            for &(_, cable) in group {
                let (a, b) = cable_ports(cable);
                gone.extend([a, b]);
            }
            // Host cables stay: a host's one cable cannot be routed around.
            let up: Vec<Vec<(PortId, NodeId)>> = adjacency
                .iter()
                .enumerate()
                .map(|(n, list)| {
                    let keep = |&&(p, peer): &&(PortId, NodeId)| {
                        !gone.contains(&p) || !is_switch(NodeId(n as u32)) || !is_switch(peer)
                    };
                    list.iter().filter(keep).copied().collect()
                })
                .collect();
            let table = RoutingTable::build_degraded(kinds, &up, host_nodes);
            let before = previous.as_ref().unwrap_or(base);
            for (n, kind) in kinds.iter().enumerate() {
                let node = NodeId(n as u32);
                if *kind == NodeKind::Host {
                    continue;
                }
                let rows = before.rows_changed(&table, node);
                if !rows.is_empty() {
                    self.changes.push((at, node, Change::Reroute(rows)));
                }
            }
            previous = Some(table);
        }
    }

    /// Whether some switch changes its routes during the run.
    pub(super) fn reroutes(&self) -> bool {
        self.changes
            .iter()
            .any(|c| matches!(c.2, Change::Reroute(..)))
    }

    /// The index in `down` of port `p`, if its link goes down.
    fn down_index(&self, p: PortId) -> Option<usize> {
        self.down.binary_search_by_key(&p, |&(q, _)| q).ok()
    }

    /// Whether a packet that arrives at `arrival` over port `p`'s link
    /// is lost (counted if so).
    fn lost_on(&mut self, p: PortId, arrival: SimTime) -> bool {
        let Some(i) = self.down_index(p) else {
            return false;
        };
        let lost = arrival > self.down[i].1;
        self.lost[i] += lost as u64;
        lost
    }
}

impl Fabric {
    /// Marks the ports whose link will go down, for the wire to consult.
    pub(super) fn mark_failing(&mut self) {
        for &(p, _) in &self.faults.down {
            if self.ports.holds(p) {
                self.ports[p].pfc_attention |= LINK_FAILS;
            }
        }
    }

    /// Schedules the failures' changes at the nodes `owns` accepts (an
    /// LP's own; every node in an undivided run), in a fixed order.
    pub fn schedule_faults<S: Scheduler>(&self, sched: &mut S, owns: impl Fn(NodeId) -> bool) {
        for (i, (at, node, _)) in self.faults.changes.iter().enumerate() {
            if owns(*node) {
                sched.schedule_net(*at, NetEvent::Fault(i as u32));
            }
        }
    }

    /// Applies scheduled change `i`.
    pub(super) fn on_fault(&mut self, i: u32) {
        let (_, node, change) = &self.faults.changes[i as usize];
        match change {
            Change::Rate(p, rate, buffer) => {
                let port = &mut self.ports[*p];
                port.rate = *rate;
                if let Some(b) = buffer {
                    port.buffer = *b;
                }
            }
            Change::Reroute(rows) => std::sync::Arc::make_mut(&mut self.routes).patch(*node, rows),
        }
    }

    /// Packet `id` went onto port `p`'s wire, a cut or failing link, to
    /// arrive at `arrival`: lost on a failed link, posted across a cut,
    /// or in flight to its far end.
    #[inline(never)]
    pub(super) fn off_wire<S: Scheduler>(
        &mut self,
        arrival: SimTime,
        p: PortId,
        id: PacketId,
        sched: &mut S,
    ) {
        let attention = self.ports[p].pfc_attention;
        if attention & LINK_FAILS != 0 && self.faults.lost_on(p, arrival) {
            if attention & OBSERVED != 0 {
                self.report(p, PacketEvent::Drop(Dropped::LinkDown), id, sched.now());
            }
            self.packets.free(id);
            return;
        }
        if attention & LINK_CUT != 0 {
            return self.cross(arrival, p, id);
        }
        let port = &mut self.ports[p];
        let first = port.in_flight.is_empty();
        port.in_flight.push_back(arrival, id);
        if first {
            sched.schedule_net(arrival, NetEvent::Deliver(p));
        }
    }

    /// A switch found no route for packet `id` (links failed and routed
    /// around): it is dropped and counted.
    #[inline(never)]
    pub(super) fn unroutable<S: Scheduler>(&mut self, node: NodeId, id: PacketId, sched: &mut S) {
        self.faults.unroutable[node.idx()] += 1;
        self.leave_switch(id, sched);
        self.packets.free(id);
    }

    /// The packets lost on the failed links of the nodes `mine` names'
    /// ports, and those their switches dropped for want of a route: one
    /// LP copy's part of [`Fabric::lost_on_links`] and
    /// [`Fabric::unroutable_drops`].
    pub fn fault_counts_of(&self, mine: impl Fn(NodeId) -> bool) -> (u64, u64) {
        let lost = (self.faults.down.iter().zip(&self.faults.lost))
            .filter(|((p, _), _)| mine(self.ports.facts(*p).node))
            .map(|(_, n)| n)
            .sum();
        let unroutable = (self.faults.unroutable.iter().enumerate())
            .filter(|&(n, _)| mine(NodeId(n as u32)))
            .map(|(_, c)| c)
            .sum();
        (lost, unroutable)
    }

    /// Whether some switch takes new routes around a failure after `now`
    /// (a run whose flows wait on it is not stuck yet).
    pub fn reroute_due_after(&self, now: SimTime) -> bool {
        self.faults
            .changes
            .iter()
            .any(|(at, _, c)| *at > now && matches!(c, Change::Reroute(..)))
    }

    /// Packets lost on port `p`'s link because it failed.
    pub fn lost_on_link(&self, p: PortId) -> u64 {
        self.faults.down_index(p).map_or(0, |i| self.faults.lost[i])
    }

    /// Packets lost on every failed link, switch and host links alike.
    pub fn lost_on_links(&self) -> u64 {
        self.faults.lost.iter().sum()
    }

    /// Packets the switches dropped for want of a route.
    pub fn unroutable_drops(&self) -> u64 {
        self.faults.unroutable.iter().sum()
    }
}
