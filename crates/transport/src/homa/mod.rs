//! Homa (Montazeri, Li, Alizadeh, Ousterhout, SIGCOMM 2018): a
//! receiver-driven message transport that uses the switches' priority
//! queues.
//!
//! - A sender sends a message's first `RTTbytes` blindly ("unscheduled",
//!   section 3.3), at a priority chosen by the message's length from
//!   cutoffs that split the workload's unscheduled bytes evenly over the
//!   unscheduled levels (3.4).
//! - The receiver grants the rest ("scheduled" bytes) to at most
//!   `overcommitment` messages at a time, the ones with the fewest bytes
//!   left, one message per sender (3.5), keeping `RTTbytes` granted beyond
//!   what has arrived, at a scheduled priority by rank (the lowest levels
//!   when fewer messages than levels, 3.4).
//! - A sender transmits the message with the fewest bytes left first (the
//!   NIC's SRPT, 3.2: [`HomaSender::srpt_rank`]).
//! - Losses are rare with priorities and deep buffers; the receiver sends
//!   RESEND for what is missing after `resend_timeout` without data (3.7),
//!   and a sender that hears nothing for as long resends its first packet,
//!   so that a receiver that lost a whole message learns of it.
//!
//! Packets: [`net::Protocol::Homa`]. DATA is [`net::Kind::Data`] with
//! `seq` its offset and `ack` the message length; GRANT is
//! [`net::Kind::Control`] with `ack` the offset granted up to and
//! `feedback.count` the scheduled level; RESEND is a GRANT with
//! `feedback.flag` set and `seq` the first byte missing; the receiver's
//! acknowledgment of a whole message (our addition: the simulator's flows
//! complete when their sender learns it) is [`net::Kind::Ack`].
//!
//! Level 0 is the highest priority (a switch's strict-priority class 0);
//! a packet's priority is the flow's own priority plus its level, so a
//! scenario maps Homa's levels onto class queues with `class_of_priority`.

mod config;
mod ends;
mod receiver;
mod sender;
#[cfg(test)]
mod tests;

pub use config::{HomaConfig, HomaKeys, Priorities};
pub use receiver::{HomaReceiver, RxScheduler};
pub use sender::HomaSender;

/// IP bytes of a DATA packet's headers: IPv4 20 + Homa's common and data
/// headers 40 (the Linux module's `data_header`, segment fields included).
pub const DATA_HEADER_BYTES: u32 = 60;
/// IP bytes of a GRANT, RESEND or acknowledgment: IPv4 20 + Homa's common
/// header 28 + its fields.
pub const CONTROL_BYTES: u32 = 52;
