//! An egress port: its output queue, the link it drives, and its counters.
//!
//! The port transmits one packet at a time at its link rate. It holds exactly
//! one pending `TxDone` event while busy and none while idle (htsim's queue
//! rule). The link it drives has a constant propagation delay, so packets in
//! flight form a FIFO ordered by arrival time and need one pending event for
//! the head only.

use crate::aqm::{EgressAqm, QueueState};
use crate::fifo::HeadFifo;
use crate::ids::{NodeId, PortId};
use crate::ingress::{Ingress, IngressHook, IngressView};
use crate::packet::PacketId;
use crate::sched::Scheduler;
use crate::wire::InFlight;
use sim_core::stats::TimeIntegral;
use sim_core::{Bandwidth, QueueSize, SimDuration, SimTime};

/// Why a port dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropCause {
    /// The buffer had no room (DropTail).
    BufferOverflow,
    /// The AQM plugin dropped it early, as it arrived.
    Aqm,
    /// The AQM plugin dropped it at the head of the queue as it was about
    /// to leave (CoDel's head drop, RFC 8289 5.5).
    AqmDequeue,
}

/// Counters of one egress port. Occupancy integrals give time averages over
/// any window by differencing two snapshots.
///
/// `repr(C)`: the counters every transmission updates come first and the
/// integrals right after them, so that a hop writes two adjacent cache lines
/// of them; drop counters, written rarely, come last.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
#[repr(C)]
pub struct PortStats {
    /// Packets that started transmission.
    pub tx_packets: u64,
    /// IP bytes that started transmission.
    pub tx_bytes: u64,
    /// Bytes serialised on the wire (framing and padding included).
    pub tx_wire_bytes: u64,
    /// Sum of waiting times, arrival to start of transmission (ps), one per
    /// packet sent (so `tx_packets` of them).
    pub wait_sum_ps: u128,
    /// Largest queue seen, in bytes.
    pub max_bytes: u64,
    /// Largest queue seen, in packets.
    pub max_packets: u64,
    /// Queue length in bytes integrated over time (bytes x ps).
    pub queue_bytes_area: TimeIntegral,
    /// Queue length in packets integrated over time (packets x ps).
    pub queue_packets_area: TimeIntegral,
    /// Packets marked CE at this port.
    pub ecn_marks: u64,
    /// Packets dropped because the buffer was full.
    pub drops_overflow: u64,
    /// Packets dropped early by the AQM, as they arrived.
    pub drops_aqm: u64,
    /// Packets the AQM dropped at the head of the queue (head drop).
    pub drops_aqm_dequeue: u64,
    /// Bytes of the packets dropped at this egress port, all causes.
    pub dropped_bytes: u64,
}

impl PortStats {
    /// All drops, whatever the cause.
    pub fn drops(&self) -> u64 {
        self.drops_overflow + self.drops_aqm + self.drops_aqm_dequeue
    }
    /// Mean waiting time (arrival to start of transmission), in ps;
    /// `None` before any packet was sent.
    pub fn mean_wait_ps(&self) -> Option<f64> {
        (self.tx_packets > 0).then(|| self.wait_sum_ps as f64 / self.tx_packets as f64)
    }
}

/// Counters of one class queue of a port.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct ClassStats {
    /// Packets that started transmission.
    pub tx_packets: u64,
    /// IP bytes that started transmission.
    pub tx_bytes: u64,
    /// Drops of this class's packets (overflow and AQM).
    pub drops: u64,
    /// Of those, early drops by the AQM at enqueue.
    pub drops_aqm: u64,
    /// Of those, head drops by the AQM at dequeue (the rest are buffer
    /// overflow).
    pub drops_aqm_dequeue: u64,
    /// CE marks on this class's packets.
    pub ecn_marks: u64,
    /// Largest length, in packets.
    pub max_packets: u64,
    /// Length in bytes integrated over time (bytes x ps).
    pub queue_bytes_area: TimeIntegral,
}

/// A FIFO of packet ids that counts bytes and packets: a class queue of an
/// egress port, or a port's virtual input queue ([`crate::ingress`]). Its
/// head, the packet the port sends next, is kept inline ([`HeadFifo`]).
#[derive(Debug, Default)]
pub struct PacketQueue {
    fifo: HeadFifo<PacketId>,
    bytes: u64,
}

