//! The TCP sender's tests, on the two-endpoint harness.

use super::*;
use crate::harness::Harness;
use crate::tcp::CcConfig;
use crate::tcp::receiver::ReceiverState;

fn cfg() -> TcpConfig {
    TcpConfig {
        rto_min: SimDuration::from_ms(1),
        rto_initial: SimDuration::from_ms(10),
        ..TcpConfig::default()
    }
}

const END: SimTime = SimTime(10 * sim_core::time::PS_PER_S);

#[test]
fn clean_transfer_handshakes_sends_all_and_closes() {
    let mut h = Harness::new(&cfg(), 1_000_000);
    h.run(END);
    assert_eq!(h.sender.state(), SenderState::Closed);
    assert_eq!(h.receiver.state(), ReceiverState::Closed);
    assert_eq!(h.receiver.bytes_received(), 1_000_000);
    assert_eq!(h.sender.bytes_acked(), 1_000_000);
    assert_eq!(h.sender.stats(), Counters::default());
    // ceil(1e6 / 1448) data segments, nothing sent twice.
    let data: Vec<_> = h
        .data_packets
        .iter()
        .filter(|p| p.payload_bytes > 0)
        .collect();
    assert_eq!(data.len(), 691);
    assert!(h.sender.completed_at().unwrap() < h.sender.closed_at().unwrap());
}

#[test]
fn slow_start_doubles_per_rtt_from_the_initial_window() {
    // With a 20 us RTT and no losses, the first flight is exactly IW = 10.
    let mut h = Harness::new(&cfg(), 100_000);
    h.delay = SimDuration::from_ms(1);
    h.run(SimTime(3 * sim_core::time::PS_PER_MS - 1));
    // By 3 ms: SYN (RTT 2 ms) then one RTT of data: 10 segments, then 20 in flight.
    let data = h
        .data_packets
        .iter()
        .filter(|p| p.payload_bytes > 0)
        .count();
    assert_eq!(data, 10);
}

#[test]
fn single_loss_is_repaired_by_fast_retransmit_without_timeout() {
    let mut c = cfg();
    c.initial_window_mss = 20;
    let mut h = Harness::new(&c, 300_000);
    let mut dropped = false;
    h.data_filter = Box::new(move |_, p| {
        if p.seq == 1 + 5 * 1448 && !dropped {
            dropped = true;
            return false;
        }
        true
    });
    h.run(END);
    let s = h.sender.stats();
    assert_eq!((s.timeouts, s.fast_recoveries, s.retransmits), (0, 1, 1));
    assert_eq!(h.receiver.bytes_received(), 300_000);
}

#[test]
fn several_losses_in_one_window_use_partial_acks() {
    let mut c = cfg();
    c.initial_window_mss = 40;
    let mut h = Harness::new(&c, 300_000);
    let lost = [3u64, 7, 12, 20];
    let mut done = Vec::new();
    h.data_filter = Box::new(move |_, p| {
        if p.payload_bytes == 0 {
            return true;
        }
        let k = (p.seq - 1) / 1448;
        if lost.contains(&k) && !done.contains(&k) {
            done.push(k);
            return false;
        }
        true
    });
    h.run(END);
    let s = h.sender.stats();
    // RFC 6582: one recovery episode, each hole retransmitted once, no RTO.
    assert_eq!((s.timeouts, s.fast_recoveries, s.retransmits), (0, 1, 4));
    assert_eq!(h.receiver.bytes_received(), 300_000);
}

#[test]
fn without_tlp_a_tail_loss_needs_the_rto_and_backs_off() {
    let c = TcpConfig {
        rack_tlp: Some(false),
        ..cfg()
    };
    let mut h = Harness::new(&c, 14_600);
    let mut drops = 0;
    // Lose the last segment three times: RTOs at 1x, 2x, 4x.
    h.data_filter = Box::new(move |_, p| {
        if p.seq == 1 + 9 * 1448 && drops < 3 {
            drops += 1;
            return false;
        }
        true
    });
    h.run(END);
    let s = h.sender.stats();
    assert_eq!(s.timeouts, 3);
    assert_eq!(s.retransmits, 3);
    assert_eq!(h.receiver.bytes_received(), 14_600);
}

