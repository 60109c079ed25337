//! dcnsim host transports.
//!
//! Every transport family is a pair of sans-IO state machines (smoltcp /
//! quinn-proto style): the caller passes `now` and a packet, the endpoint
//! hands packets back through an [`Emit`] sink, and it exposes its next
//! deadline instead of owning timers. A flow is one data direction: a
//! sender at the source host and a receiver at the destination.
//!
//! The world talks to every family through one seam: the [`SenderEnd`] and
//! [`ReceiverEnd`] traits ([`ends`]), which each family's ends implement
//! and which the [`Sender`] and [`Receiver`] enums implement again by
//! dispatching to the family. The enums, the [`TransportConfig`] they are
//! built from and the hosts' receive state ([`HostRx`]) are generated from
//! one list of families (`families.rs`); a family states what decides its
//! treatment by the hosts and switches as items of the [`Transport`] trait,
//! and what it rules on outside its endpoints (at load, before its flows
//! are built, at its hosts) as the [`Family`] trait. The reports read a
//! flow through the family-neutral [`FlowRecord`]. A host (its NIC
//! discipline, ready list and receive state) is the [`Host`] component,
//! which reaches the world only through [`HostIo`].
//!
//! What several families share lives in neutral modules, never in one
//! family's folder: the flow's addressing and path ([`flow`]), the records
//! ([`record`]), load-time key errors ([`keys`]), spraying ([`spray`]), the
//! pull pacer, PSN sets and windows, message records and reassembly.
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
pub mod ends;
pub mod expresspass;
pub mod families;
pub mod family;
pub mod flow;
pub mod homa;
pub mod host;
pub mod keys;
pub mod message;
pub mod ndp;
pub mod psn_set;
pub mod psn_window;
pub mod pull_pacer;
pub mod reassembly;
pub mod record;
pub mod roce;
pub mod rtt;
pub mod spray;
pub mod tcp;
#[cfg(test)]
mod toy;
pub mod uec;

pub use ends::{Emit, ReceiverEnd, SenderEnd, StateOut};
pub use families::{HostRx, Receiver, Sender, TransportConfig, family_names};
pub use family::{Family, NicDiscipline, PlannedFlow, Transport};
pub use flow::{FlowAddr, PathInfo, Side};
pub use host::{Host, HostIo};
pub use record::{Counters, FlowRecord, ReceiverRecord};

#[cfg(test)]
mod e2e_tests;
#[cfg(test)]
mod harness;