impl PacketQueue {
    /// Bytes queued.
    #[inline]
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Packets queued.
    #[inline]
    pub fn packets(&self) -> u64 {
        self.fifo.len() as u64
    }
    /// The head packet, if any.
    #[inline]
    pub fn head(&self) -> Option<PacketId> {
        self.fifo.front()
    }
    /// Appends a packet of `size` bytes.
    #[inline]
    pub fn push(&mut self, id: PacketId, size: u32) {
        self.fifo.push_back(id);
        self.bytes += size as u64;
    }
    /// Removes the head; the caller passes its size back for accounting.
    #[inline]
    pub fn pop(&mut self) -> Option<PacketId> {
        self.fifo.pop_front()
    }
    /// Removes `size` bytes from the byte count (after `pop`).
    #[inline]
    pub fn release(&mut self, size: u32) {
        self.bytes -= size as u64;
    }
    /// Whether no packet is queued.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }
    /// Iterates the queued packets, head first.
    pub fn iter(&self) -> impl Iterator<Item = PacketId> + '_ {
        self.fifo.iter()
    }
}

/// The class queues of a port. The first lives inline, so that a one-class
/// port (every host NIC, most fabric ports) reads its queue from the port's
/// own cache lines instead of through two pointers; the others are on the heap.
#[derive(Debug, Default)]
pub struct ClassQueues {
    first: PacketQueue,
    rest: Box<[PacketQueue]>,
}

impl ClassQueues {
    /// `classes` empty queues (at least one).
    pub fn new(classes: usize) -> Self {
        assert!(classes >= 1, "a port has at least one class queue");
        ClassQueues {
            first: PacketQueue::default(),
            rest: (1..classes).map(|_| PacketQueue::default()).collect(),
        }
    }
    /// The number of class queues.
    #[inline]
    pub fn len(&self) -> usize {
        1 + self.rest.len()
    }
    /// Always false: a port has at least one class queue.
    #[inline]
    pub fn is_empty(&self) -> bool {
        false
    }
    /// Whether there is one class queue only (most ports: the per-hop
    /// path asks on every packet).
    #[inline]
    pub fn is_single(&self) -> bool {
        self.rest.is_empty()
    }
    /// The queues, class 0 first.
    pub fn iter(&self) -> impl Iterator<Item = &PacketQueue> + '_ {
        std::iter::once(&self.first).chain(self.rest.iter())
    }
}

impl std::ops::Index<usize> for ClassQueues {
    type Output = PacketQueue;
    #[inline]
    fn index(&self, class: usize) -> &PacketQueue {
        match class {
            0 => &self.first,
            c => &self.rest[c - 1],
        }
    }
}

impl std::ops::IndexMut<usize> for ClassQueues {
    #[inline]
    fn index_mut(&mut self, class: usize) -> &mut PacketQueue {
        match class {
            0 => &mut self.first,
            c => &mut self.rest[c - 1],
        }
    }
}

/// [`Port::pfc_attention`]: a PAUSE/RESUME frame waits to go out ahead of the queues.
pub const PFC_FRAME: u8 = 1;
/// [`Port::pfc_attention`]: some class queue is paused.
pub const PFC_PAUSED: u8 = 2;
/// [`Port::pfc_attention`]: credits wait in the port's credit queue
/// ([`crate::credit`]).
pub const CREDITS_QUEUED: u8 = 4;
/// [`Port::pfc_attention`]: an observer records this port's packets
/// ([`crate::observe`]); tested in the line every hop reads already.
pub const OBSERVED: u8 = 8;
/// [`Port::pfc_attention`]: the link is cut between two logical
/// processes (its far end is another LP's, `crate::fabric::cut`): what
/// it puts on the wire waits in `in_flight` for the window's end instead
/// of scheduling its own delivery. Kept in this byte, the line every
/// transmission reads, so an uncut port pays nothing more.
pub const LINK_CUT: u8 = 16;
/// [`Port::pfc_attention`]: the link goes down at some time of the run
/// (`crate::fabric::fault_stage`): what it puts on the wire is checked
/// against the failure time. In the same byte as [`LINK_CUT`], for the
/// same reason.
pub const LINK_FAILS: u8 = 32;
/// [`Port::pfc_attention`]: trimmed headers wait in the port's header
/// queue, sent ahead of the data (`crate::fabric::trim_stage`).
pub const HEADERS_QUEUED: u8 = 64;