/// RFC 8985 7: the last segment of a flow is lost; two SRTTs later the
/// probe resends it and the flow completes without an RTO.
#[test]
fn a_tail_loss_is_repaired_by_the_probe_not_the_rto() {
    // RTO_min 10 ms; the probe waits 2 SRTT (about 40 us) + Linux's 2 ms.
    let c = TcpConfig {
        rto_min: SimDuration::from_ms(10),
        rto_initial: SimDuration::from_ms(10),
        ..cfg()
    };
    let mut h = Harness::new(&c, 14_480);
    let mut dropped = false;
    h.data_filter = Box::new(move |_, p| {
        if p.seq == 1 + 9 * 1448 && !dropped {
            dropped = true;
            return false;
        }
        true
    });
    h.run(END);
    let s = h.sender.stats();
    println!(
        "tail loss with RACK-TLP: {s:?}, done at {:?}",
        h.sender.completed_at()
    );
    assert_eq!((s.timeouts, s.tail_loss_probes, s.retransmits), (0, 1, 1));
    assert_eq!(h.receiver.bytes_received(), 14_480);
    let done = h.sender.completed_at().expect("completed");
    assert!(
        done < SimTime(3 * sim_core::time::PS_PER_MS),
        "{done:?}: not the 10 ms RTO"
    );
}

/// RFC 3042: the first two duplicate ACKs each release one new segment;
/// the third starts fast recovery. 20 segments in the initial window fill
/// a window of exactly 20 (rwnd), segment 0 is lost.
#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_two_dupacks() {
    for (sack, lt, want) in [
        (true, true, 2),
        (false, true, 2),
        (true, false, 0),
        (false, false, 0),
    ] {
        let c = TcpConfig {
            initial_window_mss: 20,
            sack,
            limited_transmit: lt,
            rack_tlp: Some(false),
            ..cfg()
        };
        let mut h = Harness::new(&c, 300_000);
        let mut dropped = false;
        h.data_filter = Box::new(move |_, p| {
            if p.seq == 1 && p.payload_bytes > 0 && !dropped {
                dropped = true;
                return false;
            }
            true
        });
        h.run(END);
        // New segments beyond the initial window sent before the fast
        // retransmit of segment 0 (the second copy of seq 1).
        let data: Vec<_> = h
            .data_packets
            .iter()
            .filter(|p| p.payload_bytes > 0)
            .collect();
        let rexmit = 1 + data[1..]
            .iter()
            .position(|p| p.seq == 1)
            .expect("retransmitted");
        let new_after_window = data[..rexmit].iter().filter(|p| p.seq > 20 * 1448).count();
        println!(
            "sack {sack}, limited transmit {lt}: {new_after_window} new segments on 2 dupacks"
        );
        assert_eq!(new_after_window, want, "sack {sack}, limited transmit {lt}");
    }
}

/// SACK recovery repairs several holes in one window in one RTT, each
/// retransmitted once, without an RTO (RFC 6675), and counts them.
#[test]
fn sack_recovery_repairs_every_hole_once() {
    let mut c = cfg();
    c.initial_window_mss = 40;
    let mut h = Harness::new(&c, 300_000);
    let lost = [3u64, 7, 12, 20];
    let mut done = Vec::new();
    h.data_filter = Box::new(move |_, p| {
        let k = p.seq.saturating_sub(1) / 1448;
        if p.payload_bytes > 0 && lost.contains(&k) && !done.contains(&k) {
            done.push(k);
            return false;
        }
        true
    });
    h.run(END);
    let s = h.sender.stats();
    assert_eq!(
        (
            s.timeouts,
            s.fast_recoveries,
            s.retransmits,
            s.sack_recovered
        ),
        (0, 1, 4, 4)
    );
    assert_eq!(h.receiver.bytes_received(), 300_000);
}

#[test]
fn lost_syn_is_retransmitted_and_iw_becomes_one_segment() {
    let mut h = Harness::new(&cfg(), 50_000);
    let mut first = true;
    h.data_filter = Box::new(move |_, p| {
        if p.flags.has(TcpFlags::SYN) && first {
            first = false;
            return false;
        }
        true
    });
    h.run(SimTime(
        10 * sim_core::time::PS_PER_MS + 40 * sim_core::time::PS_PER_US + 1,
    ));
    let st = h.sender.stats();
    assert_eq!((st.timeouts, st.syn_retransmits, st.retransmits), (1, 1, 0));
    // SYN-ACK arrived at 10 ms + 20 us; RFC 6298 (5.7) leaves one segment.
    assert_eq!(
        h.data_packets
            .iter()
            .filter(|p| p.payload_bytes > 0)
            .count(),
        1
    );
}

