//! The RoCE reliable connection on the two-endpoint harness: go-back-N
//! (as the HPCC fork's `rdma-hw.cc`), the NAK interval and the optional RTO, CNP spacing,
//! pacing and the windows.
use super::config::{ACK_BYTES, RoceCc, RoceConfig, WindowMode};
use super::{HostRx, RoceReceiver, RoceSender};
use crate::PathInfo;
use crate::harness::{Harness, addr};
use net::{Ecn, Kind, Packet, Protocol, RoceBits, WireFormat};
use sim_core::{Bandwidth, SimDuration, SimTime};

fn path(gbps: u64, bdp_bytes: u64) -> PathInfo {
    let line_rate = Bandwidth::from_gbps(gbps);
    PathInfo {
        line_rate,
        rx_line_rate: line_rate,
        wire: WireFormat::NONE,
        base_rtt: SimDuration::from_ps(bdp_bytes * 8 * 1_000_000_000_000 / line_rate.bps()),
        bdp_bytes,
        src_clock_offset: SimDuration::ZERO,
        dst_clock_offset: SimDuration::ZERO,
        stream_seed: 1,
    }
}

fn harness<'a>(cfg: &RoceConfig, size: u64) -> Harness<'a, RoceSender, RoceReceiver> {
    let a = addr();
    let mut h = Harness::with(
        RoceSender::new(a, size, cfg, &path(10, 0)),
        RoceReceiver::new(a, cfg, &path(10, 0)),
    );
    h.rate = Bandwidth::from_gbps(10);
    h.delay = SimDuration::from_us(10);
    h
}

fn no_cc() -> RoceConfig {
    RoceConfig {
        cc: RoceCc::None(super::LineRateConfig),
        ..RoceConfig::default()
    }
}

#[test]
fn one_drop_gives_one_nak_and_goes_back_to_the_hole() {
    // PSN k = 3 of a 10-packet message is dropped once.
    let cfg = no_cc();
    let naks = std::cell::RefCell::new(Vec::new());
    let mut h = harness(&cfg, 10_000);
    let mut dropped = false;
    h.data_filter = Box::new(move |_, p| {
        if p.seq == 3 && !dropped {
            dropped = true;
            return false;
        }
        true
    });
    h.ack_filter = Box::new(|_, p| {
        if p.roce.has(RoceBits::NAK) {
            naks.borrow_mut().push(p.ack);
        }
        true
    });
    h.run(SimTime::ZERO + SimDuration::from_ms(10));
    let psns: Vec<u64> = h.data_packets.iter().map(|p| p.seq).collect();
    let naks = naks.borrow().clone();
    println!("go-back-N: sent {psns:?}, NAKs for {naks:?}");
    assert_eq!(naks, vec![3], "exactly one NAK, for the hole");
    // All ten left before the NAK came back (10 us each way): 3..=9 again.
    assert_eq!(
        psns,
        [(0..10).collect::<Vec<_>>(), (3..10).collect()].concat()
    );
    assert_eq!(h.receiver.naks_sent(), 1);
    assert_eq!(h.receiver.bytes_received(), 10_000);
    assert!(h.sender.completed_at().is_some());
    assert_eq!(h.sender.record().counters.retransmits, 7);
}

#[test]
fn a_lost_retransmission_stalls_without_rto_and_recovers_with_it() {
    let drop_3_twice = || {
        let mut n = 0;
        Box::new(move |_: SimTime, p: &mut Packet| {
            if p.seq == 3 && n < 2 {
                n += 1;
                return false;
            }
            true
        })
    };
    // No RTO (the references): the second loss of PSN 3 finds the NAK for
    // 3 suppressed (500 us) and nothing else in flight: the flow stalls.
    let cfg = no_cc();
    let mut h = harness(&cfg, 10_000);
    h.data_filter = drop_3_twice();
    h.run(SimTime::ZERO + SimDuration::from_ms(10));
    assert!(h.sender.completed_at().is_none(), "no RTO: stalled");
    assert_eq!(h.sender.psns(), (10, 3));
    // With an RTO of 1 ms it goes back to PSN 3 once and completes.
    let cfg = RoceConfig {
        rto: Some(SimDuration::from_ms(1)),
        ..no_cc()
    };
    let mut h = harness(&cfg, 10_000);
    h.data_filter = drop_3_twice();
    h.run(SimTime::ZERO + SimDuration::from_ms(10));
    let done = h.sender.completed_at().expect("the RTO repairs it");
    println!("with RTO 1 ms: completed at {done}");
    assert_eq!(h.sender.record().counters.timeouts, 1);
    assert!(done > SimTime::ZERO + SimDuration::from_ms(1));
}

