//! PFC in the fabric: no loss with enough headroom, loss reported without
//! it, frame timing, per-priority pausing, timed pauses, and the memory
//! invariants at every event (docs/models.md, PFC).
use super::tests::Ev;
use super::*;
use crate::pfc::{HeadroomRule, PauseMode, PfcConfig, Xoff};
use crate::topology::TopologyGraph;
use proptest::prelude::*;
use sim_core::Bandwidth;
use sim_core::SimDuration;

const G100: u64 = 100_000_000_000;

fn pfc(xoff: Xoff, headroom: HeadroomRule) -> PfcConfig {
    PfcConfig {
        lossless: 0xff,
        xoff,
        reserve_bytes: 4096,
        headroom,
        mtu_bytes: 1500,
        pause: PauseMode::UntilResume,
    }
}

fn hpcc_dynamic() -> Xoff {
    Xoff::Dynamic {
        alpha: 0.125,
        resume_offset_bytes: 3072,
    }
}

fn star_fabric(hosts: u32, buffer: u64, cfg: PfcConfig, classes: usize) -> Fabric {
    let g = TopologyGraph::star(hosts, Bandwidth::from_bps(G100), SimDuration::from_us(1));
    pfc_fabric(&g, buffer, cfg, classes)
}

/// A fabric on `g` with a shared buffer of `buffer` bytes, PFC as `cfg`
/// and `classes` class queues per port.
fn pfc_fabric(g: &TopologyGraph, buffer: u64, cfg: PfcConfig, classes: usize) -> Fabric {
    let mut fc = FabricConfig::fifo(WireFormat::ETHERNET, QueueSize::Packets(1), 1 << 30);
    fc.buffer = BufferPolicy::Shared {
        bytes: buffer,
        dt_alpha: 1.0,
    };
    fc.classes = classes;
    fc.class_of_priority = std::array::from_fn(|p| (p % classes) as u8);
    fc.pfc = Some(cfg);
    Fabric::new(g, fc, |_, _, _| None).expect("a valid fabric")
}

fn packet(src: u32, dst: u32, size: u32, prio: u8) -> Packet {
    Packet {
        src: HostId(src),
        dst: HostId(dst),
        size_bytes: size,
        priority: prio,
        ..Default::default()
    }
}

/// The switch node of a star (hosts first, then the switch).
fn switch_of(f: &Fabric) -> NodeId {
    NodeId(f.host_count() as u32)
}

/// Every sender backlogs `per_sender` packets at its NIC at once: a line-rate
/// incast. Runs to the end, checking the MMU after every event; returns the
/// packets delivered.
fn run_incast(f: &mut Fabric, senders: u32, per_sender: u32, size: u32) -> u64 {
    run_incast_with_reverse(f, senders, per_sender, size, 0)
}

/// [`run_incast`], with host 0 also sending `reverse` lossless packets of
/// `size` bytes to each sender, so that a PAUSE towards a sender can wait
/// behind a full frame (the standard rule's first MTU). Returns the packets
/// delivered, both ways.
fn run_incast_with_reverse(
    f: &mut Fabric,
    senders: u32,
    per_sender: u32,
    size: u32,
    reverse: u32,
) -> u64 {
    let mut q: EventQueue<Ev> = EventQueue::new();
    for i in 0..per_sender.max(reverse) {
        for s in 1..=senders {
            if i < per_sender {
                f.host_send(HostId(s), packet(s, 0, size, 3), &mut q);
            }
            if i < reverse {
                f.host_send(HostId(0), packet(0, s, size, 3), &mut q);
                f.host_send(HostId(s), packet(s, s % senders + 1, size, 3), &mut q);
            }
        }
    }
    let sw = switch_of(f);
    let mut delivered = 0;
    while let Some((_, Ev(e))) = q.pop() {
        if let Outcome::Delivered { pkt, .. } = f.handle(e, &mut q) {
            f.packets.free(pkt);
            delivered += 1;
        }
        let m = f.mmu_snapshot(sw);
        assert!(m.queued_bytes <= m.buffer_bytes, "{m:?}");
        assert!(m.shared_used_bytes <= m.shared_capacity_bytes, "{m:?}");
        assert_eq!(
            m.queued_bytes,
            m.lossless_buffer_bytes + m.headroom_used_bytes,
            "{m:?}"
        );
    }
    delivered
}

