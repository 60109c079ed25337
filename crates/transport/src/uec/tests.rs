//! Unit traces of the UEC transport: NSCC's window rules, the entropy
//! choosers, and a flow's recovery from trims, drops and reordering.

use super::*;
use super::{CREDIT, CREDIT_QUANTUM};
use crate::PathInfo;
use crate::harness::{Harness, addr};
use net::{Ecn, Kind, Packet, WireFormat};
use sim_core::{Bandwidth, SimDuration, SimTime};

fn us(t: f64) -> SimTime {
    SimTime::ZERO + SimDuration::from_ps_f64(t * 1e6)
}

/// The reference network: 100 Gb/s, 12 us, no trimming (scales 1 and 1).
fn reference() -> UecConfig {
    UecConfig::default()
}

const LINE: f64 = 100e9 / 8e12; // bytes per ps
const MTU: u32 = 4160;

fn ack(delay_us: f64, ecn: bool, bytes: u64) -> AckSignal {
    AckSignal {
        delay: SimDuration::from_ps_f64(delay_us * 1e6),
        ecn,
        acked_bytes: bytes,
    }
}

#[test]
fn nscc_starts_at_its_ceiling_of_one_and_a_half_bdps() {
    let n = Nscc::new(&reference(), LINE, MTU);
    assert_eq!(n.max_cwnd(), 225_000, "1.5 x 12 us x 100 Gb/s");
    assert_eq!(n.cwnd(), 225_000);
    assert_eq!(
        n.target(),
        SimDuration::from_us(12),
        "no trimming: target = network RTT"
    );
    let mut c = reference();
    c.network.trimming = true;
    assert_eq!(
        Nscc::new(&c, LINE, MTU).target(),
        SimDuration::from_us(9),
        "0.75 x with trimming"
    );
}

#[test]
fn a_marked_ack_above_target_cuts_the_window_by_the_average_delay_once_per_base_rtt() {
    let mut n = Nscc::new(&reference(), LINE, MTU);
    // 100 marked samples 30 us above base: the average climbs to 21.5 us.
    for _ in 0..100 {
        n.on_rtt(SimDuration::from_us(12 + 30), true);
    }
    let avg = n.avg_delay().ps() as f64;
    assert!(
        (avg - 30e6 * (1.0 - (0..100).fold(1.0, |x: f64, _| x * 0.9875))).abs() < 1e3,
        "{avg}"
    );
    n.on_ack(us(20.0), ack(30.0, true, 4160), 200_000);
    let factor = (1.0 - 0.8 * (avg - 12e6) / avg).max(0.5);
    let eta = 0.15 * 4096.0; // once per network RTT, added by the same ACK
    let want = 225_000.0 * factor + eta;
    assert!(
        (n.cwnd() as f64 - want).abs() < 2.0,
        "{} vs {want}",
        n.cwnd()
    );
    // Within a base RTT of the cut, another marked ACK does not cut again.
    let before = n.cwnd();
    n.on_ack(us(25.0), ack(30.0, true, 4160), 200_000);
    assert_eq!(n.cwnd(), before);
}

#[test]
fn a_marked_ack_below_target_leaves_the_window_alone() {
    let mut n = Nscc::new(&reference(), LINE, MTU);
    n.on_nack(us(0.5), 41_600, 100_000);
    let before = n.cwnd();
    for i in 1..=5 {
        n.on_ack(us(i as f64), ack(3.0, true, 4160), 100_000);
    }
    assert_eq!(
        n.cwnd(),
        before,
        "ECN below target only moves the entropy value"
    );
}

#[test]
fn unmarked_acks_below_target_increase_in_proportion_to_the_headroom() {
    let mut c = reference();
    c.nscc.quick_adapt = false;
    let mut n = Nscc::new(&c, LINE, MTU);
    n.on_nack(us(0.5), 41_600, 100_000);
    assert_eq!(
        n.cwnd(),
        225_000 - 41_600,
        "a NACK takes its bytes off the window"
    );
    let start = n.cwnd() as f64;
    // Nine ACKs of 4160 B, 2 us of queueing each: the increase is applied
    // once more than 8 MTUs were acknowledged (all within 12 us).
    for i in 1..=9 {
        n.on_ack(us(i as f64), ack(2.0, false, 4160), 100_000);
        if i < 9 {
            assert_eq!(n.cwnd() as f64, start, "accumulated, not yet applied");
        }
    }
    let alpha = 4.0 * 4096.0 / 12e6; // bytes per ps of headroom, scales 1 and 1
    let inc = 9.0 * alpha * 4160.0 * 10e6;
    let want = start + inc / start;
    assert!(
        (n.cwnd() as f64 - want).abs() < 1.0,
        "{} vs {want}",
        n.cwnd()
    );
}

