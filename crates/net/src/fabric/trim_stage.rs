//! Packet trimming (NDP, Handley et al., SIGCOMM 2017, 3.1; UEC 1.0;
//! htsim's `-trimsize`): a switch port that would drop a data packet, or
//! finds its queue above a threshold, cuts the packet to its header and
//! sends the header ahead of the queued data, so that the receiver learns
//! of the loss one queueing delay later instead of a timeout later.
//!
//! The header keeps the packet's addressing and sequence number; its kind
//! becomes [`Kind::Trimmed`], its size the configured header size, and an
//! ECN-capable one is marked CE (a trim is congestion). It
//! leaves the switch's buffer accounting at once (the full packet is
//! released, as a drop would release it) and waits in the port's header
//! queue, which NDP keeps apart from the data queue and serves first
//! (3.1: "priority queue for headers"). Headers are small and few beside
//! the data they stand for, so the header queue has no limit of its own.

use super::{Fabric, Scheduler, put_on_wire};
use crate::ids::PortId;
use crate::observe::PacketEvent;
use crate::packet::{Kind, Packet, PacketId};
use crate::port::{HEADERS_QUEUED, OBSERVED};
use sim_core::QueueSize;
use std::collections::VecDeque;

/// `[switch.trim]`: when switches trim and to what size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrimConfig {
    /// The size of a trimmed packet (its headers), bytes.
    pub header_bytes: u32,
    /// Trim an arriving data packet when its class queue holds more than
    /// this (absent: only a packet that would be dropped is trimmed).
    pub threshold: Option<QueueSize>,
    /// The most header bytes a port's header queue holds; a packet whose
    /// header would not fit is dropped (NDP 3.1 bounds its header queue
    /// too: headers arrive faster than a port can send them when many
    /// senders keep sending into one full queue).
    pub header_queue_bytes: u64,
}

/// `TrimConfig::header_queue_bytes`' default: 1,000 headers of 64 B.
pub const TRIM_HEADER_QUEUE_BYTES: u64 = 64_000;

/// `TrimConfig::header_bytes`' default: 64 B, htsim's `-trimsize 64`
/// (Ethernet, IP and UDP headers with the transport's PSN and flow).
pub const TRIM_HEADER_BYTES: u32 = 64;

impl TrimConfig {
    /// Whether a data packet of `size` bytes arriving at a class queue
    /// that holds `bytes` in `packets` is over the threshold.
    #[inline]
    pub fn over(&self, bytes: u64, packets: u64, size: u32) -> bool {
        match self.threshold {
            None => false,
            Some(QueueSize::Bytes(t)) => bytes + size as u64 > t,
            Some(QueueSize::Packets(t)) => packets + 1 > t,
        }
    }
}

/// Whether trimming is on with a threshold that a data packet of `size`
/// bytes arriving at `queue` passes.
#[inline]
pub(super) fn over(
    trim: &Option<TrimConfig>,
    port: &crate::port::Port,
    class: usize,
    size: u32,
) -> bool {
    // Only a switch trims at its threshold: a NIC's queue is its host's.
    trim.is_some_and(|t| {
        let queue = &port.queues[class];
        port.at_switch && t.over(queue.bytes(), queue.packets(), size)
    })
}

/// Whether a switch may trim `pkt`: a data packet that still has its
/// payload (control packets, ACKs and credits are dropped as before).
#[inline]
pub(super) fn trimmable(pkt: &Packet) -> bool {
    pkt.kind == Kind::Data && pkt.payload_bytes > 0
}

/// Each port's header queue and count of trimmed packets.
#[derive(Debug, Default)]
pub(super) struct Headers {
    queues: Vec<VecDeque<PacketId>>,
    /// Bytes in each header queue.
    bytes: Vec<u64>,
    trimmed: Vec<u64>,
}

impl Headers {
    /// Header queues for `ports` ports (none when trimming is off).
    pub(super) fn new(ports: usize, on: bool) -> Headers {
        let n = if on { ports } else { 0 };
        Headers {
            queues: (0..n).map(|_| VecDeque::new()).collect(),
            bytes: vec![0; n],
            trimmed: vec![0; n],
        }
    }
}

impl Headers {
    /// Bytes of the headers waiting (conservation checks).
    pub(super) fn total_bytes(&self) -> u64 {
        self.bytes.iter().sum()
    }

    /// Whether port `p`'s header queue has room for `size` more bytes.
    pub(super) fn room(&self, p: PortId, size: u32, limit: u64) -> bool {
        self.bytes[p.idx()] + size as u64 <= limit
    }

    /// Headers waiting (conservation checks).
    pub(super) fn packets(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }
}

