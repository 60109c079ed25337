//! Unit traces of NDP: the host's pull pacer, the receiver's answers and
//! PULLs, the sender's credit, and a flow's recovery from trims.

use super::*;
use crate::PathInfo;
use crate::harness::{Harness, addr};
use net::{Kind, Packet, WireFormat};
use sim_core::{Bandwidth, SimDuration, SimTime};

fn us(t: f64) -> SimTime {
    SimTime::ZERO + SimDuration::from_ps_f64(t * 1e6)
}

fn path() -> PathInfo {
    PathInfo {
        line_rate: Bandwidth::from_gbps(10),
        rx_line_rate: Bandwidth::from_gbps(10),
        wire: WireFormat::NONE,
        base_rtt: SimDuration::from_us(21),
        bdp_bytes: 26_250,
        src_clock_offset: SimDuration::ZERO,
        dst_clock_offset: SimDuration::ZERO,
        stream_seed: 5,
    }
}

fn config() -> NdpConfig {
    NdpConfig {
        mss_bytes: 936,
        ..NdpConfig::default()
    }
}

#[test]
fn the_pacer_hands_out_slots_a_packet_time_apart_first_come_first_served() {
    let mut p = PullPacer::default();
    let gap = SimDuration::from_ns(800);
    assert_eq!(p.reserve(us(1.0), gap), us(1.0));
    assert_eq!(p.reserve(us(1.0), gap), us(1.8));
    assert_eq!(p.reserve(us(1.1), gap), us(2.6));
    assert_eq!(
        p.reserve(us(5.0), gap),
        us(5.0),
        "an idle pacer starts at once"
    );
}

fn data(psn: u64) -> Packet {
    let mut p = addr().header(crate::Side::Sender, Kind::Data);
    p.protocol = net::Protocol::Ndp;
    p.seq = psn;
    p.ack = 2_808; // three packets
    p.payload_bytes = 936;
    p.size_bytes = 1_000;
    p.ts_val = us(psn as f64);
    p
}

#[test]
fn the_receiver_answers_at_once_and_pulls_on_the_hosts_clock() {
    let cfg = config();
    let mut r = NdpReceiver::new(addr(), &cfg, &path());
    // Another flow of the host took the first slot.
    let mut pacer = PullPacer::default();
    let gap = SimDuration::from_ns(800); // 1,000 B at 10 Gb/s
    pacer.reserve(us(10.0), gap);
    let mut out: Vec<Packet> = Vec::new();
    r.on_packet(us(10.0), &data(1), &mut pacer, &mut out);
    let mut trim = data(0);
    trim.kind = Kind::Trimmed;
    r.on_packet(us(10.0), &trim, &mut pacer, &mut out);
    assert_eq!(out.len(), 2);
    assert_eq!(
        (out[0].feedback.count, out[0].seq, out[0].ack),
        (0, 1, 0),
        "ACK of 1"
    );
    assert_eq!(out[0].ts_ecr, us(1.0));
    assert_eq!(
        (out[1].feedback.count, out[1].seq),
        (NACK, 0),
        "NACK of the header"
    );
    assert_eq!(r.naks_sent(), 1);
    assert_eq!(r.deadline(), Some(us(10.8)), "the host's next slot");
    r.on_timer(us(10.8), &mut out);
    assert_eq!((out[2].feedback.count, out[2].ack), (PULL, 1));
    assert_eq!(r.deadline(), Some(us(11.6)));
    // The last two packets complete the message: no more PULLs.
    r.on_packet(us(11.0), &data(0), &mut pacer, &mut out);
    r.on_packet(us(11.0), &data(2), &mut pacer, &mut out);
    assert_eq!(r.bytes_received(), 2_808);
    assert_eq!(r.deadline(), None);
}

#[test]
fn the_sender_sends_its_first_window_then_one_packet_per_pull_nacked_first() {
    let cfg = NdpConfig {
        initial_window: Some(3),
        ..config()
    };
    let mut s = NdpSender::new(addr(), 10_000, &cfg, &path());
    let mut out: Vec<Packet> = Vec::new();
    s.start(us(0.0), &mut out);
    let first: Vec<u64> = std::iter::from_fn(|| s.poll_transmit(us(0.0)))
        .map(|p| p.seq)
        .collect();
    assert_eq!(first, [0, 1, 2]);
    let ctl = |count: u16, seq: u64, ack: u64| {
        let mut p = addr().header(crate::Side::Receiver, Kind::Ack);
        p.protocol = net::Protocol::Ndp;
        p.feedback.count = count;
        p.seq = seq;
        p.ack = ack;
        p
    };
    s.on_packet(us(5.0), &ctl(NACK, 1, 0), &mut out);
    assert!(!s.wants_transmit(), "a NACK alone sends nothing");
    s.on_packet(us(6.0), &ctl(PULL, 0, 2), &mut out);
    let next: Vec<u64> = std::iter::from_fn(|| s.poll_transmit(us(6.0)))
        .map(|p| p.seq)
        .collect();
    assert_eq!(next, [1, 3], "two PULLs: the NACKed packet, then new data");
    s.on_packet(us(7.0), &ctl(PULL, 0, 2), &mut out);
    assert!(!s.wants_transmit(), "an old pull counter adds nothing");
    assert_eq!(s.flow().record().counters.retransmits, 1);
}

fn harness<'a>(cfg: &NdpConfig, size: u64) -> Harness<'a, NdpSender, NdpReceiver> {
    let a = addr();
    Harness::with(
        NdpSender::new(a, size, cfg, &path()),
        NdpReceiver::new(a, cfg, &path()),
    )
}

#[test]
fn a_flow_recovers_trimmed_packets_by_pulls_without_a_timeout() {
    let cfg = config();
    let mut h = harness(&cfg, 100_000);
    // Trim every fifth of the first 30 packets, once.
    let mut trimmed = [false; 30];
    h.data_filter = Box::new(move |_, p: &mut Packet| {
        if p.seq < 30 && p.seq.is_multiple_of(5) && !trimmed[p.seq as usize] {
            trimmed[p.seq as usize] = true;
            p.kind = Kind::Trimmed;
            p.payload_bytes = 0;
            p.size_bytes = 64;
        }
        true
    });
    h.run(us(100_000.0));
    assert!(h.sender.flow().completed_at().is_some());
    let c = h.sender.flow().record().counters;
    assert_eq!((c.timeouts, c.retransmits), (0, 6));
    assert_eq!(h.receiver.naks_sent(), 6);
    assert_eq!(h.receiver.bytes_received(), 100_000);
}

#[test]
fn a_lost_packet_goes_again_at_its_timeout() {
    let cfg = config();
    let mut h = harness(&cfg, 20_000);
    let mut dropped = false;
    h.data_filter = Box::new(move |_, p: &mut Packet| {
        let drop = p.seq == 21 && !dropped;
        dropped |= drop;
        !drop
    });
    h.run(us(100_000.0));
    let t = h.sender.flow().completed_at().expect("completes");
    let c = h.sender.flow().record().counters;
    assert_eq!((c.timeouts, c.retransmits), (1, 1));
    assert!(t > us(1_000.0), "after the 1 ms timeout: {t}");
}
