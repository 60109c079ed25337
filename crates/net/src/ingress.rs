//! The switch ingress stage: per-(ingress port, priority) buffer accounting,
//! the ingress hook, and the virtual input queue (VIQ) it may hold packets in.
//!
//! Every packet that reaches a switch passes the ingress stage of the port it
//! arrives on before forwarding. The stage
//!
//! 1. counts the packet against its (ingress port, priority) until it leaves
//!    the switch (an egress transmission or a drop): the accounting PFC needs;
//! 2. asks the port's [`IngressHook`], if any, which may rewrite the packet
//!    (FairQ's rwnd, the HSCC clamp) and forward it, or hold it in the port's
//!    virtual input queue (R-AQM, ABQ) to release it later;
//! 3. forwards the packet to its egress queue.
//!
//! One hook serves one physical port: it sees the packets arriving at the
//! port's ingress *and* the events of the same port's egress queue. That is
//! the coupling the seed papers rely on: with symmetric routing, the ACKs that
//! arrive at port X belong to the flows whose data leave through port X's
//! output queue (R-AQM paper IV-A, ABQ paper "Queueing discipline").
//!
//! Holding is real buffering. The VIQ is memory apart from the data buffer
//! (R-AQM paper IV-A: "in memory separate from the data buffer"); its capacity
//! is the hook's, and a packet that finds it full is dropped and counted
//! ([`IngressStats::viq_drops_full`]). The fabric owns the VIQ; the hook only
//! decides, through [`IngressHook::poll`], when its head leaves and how.

use crate::packet::Packet;
use crate::port::PacketQueue;
use sim_core::stats::TimeIntegral;
use sim_core::{Bandwidth, QueueSize, SimTime};

/// What an ingress hook may read of its port at the moment of a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IngressView {
    /// Bytes in the port's egress (output) queues, all classes.
    pub out_bytes: u64,
    /// Packets in the port's egress queues, all classes.
    pub out_packets: u64,
    /// Packets held in the port's VIQ.
    pub viq_packets: u64,
    /// Bytes held in the port's VIQ.
    pub viq_bytes: u64,
    /// When the VIQ's head (its oldest packet) was held, if the VIQ is not empty.
    pub head_held_at: Option<SimTime>,
    /// The port's link rate.
    pub rate: Bandwidth,
}

/// A hook's decision about a packet arriving at its port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// Forward it now (possibly rewritten).
    Forward,
    /// Hold it at the tail of the port's VIQ (dropped and counted if the VIQ is full).
    Hold,
}

/// What the hook wants done with the VIQ's head, asked after every event of
/// the port until it answers [`ViqAction::Wait`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViqAction {
    /// Nothing more now.
    Wait,
    /// Release the head: the fabric passes it to [`IngressHook::on_release`]
    /// (which may rewrite it) and forwards it.
    Release,
    /// Drop the head as too old (counted in [`IngressStats::viq_drops_aged`]).
    DropAged,
}

/// A switch plugin at one port's ingress (see the module docs).
///
/// All methods get the port's [`IngressView`]. Calls are made in event order;
/// a hook never owns a packet.
pub trait IngressHook: Send {
    /// The VIQ's capacity (packets or bytes).
    fn viq_capacity(&self) -> QueueSize;

    /// A packet arrives at the port. `pkt` may be rewritten.
    fn on_arrival(&mut self, now: SimTime, view: &IngressView, pkt: &mut Packet) -> Arrival;

    /// A packet was admitted to the port's egress queue (`view` counts it).
    /// The answer `true` marks it CE (it must then be ECN-capable).
    fn on_egress_enqueue(&mut self, _now: SimTime, _view: &IngressView, _pkt: &Packet) -> bool {
        false
    }

    /// A packet left the port's egress queue for the wire (`view` no longer counts it).
    fn on_egress_departure(&mut self, _now: SimTime, _view: &IngressView, _pkt: &Packet) {}

    /// What to do with the VIQ's head now (only asked while the VIQ holds packets).
    fn poll(&mut self, _now: SimTime, _view: &IngressView) -> ViqAction {
        ViqAction::Release
    }

    /// The held packet at the VIQ's head is leaving it; it may be rewritten
    /// (ECN-Echo, rwnd clamp, priority).
    fn on_release(&mut self, _now: SimTime, _view: &IngressView, _pkt: &mut Packet) {}

    /// When the hook next needs [`IngressHook::on_timer`], if ever. Asked
    /// after every call; the latest answer replaces earlier ones, and a time
    /// already past means "now".
    fn next_timer(&self, _view: &IngressView) -> Option<SimTime> {
        None
    }

