//! Unit traces of Homa's rules: cutoffs, levels, grants, reassembly.

use super::*;
use crate::FlowAddr;
use net::{FlowId, HostId, Kind, Packet};
use sim_core::SimTime;

fn addr(flow: u32, src: u32) -> FlowAddr {
    FlowAddr {
        flow: FlowId(flow),
        src: HostId(src),
        dst: HostId(0),
        sport: 1000 + flow as u16,
        dport: 5001,
        priority: 0,
    }
}

fn config(rtt_bytes: u64, overcommitment: u32, sizes: &[u64]) -> HomaConfig {
    let mut c = HomaKeys {
        mss: Some(sim_core::Bytes(1000)),
        priorities: None,
        unscheduled_priorities: None,
        rtt_bytes: Some(sim_core::Bytes(rtt_bytes)),
        overcommitment: Some(overcommitment),
        resend_timeout: None,
    }
    .build()
    .expect("valid");
    c.prepare(0, sizes);
    c
}

fn us(t: u64) -> SimTime {
    SimTime::ZERO + sim_core::SimDuration::from_us(t)
}

#[test]
fn cutoffs_split_the_unscheduled_bytes_evenly_and_levels_follow_their_share() {
    // 900 messages of 1 KB and 100 of 100 KB, RTTbytes 10 KB: unscheduled
    // bytes 900 KB + 1000 KB of 10.9 MB in all, a share of 0.174: one of
    // 8 levels (rounded), so one cutoff, unbounded.
    let mut sizes = vec![1000; 900];
    sizes.extend(vec![100_000; 100]);
    let c = config(10_000, 1, &sizes);
    assert_eq!(c.prio.unscheduled, 1);
    assert_eq!(c.prio.unscheduled_level(100_000), 0);
    // All short messages: everything is unscheduled, and all but one
    // level carry it; each level takes a seventh of the bytes, shortest
    // highest.
    let sizes: Vec<u64> = (1..=700).map(|i| i * 10).collect();
    let c = config(1_000_000, 1, &sizes);
    assert_eq!(c.prio.unscheduled, 7);
    let total: u64 = sizes.iter().sum();
    let mut level_bytes = [0u64; 8];
    for &s in &sizes {
        level_bytes[c.prio.unscheduled_level(s) as usize] += s;
    }
    for (j, &b) in level_bytes[..7].iter().enumerate() {
        let share = b as f64 / total as f64;
        assert!((share - 1.0 / 7.0).abs() < 0.03, "level {j}: {share}");
    }
    assert!(c.prio.unscheduled_level(10) < c.prio.unscheduled_level(7000));
}

#[test]
fn scheduled_levels_take_the_lowest_when_few_messages_are_granted() {
    let c = config(10_000, 7, &[1_000_000]);
    let p = c.prio;
    assert_eq!((p.unscheduled, p.overcommitment), (1, 7));
    // One message: the lowest level; three: the lowest three, shortest highest.
    assert_eq!(p.scheduled_level(0, 1), 7);
    assert_eq!(
        (0..3).map(|r| p.scheduled_level(r, 3)).collect::<Vec<_>>(),
        [5, 6, 7]
    );
    // Seven: every scheduled level, 1 to 7.
    assert_eq!(p.scheduled_level(0, 7), 1);
    assert_eq!(p.scheduled_level(6, 7), 7);
}

/// Data packet `seq..seq+len` of a message of `size` from `a`.
fn data(a: &FlowAddr, seq: u64, len: u32, size: u64) -> Packet {
    let mut p = a.header(crate::Side::Sender, Kind::Data);
    p.protocol = net::Protocol::Homa;
    p.seq = seq;
    p.payload_bytes = len;
    p.ack = size;
    p
}

