//! Choosing among equal-cost paths at a switch.
//!
//! Routing ([`crate::routing`]) lists, per (switch, destination), the
//! egress ports on a shortest path. How a switch picks one of them is its
//! *path choice*, set per switch tier from the scenario:
//!
//! - per-flow ECMP: a hash of the 5-tuple and the packet's entropy
//!   ([`crate::routing::flow_hash`]); every packet of a flow takes one
//!   path unless its host sprays entropy values (UEC 1.0's entropy field,
//!   which switches hash in place of the source port);
//! - per-packet random, and per-packet round robin over the list (per
//!   destination ToR, so that each destination's packets rotate);
//! - flowlets (LetFlow, Vanini et al., NSDI 2017): a flow keeps its port
//!   while its packets come closer together than `flowlet_gap`; after an
//!   idle gap its next packet starts a flowlet on a port drawn at random;
//! - adaptive routing: the egress with the fewest queued bytes among the
//!   equal-cost ones (ties broken uniformly at random), for every packet or for the
//!   first packet of each flowlet (CONGA's flowlet switching with the
//!   switch's local view, Alizadeh et al., SIGCOMM 2014, section 3.4);
//! - ECMP with adaptive repair (htsim's `-strat ecmp_host_ar`): the hashed
//!   port, but for half the packets, when the hashed port is among the
//!   most loaded, a least-loaded one instead.
//!
//! How the adaptive choices weigh ports and when a flowlet moves is the
//! [`AdaptiveRule`]: exact bytes and always the least-loaded port
//! (`least-queued`), or htsim's (`htsim`: four quantised queue levels,
//! small packets hashed, a flowlet moved half the time and only to a
//! strictly lower level), as `fat_tree_switch.cpp` and `queue.cpp` of
//! uet-htsim 40ccb05 run them.
//!
//! The flowlet table is a fixed array indexed by the flow hash, as in
//! hardware (CONGA 3.4: 64K entries; LetFlow 4: a table of flowlet
//! entries hashed by 5-tuple): two flows that collide share an entry.
//! Every draw comes from the switch's own random stream, so a switch's
//! choices depend on nothing but its own packets.

use sim_core::SimDuration;

mod switch;
#[cfg(test)]
mod tests;

pub use switch::{Flowlet, SwitchPaths};

/// How a switch picks among equal-cost egress ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PathChoice {
    /// Per-flow ECMP: a symmetric hash of the 5-tuple and entropy.
    #[default]
    Ecmp,
    /// A port drawn at random for every packet.
    Random,
    /// The next port in turn for every packet, per destination ToR.
    RoundRobin,
    /// A port drawn at random for every flowlet.
    Flowlet,
    /// The least-queued port for every packet.
    Adaptive,
    /// The least-queued port for every flowlet.
    AdaptiveFlowlet,
    /// The hashed port, repaired half the time when it is among the most
    /// loaded (htsim's `ECMP_ADAPTIVE`, `-strat ecmp_host_ar`).
    EcmpAdaptive,
}

impl PathChoice {
    /// Every choice with its scenario name and meaning: the one list the
    /// loader, `dcnsim list` and the docs read.
    pub const ALL: [(PathChoice, &'static str, &'static str); 7] = [
        (
            PathChoice::Ecmp,
            "ecmp",
            "per-flow ECMP: a hash of the 5-tuple and the packet's entropy",
        ),
        (
            PathChoice::Random,
            "random",
            "per packet: a port drawn at random",
        ),
        (
            PathChoice::RoundRobin,
            "round-robin",
            "per packet: the next port in turn, per destination ToR",
        ),
        (
            PathChoice::Flowlet,
            "flowlet",
            "per flowlet: a port drawn at random after an idle gap (LetFlow)",
        ),
        (
            PathChoice::Adaptive,
            "adaptive",
            "per packet: the port with the fewest queued bytes",
        ),
        (
            PathChoice::AdaptiveFlowlet,
            "adaptive-flowlet",
            "per flowlet: the port with the fewest queued bytes",
        ),
        (
            PathChoice::EcmpAdaptive,
            "ecmp-adaptive",
            "per packet: the hashed port, or half the time, when it is among the most loaded, a least-loaded one (htsim's ecmp_host_ar)",
        ),
    ];

    /// The choice named `name`, if any.
    pub fn from_name(name: &str) -> Option<PathChoice> {
        by_name(&Self::ALL, name)
    }