#[test]
fn unmarked_acks_above_target_increase_fairly_and_near_zero_delay_fast() {
    let mut c = reference();
    c.nscc.quick_adapt = false;
    let mut n = Nscc::new(&c, LINE, MTU);
    n.on_nack(us(0.5), 100_000, 50_000);
    let start = n.cwnd() as f64;
    for i in 1..=9 {
        n.on_ack(us(i as f64), ack(20.0, false, 4160), 50_000);
    }
    let want = start + 5.0 * 4096.0 * 9.0 * 4160.0 / start;
    assert!(
        (n.cwnd() as f64 - want).abs() < 1.0,
        "fair: {} vs {want}",
        n.cwnd()
    );
    // Under 1 us of delay, once a window's worth was acknowledged, each
    // ACK adds a quarter of its bytes at once.
    let mut n = Nscc::new(&c, LINE, MTU);
    n.on_nack(us(0.5), 200_000, 10_000);
    let w = n.cwnd();
    assert_eq!(w, 25_000);
    for i in 0..7 {
        n.on_ack(us(1.0 + i as f64 * 0.1), ack(0.5, false, 4160), 10_000);
    }
    // fi_count passes 25,000 at the 7th ACK (29,120): that one adds 1,040.
    assert_eq!(n.cwnd(), w + 1_040);
    n.on_ack(us(1.8), ack(0.5, false, 4160), 10_000);
    assert_eq!(n.cwnd(), w + 2_080, "and every ACK after it");
}

#[test]
fn quick_adapt_sets_the_window_to_what_was_delivered_then_ignores_the_packets_in_flight() {
    let mut n = Nscc::new(&reference(), LINE, MTU);
    n.on_ack(us(1.0), ack(1.5, false, 4160), 200_000); // opens a period to 25 us
    n.on_ack(us(10.0), ack(1.5, false, 10_000), 200_000);
    n.on_ack(us(11.0), ack(1.5, false, 10_000), 200_000);
    // A NACK after the period: 20,000 B delivered is under 225,000 >> 3.
    n.on_nack(us(30.0), 4160, 150_000);
    assert_eq!(n.cwnd(), 20_000);
    // Marked feedback of the 150,000 B that were in flight is ignored.
    for i in 0..10 {
        n.on_ack(us(80.0 + i as f64), ack(40.0, true, 4160), 150_000);
    }
    assert_eq!(n.cwnd(), 20_000);
}

#[test]
fn the_window_stays_between_one_packet_and_its_ceiling() {
    let mut n = Nscc::new(&reference(), LINE, MTU);
    for i in 0..50 {
        n.on_nack(us(i as f64), 100_000, 0);
        assert!(n.cwnd() >= MTU as u64);
    }
    let mut c = reference();
    c.nscc.quick_adapt = false;
    let mut n = Nscc::new(&c, LINE, MTU);
    for i in 0..2000 {
        n.on_ack(us(i as f64), ack(0.1, false, 4160), 0);
        assert!(n.cwnd() <= n.max_cwnd());
    }
    assert_eq!(n.cwnd(), n.max_cwnd());
}

#[test]
fn a_smaller_rtt_sample_lowers_the_base_and_the_ceiling() {
    let mut n = Nscc::new(&reference(), LINE, MTU);
    let d = n.on_rtt(SimDuration::from_us(8), false);
    assert_eq!(d, SimDuration::ZERO);
    assert_eq!(n.base_rtt(), SimDuration::from_us(8));
    assert_eq!(n.max_cwnd(), 150_000, "1.5 x 8 us x 100 Gb/s");
    assert_eq!(n.cwnd(), 225_000, "the window is bounded at the next ACK");
}

fn spray(mode: SprayMode, n: u16) -> Entropies {
    let mut c = reference();
    c.spray = mode;
    c.entropies = n;
    c.reps_freeze = SimDuration::from_us(100);
    Entropies::with_reps(c.spray, c.entropies, (c.reps_buffer, c.reps_freeze), 7, 3)
}