#[test]
fn acks_of_packets_sent_before_a_spurious_timeout_move_snd_nxt_on() {
    // DCQCN+window (the in-flight count is computed), RTO 15 us, round
    // trip 20 us: the timer fires during the first flight and goes back to
    // PSN 0. Every packet is CE-marked, so the first CNP
    // (at about 21 us) halves the rate and the resent packets fall behind
    // the ACKs of the first flight: those pass the rewound snd_nxt, which
    // must follow them (the in-flight count underflowed before).
    let cfg = RoceConfig {
        rto: Some(SimDuration::from_us(15)),
        window: WindowMode::BdpXRate,
        ..RoceConfig::default()
    };
    let a = addr();
    let mut h = Harness::with(
        RoceSender::new(a, 40_000, &cfg, &path(10, 25_000)),
        RoceReceiver::new(a, &cfg, &path(10, 25_000)),
    );
    h.data_filter = Box::new(|_, p| {
        p.ecn = Ecn::Ce;
        true
    });
    h.run(SimTime::ZERO + SimDuration::from_ms(10));
    let rec = h.sender.record();
    println!(
        "spurious RTO: {} timeouts, {} packets resent, completed at {:?}",
        rec.counters.timeouts, rec.counters.retransmits, rec.completed_at
    );
    assert!(
        rec.counters.timeouts >= 1,
        "the RTO fired before the first ACK"
    );
    assert!(rec.completed_at.is_some(), "the flow completes");
}

fn data(psn: u64, ce: bool) -> Packet {
    let mut p = addr().header(crate::Side::Sender, Kind::Data);
    p.protocol = Protocol::Roce;
    p.seq = psn;
    p.payload_bytes = 1000;
    p.ecn = if ce { Ecn::Ce } else { Ecn::Ect0 };
    p
}

#[test]
fn the_notification_point_sends_at_most_one_cnp_per_interval() {
    let cfg = RoceConfig::default();
    let mut r = RoceReceiver::new(addr(), &cfg, &path(10, 0));
    let us = |n| SimTime::ZERO + SimDuration::from_us(n);
    let mut out = Vec::new();
    // CE at 0 (CNP now), 10 and 20 (one deferred CNP at 50), 60 (deferred to 100).
    for (psn, t) in [(0, 0), (1, 10), (2, 20), (3, 60)] {
        r.on_packet(us(t), &data(psn, true), &mut HostRx::default(), &mut out);
        if r.deadline().is_some_and(|d| d <= us(t + 40)) {
            let d = r.deadline().expect("checked");
            r.on_timer(d, &mut out);
        }
    }
    if let Some(d) = r.deadline() {
        assert_eq!(d, us(100));
        r.on_timer(d, &mut out);
    }
    let cnps = out.iter().filter(|p| p.roce.has(RoceBits::CNP)).count();
    let acks = out.iter().filter(|p| p.kind == Kind::Ack).count();
    assert_eq!((cnps, acks), (3, 4));
    assert!(
        out.iter()
            .filter(|p| p.kind == Kind::Ack)
            .all(|p| p.size_bytes == ACK_BYTES)
    );
    // An unmarked packet after the interval sends nothing more.
    r.on_packet(us(200), &data(4, false), &mut HostRx::default(), &mut out);
    assert_eq!(r.cnps_sent(), 3);
}

