//! The observation seam: what ports push, as it happens, to whoever records
//! it (pcap captures, the packet event log).
//!
//! A port is observed when an [`Observer`] asked for it
//! ([`crate::Fabric::observe`]); the fabric then reports each packet's
//! enqueue, departure, CE mark and drop there, and each PFC frame the port
//! sends or receives. Ports nobody observes pay one bit test a packet, in
//! the cache line every hop reads already (the port's attention byte).
//! Hosts are observed at their NIC's port: what a host sends (data, ACKs,
//! NAKs, CNPs, retransmissions) is a departure there.

use crate::ids::PortId;
use crate::packet::Packet;
use crate::port::DropCause;
use sim_core::SimTime;

/// What happened to a packet at an observed port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PacketEvent {
    /// It joined one of the port's class queues.
    Enqueue,
    /// It left the head of its queue and started onto the wire (what a
    /// capture on the port's link sees, ECN as the port left it).
    Dequeue,
    /// The port's AQM or ingress hook set CE on it (reported after
    /// `Enqueue` or before `Dequeue`, at the same time).
    Mark,
    /// The port dropped it.
    Drop(Dropped),
    /// The port cut it to its header instead of dropping it
    /// (`[switch.trim]`; reported with the header as it now is).
    Trim,
}

/// Why an observed port dropped a packet: its egress queue's causes
/// ([`DropCause`]) and its ingress stage's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// The egress buffer was full.
    Overflow,
    /// The egress AQM dropped it as it arrived.
    Aqm,
    /// The egress AQM dropped it at the head of the queue.
    AqmDequeue,
    /// The ingress stage's VIQ was full.
    ViqFull,
    /// The ingress hook dropped it from the VIQ as too old.
    ViqAged,
    /// A lossless packet found its PFC headroom full (a lossless violation).
    PfcHeadroom,
    /// It was on the port's link when the link went down, or sent into
    /// it later (`[[failure]]`).
    LinkDown,
}

impl From<DropCause> for Dropped {
    fn from(c: DropCause) -> Dropped {
        match c {
            DropCause::BufferOverflow => Dropped::Overflow,
            DropCause::Aqm => Dropped::Aqm,
            DropCause::AqmDequeue => Dropped::AqmDequeue,
        }
    }
}

/// A PFC frame at an observed port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PfcEvent {
    /// The port sent PAUSE for a priority (its ingress was congested).
    PauseSent,
    /// The port sent RESUME for a priority.
    ResumeSent,
    /// The port received PAUSE for a priority (its egress stops it).
    PauseReceived,
    /// The port received RESUME for a priority.
    ResumeReceived,
}

/// Whoever records what observed ports report. Calls come in simulation
/// order; `port_bytes` is the port's queued bytes after the event.
pub trait Observer: Send {
    /// A packet event at port `port`.
    fn packet(
        &mut self,
        now: SimTime,
        port: PortId,
        ev: PacketEvent,
        pkt: &Packet,
        port_bytes: u64,
    );
    /// A PFC frame for `priority` sent or received at port `port`.
    fn pfc(&mut self, now: SimTime, port: PortId, ev: PfcEvent, priority: u8);
    /// The run is over: write out what is held, report the first error.
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
