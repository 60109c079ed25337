//! A host's RoCE receive counters across its connections.

use sim_core::{Bandwidth, SimDuration, SimTime};

/// What a host's RDMA NIC counts across all the connections it receives:
/// the messages in progress (N) and the wire bytes of the last round
/// (B_R). Each host keeps one ([`crate::HostRx`]) and hands it to
/// every RoCE responder there; receiver halves read it (RCC's N and B_R,
/// RCC paper III-C).
#[derive(Clone, Debug, Default)]
pub struct HostRx {
    /// Messages begun (First accepted) and not yet ended (Last accepted).
    pub active_messages: u32,
    /// The NIC's line rate C (zero until a flow registers).
    rate_bps: u64,
    /// The round of B_R: the smallest base RTT of the flows seen.
    round: SimDuration,
    round_start: SimTime,
    /// Wire bytes received in the current round and in the last one (B_R).
    bytes_now: u64,
    bytes_last: u64,
}

impl HostRx {
    /// A flow with base RTT `base_rtt` arrives at a NIC of rate `rate`.
    pub fn register(&mut self, rate: Bandwidth, base_rtt: SimDuration) {
        self.rate_bps = rate.bps();
        if self.round.ps() == 0 || base_rtt < self.round {
            self.round = base_rtt;
        }
    }

    /// `wire_bytes` arrived at `now`.
    pub fn on_bytes(&mut self, now: SimTime, wire_bytes: u64) {
        if self.round.ps() == 0 {
            return;
        }
        let end = self.round_start + self.round;
        if now >= end {
            let k = now.since(self.round_start).ps() / self.round.ps();
            // The round just ended is the last one only if it was the
            // previous round; after a silence, the last round was empty.
            self.bytes_last = if k == 1 { self.bytes_now } else { 0 };
            self.bytes_now = 0;
            self.round_start += SimDuration::from_ps(k * self.round.ps());
        }
        self.bytes_now += wire_bytes;
    }

    /// B_R: wire bytes received by all connections in the last round.
    pub fn bytes_last_round(&self) -> u64 {
        self.bytes_last
    }

    /// Whether the last hop is saturated: B_R >= C x round x eta (RCC III-C).
    pub fn saturated(&self, eta: f64) -> bool {
        let capacity_bytes = self.rate_bps as f64 * self.round.ps() as f64 * 1e-12 / 8.0;
        self.round.ps() > 0 && self.bytes_last as f64 >= capacity_bytes * eta
    }

    /// The fair share C x RTT_base / N for a flow with base RTT `base_rtt`.
    pub fn fair_share(&self, base_rtt: SimDuration) -> u64 {
        crate::roce::rcc::fair_share(
            Bandwidth::from_bps(self.rate_bps),
            base_rtt,
            self.active_messages,
        )
    }
}
