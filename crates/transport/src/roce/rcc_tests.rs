//! RCC's pieces on scripted inputs: Algorithm 1's state changes, the PID
//! step, EWA as messages come and go, and the NIC's B_R rounds.
use super::config::{RoceCc, RoceConfig};
use super::rcc::*;
use super::{HostRx, RoceReceiver};
use crate::PathInfo;
use crate::harness::addr;
use net::{Kind, Packet, Protocol, RoceBits, WireFormat};
use sim_core::{Bandwidth, SimDuration, SimTime};

const US: u64 = 1_000_000;

fn us(t: u64) -> SimTime {
    SimTime(t * US)
}

fn d_ns(ns: u64) -> SimDuration {
    SimDuration::from_ps(ns * 1000)
}

/// A controller for a 12 us base RTT, 1000 B packets, 150 KB line BDP.
fn control(cfg: RccConfig) -> RccControl {
    RccControl::new(cfg, SimDuration::from_us(12), 1000, 150_000)
}

#[test]
fn n_consecutive_delays_above_the_threshold_enter_pid_and_pid_stays() {
    // Per-packet cadence: every sample counts (the per-RTT cadence is below).
    let mut c = control(RccConfig {
        pid_step: PidStep::Packet,
        ..RccConfig::default()
    });
    let fs = 75_000; // two flows' fair share
    // Base 5 us; threshold 6 us (delta 0.2). Two high samples, one low:
    // the count restarts.
    assert_eq!(c.on_sample(us(0), d_ns(5000), fs, false), fs);
    assert_eq!(c.on_sample(us(1), d_ns(6500), fs, false), fs);
    assert_eq!(c.on_sample(us(2), d_ns(6500), fs, false), fs);
    assert_eq!(
        c.on_sample(us(3), d_ns(6000), fs, false),
        fs,
        "6 us is not above 6 us"
    );
    assert!(!c.in_pid());
    // Three in a row with the last hop saturated: last-hop congestion, EWA.
    for t in 4..7 {
        assert_eq!(c.on_sample(us(t), d_ns(7000), fs, true), fs);
    }
    assert!(!c.in_pid(), "last-hop congestion stays with EWA");
    // The same with the last hop not saturated: in-network congestion.
    // The count already stands at 3, so the next high sample enters PID;
    // E = 7 - 5.5 us = 1.5e-6 s: U = 1e4 x 1.5e-6 + 1e5 x 1.5e-6 = 0.165.
    let w = c.on_sample(us(7), d_ns(7000), fs, false);
    assert!(c.in_pid());
    assert_eq!(c.pid_since(), Some(us(7)));
    let expected = (fs as f64 * (1.0 - libm::tanh(0.165))) as u64;
    assert!(w.abs_diff(expected) <= 1, "{w} vs {expected}");
    println!(
        "entered PID at 7 us: U = {:.4}, window {w} B (fair share {fs})",
        c.u()
    );
    // Once in PID, a low delay and a saturated last hop do not leave it.
    c.on_sample(us(30), d_ns(5000), fs, true);
    assert!(c.in_pid(), "a flow in PID stays there");
}

#[test]
fn with_per_rtt_cadence_the_detector_samples_once_per_base_rtt() {
    let mut c = control(RccConfig::default());
    let fs = 75_000;
    c.on_sample(us(0), d_ns(5000), fs, false);
    // Ten high delays within one base RTT (12 us): one sample, not ten.
    for t in 1..11 {
        c.on_sample(us(t), d_ns(9000), fs, false);
    }
    assert!(!c.in_pid());
    // The next samples at 12, 24 and 36 us make three in a row.
    c.on_sample(us(12), d_ns(9000), fs, false);
    c.on_sample(us(24), d_ns(9000), fs, false);
    assert!(!c.in_pid(), "two samples so far");
    c.on_sample(us(36), d_ns(9000), fs, false);
    assert!(c.in_pid(), "three samples, a base RTT apart");
}

#[test]
fn the_pid_step_follows_eqs_3_to_5_once_per_base_rtt() {
    let cfg = RccConfig {
        variant: RccVariant::Pid,
        ..RccConfig::default()
    };
    let mut c = control(cfg);
    // RCC-PID starts in PID at the line BDP. Base 10 us, target 11 us.
    let w1 = c.on_sample(us(0), d_ns(10_000), 0, false);
    // E = -1e-6: U = -0.01 - 0.1 = -0.11; W = 150000 (1 + tanh 0.11), capped at the BDP.
    assert_eq!(w1, 150_000);
    assert!((c.u() + 0.11).abs() < 1e-12, "U = {}", c.u());
    // Within the same base RTT: no step, whatever the delay.
    c.on_sample(us(5), d_ns(30_000), 0, false);
    assert!((c.u() + 0.11).abs() < 1e-12);
    // The next step, 12 us on, with 13 us: E = 2e-6, dE = 3e-6:
    // U = -0.11 + 0.02 + 0.3 = 0.21.
    let w2 = c.on_sample(us(12), d_ns(13_000), 0, false);
    assert!((c.u() - 0.21).abs() < 1e-12, "U = {}", c.u());
    let expected = (150_000.0 * (1.0 - libm::tanh(0.21))) as u64;
    assert!(w2.abs_diff(expected) <= 1, "{w2} vs {expected}");
    println!("PID: U -0.11 then 0.21, window 150000 then {w2} B");
    // Per-packet stepping steps on every sample.
    let mut p = control(RccConfig {
        pid_step: PidStep::Packet,
        ..cfg
    });
    p.on_sample(us(0), d_ns(10_000), 0, false);
    p.on_sample(us(1), d_ns(13_000), 0, false);
    assert!((p.u() - 0.21).abs() < 1e-12, "U = {}", p.u());
}