impl Fabric {
    /// Cuts packet `id`, which port `p` would otherwise drop or which
    /// found its queue over the threshold, to its header and queues the
    /// header ahead of the data.
    #[inline(never)]
    pub(super) fn trim<S: Scheduler>(&mut self, p: PortId, id: PacketId, sched: &mut S) {
        let header = self.config.trim.expect("trimming is on").header_bytes;
        self.leave_switch(id, sched);
        let pkt = self.packets.get_mut(id);
        pkt.kind = Kind::Trimmed;
        pkt.size_bytes = header.min(pkt.size_bytes);
        pkt.payload_bytes = 0;
        // A trim is congestion: the header carries CE where the transport
        // reads ECN (UEC 1.0's NSCC counts trims as congestion; a DCQCN
        // notification point answers the CE with a CNP).
        if pkt.ecn != crate::packet::Ecn::NotEct {
            pkt.ecn = crate::packet::Ecn::Ce;
        }
        self.headers.trimmed[p.idx()] += 1;
        if self.ports[p].pfc_attention & OBSERVED != 0 {
            self.report(p, PacketEvent::Trim, id, sched.now());
        }
        self.queue_header(p, id, sched);
    }

    /// Queues header `id` at port `p`, ahead of the data.
    fn queue_header<S: Scheduler>(&mut self, p: PortId, id: PacketId, sched: &mut S) {
        self.headers.bytes[p.idx()] += self.packets.get(id).size_bytes as u64;
        self.headers.queues[p.idx()].push_back(id);
        let port = &mut self.ports[p];
        port.set_attention(HEADERS_QUEUED, true);
        if !port.busy {
            self.start_tx(p, sched);
        }
    }

    /// A header trimmed upstream, or a transport's header-only control
    /// packet ([`Packet::rides_header_queue`]), reaches port `p` of a
    /// switch with header priority (a trimming one, or one with
    /// `header_priority`): it joins the header queue, not the data
    /// (htsim's CompositeQueue serves every header-only packet from its
    /// priority queue, trimming or not), or is dropped when that queue is
    /// full.
    #[inline(never)]
    pub(super) fn forward_header<S: Scheduler>(&mut self, p: PortId, id: PacketId, sched: &mut S) {
        let limit = (self.config.header_queue()).expect("header priority is on");
        let size = self.packets.get(id).size_bytes;
        if !self.headers.room(p, size, limit) {
            return self.drop_packet(p, 0, id, crate::port::DropCause::BufferOverflow, sched);
        }
        self.leave_switch(id, sched);
        if self.ports[p].pfc_attention & OBSERVED != 0 {
            self.report(p, PacketEvent::Enqueue, id, sched.now());
        }
        self.queue_header(p, id, sched);
    }

    /// Sends the head of port `p`'s header queue: whether one went.
    #[inline(never)]
    pub(super) fn send_header<S: Scheduler>(&mut self, p: PortId, sched: &mut S) -> bool {
        let now = sched.now();
        let Some(id) = self.headers.queues[p.idx()].pop_front() else {
            self.ports[p].set_attention(HEADERS_QUEUED, false);
            return false;
        };
        if self.headers.queues[p.idx()].is_empty() {
            self.ports[p].set_attention(HEADERS_QUEUED, false);
        }
        let size = self.packets.get(id).size_bytes;
        self.headers.bytes[p.idx()] -= size as u64;
        let wire_bytes = self.config.wire.wire_bytes(size);
        let port = &mut self.ports[p];
        port.stats.tx_packets += 1;
        port.stats.tx_bytes += size as u64;
        port.stats.tx_wire_bytes += wire_bytes;
        let observed = port.pfc_attention & OBSERVED != 0;
        let arrival = put_on_wire(port, p, id, wire_bytes, now, sched);
        if observed {
            self.report(p, PacketEvent::Dequeue, id, now);
        }
        if let Some(arrival) = arrival {
            self.off_wire(arrival, p, id, sched);
        }
        true
    }

    /// Packets port `p` trimmed.
    pub fn trimmed(&self, p: PortId) -> u64 {
        self.headers.trimmed.get(p.idx()).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_counts_the_arriving_packet() {
        let t = TrimConfig {
            header_bytes: 64,
            threshold: Some(QueueSize::Bytes(3_000)),
            header_queue_bytes: TRIM_HEADER_QUEUE_BYTES,
        };
        assert!(!t.over(1_500, 1, 1_500));
        assert!(t.over(1_501, 1, 1_500));
        let t = TrimConfig {
            threshold: Some(QueueSize::Packets(2)),
            ..t
        };
        assert!(!t.over(0, 1, 1_500));
        assert!(t.over(0, 2, 1_500));
        let off = TrimConfig {
            threshold: None,
            ..t
        };
        assert!(!off.over(u64::MAX / 2, 1 << 40, 9_000));
    }
}
