//! The Ultra Ethernet transport (UE Specification 1.0, 2025), as its
//! reference simulator htsim (`uec.cpp`, github.com/ultraethernet/uet-htsim
//! at 40ccb05) runs it with sender-based congestion control:
//!
//! - Every packet carries its own entropy value, which switches hash with
//!   the 5-tuple, so one flow sprays over many paths ([`crate::spray`]: none,
//!   oblivious, or REPS, which reuses the values whose ACKs came back
//!   unmarked).
//! - The receiver keeps packets that arrive out of order and acknowledges
//!   them selectively; a switch that trims a packet ([`net::Kind::Trimmed`])
//!   makes the receiver NACK it at once, and the sender resends only it.
//! - NSCC (`nscc`) sets the sender's window from the queueing delay and
//!   the ECN marks its ACKs echo; `sender_cc` picks htsim's DCTCP, a
//!   constant window, or none (receiver credit alone) instead ([`SenderCc`]).
//! - A packet unacknowledged for `rto` after it was sent is resent.
//! - With `rccc`, receiver credit (UE 1.0's RCCC) gates the sender too:
//!   after a first window sent on speculation, a packet needs credit,
//!   which the receiving host paces out across its flows at its line rate
//!   ([`crate::pull_pacer`]). A data packet asks for credit with the
//!   cumulative credit it wants in `feedback.window_bytes` (in
//!   [`CREDIT_QUANTUM`]s); a credit is an ACK with `feedback.count` =
//!   [`CREDIT`].
//!
//! Packets: [`net::Protocol::Uec`], 64 B of headers (htsim's `_hdr_size`
//! and ACK size). DATA is [`net::Kind::Data`]: `seq` its PSN, `ack` the
//! message length, `ts_val` its send time, `entropy` its entropy value,
//! `feedback.flag` an ACK request. An ACK is [`net::Kind::Ack`]: `ack` the
//! next PSN expected (all below arrived), `sack` up to three ranges that
//! arrived above it, `seq` the PSN it answers with that packet's send
//! time in `ts_ecr`, entropy in `entropy` and CE mark in `feedback.flag`.
//! A NACK is an ACK with `feedback.count` = [`NACK`], naming in `seq` the
//! PSN that was trimmed.

mod config;
mod ends;
mod nscc;
mod receiver;
mod sender;
mod sender_cc;
#[cfg(test)]
mod tests;

pub use crate::spray::{Entropies, PathFeedback};
pub use config::{Network, NsccConfig, SprayMode, UecConfig, UecKeys};
pub use nscc::{AckSignal, Nscc};
pub use receiver::UecReceiver;
pub use sender::UecSender;
pub use sender_cc::SenderCc;

/// IP bytes of a UEC packet's headers, and of an ACK or NACK (htsim's 64).
pub const HEADER_BYTES: u32 = 64;

/// `feedback.count` of a NACK.
pub const NACK: u16 = 1;
/// `feedback.count` of a receiver's credit (RCCC): its `ack` is the credit
/// granted so far, in [`CREDIT_QUANTUM`]s.
pub const CREDIT: u16 = 2;
/// The unit of RCCC's credit, bytes (htsim quantises its pulls too).
pub const CREDIT_QUANTUM: u64 = 64;
