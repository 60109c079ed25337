//! Unit traces of ExpressPass's rules: one packet per credit, credit
//! pacing, and credit feedback control (Algorithm 1).

use super::*;
use crate::PathInfo;
use crate::{FlowAddr, Side};
use net::{FlowId, HostId, Kind, Packet, Protocol, WireFormat};
use sim_core::{Bandwidth, SimDuration, SimTime};

fn addr() -> FlowAddr {
    FlowAddr {
        flow: FlowId(3),
        src: HostId(1),
        dst: HostId(0),
        sport: 40000,
        dport: 5001,
        priority: 0,
    }
}

fn path() -> PathInfo {
    PathInfo {
        line_rate: Bandwidth::from_bps(10_000_000_000),
        rx_line_rate: Bandwidth::from_bps(10_000_000_000),
        wire: WireFormat::ETHERNET,
        base_rtt: SimDuration::from_us(10),
        bdp_bytes: 12_500,
        src_clock_offset: SimDuration::ZERO,
        dst_clock_offset: SimDuration::ZERO,
        stream_seed: 7,
    }
}

fn us(t: u64) -> SimTime {
    SimTime::ZERO + SimDuration::from_us(t)
}

fn credit(seq: u64, missing: u64) -> Packet {
    let mut c = addr().header(Side::Receiver, Kind::Credit);
    c.protocol = Protocol::ExpressPass;
    c.seq = seq;
    c.ack = missing;
    c
}

#[test]
fn feedback_control_follows_algorithm_1() {
    let cfg = ExpressPassConfig::default();
    let mut c = CreditControl::new(&cfg, 1000.0, 1.0);
    assert_eq!(c.rate_bps, 500.0, "alpha x max");
    // No loss: rate = (1 - w) rate + w max (1 + target); w stays at first.
    c.update(0.0);
    let w0 = 0.0625;
    let expect = (1.0 - w0) * 500.0 + w0 * 1000.0 * 1.125;
    assert!((c.rate_bps - expect).abs() < 1e-9);
    assert_eq!(c.w, w0);
    // A second increase in a row: w moves halfway to w_max first.
    c.update(0.1);
    let w1 = (w0 + 0.5) / 2.0;
    assert_eq!(c.w, w1);
    let expect = (1.0 - w1) * expect + w1 * 1125.0;
    assert!((c.rate_bps - expect).abs() < 1e-9);
    // Loss above target: rate x (1 - loss)(1 + target), w halves.
    c.update(0.5);
    assert!((c.rate_bps - expect * 0.5 * 1.125).abs() < 1e-9);
    assert_eq!(c.w, w1 / 2.0);
    for _ in 0..20 {
        c.update(0.9);
    }
    assert_eq!(c.w, 0.01, "w_min");
}

#[test]
fn the_sender_spends_one_credit_per_packet_and_stops_credits_when_covered() {
    let cfg = ExpressPassConfig::default();
    let mut s = ExpressPassSender::new(addr(), 3000, &cfg);
    let mut out: Vec<Packet> = Vec::new();
    s.start(us(0), &mut out);
    assert_eq!(out.len(), 1, "a credit request");
    assert_eq!(
        (out[0].kind, out[0].ack, out[0].feedback.flag),
        (Kind::Control, 3000, false)
    );
    assert!(
        !s.wants_transmit() && s.poll_transmit(us(0)).is_none(),
        "nothing without credit"
    );
    s.on_packet(us(10), &credit(0, 0), &mut out);
    let p = s.poll_transmit(us(10)).expect("one packet for the credit");
    assert_eq!((p.seq, p.payload_bytes, p.ack), (0, 1460, 0));
    assert!(s.poll_transmit(us(10)).is_none());
    // Credits 1 and 2 cover the rest: CREDIT_STOP goes with the second.
    s.on_packet(us(11), &credit(1, 0), &mut out);
    assert_eq!(out.len(), 1);
    s.on_packet(us(12), &credit(2, 0), &mut out);
    assert_eq!(out.len(), 2);
    assert!(out[1].feedback.flag, "CREDIT_STOP");
    let p = s.poll_transmit(us(12)).expect("second");
    assert_eq!((p.seq, p.payload_bytes, p.ack), (1460, 1460, 1));
    let p = s.poll_transmit(us(12)).expect("third");
    assert_eq!((p.seq, p.payload_bytes, p.ack), (2920, 80, 2));
    // A credit in flight when the data ran out is wasted.
    s.on_packet(us(13), &credit(3, 3000), &mut out);
    assert_eq!(s.wasted_credits(), 1);
    assert!(!s.wants_transmit());
    // A recovering receiver reports a hole: the next credit resends from it.
    let mut c = credit(4, 1460);
    c.feedback.flag = true;
    s.on_packet(us(14), &c, &mut out);
    let p = s.poll_transmit(us(14)).expect("a resend");
    assert_eq!((p.seq, p.payload_bytes), (1460, 1460));
}