#[test]
fn packets_are_paced_at_the_current_rate_and_carry_their_message_place() {
    let cfg = RoceConfig::default(); // DCQCN, paper variant
    let mut s = RoceSender::new(addr(), 5_000, &cfg, &path(40, 0));
    let mut out = Vec::new();
    let t0 = SimTime::ZERO;
    s.start(t0, &mut out);
    let p0 = s
        .poll_transmit(t0)
        .expect("line rate: the first packet goes at once");
    assert!(p0.roce.has(RoceBits::FIRST) && !p0.roce.has(RoceBits::LAST));
    assert_eq!(p0.size_bytes, 1044);
    assert!(s.poll_transmit(t0).is_none(), "the pacer holds the second");
    // 1044 B at 40 Gb/s = 208.8 ns.
    assert_eq!(s.deadline(), Some(t0 + SimDuration::from_ps(208_800)));
    // A CNP halves the rate (alpha = 1): the pending departure moves to
    // 417.6 ns after the first packet (the HPCC fork's ChangeRate).
    let mut cnp = addr().header(crate::Side::Receiver, Kind::Control);
    cnp.protocol = Protocol::Roce;
    cnp.roce = RoceBits::CNP;
    s.on_packet(t0, &cnp, &mut out);
    assert_eq!(s.rate_bps(), 20e9);
    let t1 = t0 + SimDuration::from_ps(417_600);
    assert_eq!(s.deadline(), Some(t1));
    assert!(
        s.poll_transmit(t0 + SimDuration::from_ps(417_599))
            .is_none()
    );
    s.on_timer(t1, &mut out);
    s.poll_transmit(t1).expect("the pacer opened");
    assert!(s.poll_transmit(t1).is_none());
    assert_eq!(s.deadline(), Some(t1 + SimDuration::from_ps(417_600)));
    // The last packet is Last; a one-packet message is First and Last.
    let mut one = RoceSender::new(addr(), 10, &cfg, &path(40, 0));
    one.start(t0, &mut out);
    let p = one.poll_transmit(t0).expect("one packet");
    assert!(p.roce.has(RoceBits::FIRST | RoceBits::LAST));
    let mut r = RoceReceiver::new(addr(), &cfg, &path(10, 0));
    r.on_packet(t0, &data(0, false), &mut HostRx::default(), &mut out);
    assert_eq!(r.active_messages(), 0);
}

#[test]
fn windows_cap_the_bytes_in_flight() {
    let t0 = SimTime::ZERO;
    let mut out = Vec::new();
    for (window, rate_cut, want) in [
        (WindowMode::None, false, 50),
        (WindowMode::Bdp, false, 10),
        (WindowMode::BdpXRate, false, 10),
        (WindowMode::BdpXRate, true, 5),
    ] {
        let cfg = RoceConfig {
            window,
            ..RoceConfig::default()
        };
        let mut s = RoceSender::new(addr(), 50_000, &cfg, &path(40, 10_000));
        s.start(t0, &mut out);
        if rate_cut {
            let mut cnp = addr().header(crate::Side::Receiver, Kind::Control);
            cnp.protocol = Protocol::Roce;
            cnp.roce = RoceBits::CNP;
            s.on_packet(t0, &cnp, &mut out);
        }
        let mut sent = 0;
        let mut now = t0;
        // 50 polls, 1 us apart: all before DCQCN's first timer (55 us),
        // which would raise the cut rate and with it the window.
        for _ in 0..50 {
            if let Some(_p) = s.poll_transmit(now) {
                sent += 1;
            }
            now += SimDuration::from_us(1);
        }
        assert_eq!(sent, want, "{window:?} after a cut: {rate_cut}");
    }
}