#[test]
fn microsecond_errors_take_section_iv_ds_gains() {
    let cfg = RccConfig {
        variant: RccVariant::Pid,
        error_unit: ErrorUnit::Microseconds,
        kp: 1.0,
        kd: 1000.0,
        ..RccConfig::default()
    };
    let mut c = control(cfg);
    c.on_sample(us(0), d_ns(10_000), 0, false);
    c.on_sample(us(12), d_ns(11_100), 0, false);
    // E: -1 then 0.1 (us): U = (-1 - 1000) + (0.1 + 1000 x 1.1) = 99.1.
    assert!((c.u() - 99.1).abs() < 1e-9, "U = {}", c.u());
    assert_eq!(
        c.cwnd(),
        1000,
        "tanh saturates: the window falls to one packet"
    );
}

#[test]
fn the_window_never_falls_below_one_packet_and_scales_differ() {
    assert_eq!(scale(Scale::Tanh, 0.0), 1.0);
    assert_eq!(scale(Scale::Sigmoid, 0.0), 0.5);
    assert_eq!(scale(Scale::Sigmoid2, 0.0), 1.0);
    assert!(scale(Scale::Tanh, -50.0) <= 2.0 && scale(Scale::Tanh, -50.0) > 1.99);
    let mut c = control(RccConfig {
        variant: RccVariant::Pid,
        ..RccConfig::default()
    });
    c.on_sample(us(0), d_ns(1_000), 0, false);
    c.on_sample(us(12), d_ns(1_000_000), 0, false);
    assert_eq!(c.cwnd(), 1000);
}

#[test]
fn rcc_ewa_never_enters_pid() {
    let mut c = control(RccConfig {
        variant: RccVariant::Ewa,
        ..RccConfig::default()
    });
    c.on_sample(us(0), d_ns(5000), 50_000, false);
    for t in 1..10 {
        assert_eq!(c.on_sample(us(t), d_ns(50_000), 50_000, false), 50_000);
    }
    assert!(!c.in_pid());
}

#[test]
fn ewa_shares_go_below_a_packet_and_eta_scales_them() {
    // 1001 messages on 100 Gb/s and an 8 us base RTT: C x RTT / N = 99 B,
    // assigned as it is (the sender paces a sub-packet window).
    for (share, want) in [
        (EwaShare::Line, (99, 50_000)),
        (EwaShare::Eta, (94, 47_500)),
    ] {
        let mut c = control(RccConfig {
            ewa_share: share,
            ..RccConfig::default()
        });
        let sub_packet = c.on_sample(us(0), d_ns(5000), 99, true);
        let large = c.on_sample(us(1), d_ns(5000), 50_000, true);
        println!("{share:?}: a 99 B share assigns {sub_packet} B, a 50,000 B one {large} B");
        assert_eq!((sub_packet, large), want, "{share:?}");
    }
}

#[test]
fn b_r_counts_the_last_complete_round() {
    let mut nic = HostRx::default();
    nic.on_bytes(us(0), 1000); // before any RCC flow: not counted
    nic.register(Bandwidth::from_gbps(100), SimDuration::from_us(12));
    // 100 Gb/s x 12 us = 150,000 B per round.
    for t in 0..12 {
        nic.on_bytes(us(t), 12_000);
    }
    assert_eq!(nic.bytes_last_round(), 0, "the first round is still open");
    nic.on_bytes(us(12), 12_000);
    assert_eq!(nic.bytes_last_round(), 144_000);
    assert!(nic.saturated(0.95), "144 KB >= 0.95 x 150 KB");
    assert!(!nic.saturated(0.97));
    // A silent round: the last round was empty.
    nic.on_bytes(us(40), 1);
    assert_eq!(nic.bytes_last_round(), 0);
    assert!(!nic.saturated(0.95));
    // A flow with a shorter base RTT shortens the round.
    nic.register(Bandwidth::from_gbps(100), SimDuration::from_us(6));
    assert_eq!(nic.fair_share(SimDuration::from_us(12)), 150_000);
}