#[test]
fn the_receiver_paces_credits_and_reads_their_loss_from_the_echoes() {
    let cfg = ExpressPassConfig::default();
    let mut r = ExpressPassReceiver::new(addr(), &cfg, &path());
    let mut out: Vec<Packet> = Vec::new();
    let mut req = addr().header(Side::Sender, Kind::Control);
    req.protocol = Protocol::ExpressPass;
    req.ack = 100_000;
    r.on_packet(us(0), &req, &mut out);
    // The first credit at once, then one per 84 B at alpha x max credit
    // rate (10 Gb/s x 84 / 1622 / 2), give or take the 10% jitter.
    let mut times = Vec::new();
    while times.len() < 4 {
        let at = r.deadline().expect("credits due");
        r.on_timer(at, &mut out);
        times.push(at.ps());
    }
    assert_eq!(times[0], 0);
    let gap_ps = 84.0 * 8.0 / (10e9 * 84.0 / 1622.0 / 2.0) * 1e12;
    for w in times.windows(2) {
        let g = (w[1] - w[0]) as f64;
        assert!(
            (g / gap_ps - 1.0).abs() <= 0.1 + 1e-9,
            "gap {g} ps against {gap_ps}"
        );
    }
    assert!(
        out.iter()
            .all(|p| p.kind == Kind::Credit && p.size_bytes == CREDIT_BYTES)
    );
    // Data echoing credits 0, 1 and 4: credits 2 and 3 were lost, 2 of 5.
    for (i, echo) in [0u64, 1, 4].into_iter().enumerate() {
        let mut d = addr().header(Side::Sender, Kind::Data);
        d.protocol = Protocol::ExpressPass;
        d.seq = i as u64 * 1460;
        d.payload_bytes = 1460;
        d.ack = echo;
        r.on_packet(us(5), &d, &mut out);
    }
    let before = r.control().rate_bps;
    // The period (the 10 us base RTT) ends at the next credit due after
    // 10 us: a decrease by the 40% loss.
    let mut at = r.deadline().expect("due");
    while at < us(10) {
        r.on_timer(at, &mut out);
        at = r.deadline().expect("due");
    }
    assert_eq!(r.control().rate_bps, before, "within the period");
    r.on_timer(at, &mut out);
    let after = r.control().rate_bps;
    assert!(
        (after / before - 0.6 * 1.125).abs() < 1e-9,
        "{before} -> {after}"
    );
}

/// A lost CREDIT_STOP with a data packet lost too: the receiver, never
/// stopped, keeps crediting and never asks for what it lacks; the sender
/// stops it again a timeout after its stop, and the recovery that follows
/// completes the message.
#[test]
fn a_lost_stop_is_sent_again_and_the_message_completes() {
    let cfg = ExpressPassConfig::default();
    let mut h = crate::harness::Harness::with(
        ExpressPassSender::new(addr(), 30_000, &cfg),
        ExpressPassReceiver::new(addr(), &cfg, &path()),
    );
    let (mut stops_dropped, mut data_dropped) = (0, 0);
    h.data_filter = Box::new(move |_, p| {
        let stop = p.kind == Kind::Control && p.feedback.flag;
        if stop && stops_dropped == 0 {
            stops_dropped += 1;
            return false;
        }
        if p.kind == Kind::Data && p.seq == 2 * 1460 && data_dropped == 0 {
            data_dropped += 1;
            return false;
        }
        true
    });
    h.run(SimTime::ZERO + SimDuration::from_ms(50));
    let stops = (h.data_packets.iter())
        .filter(|p| p.kind == Kind::Control && p.feedback.flag)
        .count();
    assert!(stops >= 2, "the stop went again ({stops})");
    assert!(h.sender.message().completed_at().is_some(), "completes");
    assert_eq!(h.receiver.bytes_received(), 30_000);
}