    /// The time returned by `next_timer` has come.
    fn on_timer(&mut self, _now: SimTime, _view: &IngressView) {}
}

/// Counters of one port's ingress stage (beyond [`Ingress::arrived`]).
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct IngressStats {
    /// Packets the hook held in the VIQ.
    pub held: u64,
    /// Held packets released to forwarding.
    pub released: u64,
    /// Packets dropped because the VIQ was full.
    pub viq_drops_full: u64,
    /// Held packets dropped as too old.
    pub viq_drops_aged: u64,
    /// Bytes of the packets dropped at this ingress stage (both causes).
    pub dropped_bytes: u64,
    /// Largest VIQ length, in packets.
    pub viq_max_packets: u64,
    /// Largest VIQ length, in bytes.
    pub viq_max_bytes: u64,
    /// VIQ length in packets integrated over time (packets x ps).
    pub viq_packets_area: TimeIntegral,
}

/// The bytes of one priority counted against an ingress port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PriorityBytes {
    /// Bytes now in the switch (queued or held) that arrived with this priority.
    pub bytes: u64,
    /// The most `bytes` has been.
    pub max_bytes: u64,
}

/// The ingress stage of one switch port.
///
/// `repr(C)` from a cache-line boundary, in the order of use: every arrival
/// counts itself and its bytes in the first line (priorities 0 to 2 share
/// it with `arrived`); the hook, the VIQ and the timer are touched only at
/// ports with a hook.
#[derive(Default)]
#[repr(C, align(64))]
pub struct Ingress {
    /// Packets that arrived at the port from its link.
    pub arrived: u64,
    /// Bytes counted against this port, per priority.
    pub priority: [PriorityBytes; 8],
    /// The port's hook, if a plugin is installed (set through
    /// [`crate::port::Port::set_ingress_hook`], which keeps the port's flag).
    pub(crate) hook: Option<Box<dyn IngressHook>>,
    /// Held packets: the port's VIQ.
    pub viq: PacketQueue,
    /// Counters.
    pub stats: IngressStats,
    /// The hook's timer as scheduled (the event queue may hold stale ones).
    pub timer_at: Option<SimTime>,
}

impl Ingress {
    /// Whether holding `size` more bytes keeps the VIQ within `capacity`.
    #[inline]
    pub fn viq_fits(&self, capacity: QueueSize, size: u32) -> bool {
        !capacity.exceeded_by(self.viq.bytes() + size as u64, self.viq.packets() + 1)
    }

    /// Records the VIQ's length after a change at `now`.
    #[inline]
    pub fn note_viq(&mut self, now: SimTime) {
        let s = &mut self.stats;
        s.viq_packets_area.set(now.ps(), self.viq.packets());
        s.viq_max_packets = s.viq_max_packets.max(self.viq.packets());
        s.viq_max_bytes = s.viq_max_bytes.max(self.viq.bytes());
    }

    /// Counts `size` bytes of priority `prio` against this ingress port.
    #[inline]
    pub fn account(&mut self, prio: u8, size: u32) {
        let p = &mut self.priority[(prio % 8) as usize];
        p.bytes += size as u64;
        p.max_bytes = p.max_bytes.max(p.bytes);
    }

    /// Releases `size` bytes of priority `prio` (the packet left the switch).
    #[inline]
    pub fn unaccount(&mut self, prio: u8, size: u32) {
        self.priority[(prio % 8) as usize].bytes -= size as u64;
    }

    /// Bytes counted against this port now, per priority.
    pub fn priority_bytes(&self) -> [u64; 8] {
        self.priority.map(|p| p.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::PacketId;

    #[test]
    fn capacity_is_checked_in_its_own_unit() {
        let mut i = Ingress::default();
        i.viq.push(PacketId(0), 40);
        assert!(i.viq_fits(QueueSize::Packets(2), 1500));
        assert!(!i.viq_fits(QueueSize::Packets(1), 40));
        assert!(!i.viq_fits(QueueSize::Bytes(79), 40));
        assert!(i.viq_fits(QueueSize::Bytes(80), 40));
    }

    #[test]
    fn priority_accounting_tracks_the_maximum() {
        let mut i = Ingress::default();
        i.account(3, 1500);
        i.account(3, 1500);
        i.unaccount(3, 1500);
        i.account(11, 40); // priorities wrap into 0..8 like the class table
        assert_eq!(i.priority_bytes()[3], 1540);
        assert_eq!(i.priority[3].max_bytes, 3000);
    }
}
