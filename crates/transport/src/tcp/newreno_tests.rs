//! RFC 6582 NewReno recovery without SACK, as ns-3 and the papers of its
//! day ran it (`sack`, `prr`, `limited_transmit`, `timestamps` and RACK-TLP
//! off): unit traces of fast retransmit, partial ACKs, small windows, IW 1.

use super::*;
use crate::harness::Harness;
use crate::tcp::{TcpReceiver, TcpSender};

/// The stack of ns-3's TcpNewReno: no SACK, no PRR, no limited transmit,
/// no timestamps, no RACK-TLP.
fn newreno() -> TcpConfig {
    TcpConfig {
        rto_min: SimDuration::from_ms(1),
        rto_initial: SimDuration::from_ms(10),
        sack: false,
        prr: false,
        limited_transmit: false,
        timestamps: false,
        rack_tlp: Some(false),
        ..TcpConfig::default()
    }
}

const END: SimTime = SimTime(10 * sim_core::time::PS_PER_S);
const MSS: u64 = 1448;

/// Drops the first transmission of each listed segment (by index).
fn drop_once(lost: Vec<u64>) -> crate::harness::Filter<'static> {
    let mut done = Vec::new();
    Box::new(move |_, p| {
        if p.payload_bytes == 0 {
            return true;
        }
        let k = (p.seq - 1) / MSS;
        if lost.contains(&k) && !done.contains(&k) {
            done.push(k);
            return false;
        }
        true
    })
}

/// The segment indices the sender transmitted, in order.
fn sent(h: &Harness<'_, TcpSender, TcpReceiver>) -> Vec<u64> {
    h.data_packets
        .iter()
        .filter(|p| p.payload_bytes > 0)
        .map(|p| (p.seq - 1) / MSS)
        .collect()
}

/// RFC 6582 3.2 step 2 (RFC 5681 3.2 step 2): the third duplicate ACK
/// retransmits the lost segment at once, whatever cwnd and the flight
/// are. A six-segment window that loses its second segment gets four
/// duplicate ACKs; the fast retransmit must not wait for the flight to
/// fall below the halved cwnd, which four duplicate ACKs never bring.
#[test]
fn the_third_dupack_retransmits_at_once_in_a_small_window() {
    let mut c = newreno();
    c.initial_window_mss = 6;
    let mut h = Harness::new(&c, 6 * MSS);
    h.data_filter = drop_once(vec![1]);
    h.run(END);
    let s = h.sender.stats();
    assert_eq!((s.timeouts, s.fast_recoveries, s.retransmits), (0, 1, 1));
    assert_eq!(sent(&h), vec![0, 1, 2, 3, 4, 5, 1]);
    assert_eq!(h.receiver.bytes_received(), 6 * MSS);
}

/// With fewer than three duplicate ACKs there is no fast retransmit: the
/// RTO repairs the loss (and IW 1 grows from one segment).
#[test]
fn iw_one_with_too_few_dupacks_needs_the_rto() {
    let mut c = newreno();
    c.initial_window_mss = 1;
    let mut h = Harness::new(&c, 4 * MSS);
    // Round 1: segment 0; round 2: 1, 2; segment 1 lost leaves one dupack.
    h.data_filter = drop_once(vec![1]);
    h.run(END);
    let s = h.sender.stats();
    assert_eq!((s.timeouts, s.fast_recoveries), (1, 0));
    assert_eq!(h.receiver.bytes_received(), 4 * MSS);
}

/// RFC 6582 3.2 step 5: each partial ACK retransmits the next hole, so
/// four losses in one window are one recovery, four retransmissions and
/// no timeout, even when the window is small.
#[test]
fn partial_acks_repair_every_hole_of_one_window() {
    for (iw, lost) in [(40u32, vec![3u64, 7, 12, 20]), (10, vec![1, 3, 5])] {
        let mut c = newreno();
        c.initial_window_mss = iw;
        let mut h = Harness::new(&c, 60 * MSS);
        let n = lost.len() as u64;
        h.data_filter = drop_once(lost.clone());
        h.run(END);
        let s = h.sender.stats();
        assert_eq!(
            (s.timeouts, s.fast_recoveries, s.retransmits),
            (0, 1, n),
            "IW {iw}, lost {lost:?}"
        );
        // The retransmissions go in order, one per partial ACK.
        let resent: Vec<u64> = sent(&h)
            .iter()
            .enumerate()
            .filter(|(i, k)| sent(&h)[..*i].contains(k))
            .map(|(_, k)| *k)
            .collect();
        assert_eq!(resent, lost, "IW {iw}");
        assert_eq!(h.receiver.bytes_received(), 60 * MSS);
    }
}

/// RFC 6582 3.2 steps 2-4: during recovery each further duplicate ACK
/// lets one new segment go once the flight has fallen below ssthresh (the
/// window inflation of RFC 5681), so a sender with data keeps the pipe
/// full. Traced: slow start has 22 segments out (2..=23) when segment 2's
/// loss is seen; ssthresh is 11; 21 duplicate ACKs come back, the third
/// sends the retransmission (flight 22 - 3 - 1 + 1 = 19), eight more bring
/// it to 11, and each of the last ten sends one new segment: ten new
/// segments before the full ACK.
#[test]
fn recovery_sends_one_new_segment_per_dupack_below_ssthresh() {
    use std::cell::Cell;
    use std::rc::Rc;
    let mut c = newreno();
    c.initial_window_mss = 20;
    let mut h = Harness::new(&c, 200 * MSS);
    h.data_filter = drop_once(vec![2]);
    let full_ack_at = Rc::new(Cell::new(None::<SimTime>));
    let seen = full_ack_at.clone();
    let delay = h.delay;
    h.ack_filter = Box::new(move |now, p| {
        if p.ack > 24 * MSS && seen.get().is_none() {
            seen.set(Some(now + delay));
        }
        true
    });
    h.run(END);
    let s = h.sender.stats();
    assert_eq!((s.timeouts, s.fast_recoveries, s.retransmits), (0, 1, 1));
    let data: Vec<&Packet> = h
        .data_packets
        .iter()
        .filter(|p| p.payload_bytes > 0)
        .collect();
    let resend = data
        .iter()
        .rposition(|p| p.seq == 1 + 2 * MSS)
        .expect("segment 2 resent");
    assert_eq!(resend, 24, "the retransmission follows segments 0..=23");
    let full_ack = full_ack_at.get().expect("a full ACK");
    let new_in_recovery = data[resend + 1..]
        .iter()
        .filter(|p| p.created_at < full_ack)
        .count();
    assert_eq!(new_in_recovery, 10);
    assert_eq!(h.receiver.bytes_received(), 200 * MSS);
}