/// One egress port and the unidirectional link it drives.
///
/// The layout is part of the model's speed: on a large fabric every hop
/// finds its ports cold in the cache, so what a hop at an egress port reads
/// and writes (the fields down to `stats`) fills the first six cache lines,
/// in a fixed order (`repr(C)`) from a line boundary, with no pointer to
/// follow on the way to the packet a delivery hands on (the link's packets
/// in flight are inline: [`InFlight`]); the ingress stage starts a line of
/// its own; what only multi-class ports or the reports use comes last. The
/// unit tests pin this, and an odd number of lines in all (a stride of 16
/// lines put every port's first line in the same cache sets and cost 30%
/// more misses).
#[repr(C, align(64))]
pub struct Port {
    /// The node this port belongs to.
    pub node: NodeId,
    /// The port at the far end of the cable (its egress drives the reverse link).
    pub peer: PortId,
    /// The node at the far end of the cable (`peer`'s node, kept here so a
    /// delivery knows where it arrives without reading the peer port).
    pub peer_node: NodeId,
    /// Whether the node is a switch (false: a host's NIC).
    pub at_switch: bool,
    /// Whether a packet is being serialised (a `TxDone` event is pending).
    pub busy: bool,
    /// Whether `ingress` has a hook: kept here, in the line every hop
    /// reads, so that ports without one never touch their ingress hook.
    pub(crate) hooked: bool,
    /// PFC or credits need attention at the next start of transmission: a
    /// frame to send ([`PFC_FRAME`]), a class paused ([`PFC_PAUSED`]) or
    /// credits waiting ([`CREDITS_QUEUED`]). One byte in the padding of the
    /// first line, so that a port without either reads nothing more than
    /// before.
    pub pfc_attention: u8,
    /// Bytes in all class queues.
    pub bytes: u64,
    /// Packets in all class queues.
    pub packets: u64,
    /// Link rate.
    pub rate: Bandwidth,
    /// Link propagation delay.
    pub delay: SimDuration,
    /// The buffer limit of this port's queue (DropTail): compared in its own unit.
    pub buffer: QueueSize,
    /// Packets on the wire with their arrival times at the peer, oldest
    /// first: the second cache line, beside the first that a delivery
    /// reads too.
    pub in_flight: InFlight,
    /// The AQM plugin guarding the queues (`None` at host NICs).
    pub aqm: Option<Box<dyn EgressAqm>>,
    /// The class queues (one at host NICs).
    pub queues: ClassQueues,
    /// Counters of the whole port.
    pub stats: PortStats,
    /// Counters per class queue; empty at a one-class port, whose `stats`
    /// are its class's (a hop then touches one set of counters, not two).
    pub class_stats: Vec<ClassStats>,
    /// PFC state (`None` when PFC is off), in the padding before `ingress`.
    pub pfc: Option<Box<crate::pfc::PortPfc>>,
    /// The credit queue (`None` unless a transport uses credits:
    /// ExpressPass).
    pub credit: Option<Box<crate::credit::CreditQueue>>,
    /// Class queues a PFC PAUSE stops (bit c: class c); read only when
    /// `pfc_attention` has [`PFC_PAUSED`].
    pub paused_classes: u32,
    /// The ingress stage of the same physical port (used at switches).
    pub ingress: Ingress,
    /// Chooses which class queue sends next.
    pub sched: Scheduler,
}

impl Port {
    /// The cache lines a hop at an egress port touches, from the port's
    /// start (through the integrals in `stats`; the layout test pins it).
    pub const HOT_LINES: usize = 6;

    /// Sets or clears a [`Port::pfc_attention`] bit.
    #[inline]
    pub fn set_attention(&mut self, bit: u8, on: bool) {
        if on {
            self.pfc_attention |= bit;
        } else {
            self.pfc_attention &= !bit;
        }
    }

    /// Installs (or, with `None`, removes) the port's ingress hook.
    pub fn set_ingress_hook(&mut self, hook: Option<Box<dyn IngressHook>>) {
        self.hooked = hook.is_some();
        self.ingress.hook = hook;
    }

    /// The counters of class `class`, `None` at a one-class port (decided
    /// from the queues, in a line a hop reads anyway, without touching
    /// `class_stats`).
    #[inline]
    pub fn class_stats_mut(&mut self, class: usize) -> Option<&mut ClassStats> {
        if self.queues.is_single() {
            return None;
        }
        self.class_stats.get_mut(class)
    }

    /// Whether the port has an ingress hook.
    #[inline]
    pub fn has_ingress_hook(&self) -> bool {
        self.hooked
    }

    /// What an AQM sees of class `class`, the port, and the switch's pool
    /// (`pool` = bytes and packets in all of the switch's egress queues).
    #[inline]
    pub fn state(&self, class: usize, pool: (u64, u64)) -> QueueState {
        let q = &self.queues[class];
        QueueState {
            bytes: q.bytes(),
            packets: q.packets(),
            port_bytes: self.bytes,
            port_packets: self.packets,
            pool_bytes: pool.0,
            pool_packets: pool.1,
            class: class as u8,
        }
    }

    /// What the port's ingress hook sees of it now; `head_held_at` is the
    /// VIQ head's hold time (the caller reads it from the packet arena).
    #[inline]
    pub fn view(&self, head_held_at: Option<SimTime>) -> IngressView {
        IngressView {
            out_bytes: self.bytes,
            out_packets: self.packets,
            viq_packets: self.ingress.viq.packets(),
            viq_bytes: self.ingress.viq.bytes(),
            head_held_at,
            rate: self.rate,
        }
    }

