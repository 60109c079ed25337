//! A host: its NIC discipline and its receive state across connections.
//!
//! The world keeps one [`HostRx`] per host and hands it to every receiver
//! there. Each family keeps its own per-host state in its own module (the
//! RoCE NIC's message and byte counts, Homa's grant scheduler); this
//! struct only holds them side by side, so that hosts share nothing but
//! packets.

/// A host's receive state across all its connections, one part per
/// family that has one.
#[derive(Clone, Debug, Default)]
pub struct HostRx {
    /// The RoCE NIC's counts (RCC's N and B_R).
    pub roce: crate::roce::HostRx,
    /// Homa's grant scheduler over the host's inbound messages.
    pub homa: crate::homa::RxScheduler,
}