#[test]
fn the_receiver_grants_the_shortest_messages_one_per_sender() {
    // Overcommitment 2, RTTbytes 2 KB. Messages: A 50 KB and B 20 KB from
    // host 1, C 30 KB from host 2, D 40 KB from host 3.
    let c = config(2000, 2, &[50_000, 20_000, 30_000, 40_000]);
    let (a, b, cc, d) = (addr(1, 1), addr(2, 1), addr(3, 2), addr(4, 3));
    let mut rx = RxScheduler::default();
    let mut recv: Vec<HomaReceiver> = [a, b, cc, d]
        .iter()
        .map(|x| HomaReceiver::new(*x, &c))
        .collect();
    let mut out: Vec<Packet> = Vec::new();
    // First packets arrive B, C, D, A (a grant once sent is not taken back).
    for i in [1, 2, 3, 0] {
        let (x, size) = [(a, 50_000), (b, 20_000), (cc, 30_000), (d, 40_000)][i];
        let r = &mut recv[i];
        r.on_packet(us(1), &data(&x, 0, 1000, size), &mut rx, &mut out);
    }
    // Granted: B (shortest, host 1) and C (host 2); A shares B's sender,
    // D is third. Each at received + RTTbytes = 3 KB.
    assert_eq!(rx.granted(b.flow), Some(3000));
    assert_eq!(rx.granted(cc.flow), Some(3000));
    assert_eq!(rx.granted(a.flow), Some(2000), "RTTbytes only");
    assert_eq!(rx.granted(d.flow), Some(2000), "RTTbytes only");
    let last_b = out
        .iter()
        .rev()
        .find(|p| p.dport == b.sport)
        .expect("a grant to B");
    let last_c = out
        .iter()
        .rev()
        .find(|p| p.dport == cc.sport)
        .expect("a grant to C");
    assert!(
        last_b.feedback.count < last_c.feedback.count,
        "the shorter is higher"
    );
    assert_eq!(last_b.kind, Kind::Control);
    // B completes: the next pass grants D (host 3) beside C, not A
    // (host 1 had B; now A is host 1's shortest, but D has fewer left).
    let mut seq = 1000;
    while seq < 20_000 {
        recv[1].on_packet(us(2), &data(&b, seq, 1000, 20_000), &mut rx, &mut out);
        seq += 1000;
    }
    assert!(
        out.iter()
            .any(|p| p.dport == b.sport && p.kind == Kind::Ack),
        "B acknowledged"
    );
    assert_eq!(rx.granted(b.flow), None, "B is closed");
    assert_eq!(rx.granted(d.flow), Some(3000), "D joins C");
    assert_eq!(rx.granted(a.flow), Some(2000));
}

#[test]
fn the_sender_sends_rtt_bytes_blindly_then_what_grants_allow() {
    let c = config(3000, 1, &[10_000]);
    let a = addr(1, 1);
    let mut s = HomaSender::new(a, 10_000, &c);
    let mut out: Vec<Packet> = Vec::new();
    s.start(us(0), &mut out);
    let mut sent = Vec::new();
    while let Some(p) = s.poll_transmit(us(0)) {
        sent.push((p.seq, p.payload_bytes, p.priority));
    }
    let level = s.unscheduled_level();
    assert_eq!(
        sent,
        [(0, 1000, level), (1000, 1000, level), (2000, 1000, level)]
    );
    // A grant to 5 KB at level 6.
    let mut g = a.header(crate::Side::Receiver, Kind::Control);
    g.protocol = net::Protocol::Homa;
    g.ack = 5000;
    g.feedback.count = 6;
    s.on_packet(us(5), &g, &mut out);
    let p = s.poll_transmit(us(5)).expect("granted");
    assert_eq!((p.seq, p.priority), (3000, 6));
    assert!(s.poll_transmit(us(5)).is_some());
    assert!(s.poll_transmit(us(5)).is_none(), "nothing beyond the grant");
    assert_eq!(s.srpt_rank(), 5000);
}

#[test]
fn reassembly_counts_each_byte_once_in_any_order() {
    let c = config(100_000, 1, &[5000]);
    let a = addr(1, 1);
    let mut r = HomaReceiver::new(a, &c);
    let mut rx = RxScheduler::default();
    let mut out: Vec<Packet> = Vec::new();
    for seq in [3000, 1000, 1000, 4000, 0] {
        r.on_packet(us(1), &data(&a, seq, 1000, 5000), &mut rx, &mut out);
    }
    assert_eq!(r.bytes_received(), 4000, "2000-3000 is missing");
    assert!(!out.iter().any(|p| p.kind == Kind::Ack));
    // Silence: the RESEND asks for the hole.
    let due = r.deadline().expect("a RESEND is due");
    r.on_timer(due, &mut rx, &mut out);
    let resend = out.last().expect("a RESEND");
    assert!(resend.feedback.flag);
    assert_eq!((resend.seq, resend.ack), (2000, 3000));
    r.on_packet(due, &data(&a, 2000, 1000, 5000), &mut rx, &mut out);
    assert_eq!(r.bytes_received(), 5000);
    assert_eq!(out.last().map(|p| p.kind), Some(Kind::Ack));
    assert_eq!(r.deadline(), None);
}