    /// Records the lengths after a packet of class `class` joined at
    /// `now`: the time integrals and the maxima.
    #[inline]
    pub fn note_growth(&mut self, now: SimTime, class: usize) {
        self.note_lengths(now, class);
        self.stats.max_bytes = self.stats.max_bytes.max(self.bytes);
        self.stats.max_packets = self.stats.max_packets.max(self.packets);
        if !self.queues.is_single() {
            let (q, cs) = (&self.queues[class], &mut self.class_stats[class]);
            cs.max_packets = cs.max_packets.max(q.packets());
        }
    }

    /// Records the lengths after a packet of class `class` left at `now`
    /// (sent or dropped from the queue): the time integrals only, as a
    /// queue that shrank reached no new maximum.
    #[inline]
    pub fn note_shrink(&mut self, now: SimTime, class: usize) {
        self.note_lengths(now, class);
    }

    /// The time integrals of the port's and class `class`'s lengths.
    #[inline(always)]
    fn note_lengths(&mut self, now: SimTime, class: usize) {
        self.stats.queue_bytes_area.set(now.ps(), self.bytes);
        self.stats.queue_packets_area.set(now.ps(), self.packets);
        if !self.queues.is_single() {
            let (q, cs) = (&self.queues[class], &mut self.class_stats[class]);
            cs.queue_bytes_area.set(now.ps(), q.bytes());
        }
    }

    /// Whether a packet of `size` bytes fits in the port's buffer now.
    #[inline]
    pub fn fits(&self, size: u32) -> bool {
        !self
            .buffer
            .exceeded_by(self.bytes + size as u64, self.packets + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    const LINE: usize = 64;

    /// Pins the layout the per-hop path relies on (see [`Port`]): a hop at
    /// an egress port touches its first five cache lines, and an arrival at
    /// an ingress port its first line and its ingress stage's first.
    #[test]
    fn per_hop_fields_stay_in_the_first_cache_lines() {
        assert_eq!(align_of::<Port>(), LINE);
        // Line 0: what every event at the port reads first.
        for end in [
            offset_of!(Port, hooked) + 1,
            offset_of!(Port, pfc_attention) + 1,
            offset_of!(Port, peer_node) + 4,
            offset_of!(Port, buffer) + size_of::<QueueSize>(),
        ] {
            assert!(end <= LINE, "a line-0 field ends at {end}");
        }
        assert_eq!(offset_of!(Port, bytes), 16);
        // Lines 1-2: the link's packets in flight, their arrival times
        // alone in line 1; then the AQM and the first class queue.
        assert_eq!(offset_of!(Port, in_flight), LINE);
        for end in [
            offset_of!(Port, in_flight) + size_of::<InFlight>(),
            offset_of!(Port, aqm) + size_of::<Option<Box<dyn EgressAqm>>>(),
        ] {
            assert!(end <= 3 * LINE, "a forwarding field ends at {end}");
        }
        assert!(offset_of!(Port, queues) + size_of::<PacketQueue>() <= 4 * LINE);
        // Lines 4-5: the counters a transmission writes.
        assert_eq!(offset_of!(Port, stats), 4 * LINE);
        let integrals_end = offset_of!(Port, stats)
            + offset_of!(PortStats, queue_packets_area)
            + size_of::<TimeIntegral>();
        assert!(
            integrals_end <= Port::HOT_LINES * LINE,
            "integrals end at {integrals_end}"
        );
        let ingress = offset_of!(Port, ingress);
        assert_eq!(ingress % LINE, 0);
        let priority_0_end =
            offset_of!(Ingress, priority) + size_of::<crate::ingress::PriorityBytes>();
        assert!(offset_of!(Ingress, arrived) < LINE && priority_0_end <= LINE);
        // An odd number of lines in all: a stride of 16 lines (1024 B) put
        // every port's first line in the same cache sets (30% more misses,
        // and 6% more time on the 128-to-1 incast when PFC's state grew the
        // port to 1024 B).
        assert_eq!((size_of::<Port>() / LINE) % 2, 1, "{} B", size_of::<Port>());
    }

    #[test]
    fn class_queues_index_the_inline_queue_first() {
        let mut q = ClassQueues::new(3);
        q[0].push(PacketId(7), 100);
        q[2].push(PacketId(9), 40);
        assert_eq!(q.len(), 3);
        let lens: Vec<u64> = q.iter().map(|c| c.bytes()).collect();
        assert_eq!(lens, vec![100, 0, 40]);
        assert_eq!(q[2].head(), Some(PacketId(9)));
    }
}
