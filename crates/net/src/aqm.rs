//! The egress AQM hook: the policy object an output queue consults.
//!
//! `net` defines the seam; the `aqm` crate implements the plugins (DropTail,
//! step ECN, RED, MQ-ECN, CoDel, PIE). A plugin sees the queue through a
//! read-only [`QueueState`] and the packet, and returns a [`Verdict`]; it
//! never owns packets. Buffer overflow is decided by the port before the
//! plugin is asked.
//!
//! A plugin is asked twice about each packet it lets in: as it arrives
//! ([`EgressAqm::on_enqueue`]: accept, mark or drop it) and as it leaves
//! the head of its queue ([`EgressAqm::on_dequeue`]: accept, mark, or drop
//! it there, a head drop). At dequeue the packet's `enqueued_at` is when it
//! joined this queue, so `now - enqueued_at` is its sojourn time (CoDel's
//! and PIE's delay).

use crate::packet::Packet;
use sim_core::SimTime;

/// What a plugin may read of the queue it guards, at the moment of the hook.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueState {
    /// Bytes in the packet's class queue, not counting the packet being decided.
    pub bytes: u64,
    /// Packets in the packet's class queue, not counting the packet being decided.
    pub packets: u64,
    /// Bytes in all class queues of the port.
    pub port_bytes: u64,
    /// Packets in all class queues of the port.
    pub port_packets: u64,
    /// Bytes in all egress queues of the switch (its service pool).
    pub pool_bytes: u64,
    /// Packets in all egress queues of the switch.
    pub pool_packets: u64,
    /// The packet's class queue (0 = highest priority).
    pub class: u8,
}

/// A plugin's decision about an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Enqueue unchanged.
    Accept,
    /// Enqueue with the ECN field set to CE.
    Mark,
    /// Drop (an early drop, counted apart from buffer overflow).
    Drop,
}

/// An active-queue-management policy for one egress queue.
pub trait EgressAqm: Send {
    /// Decides the fate of `pkt` arriving at a queue in state `q` at `now`.
    fn on_enqueue(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict;

    /// Called as `pkt` leaves the head of its queue for the wire (`q` is the
    /// state after it left; `pkt.enqueued_at` is when it joined the queue).
    /// `Mark` marks it as it leaves; `Drop` drops it there (a head drop,
    /// counted as `drops_aqm_dequeue`), and the port then offers its next
    /// head at the same `now`, until one is accepted or marked or nothing is
    /// left to send: RFC 8289's dequeue loop, one packet per call. The
    /// default accepts.
    fn on_dequeue(&mut self, _now: SimTime, _q: QueueState, _pkt: &Packet) -> Verdict {
        Verdict::Accept
    }

    /// The round-robin scheduler ended class `class`'s turn: `active` if the
    /// class was served in it, not if its turn found it empty. The default
    /// does nothing (MQ-ECN samples its round time here).
    fn on_round(&mut self, _now: SimTime, _class: usize, _active: bool) {}
}