    /// Its scenario name.
    pub fn name(self) -> &'static str {
        name_of(&Self::ALL, self)
    }

    /// Whether every packet of a flow takes one path in both directions
    /// (what schemes that pair a flow's data and ACKs at one port need).
    pub fn is_symmetric(self) -> bool {
        self == PathChoice::Ecmp
    }

    /// Whether switches with this choice keep a flowlet table.
    pub fn uses_flowlets(self) -> bool {
        matches!(self, PathChoice::Flowlet | PathChoice::AdaptiveFlowlet)
    }

    /// Whether switches with this choice read their ports' queues (what
    /// `adaptive_signal` and `adaptive_rule` apply to).
    pub fn is_adaptive(self) -> bool {
        matches!(
            self,
            PathChoice::Adaptive | PathChoice::AdaptiveFlowlet | PathChoice::EcmpAdaptive
        )
    }
}

/// How the adaptive choices weigh the equal-cost ports, and when a
/// flowlet moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum AdaptiveRule {
    /// Each port's exact load under the [`Signal`]; a flowlet that starts
    /// after an idle gap always takes the least-loaded port (CONGA 3.4's
    /// flowlet switching with a local view).
    #[default]
    LeastQueued,
    /// htsim's (uet-htsim 40ccb05, `fat_tree_switch.cpp`, `queue.cpp`): a
    /// port's load is its queue's level, 0 below 5% of its buffer, 1 below
    /// 10%, 2 below 20%, else 3 (`quantized_queuesize`), refreshed at most
    /// every 0.1 us (`_update_period`) and read from that cache between;
    /// a paused port ranks below every level (htsim's `-ar_method pq`,
    /// pause first). Packets under 100 bytes take the hashed port
    /// (`ADAPTIVE_ROUTING`: "don't want to pollute the tables"). A
    /// flowlet's flow, idle longer than the gap, is re-judged with
    /// probability 1/2 (`random()%2==0`) and moves only to a strictly
    /// lower level; a flow the table does not hold takes a least-loaded
    /// port.
    Htsim,
}

impl AdaptiveRule {
    /// Every rule with its scenario name and meaning.
    pub const ALL: [(AdaptiveRule, &'static str, &'static str); 2] = [
        (
            AdaptiveRule::LeastQueued,
            "least-queued",
            "exact loads; a flowlet after an idle gap takes the least-loaded port",
        ),
        (
            AdaptiveRule::Htsim,
            "htsim",
            "htsim's: queue levels at 5/10/20% of the buffer refreshed every 0.1 us, packets under 100 B hashed, a flowlet after a gap moves half the time and only to a lower level",
        ),
    ];

    /// The rule named `name`, if any.
    pub fn from_name(name: &str) -> Option<AdaptiveRule> {
        by_name(&Self::ALL, name)
    }

    /// Its scenario name.
    pub fn name(self) -> &'static str {
        name_of(&Self::ALL, self)
    }
}

/// What a switch's path choice reads of one equal-cost egress port.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortView {
    /// Bytes queued (every class).
    pub bytes: u64,
    /// Packets queued (every class).
    pub packets: u64,
    /// The port's buffer limit, in its own unit.
    pub buffer: sim_core::QueueSize,
    /// The link's rate now, in bits per second.
    pub bps: u64,
    /// Whether PFC pauses the packet's class there.
    pub paused: bool,
}

/// How a host's NIC sets the entropy value of the packets it sends
/// (UEC 1.0's entropy field, which switches hash with the 5-tuple).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Spray {
    /// No entropy: switches hash the 5-tuple alone.
    #[default]
    None,
    /// Oblivious spraying: a fresh pseudo-random entropy value for every
    /// packet, so per-flow ECMP switches spread one flow's packets over
    /// every equal-cost path (htsim's `-load_balancing_algo oblivious`).
    Oblivious,
}

impl Spray {
    /// Every mode with its scenario name and meaning.
    pub const ALL: [(Spray, &'static str, &'static str); 2] = [
        (
            Spray::None,
            "none",
            "no entropy: a flow's packets hash alike",
        ),
        (
            Spray::Oblivious,
            "oblivious",
            "a pseudo-random entropy value for every packet",
        ),
    ];

    /// The mode named `name`, if any.
    pub fn from_name(name: &str) -> Option<Spray> {
        by_name(&Self::ALL, name)
    }

    /// Its scenario name.
    pub fn name(self) -> &'static str {
        name_of(&Self::ALL, self)
    }
}

/// The value of the row named `name` of a `(value, name, meaning)` list.
fn by_name<T: Copy>(rows: &[(T, &'static str, &'static str)], name: &str) -> Option<T> {
    rows.iter().find(|r| r.1 == name).map(|r| r.0)
}

/// The name of `value`'s row of a `(value, name, meaning)` list.
fn name_of<T: PartialEq>(rows: &[(T, &'static str, &'static str)], value: T) -> &'static str {
    (rows.iter().find(|r| r.0 == value))
        .map(|r| r.1)
        .expect("every value has a row")
}

