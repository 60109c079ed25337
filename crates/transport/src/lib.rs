//! dcnsim host transports.
//!
//! The TCP family as sans-IO state machines (smoltcp / quinn-proto style): the
//! caller passes `now` and a packet, the endpoint hands packets back through
//! an [`Emit`] sink, and it exposes its next deadline ([`TcpSender::deadline`],
//! [`TcpReceiver::deadline`]) instead of owning timers. A flow is one data
//! direction: a [`TcpSender`] at the source (active open, data, FIN) and a
//! [`TcpReceiver`] at the destination (passive open, ACKs, FIN-ACK).
//!
//! Congestion control sits behind the small [`cc::CongestionControl`] trait,
//! dispatched through the [`cc::Controller`] enum on the hot path.

pub mod cc;
pub mod config;
pub mod receiver;
pub mod rtt;
pub mod sender;

pub use config::{CcKind, TcpConfig};
pub use receiver::TcpReceiver;
pub use sender::{SenderStats, TcpSender};

use net::Packet;

/// Where an endpoint puts the packets it sends.
pub trait Emit {
    /// Sends one packet.
    fn emit(&mut self, pkt: Packet);
}

impl Emit for Vec<Packet> {
    fn emit(&mut self, pkt: Packet) {
        self.push(pkt);
    }
}

/// Addressing shared by both ends of a flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FlowAddr {
    /// The flow.
    pub flow: net::FlowId,
    /// The data sender's host.
    pub src: net::HostId,
    /// The data receiver's host.
    pub dst: net::HostId,
    /// The sender's TCP port.
    pub sport: u16,
    /// The receiver's TCP port.
    pub dport: u16,
    /// Service class of the flow's packets.
    pub priority: u8,
}

impl FlowAddr {
    /// A header template for a packet of this flow in the given direction.
    fn header(&self, reverse: bool) -> Packet {
        let (src, dst, sport, dport) = if reverse {
            (self.dst, self.src, self.dport, self.sport)
        } else {
            (self.src, self.dst, self.sport, self.dport)
        };
        Packet {
            flow: self.flow,
            src,
            dst,
            sport,
            dport,
            priority: self.priority,
            reverse,
            size_bytes: net::packet::TCP_IP_HEADER_BYTES,
            wscale_option: net::packet::WSCALE_NONE,
            ..Packet::default()
        }
    }
}

/// The window-scale shift that makes `window` fit the 16-bit field
/// (RFC 7323 section 2.3; at most 14).
pub fn wscale_for(window: u64) -> u8 {
    let mut s = 0u8;
    while s < 14 && (window >> s) > u16::MAX as u64 {
        s += 1;
    }
    s
}

#[cfg(test)]
mod harness;