#[test]
fn oblivious_spraying_visits_every_value_once_a_round() {
    let mut e = spray(SprayMode::Oblivious, 16);
    let mut orders = Vec::new();
    for _ in 0..4 {
        let mut round: Vec<u16> = (0..16).map(|_| e.next_value(1_000, 1_000)).collect();
        orders.push(round.clone());
        round.sort_unstable();
        assert_eq!(round, (0..16).collect::<Vec<u16>>());
    }
    assert!(
        orders.windows(2).any(|w| w[0] != w[1]),
        "rounds are reshuffled"
    );
    let mut none = spray(SprayMode::None, 16);
    assert!((0..20).all(|_| none.next_value(1_000, 1_000) == 0));
}

#[test]
fn reps_recycles_unmarked_values_in_order_and_explores_otherwise() {
    let mut e = spray(SprayMode::Reps, 64);
    let t = us(1.0);
    e.feedback(t, 5, PathFeedback::Good);
    e.feedback(t, 9, PathFeedback::Good);
    e.feedback(t, 3, PathFeedback::Ecn);
    e.feedback(t, 4, PathFeedback::Nack);
    assert_eq!(e.fresh(), 2, "marked and NACKed values are not cached");
    assert_eq!(
        (e.next_value(1_000, 1_000), e.next_value(1_000, 1_000)),
        (5, 9),
        "oldest first"
    );
    assert_eq!(e.fresh(), 0);
    let explored: Vec<u16> = (0..200).map(|_| e.next_value(1_000, 1_000)).collect();
    assert!(explored.iter().all(|&v| v < 64));
    let distinct: std::collections::BTreeSet<u16> = explored.into_iter().collect();
    assert!(
        distinct.len() > 40,
        "explores at random: {}",
        distinct.len()
    );
}

#[test]
fn a_timeout_freezes_reps_on_its_cache_until_the_freeze_ends() {
    let mut e = spray(SprayMode::Reps, 64);
    e.feedback(us(1.0), 11, PathFeedback::Good);
    e.feedback(us(1.0), 22, PathFeedback::Good);
    e.feedback(us(2.0), 0, PathFeedback::Timeout);
    assert!(e.frozen());
    // Frozen: the cached values in turn, over and over.
    let seq: Vec<u16> = (0..6).map(|_| e.next_value(1_000, 1_000)).collect();
    assert_eq!(seq, [11, 22, 11, 22, 11, 22]);
    // The first feedback after 100 us ends the freeze and empties the cache.
    e.feedback(us(50.0), 33, PathFeedback::Good);
    assert!(e.frozen());
    e.feedback(us(103.0), 44, PathFeedback::Ecn);
    assert!(!e.frozen());
    assert_eq!(e.fresh(), 0);
}

/// htsim's bitmap (issue 57): the oblivious order, skipping a penalised
/// value (ECN 1, NACK 4, timeout 15 on value 0), the first skipped one
/// losing a point each time; a clean flow is the oblivious order.
#[test]
fn the_bitmap_skips_penalised_values_and_forgives_them_one_skip_at_a_time() {
    let mut clean = spray(SprayMode::Bitmap, 8);
    let mut plain = spray(SprayMode::Oblivious, 8);
    let a: Vec<u16> = (0..24).map(|_| clean.next_value(0, 8)).collect();
    let b: Vec<u16> = (0..24).map(|_| plain.next_value(0, 8)).collect();
    assert_eq!(a, b, "without feedback the bitmap is the oblivious order");
    let mut e = spray(SprayMode::Bitmap, 8);
    let round: Vec<u16> = (0..8).map(|_| e.next_value(0, 8)).collect();
    // Penalise every value but two: a NACK (4) on all others.
    let keep = [round[0], round[1]];
    for v in 0..8u16 {
        if !keep.contains(&v) {
            e.feedback(us(1.0), v, PathFeedback::Nack);
        }
    }
    let next: Vec<u16> = (0..8).map(|_| e.next_value(0, 8)).collect();
    assert!(
        next.iter().all(|v| keep.contains(v)),
        "only the unpenalised values go while the others carry penalties: {next:?}"
    );
    // A timeout names value 0 (htsim's UNKNOWN_EV), whatever was lost.
    let mut t = spray(SprayMode::Bitmap, 4);
    t.feedback(us(1.0), 3, PathFeedback::Timeout);
    let four: Vec<u16> = (0..4).map(|_| t.next_value(0, 4)).collect();
    assert!(!four.contains(&0) && four.contains(&3), "{four:?}");
}