/// The entropy value an obliviously spraying NIC gives `pkt`: a hash of
/// what tells the packet apart from every other of its flow (its sequence
/// number and kind, and when it was built, so that a retransmission takes
/// a fresh path), under the run's `seed`. A pure function of the packet,
/// so that it does not depend on which thread or LP sends it.
#[inline]
pub fn oblivious_entropy(pkt: &crate::packet::Packet, seed: u64) -> u16 {
    let flow = match pkt.origin {
        crate::ids::Origin::Flow(f) => f.0 as u64,
        crate::ids::Origin::Source(s) => (s.0 as u64) | 1 << 40,
    };
    let a = sim_core::rng::mix64(seed ^ flow.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let b = pkt.seq ^ (pkt.ack << 1) ^ ((pkt.kind as u64) << 56) ^ ((pkt.reverse as u64) << 60);
    (sim_core::rng::mix64(a ^ sim_core::rng::mix64(b ^ pkt.created_at.ps())) >> 48) as u16
}

/// What adaptive routing reads of each equal-cost port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Signal {
    /// The bytes queued at the port (every class).
    #[default]
    Queue,
    /// The time the queue takes to drain at the link's rate now: the
    /// queue signal weighed by bandwidth, which sees a degraded link.
    Delay,
}

impl Signal {
    /// Every signal with its scenario name and meaning.
    pub const ALL: [(Signal, &'static str, &'static str); 2] = [
        (Signal::Queue, "queue", "the bytes queued at the port"),
        (
            Signal::Delay,
            "delay",
            "the queue's drain time at the link's rate",
        ),
    ];

    /// The signal named `name`, if any.
    pub fn from_name(name: &str) -> Option<Signal> {
        by_name(&Self::ALL, name)
    }

    /// Its scenario name.
    pub fn name(self) -> &'static str {
        name_of(&Self::ALL, self)
    }

    /// A port's load under this signal: `queued` bytes on a link of
    /// `bps`; a port paused for the packet's class (PFC) is never chosen
    /// while another is not.
    #[inline]
    pub fn load(self, queued: u64, bps: u64, paused: bool) -> u64 {
        if paused {
            return u64::MAX;
        }
        match self {
            Signal::Queue => queued,
            // Picoseconds to drain (u128: 8e12 x bytes overflows u64 past 2 MB).
            Signal::Delay => (queued as u128 * 8_000_000_000_000 / bps.max(1) as u128) as u64,
        }
    }
}

/// The fabric's path choice settings.
#[derive(Clone, Debug, PartialEq)]
pub struct PathConfig {
    /// The choice of each switch tier, from the ToRs (tier 1) up; tiers
    /// past the list take its last entry.
    pub by_tier: Vec<PathChoice>,
    /// A flow idle this long starts a new flowlet.
    pub flowlet_gap: SimDuration,
    /// Entries in each switch's flowlet table (a power of two).
    pub flowlet_entries: u32,
    /// What adaptive routing compares.
    pub signal: Signal,
    /// How adaptive routing weighs ports and moves flowlets.
    pub rule: AdaptiveRule,
}

/// `flowlet_gap`'s default: 50 us, in LetFlow's range (section 5.2 found
/// gaps of 50-500 us work, with 500 us the testbed's; CONGA 5 uses
/// 500 us at 10 Gb/s): at 100-400 Gb/s an RTT is a few microseconds,
/// so a gap of tens of them is an idle flow, not a queueing hiccup.
pub const FLOWLET_GAP_DEFAULT: SimDuration = SimDuration::from_us(50);
/// `flowlet_table`'s default: 4,096 entries per switch (CONGA's is
/// 64K; a simulated fabric has far fewer concurrent flows per switch).
pub const FLOWLET_ENTRIES_DEFAULT: u32 = 4096;

impl Default for PathConfig {
    fn default() -> Self {
        PathConfig {
            by_tier: vec![PathChoice::Ecmp],
            flowlet_gap: FLOWLET_GAP_DEFAULT,
            flowlet_entries: FLOWLET_ENTRIES_DEFAULT,
            signal: Signal::Queue,
            rule: AdaptiveRule::LeastQueued,
        }
    }
}

impl PathConfig {
    /// The choice of switches of tier `tier` (1: the ToRs).
    pub fn choice(&self, tier: u8) -> PathChoice {
        let i = (tier as usize).saturating_sub(1);
        let i = i.min(self.by_tier.len().saturating_sub(1));
        self.by_tier.get(i).copied().unwrap_or_default()
    }

    /// Whether every tier uses per-flow ECMP.
    pub fn all_ecmp(&self) -> bool {
        self.by_tier.iter().all(|&c| c == PathChoice::Ecmp)
    }
}
