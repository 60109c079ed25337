//! dcnsim host transports.
//!
//! Every transport family is a pair of sans-IO state machines (smoltcp /
//! quinn-proto style): the caller passes `now` and a packet, the endpoint
//! hands packets back through an [`Emit`] sink, and it exposes its next
//! deadline instead of owning timers. A flow is one data direction: a
//! sender at the source host and a receiver at the destination.
//!
//! The world talks to every family through one seam ([`endpoint`]): the
//! [`Sender`] and [`Receiver`] enums, built from a [`TransportConfig`], with
//! a family-neutral [`FlowRecord`] for the reports. A new family adds a
//! variant to each enum and to the config, not match arms across the world.
//! What a family rules on outside its endpoints (at load, before its flows
//! are built, at its hosts) is the [`Family`] trait; a host (its NIC
//! discipline, ready list and receive state) is the [`Host`] component,
//! which reaches the world only through [`HostIo`].
//!
//! The TCP family ([`tcp`]) puts congestion control behind the small
//! [`cc::CongestionControl`] trait, dispatched through the [`cc::Controller`]
//! enum on the hot path. The RoCE family ([`roce`]) is rate-based: DCQCN
//! sets the pace of a go-back-N reliable connection. Homa ([`homa`]) and
//! ExpressPass ([`expresspass`]) are receiver-driven: the receiver's grants
//! or credits decide what the sender may send. The UEC transport ([`uec`])
//! sprays each packet by its entropy value and sets its window by NSCC;
//! NDP ([`ndp`]) trims, sprays and paces its senders by receiver PULLs.

pub mod cc;
pub mod endpoint;
pub mod expresspass;
pub mod family;
pub mod homa;
pub mod host;
pub mod keys;
pub mod message;
pub mod ndp;
pub mod psn_window;
pub mod pull_pacer;
pub mod reassembly;
pub mod roce;
pub mod rtt;
pub mod spray;
pub mod tcp;
pub mod uec;

pub use endpoint::{
    Counters, FlowRecord, PathInfo, Receiver, ReceiverRecord, Sender, Side, TransportConfig,
};
pub use family::{Family, NicDiscipline, PlannedFlow};
pub use host::{Host, HostIo, HostRx};
pub use tcp::{CcConfig, TcpConfig, TcpReceiver, TcpSender};

use net::{Kind, Origin, Packet};

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

#[cfg(test)]
mod harness;