/// htsim's REPS-legacy: the first window's packets take the values in
/// turn; then the values unmarked ACKs returned, oldest first, or a
/// random one.
#[test]
fn reps_legacy_rotates_its_first_window_then_recycles() {
    let mut e = spray(SprayMode::RepsLegacy, 8);
    let first: Vec<u16> = (0..4).map(|sent| e.next_value(sent, 4)).collect();
    assert_eq!(first, [1, 2, 3, 4], "in turn from the value after 0");
    e.feedback(us(1.0), 6, PathFeedback::Good);
    e.feedback(us(1.0), 2, PathFeedback::Ecn);
    e.feedback(us(1.0), 5, PathFeedback::Good);
    assert_eq!((e.next_value(4, 4), e.next_value(5, 4)), (6, 5));
    let random: Vec<u16> = (0..50).map(|sent| e.next_value(6 + sent, 4)).collect();
    assert!(random.iter().all(|&v| v < 8) && random.iter().any(|&v| v != random[0]));
}

/// htsim's mixed, its default: a recycled value first, else the bitmap's.
#[test]
fn mixed_recycles_first_and_falls_back_to_the_bitmap() {
    let mut e = spray(SprayMode::Mixed, 8);
    let mut plain = spray(SprayMode::Bitmap, 8);
    assert_eq!(e.next_value(0, 8), plain.next_value(0, 8));
    e.feedback(us(1.0), 7, PathFeedback::Good);
    assert_eq!(e.next_value(1, 8), 7);
    // A NACK penalises in the bitmap and queues nothing.
    e.feedback(us(1.0), 3, PathFeedback::Nack);
    let next: Vec<u16> = (0..7).map(|i| e.next_value(2 + i, 8)).collect();
    assert!(!next.contains(&3), "{next:?}");
}