#[test]
fn the_notification_point_follows_the_dcqcn_variant() {
    use super::dcqcn::{DcqcnConfig, Variant};
    let us = |n| SimTime::ZERO + SimDuration::from_us(n);
    let with = |v| RoceConfig {
        cc: RoceCc::Dcqcn(DcqcnConfig::defaults(v)),
        ..RoceConfig::default()
    };
    // ns3rdma: 50 us slots from the first packet; a CNP at the end of each
    // slot that saw a mark (a marked first packet is answered at once).
    let mut r = RoceReceiver::new(addr(), &with(Variant::Ns3Rdma), &path(10, 0));
    let mut out = Vec::new();
    let mut cnp_times = Vec::new();
    for (psn, t, ce) in [
        (0, 5, false),
        (1, 10, true),
        (2, 20, true),
        (3, 70, true),
        (4, 200, false),
    ] {
        if let Some(d) = r.deadline().filter(|&d| d <= us(t)) {
            r.on_timer(d, &mut out);
            cnp_times.push(d);
        }
        r.on_packet(us(t), &data(psn, ce), &mut HostRx::default(), &mut out);
    }
    assert_eq!(cnp_times, vec![us(55), us(105)]);
    assert_eq!(r.cnps_sent(), 2);
    let mut r = RoceReceiver::new(addr(), &with(Variant::Ns3Rdma), &path(10, 0));
    r.on_packet(us(0), &data(0, true), &mut HostRx::default(), &mut out);
    assert_eq!(
        r.cnps_sent(),
        1,
        "a marked first packet is answered at once"
    );
    // mellanox: no CNP packets; the ACK of a marked packet carries the bit.
    let mut r = RoceReceiver::new(addr(), &with(Variant::Mellanox), &path(10, 0));
    let mut out = Vec::new();
    r.on_packet(us(0), &data(0, true), &mut HostRx::default(), &mut out);
    r.on_packet(us(1), &data(1, false), &mut HostRx::default(), &mut out);
    assert_eq!(out.len(), 2);
    assert!(out.iter().all(|p| p.kind == Kind::Ack));
    assert!(out[0].roce.has(RoceBits::CNP) && !out[1].roce.has(RoceBits::CNP));
    assert_eq!(r.deadline(), None);
    // The sender's reaction point takes the flag as a CNP.
    let mut s = RoceSender::new(addr(), 100_000, &with(Variant::Mellanox), &path(40, 0));
    s.start(us(0), &mut Vec::new());
    s.on_packet(us(2), &out[0], &mut Vec::new());
    assert_eq!(s.record().counters.ecn_reductions, 1);
    assert!(
        s.dcqcn().and_then(|d| d.deadline()).is_some(),
        "the RP is running"
    );
}

#[test]
fn dcqcn_timers_behind_a_closed_pacer_wake_the_flow_as_their_own_events_would() {
    use super::dcqcn::{DcqcnConfig, Variant};
    // CNPs cut a 40 Gb/s flow to DCQCN's 100 Mb/s floor, so that after one
    // packet the pacer stays closed ~87 us, past the 55 us rate timer.
    let cfg = RoceConfig {
        cc: RoceCc::Dcqcn(DcqcnConfig::defaults(Variant::Paper)),
        ..RoceConfig::default()
    };
    let t0 = SimTime::ZERO;
    let mut out = Vec::new();
    let mut s = RoceSender::new(addr(), 1_000_000, &cfg, &path(40, 0));
    s.start(t0, &mut out);
    let mut cnp = addr().header(crate::Side::Receiver, Kind::Control);
    cnp.protocol = Protocol::Roce;
    cnp.roce = RoceBits::CNP;
    for _ in 0..200 {
        s.on_packet(t0, &cnp, &mut out);
    }
    assert_eq!(s.rate_bps(), 100e6);
    assert!(s.poll_transmit(t0).is_some());
    assert!(!s.wants_transmit_at(t0), "the pacer holds the next packet");
    let timer = s.dcqcn().and_then(|d| d.deadline()).expect("a rate timer");
    assert_eq!(timer, t0 + SimDuration::from_us(55));
    // The reference: the timer as an event of its own, then the pacer.
    let mut events = s.clone();
    events.on_timer(timer, &mut out);
    let reference = if events.wants_transmit_at(timer) {
        timer
    } else {
        events.deadline().expect("the pacer's wake")
    };
    // The sender reports one wake for both, at the same time.
    let wake = s.deadline().expect("a wake");
    println!("DCQCN timer at {timer}, one wake at {wake} (the timer as an event: {reference})");
    assert_eq!(wake, reference);
    assert!(wake > timer, "the raised rate still waits for its gap");
    assert!(!s.clone().wants_transmit_at(SimTime(wake.ps() - 1)));
    s.on_timer(wake, &mut out);
    assert!(
        s.poll_transmit(wake).is_some(),
        "the flow sends when it wakes"
    );
    assert_eq!(
        s.dcqcn().map(|d| d.rate_bps()),
        events.dcqcn().map(|d| d.rate_bps())
    );
}