#[test]
fn zero_window_is_probed_by_the_persist_timer_and_never_stalls() {
    // A switch clamps every ACK's window to zero for the first 50 ms.
    let mut h = Harness::new(&cfg(), 20_000);
    h.ack_filter = Box::new(|now, p| {
        if now < SimTime(50 * sim_core::time::PS_PER_MS) && !p.flags.has(TcpFlags::SYN) {
            p.window = 0;
        }
        true
    });
    h.run(END);
    assert!(
        h.sender.stats().window_probes >= 2,
        "{:?}",
        h.sender.stats()
    );
    assert_eq!(h.receiver.bytes_received(), 20_000);
    assert_eq!(h.sender.state(), SenderState::Closed);
}

#[test]
fn rwnd_limited_sender_does_not_grow_cwnd() {
    // A switch clamps every ACK's window to one MSS (HSCC, R-AQM): cwnd
    // must not grow behind the clamp, or it would burst when it lifts.
    let mut h = Harness::new(&cfg(), 300_000);
    let shift = wscale_for(cfg().receive_window.0);
    h.ack_filter = Box::new(move |_, p| {
        if !p.flags.has(TcpFlags::SYN) {
            p.window = 1448u64.div_ceil(1 << shift) as u16;
        }
        true
    });
    h.run(END);
    assert_eq!(h.receiver.bytes_received(), 300_000);
    // One growth only: the first ACK found the SYN-ACK's (unclamped) window.
    assert_eq!(h.sender.cwnd(), 11 * 1448, "cwnd grew while rwnd-limited");
    // Unclamped, the same transfer grows cwnd (slow start).
    let mut free = Harness::new(&cfg(), 300_000);
    free.run(END);
    assert!(free.sender.cwnd() > 10 * 1448);
}

#[test]
fn the_shim_writes_the_window_scale_into_the_reserved_bits() {
    for (shim, want) in [
        (Some(true), wscale_for(6_000_000)),
        (Some(false), 0),
        (None, 0),
    ] {
        let c = TcpConfig {
            window_scale_shim: shim,
            ..cfg()
        };
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = seen.clone();
        let mut h = Harness::new(&c, 10_000);
        h.ack_filter = Box::new(move |_, p| {
            if !p.flags.has(TcpFlags::SYN) {
                log.borrow_mut().push(p.reserved);
            }
            true
        });
        h.run(END);
        let seen = seen.borrow();
        assert!(!seen.is_empty());
        assert!(seen.iter().all(|&r| r == want), "shim {shim:?}: {seen:?}");
    }
}

#[test]
fn window_below_one_mss_sends_small_segments() {
    // Every ACK's window says 500 bytes (scale applied by the sender).
    let mut h = Harness::new(&cfg(), 20_000);
    let shift = wscale_for(cfg().receive_window.0);
    h.ack_filter = Box::new(move |_, p| {
        if !p.flags.has(TcpFlags::SYN) {
            p.window = (500u64 >> shift).max(1) as u16;
        }
        true
    });
    h.run(END);
    assert_eq!(h.receiver.bytes_received(), 20_000);
    // The first flight (IW = 10 MSS) used the SYN-ACK's unscaled window;
    // afterwards each segment fits the sub-MSS window, one at a time.
    let sizes: Vec<u32> = h
        .data_packets
        .iter()
        .filter(|p| p.payload_bytes > 0)
        .map(|p| p.payload_bytes)
        .collect();
    assert!(sizes[..10].iter().all(|&s| s == 1448), "{sizes:?}");
    assert!(
        sizes.len() > 20 && sizes[10..].iter().all(|&s| s <= 512),
        "{sizes:?}"
    );
}

#[test]
fn ecn_star_halves_once_per_window_and_sets_cwr() {
    let mut c = cfg();
    c.cc = CcConfig::Ecn(crate::cc::EcnConfig {});
    c.initial_window_mss = 20;
    let mut h = Harness::new(&c, 200_000);
    // Mark a few consecutive segments in the first window.
    h.data_filter = Box::new(|_, p| {
        if p.payload_bytes > 0 {
            assert_eq!(p.ecn, Ecn::Ect0);
            let k = (p.seq - 1) / 1448;
            if (2..6).contains(&k) {
                p.ecn = Ecn::Ce;
            }
        }
        true
    });
    h.run(END);
    assert_eq!(h.sender.stats().ecn_reductions, 1);
    assert!(
        h.data_packets
            .iter()
            .any(|p| p.flags.has(TcpFlags::CWR) && p.payload_bytes > 0)
    );
    assert_eq!(h.sender.stats().retransmits, 0);
}