fn totals(f: &Fabric) -> (u64, u64, u64, u64) {
    let (mut pauses, mut drops, mut peak, mut min_headroom) = (0, 0, 0, u64::MAX);
    for p in f.ports().values().filter(|p| p.at_switch) {
        let st = p.pfc.as_deref().expect("PFC state");
        pauses += st.stats.pauses_sent.iter().sum::<u64>();
        drops += st.stats.lossless_drops.iter().sum::<u64>();
        peak = peak.max(*st.stats.peak_headroom_bytes.iter().max().unwrap_or(&0));
        min_headroom = min_headroom.min(st.headroom_bytes);
        assert!(
            st.stats
                .peak_headroom_bytes
                .iter()
                .all(|&h| h <= st.headroom_bytes),
            "headroom overrun"
        );
    }
    (pauses, drops, peak, min_headroom)
}

#[test]
fn a_line_rate_incast_with_standard_headroom_loses_nothing() {
    // 8-to-1 at 100 Gb/s, 1 us links, 1 MiB
    // shared buffer, headroom by the standard rule.
    let mut f = star_fabric(9, 1 << 20, pfc(hpcc_dynamic(), HeadroomRule::Standard), 1);
    let delivered = run_incast(&mut f, 8, 400, 1036);
    let (pauses, drops, peak, headroom) = totals(&f);
    println!(
        "8-to-1, 100G: {delivered} delivered, {pauses} PAUSEs, {drops} drops, peak headroom {peak} of {headroom} B"
    );
    assert_eq!(delivered, 8 * 400);
    assert_eq!(drops, 0);
    assert!(pauses > 0, "the incast must pause its senders");
    assert_eq!(f.packets.live(), 0);
}

#[test]
fn headroom_of_one_cable_bdp_drops_and_reports_it() {
    // headroom = C d = 12,500 B is too small.
    let mut f = star_fabric(
        9,
        1 << 20,
        pfc(hpcc_dynamic(), HeadroomRule::Bytes(12_500)),
        1,
    );
    let delivered = run_incast(&mut f, 8, 400, 1036);
    let (pauses, drops, peak, _) = totals(&f);
    println!(
        "8-to-1, headroom C x d: {delivered} delivered, {pauses} PAUSEs, {drops} lossless drops, peak headroom {peak} B"
    );
    assert!(drops > 0, "a one-BDP headroom must overflow");
    assert_eq!(
        delivered + drops,
        8 * 400,
        "every packet is delivered or counted as dropped"
    );
}