#[test]
fn a_reverse_path_echo_is_a_cnp_at_most_once_per_cnp_interval() {
    // R-AQM VII: a switch marks released ACKs; the sender takes the marks
    // as its notification point takes CE on the data, one CNP per 50 us.
    let us = |n| SimTime::ZERO + SimDuration::from_us(n);
    let cfg = RoceConfig::default(); // DCQCN, paper variant, cnp_interval 50 us
    let mut s = RoceSender::new(addr(), 10_000_000, &cfg, &path(40, 0));
    s.start(us(0), &mut Vec::new());
    let mut ack = addr().header(crate::Side::Receiver, Kind::Ack);
    ack.protocol = Protocol::Roce;
    assert!(ack.set_ecn_echo(), "a RoCE ACK carries the echo");
    assert!(ack.roce.has(RoceBits::ECE));
    // Marked ACKs every microsecond for 120 us: cuts at 0, 50 and 100 us.
    for t in 0..120 {
        s.on_packet(us(t), &ack, &mut Vec::new());
    }
    assert_eq!(s.record().counters.ecn_reductions, 3);
    // A data packet cannot carry the echo.
    let mut d = data(0, false);
    assert!(!d.set_ecn_echo());
    assert!(!d.roce.has(RoceBits::ECE));
}

#[test]
fn each_controller_builds_its_receiver_half_from_its_list_line() {
    use super::control::RoceReceiverControl as R;
    type Is = fn(&R) -> bool;
    let cases: [(RoceCc, Is); 6] = [
        (RoceCc::None(super::LineRateConfig), |r| {
            matches!(r, R::None(_))
        }),
        (RoceConfig::default().cc, |r| matches!(r, R::Dcqcn(_))),
        (super::RccConfig::default().into(), |r| {
            matches!(r, R::Rcc(_))
        }),
        (super::TimelyConfig::default().into(), |r| {
            matches!(r, R::Timely(_))
        }),
        (super::HpccConfig::default().into(), |r| {
            matches!(r, R::Hpcc(_))
        }),
        (super::swift::SwiftConfig::default().into(), |r| {
            matches!(r, R::Swift(_))
        }),
    ];
    for (cc, is) in cases {
        let cfg = RoceConfig {
            cc,
            ..RoceConfig::default()
        };
        let r = RoceReceiver::new(addr(), &cfg, &path(10, 12_500));
        assert!(is(r.control()), "{}: {:?}", cc.name(), r.control());
    }
}

#[test]
fn a_receiver_half_without_rules_only_lets_the_responder_acknowledge() {
    use super::control::{Notify, ReceiverControl};
    struct Stub;
    impl ReceiverControl for Stub {}
    let mut s = Stub;
    let mut host = HostRx::default();
    let p = Packet {
        ecn: Ecn::Ce,
        ..Packet::default()
    };
    assert_eq!(s.on_data(SimTime::ZERO, &p, &mut host), Notify::Nothing);
    assert_eq!(
        s.feedback(SimTime::ZERO, &p, &host),
        net::Feedback::default()
    );
    assert_eq!(s.deadline(), None);
    assert!(!s.on_timer(SimTime::MAX));
    // And a sender-only controller's responder sends no CNP for a CE mark.
    let cfg = RoceConfig {
        cc: super::TimelyConfig::default().into(),
        ..RoceConfig::default()
    };
    let mut r = RoceReceiver::new(addr(), &cfg, &path(10, 12_500));
    let mut out = Vec::new();
    let mut data = Packet {
        protocol: Protocol::Roce,
        kind: Kind::Data,
        ecn: Ecn::Ce,
        payload_bytes: 1000,
        size_bytes: 1044,
        ..Packet::default()
    };
    data.roce = RoceBits::FIRST;
    r.on_packet(SimTime::ZERO, &data, &mut host, &mut out);
    assert_eq!(r.cnps_sent(), 0);
    assert!(out.iter().all(|p| !p.roce.has(RoceBits::CNP)), "{out:?}");
}