#[test]
fn newreno_ignores_ce_and_sends_not_ect() {
    let mut h = Harness::new(&cfg(), 20_000);
    h.run(END);
    assert!(h.data_packets.iter().all(|p| p.ecn == Ecn::NotEct));
    assert!(!h.data_packets[0].flags.has(TcpFlags::ECE));
}

#[test]
fn dctcp_receiver_echoes_ce_exactly() {
    let mut c = cfg();
    c.cc = CcConfig::Dctcp(crate::cc::DctcpConfig::default());
    let mut echoes = Vec::new();
    let mut h = Harness::new(&c, 100_000);
    let marked = [4u64, 5, 9];
    h.data_filter = Box::new(move |_, p| {
        if p.payload_bytes > 0 && marked.contains(&((p.seq - 1) / 1448)) {
            p.ecn = Ecn::Ce;
        }
        true
    });
    // Record which ACK numbers carry ECE.
    let echoes_ref = &mut echoes;
    h.ack_filter = Box::new(move |_, p| {
        if p.flags.has(TcpFlags::ECE) && !p.flags.has(TcpFlags::SYN) {
            echoes_ref.push((p.ack - 1) / 1448);
        }
        true
    });
    h.run(END);
    drop(h);
    // ACK after segment k acknowledges k+1 segments.
    assert_eq!(echoes, vec![5, 6, 10]);
}

#[test]
fn dctcp_delayed_ack_sends_immediately_on_ce_change() {
    let mut c = cfg();
    c.cc = CcConfig::Dctcp(crate::cc::DctcpConfig::default());
    c.delayed_ack = true;
    let mut acks = Vec::new();
    let mut h = Harness::new(&c, 14_600);
    h.data_filter = Box::new(|_, p| {
        if p.payload_bytes > 0 && (p.seq - 1) / 1448 == 2 {
            p.ecn = Ecn::Ce;
        }
        true
    });
    let acks_ref = &mut acks;
    h.ack_filter = Box::new(move |_, p| {
        if !p.flags.has(TcpFlags::SYN) && !p.flags.has(TcpFlags::FIN) {
            acks_ref.push(((p.ack - 1) / 1448, p.flags.has(TcpFlags::ECE)));
        }
        true
    });
    h.run(END);
    drop(h);
    // Segments 0,1 -> ACK 2; segment 2 (CE) -> alone: CE state changes back
    // at segment 3, so ACK 3 with ECE is sent before 3 is counted.
    assert_eq!(&acks[..3], &[(2, false), (3, true), (5, false)], "{acks:?}");
}

#[test]
fn deadline_is_the_earliest_armed_timer() {
    let addr = crate::harness::addr();
    let mut s = TcpSender::new(addr, 10_000, &cfg());
    assert_eq!(s.deadline(), None, "nothing armed before the SYN");
    s.rto_at = Some(SimTime(50));
    s.tlp_at = Some(SimTime(70));
    assert_eq!(s.deadline(), Some(SimTime(50)));
    s.reo_at = Some(SimTime(20));
    assert_eq!(s.deadline(), Some(SimTime(20)));
    s.persist_at = Some(SimTime(5));
    assert_eq!(s.deadline(), Some(SimTime(5)));
    // The latest representable time is still a deadline, not "unset".
    let mut t = TcpSender::new(addr, 10_000, &cfg());
    t.tlp_at = Some(SimTime::MAX);
    assert_eq!(t.deadline(), Some(SimTime::MAX));
}

/// RFC 7323 4.3: every data segment echoes the receiver's latest TSval
/// (they all carried TSecr = 0, which a capture showed).
#[test]
fn data_segments_echo_the_receivers_latest_timestamp() {
    let mut h = Harness::new(&cfg(), 100_000);
    h.delay = SimDuration::from_us(10);
    h.run(END);
    let data: Vec<&Packet> = h
        .data_packets
        .iter()
        .filter(|p| p.payload_bytes > 0)
        .collect();
    assert!(data.len() > 50);
    // The first segment follows the SYN-ACK, sent as the SYN arrived (one
    // delay and its serialisation after 0): it echoes that; later ones
    // echo later ACKs.
    let syn_ack = data[0].ts_ecr;
    let one_way = SimTime::ZERO + SimDuration::from_us(10);
    assert!(syn_ack >= one_way && syn_ack < one_way + SimDuration::from_us(1));
    assert!(data.iter().all(|p| p.ts_ecr > SimTime::ZERO));
    assert!(data.windows(2).all(|w| w[1].ts_ecr >= w[0].ts_ecr));
    assert!(data.last().is_some_and(|p| p.ts_ecr > data[0].ts_ecr));
}
