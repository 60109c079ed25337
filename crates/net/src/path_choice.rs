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
//!   switch's local view, Alizadeh et al., SIGCOMM 2014, section 3.4).
//!
//! The flowlet table is a fixed array indexed by the flow hash, as in
//! hardware (CONGA 3.4: 64K entries; LetFlow 4: a table of flowlet
//! entries hashed by 5-tuple): two flows that collide share an entry.
//! Every draw comes from the switch's own random stream, so a switch's
//! choices depend on nothing but its own packets.

use crate::ids::PortId;
use sim_core::{RngStream, SimDuration, SimTime};

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
}

impl PathChoice {
    /// Every choice with its scenario name and meaning: the one list the
    /// loader, `dcnsim list` and the docs read.
    pub const ALL: [(PathChoice, &'static str, &'static str); 6] = [
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

/// One flowlet table entry: when the flow's last packet passed and the
/// port it took (its size is what the memory estimate counts).
#[derive(Clone, Copy, Debug)]
pub struct Flowlet {
    last: SimTime,
    port: PortId,
}

/// The path-choice state of one switch that does not use plain ECMP.
#[derive(Clone, Debug)]
pub struct SwitchPaths {
    choice: PathChoice,
    rng: RngStream,
    /// The next turn per destination ToR (round robin).
    turn: Vec<u32>,
    flowlets: Vec<Flowlet>,
    gap: SimDuration,
}

impl SwitchPaths {
    /// The state of a switch choosing by `choice`, with its own random
    /// stream `rng`, for a fabric of `edges` ToRs.
    pub fn new(choice: PathChoice, rng: RngStream, edges: usize, cfg: &PathConfig) -> Self {
        let entries = if choice.uses_flowlets() {
            cfg.flowlet_entries as usize
        } else {
            0
        };
        SwitchPaths {
            choice,
            rng,
            turn: if choice == PathChoice::RoundRobin {
                vec![0; edges]
            } else {
                Vec::new()
            },
            flowlets: vec![
                Flowlet {
                    last: SimTime::ZERO,
                    port: PortId(u32::MAX),
                };
                entries
            ],
            gap: cfg.flowlet_gap,
        }
    }

    /// Picks one of `hops` (two or more) for a packet of flow hash `hash`
    /// bound for ToR `edge` at `now`; `queued(p)` is the bytes queued at
    /// egress port `p`.
    pub fn pick(
        &mut self,
        hops: &[PortId],
        edge: usize,
        hash: u64,
        now: SimTime,
        queued: impl Fn(PortId) -> u64,
    ) -> PortId {
        debug_assert!(hops.len() > 1);
        match self.choice {
            PathChoice::Ecmp => hops[(hash % hops.len() as u64) as usize],
            PathChoice::Random => hops[self.rng.below(hops.len() as u64) as usize],
            PathChoice::RoundRobin => {
                let t = &mut self.turn[edge];
                let p = hops[*t as usize % hops.len()];
                *t = t.wrapping_add(1);
                p
            }
            PathChoice::Adaptive => least_queued(hops, &mut self.rng, &queued),
            PathChoice::Flowlet | PathChoice::AdaptiveFlowlet => {
                let slot = (hash as usize) & (self.flowlets.len() - 1);
                let f = self.flowlets[slot];
                let fresh = f.port != PortId(u32::MAX)
                    && now.since(f.last) < self.gap
                    && hops.contains(&f.port);
                let port = if fresh {
                    f.port
                } else if self.choice == PathChoice::Flowlet {
                    hops[self.rng.below(hops.len() as u64) as usize]
                } else {
                    least_queued(hops, &mut self.rng, &queued)
                };
                self.flowlets[slot] = Flowlet { last: now, port };
                port
            }
        }
    }
}

/// The port of `hops` with the fewest queued bytes; among equals, one
/// drawn uniformly (reservoir sampling: the k-th tie replaces the pick
/// with probability 1/k). A random starting point and a scan would favour
/// the port after a longer queue.
fn least_queued(hops: &[PortId], rng: &mut RngStream, queued: &impl Fn(PortId) -> u64) -> PortId {
    let mut best = hops[0];
    let mut best_q = queued(best);
    let mut ties = 1u64;
    for &p in &hops[1..] {
        let q = queued(p);
        if q < best_q {
            (best, best_q, ties) = (p, q, 1);
        } else if q == best_q {
            ties += 1;
            if rng.below(ties) == 0 {
                best = p;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(choice: PathChoice) -> SwitchPaths {
        SwitchPaths::new(
            choice,
            RngStream::from_seed_u64(3),
            4,
            &PathConfig::default(),
        )
    }

    const HOPS: [PortId; 4] = [PortId(10), PortId(11), PortId(12), PortId(13)];

    fn counts(s: &mut SwitchPaths, n: usize, gap_ps: u64) -> [usize; 4] {
        let mut c = [0; 4];
        for i in 0..n {
            let at = SimTime(i as u64 * gap_ps);
            let p = s.pick(&HOPS, 1, 42, at, |_| 0);
            c[(p.0 - 10) as usize] += 1;
        }
        c
    }

    #[test]
    fn random_spreads_one_flow_evenly() {
        let c = counts(&mut state(PathChoice::Random), 40_000, 1);
        for n in c {
            // 10,000 expected; 5 sigma is about 430.
            assert!((9_500..=10_500).contains(&n), "{c:?}");
        }
    }

    #[test]
    fn round_robin_rotates_per_destination() {
        let mut s = state(PathChoice::RoundRobin);
        let a: Vec<u32> = (0..5)
            .map(|_| s.pick(&HOPS, 0, 7, SimTime::ZERO, |_| 0).0)
            .collect();
        assert_eq!(a, [10, 11, 12, 13, 10]);
        // Another destination has its own turn.
        assert_eq!(s.pick(&HOPS, 2, 7, SimTime::ZERO, |_| 0), PortId(10));
        assert_eq!(s.pick(&HOPS, 0, 7, SimTime::ZERO, |_| 0), PortId(11));
    }

    #[test]
    fn a_flowlet_keeps_its_port_until_an_idle_gap() {
        let mut s = state(PathChoice::Flowlet);
        let gap = FLOWLET_GAP_DEFAULT.ps();
        // Packets 1 us apart: one flowlet, one port.
        let c = counts(&mut s, 1_000, 1_000_000);
        assert_eq!(c.iter().filter(|&&n| n > 0).count(), 1, "{c:?}");
        // Packets a gap apart: a new flowlet (and a fresh draw) each.
        let mut s = state(PathChoice::Flowlet);
        let c = counts(&mut s, 4_000, gap);
        for n in c {
            assert!((800..=1_200).contains(&n), "{c:?}");
        }
        // Just under the gap: still one flowlet.
        let mut s = state(PathChoice::Flowlet);
        let c = counts(&mut s, 100, gap - 1);
        assert_eq!(c.iter().filter(|&&n| n > 0).count(), 1, "{c:?}");
    }

    #[test]
    fn adaptive_takes_the_least_queued_port() {
        let mut s = state(PathChoice::Adaptive);
        let q = |p: PortId| [9_000, 3_000, 1_500, 6_000][(p.0 - 10) as usize];
        for _ in 0..50 {
            assert_eq!(s.pick(&HOPS, 0, 1, SimTime::ZERO, q), PortId(12));
        }
        // Ties spread over the tied ports only.
        let q = |p: PortId| [0, 0, 5, 0][(p.0 - 10) as usize];
        let mut seen = [0; 4];
        for _ in 0..3_000 {
            seen[(s.pick(&HOPS, 0, 1, SimTime::ZERO, q).0 - 10) as usize] += 1;
        }
        assert_eq!(seen[2], 0);
        assert!(
            seen.iter().enumerate().all(|(i, &n)| i == 2 || n > 800),
            "{seen:?}"
        );
    }

    #[test]
    fn adaptive_flowlets_choose_by_queue_once_per_flowlet() {
        let mut s = state(PathChoice::AdaptiveFlowlet);
        let first = s.pick(&HOPS, 0, 5, SimTime::ZERO, |p| {
            if p == PortId(13) { 0 } else { 100 }
        });
        assert_eq!(first, PortId(13));
        // Within the gap the flowlet stays, whatever the queues say now.
        let t = SimTime(1_000);
        assert_eq!(
            s.pick(&HOPS, 0, 5, t, |p| if p == PortId(13) { 100 } else { 0 }),
            PortId(13)
        );
        // After the gap it moves to the emptiest port.
        let t = t + FLOWLET_GAP_DEFAULT;
        assert_eq!(
            s.pick(&HOPS, 0, 5, t, |p| if p == PortId(11) { 0 } else { 100 }),
            PortId(11)
        );
    }

    #[test]
    fn a_flowlet_whose_port_left_the_list_moves() {
        let mut s = state(PathChoice::Flowlet);
        let p = s.pick(&HOPS, 0, 5, SimTime::ZERO, |_| 0);
        let rest: Vec<PortId> = HOPS.iter().copied().filter(|&h| h != p).collect();
        let q = s.pick(&rest, 0, 5, SimTime(1), |_| 0);
        assert_ne!(p, q);
    }

    #[test]
    fn the_delay_signal_weighs_the_queue_by_the_link_rate() {
        // 10 KB on a 100 Gb/s link drain in 800 ns, 5 KB on a degraded
        // 25 Gb/s one in 1,600 ns: the queue signal prefers the second.
        let fast = (10_000, 100_000_000_000);
        let slow = (5_000, 25_000_000_000);
        assert!(
            Signal::Queue.load(slow.0, slow.1, false) < Signal::Queue.load(fast.0, fast.1, false)
        );
        assert_eq!(Signal::Delay.load(fast.0, fast.1, false), 800_000);
        assert_eq!(Signal::Delay.load(slow.0, slow.1, false), 1_600_000);
        // A paused port loses to any other.
        assert_eq!(Signal::Queue.load(0, fast.1, true), u64::MAX);
        // Large queues do not overflow.
        assert_eq!(
            Signal::Delay.load(1 << 40, 8, false),
            1_000_000_000_000 << 40
        );
    }

    #[test]
    fn names_round_trip() {
        for (c, name, _) in PathChoice::ALL {
            assert_eq!(PathChoice::from_name(name), Some(c));
            assert_eq!(c.name(), name);
        }
        assert_eq!(PathChoice::from_name("spray"), None);
    }
}