fn selective() -> RoceConfig {
    RoceConfig {
        recovery: super::RecoveryMode::Selective,
        ..no_cc()
    }
}

/// A data filter that drops PSN `psn` the first time.
fn drop_once<'a>(psn: u64) -> crate::harness::Filter<'a> {
    let mut done = false;
    Box::new(move |_, p: &mut Packet| {
        let drop = p.seq == psn && !done;
        done |= drop;
        !drop
    })
}

/// A data filter that cuts PSN `psn` to its header the first time.
fn trim_once<'a>(psn: u64) -> crate::harness::Filter<'a> {
    let mut done = false;
    Box::new(move |_, p: &mut Packet| {
        if p.seq == psn && !done {
            done = true;
            p.kind = Kind::Trimmed;
            p.payload_bytes = 0;
            p.size_bytes = 64;
        }
        true
    })
}

#[test]
fn selective_repeat_resends_only_the_hole() {
    let mut h = harness(&selective(), 10_000);
    h.data_filter = drop_once(3);
    h.run(SimTime::ZERO + SimDuration::from_ms(10));
    let psns: Vec<u64> = h.data_packets.iter().map(|p| p.seq).collect();
    assert_eq!(psns, [(0..10).collect::<Vec<_>>(), vec![3]].concat());
    // Every packet above the hole was kept and NACKed.
    assert_eq!(h.receiver.naks_sent(), 6);
    assert_eq!(h.receiver.bytes_received(), 10_000);
    assert!(h.sender.completed_at().is_some());
    assert_eq!(h.sender.record().counters.retransmits, 1);
}

#[test]
fn selective_repeat_under_reordering_resends_nothing_that_arrives() {
    // PSN 2 arrives after 3 and 4 (a sprayed fabric): NACKs name what
    // is held, and the hole they leave is resent once, a spurious resend
    // that go-back-N would make for every packet after it.
    let mut h = harness(&selective(), 10_000);
    let mut held: Option<Packet> = None;
    h.data_filter = Box::new(move |_, p| {
        if p.seq == 2 && held.is_none() {
            held = Some(*p);
            return false;
        }
        true
    });
    h.run(SimTime::ZERO + SimDuration::from_ms(10));
    assert_eq!(h.receiver.bytes_received(), 10_000);
    assert!(h.sender.completed_at().is_some());
    assert_eq!(h.sender.record().counters.retransmits, 1);
}

#[test]
fn a_trimmed_header_is_nacked_at_once_under_selective_repeat() {
    let mut h = harness(&selective(), 10_000);
    h.data_filter = trim_once(3);
    h.run(SimTime::ZERO + SimDuration::from_ms(10));
    let psns: Vec<u64> = h.data_packets.iter().map(|p| p.seq).collect();
    assert_eq!(psns, [(0..10).collect::<Vec<_>>(), vec![3]].concat());
    assert_eq!(h.receiver.bytes_received(), 10_000);
    assert_eq!(h.sender.record().counters.retransmits, 1);
}

#[test]
fn a_trimmed_tail_is_recovered_without_a_timeout() {
    // The last packet of the message is lost: dropped, nothing follows to
    // reveal the hole and with no RTO the flow waits forever; trimmed,
    // its header reveals it at once, under either recovery.
    for cfg in [no_cc(), selective()] {
        let mut h = harness(&cfg, 10_000);
        h.data_filter = drop_once(9);
        h.run(SimTime::ZERO + SimDuration::from_ms(10));
        assert!(h.sender.completed_at().is_none(), "{:?}", cfg.recovery);
        let mut h = harness(&cfg, 10_000);
        h.data_filter = trim_once(9);
        h.run(SimTime::ZERO + SimDuration::from_ms(10));
        assert!(h.sender.completed_at().is_some(), "{:?}", cfg.recovery);
        assert_eq!(h.receiver.bytes_received(), 10_000);
        assert_eq!(h.sender.record().counters.timeouts, 0);
    }
}
