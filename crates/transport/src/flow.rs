//! A flow's identity and what its ends know when they are built: the
//! addressing both ends share, which end is which, and the path between
//! them. Family-neutral: every family's ends are built from these.

use net::{Kind, Origin, Packet, WireFormat};
use sim_core::{Bandwidth, SimDuration};

/// Addressing shared by both ends of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowAddr {
    /// The flow.
    pub flow: net::FlowId,
    /// The data sender's host.
    pub src: net::HostId,
    /// The data receiver's host.
    pub dst: net::HostId,
    /// The sender's transport port.
    pub sport: u16,
    /// The receiver's transport port.
    pub dport: u16,
    /// Service class of the flow's packets.
    pub priority: u8,
}

impl FlowAddr {
    /// A header template for a packet of this flow from `side`: the data
    /// direction from the sender, the reverse one from the receiver.
    #[inline]
    pub fn header(&self, from: Side, kind: Kind) -> Packet {
        let reverse = from == Side::Receiver;
        let (src, dst, sport, dport) = if reverse {
            (self.dst, self.src, self.dport, self.sport)
        } else {
            (self.src, self.dst, self.sport, self.dport)
        };
        Packet {
            origin: Origin::Flow(self.flow),
            src,
            dst,
            sport,
            dport,
            priority: self.priority,
            reverse,
            kind,
            ..Packet::default()
        }
    }
}

/// What a flow's ends may know of their hosts and path when they are built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathInfo {
    /// The source NIC's line rate (RoCE starts and paces at it).
    pub line_rate: Bandwidth,
    /// The destination NIC's line rate (RCC's C).
    pub rx_line_rate: Bandwidth,
    /// The links' framing (pacing counts wire bytes).
    pub wire: WireFormat,
    /// The path's base RTT: one full data packet forward and an ACK back,
    /// store-and-forward, on empty queues (zero unless
    /// [`crate::Family::needs_bdp`]).
    pub base_rtt: SimDuration,
    /// The base RTT times the line rate, bytes (RoCE's window modes).
    pub bdp_bytes: u64,
    /// How far the source host's clock runs ahead of true time (RCC-async).
    pub src_clock_offset: SimDuration,
    /// How far the destination host's clock runs ahead of true time.
    pub dst_clock_offset: SimDuration,
    /// The seed of the flow's own random stream (RCC-async's timestamp jitter).
    pub stream_seed: u64,
}

/// Which end of a flow: the data sender or the data receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The data sender, at the flow's source host.
    Sender,
    /// The data receiver, at the flow's destination host.
    Receiver,
}

impl Side {
    /// 0 for the sender, 1 for the receiver (per-side arrays).
    #[inline]
    pub fn idx(self) -> usize {
        self as usize
    }
}