#[test]
fn the_upstream_stops_within_residual_plus_pause_plus_delay_and_other_priorities_flow() {
    // Host 1 sends priority 3 (lossless, class 0, served first) and
    // priority 0 (lossy, class 1) to host 0; host 2 floods host 0 with priority 3 too, and
    // host 0 sends large frames back to host 1 so that the PAUSE towards
    // host 1 often waits behind one.
    let mut cfg = pfc(
        Xoff::Static {
            xoff_bytes: 20_000,
            xon_bytes: 10_000,
        },
        HeadroomRule::Standard,
    );
    cfg.lossless = 1 << 3;
    let mut f = star_fabric(3, 1 << 20, cfg, 2);
    f.config.class_of_priority = std::array::from_fn(|p| u8::from(p != 3));
    let mut q: EventQueue<Ev> = EventQueue::new();
    for _ in 0..300 {
        f.host_send(HostId(1), packet(1, 0, 1500, 3), &mut q);
        f.host_send(HostId(1), packet(1, 0, 1500, 0), &mut q);
        f.host_send(HostId(2), packet(2, 0, 1500, 3), &mut q);
        f.host_send(HostId(0), packet(0, 1, 1500, 0), &mut q);
    }
    let nic = f.host_port(HostId(1));
    let down = f.port(nic).peer; // the switch port facing host 1
    let rate = Bandwidth::from_bps(G100);
    let pause_time = rate.tx_time(WireFormat::ETHERNET.wire_bytes(crate::pfc::PAUSE_PAYLOAD_BYTES));
    let delay = SimDuration::from_us(1);
    let class_tx = |f: &Fabric, c: usize| f.port(nic).class_stats[c].tx_packets;
    let (mut last_start, mut last_wire) = (SimTime::ZERO, 0u64);
    let mut bound: Option<SimTime> = None; // latest stop time for the current XOFF
    let (mut checked, mut lossy_while_paused) = (0, 0);
    let mut prev = (
        class_tx(&f, 0),
        class_tx(&f, 1),
        f.port(down).stats.tx_wire_bytes,
        0u8,
        0u8,
    );
    while let Some((now, Ev(e))) = q.pop() {
        if let Outcome::Delivered { pkt, .. } = f.handle(e, &mut q) {
            f.packets.free(pkt);
        }
        let st = f.port(down).pfc.as_deref().expect("PFC state");
        let up = f.port(nic).pfc.as_deref().expect("PFC state");
        let wire = f.port(down).stats.tx_wire_bytes;
        if wire > prev.2 {
            (last_start, last_wire) = (now, wire - prev.2);
        }
        if st.xoff & 0b1000 != 0 && prev.3 & 0b1000 == 0 {
            // XOFF decided now: the PAUSE waits for the frame on the wire.
            let residual_end = (last_start + rate.tx_time(last_wire)).max(now);
            bound = Some(residual_end + pause_time + delay);
        }
        let lossless_now = class_tx(&f, 0);
        if lossless_now > prev.0 {
            // A priority-3 frame started at `now`: never after the bound while paused.
            if up.paused & 0b1000 != 0 || bound.is_some_and(|b| now > b && st.xoff & 0b1000 != 0) {
                panic!("priority 3 started at {now} after the PAUSE bound {bound:?}");
            }
        }
        if up.paused & 0b1000 != 0 && prev.4 & 0b1000 == 0 {
            let b = bound.expect("a pause follows an XOFF");
            assert!(
                now <= b,
                "the upstream paused at {now}, after the bound {b}"
            );
            checked += 1;
        }
        if up.paused & 0b1000 != 0 && class_tx(&f, 1) > prev.1 {
            lossy_while_paused += 1;
        }
        if st.xoff & 0b1000 == 0 {
            bound = None;
        }
        prev = (lossless_now, class_tx(&f, 1), wire, st.xoff, up.paused);
    }
    println!(
        "{checked} pauses met their bound; {lossy_while_paused} priority-0 frames left host 1 while priority 3 was paused"
    );
    assert!(checked > 0, "the test must pause host 1");
    assert!(lossy_while_paused > 0, "other priorities keep flowing");
    assert_eq!(totals(&f).1, 0);
}