fn config() -> UecConfig {
    UecConfig {
        mss_bytes: 1000,
        ack_coalesce_bytes: 4000,
        rto: SimDuration::from_us(200),
        spray: SprayMode::Oblivious,
        network: Network {
            rtt: SimDuration::from_us(21),
            rate: Bandwidth::from_gbps(10),
            trimming: true,
        },
        ..UecConfig::default()
    }
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

fn harness<'a>(cfg: &UecConfig, size: u64) -> Harness<'a, UecSender, UecReceiver> {
    let a = addr();
    Harness::with(
        UecSender::new(a, size, cfg, &path()),
        UecReceiver::new(a, cfg, &path()),
    )
}

fn done(h: &Harness<'_, UecSender, UecReceiver>) -> SimTime {
    h.sender.flow().completed_at().expect("the flow completes")
}

#[test]
fn a_clean_flow_sprays_acks_every_four_packets_and_completes_without_resends() {
    let cfg = config();
    let mut h = harness(&cfg, 100_000);
    let acks = std::rc::Rc::new(std::cell::Cell::new(0));
    let seen = acks.clone();
    h.ack_filter = Box::new(move |_, p: &mut Packet| {
        seen.set(seen.get() + 1);
        assert_eq!(p.size_bytes, HEADER_BYTES);
        true
    });
    h.run(us(10_000.0));
    done(&h);
    assert_eq!(h.sender.flow().record().counters.retransmits, 0);
    assert_eq!(h.receiver.bytes_received(), 100_000);
    assert_eq!(h.data_packets.len(), 100);
    let evs: std::collections::BTreeSet<u16> = h.data_packets.iter().map(|p| p.entropy).collect();
    assert_eq!(evs.len(), 64, "every entropy value used");
    assert!(h.data_packets.iter().all(|p| p.ecn == Ecn::Ect0));
    // 100 packets: one ACK per 4 (4,256 B), plus the first's, the ones
    // that requested one (window full) and the last.
    let n = acks.get();
    assert!((25..=40).contains(&n), "{n} ACKs");
}

#[test]
fn a_trimmed_packet_is_nacked_and_only_it_is_resent_without_a_timeout() {
    let cfg = config();
    let mut h = harness(&cfg, 100_000);
    let mut trimmed = false;
    h.data_filter = Box::new(move |_, p: &mut Packet| {
        if p.seq == 30 && !trimmed {
            trimmed = true;
            p.kind = Kind::Trimmed;
            p.payload_bytes = 0;
            p.size_bytes = 64;
            p.ecn = Ecn::Ce;
        }
        true
    });
    h.run(us(10_000.0));
    let t = done(&h);
    let rec = h.sender.flow().record().counters;
    assert_eq!((rec.retransmits, rec.timeouts), (1, 0));
    assert_eq!(h.receiver.naks_sent(), 1);
    assert_eq!(h.data_packets.len(), 101);
    let sent_twice = h.data_packets.iter().filter(|p| p.seq == 30).count();
    assert_eq!(sent_twice, 2, "only PSN 30 is resent");
    assert!(t < us(200.0), "no timeout's wait: {t}");
}

#[test]
fn a_dropped_packet_waits_for_its_timeout_and_sacks_spare_the_rest() {
    let cfg = config();
    let mut h = harness(&cfg, 100_000);
    let mut dropped = false;
    h.data_filter = Box::new(move |_, p: &mut Packet| {
        let drop = p.seq == 40 && !dropped;
        dropped |= drop;
        !drop
    });
    h.run(us(10_000.0));
    let t = done(&h);
    let rec = h.sender.flow().record().counters;
    assert_eq!((rec.retransmits, rec.timeouts, rec.rto_episodes), (1, 1, 1));
    let resent: Vec<u64> = h.data_packets.iter().skip(100).map(|p| p.seq).collect();
    assert_eq!(resent, [40], "only the hole");
    assert!(t > us(200.0));
}

fn data(psn: u64, ar: bool) -> Packet {
    let mut p = addr().header(crate::Side::Sender, Kind::Data);
    p.protocol = net::Protocol::Uec;
    p.seq = psn;
    p.ack = 10_000;
    p.payload_bytes = 1000;
    p.size_bytes = 1064;
    p.entropy = psn as u16 + 100;
    p.ts_val = us(psn as f64);
    p.feedback.flag = ar;
    p
}

#[test]
fn the_receiver_holds_reordered_packets_and_acks_with_sack_ranges() {
    let mut r = UecReceiver::new(addr(), &config(), &path());
    let mut pacer = crate::pull_pacer::PullPacer::default();
    let mut out: Vec<Packet> = Vec::new();
    let t = us(100.0);
    r.on_packet(t, &data(0, false), &mut pacer, &mut out);
    assert_eq!(out.len(), 1, "the first packet is acknowledged at once");
    for psn in [2, 3, 5] {
        r.on_packet(t, &data(psn, false), &mut pacer, &mut out);
    }
    assert_eq!(out.len(), 1, "3 x 1064 B is under the 4000 B coalescing");
    r.on_packet(t, &data(7, false), &mut pacer, &mut out);
    assert_eq!(out.len(), 2, "4 x 1064 B passes it");
    let a = out[1];
    assert_eq!((a.kind, a.ack, a.seq, a.entropy), (Kind::Ack, 1, 7, 107));
    assert_eq!(
        a.ts_ecr,
        us(7.0),
        "echoes the send time of the packet it answers"
    );
    let ranges: Vec<(u64, u64)> = a.sack.iter(a.ack).collect();
    assert_eq!(ranges, [(2, 4), (5, 6), (7, 8)]);
    // A CE-marked packet is acknowledged at once and its mark echoed.
    let mut ce = data(1, false);
    ce.ecn = Ecn::Ce;
    r.on_packet(t, &ce, &mut pacer, &mut out);
    assert_eq!(
        (out[2].ack, out[2].feedback.flag),
        (4, true),
        "1 fills the hole to 4"
    );
    // A duplicate is acknowledged at once; a trimmed header of a PSN not
    // yet received is NACKed, of one received is acknowledged.
    r.on_packet(t, &data(2, false), &mut pacer, &mut out);
    assert_eq!((out[3].seq, out[3].feedback.count), (2, 0));
    let mut trim = data(4, false);
    trim.kind = Kind::Trimmed;
    r.on_packet(t, &trim, &mut pacer, &mut out);
    assert_eq!((out[4].seq, out[4].feedback.count), (4, NACK));
    trim.seq = 3;
    r.on_packet(t, &trim, &mut pacer, &mut out);
    assert_eq!(out[5].feedback.count, 0);
    assert_eq!(r.naks_sent(), 1);
    // An ACK request is answered at once, and again when the holes below
    // it have drained.
    r.on_packet(t, &data(9, true), &mut pacer, &mut out);
    assert_eq!(out.len(), 7);
    r.on_packet(t, &data(4, false), &mut pacer, &mut out);
    r.on_packet(t, &data(6, false), &mut pacer, &mut out);
    assert_eq!(out.len(), 7);
    r.on_packet(t, &data(8, false), &mut pacer, &mut out);
    assert_eq!(
        (out.len(), out[7].ack),
        (8, 10),
        "drained: all of 0..10 arrived"
    );
    assert_eq!(r.bytes_received(), 10_000);
}

#[test]
fn receiver_credit_gates_the_sender_after_its_speculative_window() {
    let cfg = UecConfig {
        rccc: true,
        ..config()
    };
    let mut s = UecSender::new(addr(), 1_000_000, &cfg, &path());
    let mut out: Vec<Packet> = Vec::new();
    s.start(us(0.0), &mut out);
    // The speculative credit is the window's ceiling: both allow the same.
    let first: Vec<Packet> = std::iter::from_fn(|| s.poll_transmit(us(0.0))).collect();
    let window = s.nscc().max_cwnd();
    assert_eq!(
        first.len() as u64,
        window / 1_064,
        "NSCC's window binds first"
    );
    let asked = first.last().expect("sent").feedback.window_bytes as u64;
    assert!(
        asked * CREDIT_QUANTUM >= window,
        "asks for a window more: {asked}"
    );
    // The receiver paces one credit of 4 packets per 4 packet times.
    let mut r = UecReceiver::new(addr(), &cfg, &path());
    let mut pacer = crate::pull_pacer::PullPacer::default();
    let last = first.len() - 1;
    r.on_packet(us(30.0), &first[last], &mut pacer, &mut out);
    let acks = out.len();
    assert_eq!(r.deadline(), Some(us(30.0)));
    r.on_timer(us(30.0), &mut pacer, &mut out);
    let credit = out[acks];
    assert_eq!(credit.feedback.count, CREDIT);
    assert_eq!(credit.ack, (4 * 1_064u64).div_ceil(CREDIT_QUANTUM));
    assert_eq!(
        r.deadline(),
        Some(us(30.0) + SimDuration::from_ps(4 * 1_064 * 800)),
        "4 packets at 10 Gb/s"
    );
    // An ACK of everything ends the speculation: the window has room but
    // no credit is left, so nothing goes. The credit (4 packets, rounded
    // up to quanta: 32 B over) lets 5 go, since a packet goes while any
    // credit remains (htsim's rule).
    let mut all = out[0];
    all.ack = first.len() as u64;
    s.on_packet(us(31.0), &all, &mut Vec::new());
    assert_eq!(s.in_flight(), 0);
    assert!(!s.wants_transmit());
    s.on_packet(us(32.0), &credit, &mut Vec::new());
    let sent = std::iter::from_fn(|| s.poll_transmit(us(32.0))).count();
    assert_eq!(sent, 5);
}

/// An ACK packet of `psn` (send time `sent`) acknowledging up to `next`,
/// CE-echoed when `ecn`.
fn ack_packet(psn: u64, next: u64, sent: SimTime, ecn: bool) -> Packet {
    let mut p = addr().header(crate::Side::Receiver, Kind::Ack);
    p.protocol = net::Protocol::Uec;
    p.seq = psn;
    p.ack = next;
    p.ts_ecr = sent;
    p.feedback.flag = ecn;
    p
}

#[test]
fn htsim_dctcp_adds_an_mtu_per_window_and_cuts_a_third_of_each_marked_ack() {
    let cfg = UecConfig {
        sender_cc: SenderCc::Dctcp,
        ..config()
    };
    let mut s = UecSender::new(addr(), 1_000_000, &cfg, &path());
    s.start(us(0.0), &mut Vec::<Packet>::new());
    let start = s.nscc().max_cwnd() as f64; // 1.5 x 26,250 B
    let sent: Vec<Packet> = std::iter::from_fn(|| s.poll_transmit(us(0.0))).collect();
    assert_eq!(sent.len() as u64, 39_375 / 1_064, "starts at max_cwnd");
    let cwnd = |s: &UecSender| {
        let mut w = 0.0;
        s.cc_state(&mut |k, v| {
            if k == "cwnd_bytes" {
                w = v;
            }
        });
        w
    };
    // Unmarked: + bytes x MTU / cwnd (htsim's MTU: the full packet).
    s.on_packet(us(22.0), &ack_packet(0, 1, us(0.0), false), &mut Vec::new());
    let grown = start + 1_064.0 * 1_064.0 / start;
    assert!((cwnd(&s) - grown).abs() < 1e-6, "{} vs {grown}", cwnd(&s));
    // Marked: a third of the acknowledged bytes off, at once.
    s.on_packet(us(23.0), &ack_packet(2, 3, us(0.0), true), &mut Vec::new());
    let cut = grown - 2.0 * 1_064.0 / 3.0;
    assert!((cwnd(&s) - cut).abs() < 1e-6, "{} vs {cut}", cwnd(&s));
    // No ceiling: the rest of the window's unmarked ACKs grow it past
    // max_cwnd (NSCC's would stop there).
    let mut t = 24.0;
    for psn in 3..sent.len() as u64 {
        let a = ack_packet(psn, psn + 1, us(t - 21.0), false);
        s.on_packet(us(t), &a, &mut Vec::new());
        t += 0.1;
    }
    assert!(
        cwnd(&s) > s.nscc().max_cwnd() as f64 + 200.0,
        "{}",
        cwnd(&s)
    );
}

#[test]
fn a_constant_window_holds_through_marks_and_without_a_sender_window_credit_alone_paces() {
    let constant = UecConfig {
        sender_cc: SenderCc::Constant,
        ..config()
    };
    let mut s = UecSender::new(addr(), 1_000_000, &constant, &path());
    s.start(us(0.0), &mut Vec::<Packet>::new());
    let first = std::iter::from_fn(|| s.poll_transmit(us(0.0))).count();
    s.on_packet(us(22.0), &ack_packet(0, 4, us(0.0), true), &mut Vec::new());
    let next = std::iter::from_fn(|| s.poll_transmit(us(22.0))).count();
    assert_eq!(
        next, 4,
        "marks do not shrink it: the 4 acknowledged go again"
    );
    assert_eq!(first, 37);
    // Under sender_cc = none only credit gates: the speculative window
    // (max_cwnd) goes, then nothing without credit, however wide the
    // window would be.
    let none = UecConfig {
        sender_cc: SenderCc::None,
        rccc: true,
        ..config()
    };
    let mut s = UecSender::new(addr(), 1_000_000, &none, &path());
    s.start(us(0.0), &mut Vec::<Packet>::new());
    let spec = std::iter::from_fn(|| s.poll_transmit(us(0.0))).count();
    assert_eq!(
        spec, 38,
        "credit goes while any remains: one past the window"
    );
    let mut all = ack_packet(0, spec as u64, us(0.0), false);
    all.sack = Default::default();
    s.on_packet(us(22.0), &all, &mut Vec::new());
    assert!(
        !s.wants_transmit(),
        "the speculation is over and no credit came"
    );
}

#[test]
fn sender_cc_keys_are_checked() {
    let keys = |cc: &str, rccc: Option<bool>, gamma: Option<f64>| UecKeys {
        sender_cc: Some(cc.to_string()),
        rccc,
        gamma,
        ..UecKeys::default()
    };
    assert_eq!(
        keys("dctcp", None, None).build().map(|c| c.sender_cc),
        Ok(SenderCc::Dctcp)
    );
    let e = keys("cubic", None, None).build().expect_err("unknown");
    assert_eq!(e.key, "sender_cc");
    let all = "\"nscc\", \"dctcp\", \"constant\", \"none\"";
    assert!(e.message.contains(all), "{}", e.message);
    let e = keys("none", None, None)
        .build()
        .expect_err("nothing paces it");
    assert!(e.message.contains("rccc = true"), "{}", e.message);
    assert!(keys("none", Some(true), None).build().is_ok());
    let e = keys("dctcp", None, Some(0.5)).build().expect_err("NSCC's");
    assert_eq!(e.key, "gamma");
    assert!(e.message.contains("sender_cc = \"nscc\""), "{}", e.message);
    assert!(keys("nscc", None, Some(0.5)).build().is_ok());
}
