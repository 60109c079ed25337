//! NDP (Handley, Raiciu, Agache, Voinescu, Moore, Antichi, Wójcik,
//! "Re-architecting datacenter networks and stacks for low latency and
//! high performance", SIGCOMM 2017), as htsim's `ndp.cpp` (uet-htsim at
//! 40ccb05) runs it:
//!
//! - The sender sends its first window at line rate, each packet on its
//!   own path (an entropy value in turn: [`crate::uec::Entropies`]'s
//!   oblivious spraying), then one packet per PULL.
//! - Switches trim what they cannot queue ([`net::Kind::Trimmed`]); the
//!   receiver answers every data packet with an ACK and every header with
//!   a NACK at once, and queues a PULL for each: the host's pull pacer
//!   ([`PullPacer`]) sends its flows' PULLs one packet time apart, so the
//!   data they draw arrives at the receiver's line rate.
//! - A NACKed packet is resent when the next PULL comes; a packet
//!   unacknowledged for `rto` after it was sent goes again at once (lost
//!   control packets; NDP 3.2: rare).
//!
//! Packets: [`net::Protocol::Ndp`], 64 B of headers; ACK, NACK and PULL
//! are 64 B [`net::Kind::Ack`]s (`feedback.count` 0, [`NACK`], [`PULL`])
//! that a trimming switch serves from its header queue (NDP 3.1). DATA:
//! `seq` its PSN, `ack` the message length. ACK and NACK: `seq` the PSN,
//! `ack` the next PSN expected. PULL: `ack` the receiver's pull counter
//! (cumulative, so a lost PULL is made up by the next).

mod config;
mod ends;
mod receiver;
mod sender;
#[cfg(test)]
mod tests;

pub use crate::pull_pacer::PullPacer;
pub use config::{NdpConfig, NdpKeys};
pub use receiver::NdpReceiver;
pub use sender::NdpSender;

/// IP bytes of an NDP packet's headers, and of an ACK, NACK or PULL
/// (htsim's `ACKSIZE`).
pub const HEADER_BYTES: u32 = 64;
/// `feedback.count` of a NACK.
pub const NACK: u16 = 1;
/// `feedback.count` of a PULL.
pub const PULL: u16 = 2;