#[test]
fn timed_pauses_expire_unless_refreshed() {
    // 100 quanta at 100G = 512 ns; the switch refreshes every 256 ns while congested.
    let mut cfg = pfc(hpcc_dynamic(), HeadroomRule::Standard);
    cfg.pause = PauseMode::Quanta {
        quanta: 100,
        refresh: None,
    };
    let mut f = star_fabric(9, 1 << 20, cfg, 1);
    let delivered = run_incast(&mut f, 8, 400, 1036);
    let (pauses, drops, _, _) = totals(&f);
    let resumes: u64 = f
        .ports()
        .values()
        .filter_map(|p| p.pfc.as_deref())
        .map(|s| s.stats.resumes_sent.iter().sum::<u64>())
        .sum();
    println!("quanta mode: {pauses} PAUSEs (refreshes included), {resumes} RESUMEs, {drops} drops");
    assert_eq!(delivered, 8 * 400);
    assert_eq!(drops, 0);
    assert!(pauses > resumes, "congested ports refresh their PAUSEs");
    assert_eq!(
        crate::pfc::quanta_time(100, Bandwidth::from_bps(G100)).ps(),
        512_000
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Random incasts, buffers and thresholds with standard headroom: no
    /// lossless packet is lost, no headroom overruns, and the MMU never
    /// holds more than the buffer (checked at every event by `run_incast`).
    #[test]
    fn standard_headroom_is_lossless_and_the_buffer_is_never_exceeded(
        senders in 2u32..8,
        per_sender in 20u32..200,
        size in 200u32..1500,
        buffer_kib in 384u64..2048,
        alpha_log2 in -4i32..1,
        use_static in any::<bool>(),
        reverse in 0u32..100,
    ) {
        let xoff = if use_static {
            Xoff::Static { xoff_bytes: 30_000, xon_bytes: 20_000 }
        } else {
            Xoff::Dynamic { alpha: 1.0 / (1u32 << -alpha_log2) as f64, resume_offset_bytes: 3072 }
        };
        let mut cfg = pfc(xoff, HeadroomRule::Standard);
        cfg.lossless = 1 << 3; // one lossless priority: 4 KiB of reserve per port
        let mut f = star_fabric(senders + 1, buffer_kib << 10, cfg, 1);
        let delivered = run_incast_with_reverse(&mut f, senders, per_sender, size, reverse);
        let (_, drops, _, _) = totals(&f);
        prop_assert_eq!(drops, 0);
        prop_assert_eq!(delivered, ((senders * per_sender) + 2 * senders * reverse) as u64);
    }
}

/// Hosts 0 and 1 (left switch) and host 3 (right switch) all send to host
/// 2, so the right switch pauses the left one and the left switch's
/// ingresses from hosts 0 and 1 stop draining; host 4 sends full frames to
/// host 0, so the PAUSE towards host 0 can wait behind one. The first
/// frame's size and a lead of host 1's frames shift the phase between the
/// two directions. Returns the worst headroom use and the lossless drops.
fn paused_downstream_sweep(headroom: HeadroomRule) -> (u64, u64) {
    let (mut worst, mut drops) = (0, 0);
    for first in (64u32..1500).step_by(7) {
        for lead in 0..4 {
            let mut cfg = pfc(hpcc_dynamic(), headroom);
            cfg.lossless = 1 << 3;
            let r = Bandwidth::from_bps(G100);
            let d = SimDuration::from_us(1);
            let g = TopologyGraph::dumbbell(2, 3, r, d, r, d);
            let mut f = pfc_fabric(&g, 1 << 20, cfg, 1);
            let mut q: EventQueue<Ev> = EventQueue::new();
            f.host_send(HostId(4), packet(4, 0, first, 3), &mut q);
            for _ in 0..lead {
                f.host_send(HostId(1), packet(1, 2, 1500, 3), &mut q);
            }
            for _ in 0..400 {
                for s in [0, 1, 3] {
                    f.host_send(HostId(s), packet(s, 2, 1500, 3), &mut q);
                }
                f.host_send(HostId(4), packet(4, 0, 1500, 3), &mut q);
            }
            while let Some((_, Ev(e))) = q.pop() {
                if let Outcome::Delivered { pkt, .. } = f.handle(e, &mut q) {
                    f.packets.free(pkt);
                }
            }
            let (_, d, peak, _) = totals(&f);
            (worst, drops) = (worst.max(peak), drops + d);
        }
    }
    (worst, drops)
}

#[test]
fn standard_headroom_holds_the_packet_that_crossed_xoff_and_a_full_window_after_it() {
    // IEEE 802.1Qbb: after XOFF, up to 2 C d + 2 MTU + PAUSE arrive; the
    // packet whose arrival crossed XOFF is in headroom too (HPCC fork step 2).
    let mtu_wire = WireFormat::ETHERNET.wire_bytes(1500);
    let pause_wire = WireFormat::ETHERNET.wire_bytes(crate::pfc::PAUSE_PAYLOAD_BYTES);
    let cd = Bandwidth::from_bps(G100).bytes_in(SimDuration::from_us(1));
    let without_crossing = 2 * cd + 2 * mtu_wire + pause_wire;
    let (worst, drops) = paused_downstream_sweep(HeadroomRule::Standard);
    println!(
        "worst headroom use over 816 phases: {worst} B; 2 C d + 2 MTU + PAUSE = {without_crossing} B; lossless drops {drops}"
    );
    assert!(
        worst > without_crossing,
        "some phase must use the crossing packet's share of the headroom"
    );
    assert_eq!(drops, 0);
    let (_, drops_2mtu) = paused_downstream_sweep(HeadroomRule::Bytes(without_crossing));
    println!("with 2 C d + 2 MTU + PAUSE only: {drops_2mtu} lossless drops");
    assert!(drops_2mtu > 0);
}
