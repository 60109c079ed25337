//! Unit traces of each path choice and rule.

use super::*;
use crate::ids::PortId;
use sim_core::{QueueSize, RngStream, SimTime};

/// A port of `bytes` queued in a 100 KB buffer at 100 Gb/s.
fn view(bytes: u64) -> PortView {
    PortView {
        bytes,
        packets: bytes / 1_000,
        buffer: QueueSize::Bytes(100_000),
        bps: 100_000_000_000,
        paused: false,
    }
}

impl SwitchPaths {
    /// `pick` for a full-sized packet, with each port's queued bytes.
    fn pick_q(
        &mut self,
        hops: &[PortId],
        edge: usize,
        hash: u64,
        now: SimTime,
        q: impl Fn(PortId) -> u64,
    ) -> PortId {
        self.pick(hops, edge, hash, now, 1_500, |p| view(q(p)))
    }
}

fn state(choice: PathChoice) -> SwitchPaths {
    SwitchPaths::new(
        choice,
        RngStream::from_seed_u64(3),
        4,
        &PathConfig::default(),
        &HOPS,
    )
}

const HOPS: [PortId; 4] = [PortId(10), PortId(11), PortId(12), PortId(13)];

fn counts(s: &mut SwitchPaths, n: usize, gap_ps: u64) -> [usize; 4] {
    let mut c = [0; 4];
    for i in 0..n {
        let at = SimTime(i as u64 * gap_ps);
        let p = s.pick_q(&HOPS, 1, 42, at, |_| 0);
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
        .map(|_| s.pick_q(&HOPS, 0, 7, SimTime::ZERO, |_| 0).0)
        .collect();
    assert_eq!(a, [10, 11, 12, 13, 10]);
    // Another destination has its own turn.
    assert_eq!(s.pick_q(&HOPS, 2, 7, SimTime::ZERO, |_| 0), PortId(10));
    assert_eq!(s.pick_q(&HOPS, 0, 7, SimTime::ZERO, |_| 0), PortId(11));
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
        assert_eq!(s.pick_q(&HOPS, 0, 1, SimTime::ZERO, q), PortId(12));
    }
    // Ties spread over the tied ports only.
    let q = |p: PortId| [0, 0, 5, 0][(p.0 - 10) as usize];
    let mut seen = [0; 4];
    for _ in 0..3_000 {
        seen[(s.pick_q(&HOPS, 0, 1, SimTime::ZERO, q).0 - 10) as usize] += 1;
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
    let first = s.pick_q(&HOPS, 0, 5, SimTime::ZERO, |p| {
        if p == PortId(13) { 0 } else { 100 }
    });
    assert_eq!(first, PortId(13));
    // Within the gap the flowlet stays, whatever the queues say now.
    let t = SimTime(1_000);
    assert_eq!(
        s.pick_q(&HOPS, 0, 5, t, |p| if p == PortId(13) { 100 } else { 0 }),
        PortId(13)
    );
    // After the gap it moves to the emptiest port.
    let t = t + FLOWLET_GAP_DEFAULT;
    assert_eq!(
        s.pick_q(&HOPS, 0, 5, t, |p| if p == PortId(11) { 0 } else { 100 }),
        PortId(11)
    );
}

#[test]
fn a_flowlet_whose_port_left_the_list_moves() {
    let mut s = state(PathChoice::Flowlet);
    let p = s.pick_q(&HOPS, 0, 5, SimTime::ZERO, |_| 0);
    let rest: Vec<PortId> = HOPS.iter().copied().filter(|&h| h != p).collect();
    let q = s.pick_q(&rest, 0, 5, SimTime(1), |_| 0);
    assert_ne!(p, q);
}

#[test]
fn the_delay_signal_weighs_the_queue_by_the_link_rate() {
    // 10 KB on a 100 Gb/s link drain in 800 ns, 5 KB on a degraded
    // 25 Gb/s one in 1,600 ns: the queue signal prefers the second.
    let fast = (10_000, 100_000_000_000);
    let slow = (5_000, 25_000_000_000);
    assert!(Signal::Queue.load(slow.0, slow.1, false) < Signal::Queue.load(fast.0, fast.1, false));
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

fn htsim(choice: PathChoice) -> SwitchPaths {
    htsim_seeded(choice, 3)
}

fn htsim_seeded(choice: PathChoice, seed: u64) -> SwitchPaths {
    let cfg = PathConfig {
        rule: AdaptiveRule::Htsim,
        ..PathConfig::default()
    };
    SwitchPaths::new(choice, RngStream::from_seed_u64(seed), 4, &cfg, &HOPS)
}

/// Loads by port, 10..=13, as a closure.
fn loads(q: [u64; 4]) -> impl Fn(PortId) -> u64 {
    move |p: PortId| q[(p.0 - 10) as usize]
}

/// Where `n` picks go, by port.
fn spread(n: usize, mut pick: impl FnMut(usize) -> PortId) -> [usize; 4] {
    let mut seen = [0; 4];
    for i in 0..n {
        seen[(pick(i).0 - 10) as usize] += 1;
    }
    seen
}

#[test]
fn htsims_levels_are_5_10_and_20_percent_of_the_buffer() {
    let b = QueueSize::Bytes(100_000);
    let levels: Vec<u8> = [0, 4_999, 5_000, 9_999, 10_000, 19_999, 20_000, 99_000]
        .iter()
        .map(|&q| switch::queue_level(q, 0, b))
        .collect();
    assert_eq!(levels, [0, 0, 1, 1, 2, 2, 3, 3]);
    // A buffer in packets is judged in packets.
    let p = QueueSize::Packets(100);
    assert_eq!(switch::queue_level(u64::MAX / 2, 4, p), 0);
    assert_eq!(switch::queue_level(0, 5, p), 1);
    assert_eq!(switch::queue_level(0, 20, p), 3);
}

#[test]
fn htsims_rule_ties_ports_of_one_level_and_hashes_small_packets() {
    let mut s = htsim(PathChoice::Adaptive);
    let t = SimTime(1_000_000);
    // 1 KB and 4 KB are both level 0: the least-queued rule would take
    // port 12 every time; htsim's spreads over the three level-0 ports.
    let q = loads([4_000, 3_000, 1_000, 50_000]);
    let seen = spread(3_000, |_| s.pick_q(&HOPS, 0, 1, t, &q));
    assert_eq!(seen[3], 0, "{seen:?}");
    assert!(seen[..3].iter().all(|&n| n > 800), "{seen:?}");
    // A lower level wins outright.
    let q = loads([12_000, 6_000, 25_000, 30_000]);
    let t = SimTime(2_000_000);
    assert_eq!(s.pick_q(&HOPS, 0, 1, t, &q), PortId(11));
    // A 64 B header takes its hashed port whatever the queues.
    let hashed = HOPS[(7 % 4) as usize];
    let q = |p: PortId| if p == hashed { 90_000 } else { 0 };
    for i in 0..20 {
        let at = SimTime(3_000_000 + i * 1_000_000);
        assert_eq!(s.pick(&HOPS, 0, 7, at, 64, |p| view(q(p))), hashed);
    }
}

#[test]
fn htsims_levels_are_cached_for_a_tenth_of_a_microsecond() {
    let mut s = htsim(PathChoice::Adaptive);
    // Computed at 1 us: port 10 empty, the others at level 3.
    let t0 = SimTime(1_000_000);
    assert_eq!(
        s.pick_q(&HOPS, 0, 1, t0, loads([0, 50_000, 50_000, 50_000])),
        PortId(10)
    );
    // 100 ns later the queues swapped, but the cache still says port 10.
    let t1 = t0 + switch::LEVEL_PERIOD;
    let swapped = loads([50_000, 0, 50_000, 50_000]);
    assert_eq!(s.pick_q(&HOPS, 0, 1, t1, &swapped), PortId(10));
    // One picosecond past the period the levels are read again.
    assert_eq!(
        s.pick_q(&HOPS, 0, 1, t1 + SimDuration(1), &swapped),
        PortId(11)
    );
}

#[test]
fn htsims_flowlets_move_half_the_time_and_only_to_a_lower_level() {
    let gap = FLOWLET_GAP_DEFAULT.ps();
    let mut s = htsim(PathChoice::AdaptiveFlowlet);
    // A new flow takes the lowest level.
    let first = s.pick_q(
        &HOPS,
        0,
        5,
        SimTime(1_000_000),
        loads([30_000, 30_000, 0, 30_000]),
    );
    assert_eq!(first, PortId(12));
    // After each idle gap its port is at level 3 and port 10 at level 0:
    // it moves with probability 1/2, so it stays for a geometric number
    // of gaps. Counted over many switches (streams) and flows (hashes).
    let mut stayed_first_gap = 0;
    for h in 0..2_000u64 {
        let mut s = htsim_seeded(PathChoice::AdaptiveFlowlet, 100 + h);
        let t0 = SimTime(1_000_000);
        let p = s.pick_q(&HOPS, 0, h, t0, loads([30_000, 30_000, 0, 30_000]));
        assert_eq!(p, PortId(12));
        let t1 = t0 + SimDuration(gap + 1);
        let q = s.pick_q(&HOPS, 0, h, t1, loads([0, 30_000, 30_000, 30_000]));
        assert!(q == PortId(12) || q == PortId(10), "{q:?}");
        stayed_first_gap += (q == PortId(12)) as usize;
    }
    // 1,000 expected; 5 sigma is about 112.
    assert!(
        (880..=1_120).contains(&stayed_first_gap),
        "{stayed_first_gap}"
    );
    // Within the gap it never moves, whatever the queues.
    let t = SimTime(1_000_000) + SimDuration(gap / 2);
    let q = loads([0, 0, 90_000, 0]);
    assert_eq!(s.pick_q(&HOPS, 0, 5, t, &q), PortId(12));
    // Past a gap, a port of the same level is no reason to move: 12 and
    // 13 at level 1, the others at 3.
    for i in 1..=20u64 {
        let at = t + SimDuration(i * (gap + 1));
        let q = loads([30_000, 30_000, 6_000, 9_000]);
        assert_eq!(s.pick_q(&HOPS, 0, 5, at, q), PortId(12), "gap {i}");
    }
}

#[test]
fn ecmp_adaptive_repairs_half_the_packets_of_a_most_loaded_hashed_port() {
    let hashed = HOPS[(6 % 4) as usize];
    let mut clock = 0u64;
    let mut at = |_: usize| {
        clock += 1_000_000;
        SimTime(clock)
    };
    for rule in [AdaptiveRule::LeastQueued, AdaptiveRule::Htsim] {
        let cfg = PathConfig {
            rule,
            ..PathConfig::default()
        };
        let mut s = SwitchPaths::new(
            PathChoice::EcmpAdaptive,
            RngStream::from_seed_u64(9),
            4,
            &cfg,
            &HOPS,
        );
        // The hashed port (12) is the most loaded: half its packets go to
        // the one least-loaded port (11).
        let q = loads([30_000, 0, 60_000, 30_000]);
        let seen = spread(4_000, |i| s.pick_q(&HOPS, 0, 6, at(i), &q));
        assert_eq!(hashed, PortId(12));
        assert_eq!((seen[0], seen[3]), (0, 0), "{rule:?} {seen:?}");
        assert!((1_800..=2_200).contains(&seen[1]), "{rule:?} {seen:?}");
        // Not the most loaded: every packet keeps the hashed port.
        let q = loads([60_000, 0, 15_000, 60_000]);
        let seen = spread(1_000, |i| s.pick_q(&HOPS, 0, 6, at(i), &q));
        assert_eq!(seen[2], 1_000, "{rule:?} {seen:?}");
        // Every queue alike: the hashed port is as loaded as the worst,
        // so half the packets spread over all four (htsim's r == 0).
        let seen = spread(4_000, |i| s.pick_q(&HOPS, 0, 6, at(i), loads([0; 4])));
        assert!((2_300..=2_700).contains(&seen[2]), "{rule:?} {seen:?}");
        assert!(
            [0, 1, 3].iter().all(|&i| (380..=620).contains(&seen[i])),
            "{rule:?} {seen:?}"
        );
    }
}