fn rcc_cfg() -> RoceConfig {
    RoceConfig {
        cc: RoceCc::Rcc(RccConfig::default()),
        ..RoceConfig::default()
    }
}

fn path() -> PathInfo {
    PathInfo {
        line_rate: Bandwidth::from_gbps(100),
        rx_line_rate: Bandwidth::from_gbps(100),
        wire: WireFormat::NONE,
        base_rtt: SimDuration::from_us(12),
        bdp_bytes: 150_000,
        src_clock_offset: SimDuration::ZERO,
        dst_clock_offset: SimDuration::ZERO,
        stream_seed: 1,
    }
}

fn data(flow: u32, psn: u64, bits: RoceBits, sent: SimTime) -> Packet {
    let mut a = addr();
    a.flow = net::FlowId(flow);
    let mut p = a.header(crate::Side::Sender, Kind::Data);
    p.protocol = Protocol::Roce;
    p.seq = psn;
    p.payload_bytes = 1000;
    p.size_bytes = 1044;
    p.roce = bits;
    p.ts_val = sent;
    p
}

#[test]
fn ewa_follows_the_number_of_active_messages() {
    let cfg = rcc_cfg();
    let mut nic = HostRx::default();
    let mut rx: Vec<RoceReceiver> = (0..3)
        .map(|_| RoceReceiver::new(addr(), &cfg, &path()))
        .collect();
    let window = |r: &mut RoceReceiver, nic: &mut HostRx, p: Packet, at: u64| {
        let mut out = Vec::new();
        r.on_packet(us(at), &p, nic, &mut out);
        assert_eq!(out.len(), 1, "one ACK per packet");
        (
            out[0].feedback.window_bytes,
            out[0].feedback.count,
            out[0].ts_ecr,
        )
    };
    // Message A begins: N = 1, the whole BDP.
    let (w, n, echo) = window(&mut rx[0], &mut nic, data(0, 0, RoceBits::FIRST, us(0)), 5);
    assert_eq!((w, n, echo), (150_000, 1, us(0)));
    // B begins: N = 2, half each, on both flows' next ACKs.
    let (w, n, _) = window(&mut rx[1], &mut nic, data(1, 0, RoceBits::FIRST, us(1)), 6);
    assert_eq!((w, n), (75_000, 2));
    let (w, _, _) = window(
        &mut rx[0],
        &mut nic,
        data(0, 1, RoceBits::default(), us(1)),
        6,
    );
    assert_eq!(w, 75_000);
    // C is a single-packet message (Only = First + Last): +1 then -1.
    let (w, n, _) = window(
        &mut rx[2],
        &mut nic,
        data(2, 0, RoceBits::FIRST | RoceBits::LAST, us(2)),
        7,
    );
    assert_eq!((w, n), (75_000, 2));
    // A's packet 2 is lost: its Last arrives out of order and does not count.
    let mut out = Vec::new();
    rx[0].on_packet(
        us(8),
        &data(0, 3, RoceBits::LAST, us(3)),
        &mut nic,
        &mut out,
    );
    assert!(out[0].roce.has(RoceBits::NAK));
    assert_eq!(nic.active_messages, 2);
    // Go-back-N resends 2 and 3, in order now: A ends, N = 1.
    window(
        &mut rx[0],
        &mut nic,
        data(0, 2, RoceBits::default(), us(9)),
        10,
    );
    let (w, n, _) = window(&mut rx[0], &mut nic, data(0, 3, RoceBits::LAST, us(9)), 10);
    assert_eq!((w, n), (150_000, 1));
    // A duplicate of the Last does not end it twice.
    window(&mut rx[0], &mut nic, data(0, 3, RoceBits::LAST, us(9)), 11);
    assert_eq!(nic.active_messages, 1);
    let (w, _, _) = window(
        &mut rx[1],
        &mut nic,
        data(1, 1, RoceBits::default(), us(10)),
        12,
    );
    assert_eq!(w, 150_000, "B alone has the whole BDP again");
}

#[test]
fn a_receiver_reads_delays_on_its_own_clock() {
    // RCC-async: the receiver's clock 2 us ahead; the delays it sees are
    // 2 us longer, and its base with them.
    let cfg = rcc_cfg();
    let mut p = path();
    p.dst_clock_offset = SimDuration::from_us(2);
    let mut r = RoceReceiver::new(addr(), &cfg, &p);
    let mut nic = HostRx::default();
    let mut out = Vec::new();
    r.on_packet(
        us(5),
        &data(0, 0, RoceBits::FIRST, us(0)),
        &mut nic,
        &mut out,
    );
    let base = match r.control() {
        super::RoceReceiverControl::Rcc(r) => r.control().and_then(|c| c.base_delay()),
        _ => None,
    };
    assert_eq!(base, Some(SimDuration::from_us(7)));
}
