//! ExpressPass (Cho, Jang, Han, SIGCOMM 2017): credit-scheduled transport.
//!
//! - The sender asks for credits (CREDIT_REQUEST) and sends one data
//!   packet per credit it receives, nothing without one (section 3.1).
//! - The receiver paces credits at its current credit rate, with a small
//!   random jitter in their spacing (3.1, "credit jitter").
//! - Every port, hosts' included, queues credits in a small queue of their
//!   own and lets them onto the link at most at the rate that leaves the
//!   rest to the data they buy ([`net::credit`]); excess credits drop
//!   there, before data could congest.
//! - Credit feedback control (3.2, Algorithm 1): data packets echo the
//!   sequence number of the credit they spent; once per update period (an
//!   RTT) the receiver reads the credit loss from the gaps and raises its
//!   rate towards the maximum (loss within `target_loss`, with an
//!   aggressiveness `w` that halves on each decrease and moves halfway to
//!   `w_max` on each successive increase) or cuts it by the loss.
//! - The sender sends CREDIT_STOP with its last new data; the receiver
//!   acknowledges the whole message (our flows complete when their sender
//!   learns it). A receiver still missing data `retransmit_timeout` after a
//!   CREDIT_STOP resumes credits marked as recovering, and the sender
//!   resends from the first byte such a credit says is missing; a sender
//!   whose request goes unanswered, or whose data all went out without an
//!   acknowledgment, asks again after as long.
//! - The rate never falls below one credit per update period (the
//!   authors' ns-2 model's floor; without it a flow cut hard by a burst of
//!   credit losses hears back too rarely to recover, and an incast of 64
//!   flows ran at 4 Gb/s of 10).
//!
//! Packets: [`net::Protocol::ExpressPass`]. A credit is [`net::Kind::Credit`]
//! with `seq` its number, `ack` the receiver's first missing byte and
//! `feedback.flag` set when the receiver is recovering; data
//! is [`net::Kind::Data`] with `seq` its offset and `ack` the credit it
//! spent; CREDIT_REQUEST (with `ack` the message length) and CREDIT_STOP
//! (`feedback.flag`) are [`net::Kind::Control`]; the acknowledgment is
//! [`net::Kind::Ack`].

mod config;
mod ends;
mod receiver;
mod sender;
#[cfg(test)]
mod tests;

pub use config::{ExpressPassConfig, ExpressPassKeys};
pub use receiver::CreditControl;
pub use receiver::ExpressPassReceiver;
pub use sender::ExpressPassSender;

/// IP bytes of a data packet's headers: IPv4 20 + ExpressPass 20 (the
/// authors' ns-2 model: 78 B with Ethernet's 38).
pub const DATA_HEADER_BYTES: u32 = 40;
/// IP bytes of a credit: the minimum Ethernet payload, so that a credit is
/// a 84 B minimum frame on the wire (3.1).
pub const CREDIT_BYTES: u32 = 46;
/// IP bytes of CREDIT_REQUEST, CREDIT_STOP and the acknowledgment.
pub const CONTROL_BYTES: u32 = 40;
