//! The RoCE family end to end, from scenario files: DCQCN's two-flow fixed
//! point at 40 Gb/s, a lossless RoCE incast over PFC, and the keys' errors.
use crate::common;
use sim_core::SimTime;
use transport::SenderEnd;

/// DCQCN's congestion point as its references run it: RED at 5 KB / 200 KB
/// / 1%, each packet marked independently as it leaves.
const DCQCN_CP: &str = r#"
[switch.aqm]
kind = "red"
k_min = "5KB"
k_max = "200KB"
p_max = 0.01
mark_at = "dequeue"
spread = false
"#;

/// Two long DCQCN flows into one 40 Gb/s port, the second joining at 50 ms
/// (Zhu et al., CoNEXT 2016, eq. 11), with the paper's CP: RED 5 KB / 200 KB / 1%, each
/// packet marked independently at dequeue.
fn two_flows() -> String {
    common::fill(
        include_str!("scenarios/roce/two_flows.toml"),
        &[("DCQCN_CP", DCQCN_CP)],
    )
}

#[test]
fn two_dcqcn_flows_share_40g_near_the_fluid_models_fixed_point() {
    let sc = common::scenario(&two_flows());
    let mut w = dcnsim::world::World::build(&sc, 1).expect("builds");
    let ms = |n: u64| SimTime::ZERO + sim_core::SimDuration::from_ms(n);
    // Measure from 110 ms (60 ms after the join, the fluid model's
    // convergence time) to 400 ms.
    let port = w.fabric().port_towards_host(net::HostId(0));
    w.run_until(ms(110));
    let acked0: Vec<u64> = w.flows().iter().map(|f| f.sender.bytes_acked()).collect();
    let area0 = w
        .fabric()
        .port(port)
        .stats
        .queue_bytes_area
        .area_at(ms(110).ps());
    w.run_until(ms(400));
    let area1 = w
        .fabric()
        .port(port)
        .stats
        .queue_bytes_area
        .area_at(ms(400).ps());
    let secs = 0.290;
    // Wire rate: 1082 wire bytes per 1000 B of payload (Ethernet framing).
    let rates: Vec<f64> = w
        .flows()
        .iter()
        .zip(&acked0)
        .map(|(f, a)| (f.sender.bytes_acked() - a) as f64 * 8.0 / secs / 1e9 * 1082.0 / 1000.0)
        .collect();
    let queue_kb = (area1 - area0) as f64 / (ms(400).ps() - ms(110).ps()) as f64 / 1e3;
    let alphas: Vec<f64> = w
        .flows()
        .iter()
        .map(|f| {
            f.sender
                .get::<transport::roce::RoceSender>()
                .and_then(|s| s.dcqcn())
                .map_or(0.0, |d| d.alpha())
        })
        .collect();
    eprintln!(
        "DCQCN 2 x 40G, 110-400 ms: rates {:.2} / {:.2} Gb/s on the wire, mean queue {queue_kb:.1} KB (fluid model 20.2), alpha {:.3} / {:.3} (0.101)",
        rates[0], rates[1], alphas[0], alphas[1]
    );
    for r in &rates {
        assert!(
            (r - 20.0).abs() <= 1.0,
            "a long-run rate of {r:.2} Gb/s is not within 5% of 20"
        );
    }
    assert!(
        (rates[0] - rates[1]).abs() <= 2.0,
        "the rates differ by more than 10%: {rates:?}"
    );
    assert!(
        (20.2 / 1.5..=20.2 * 1.5).contains(&queue_kb),
        "mean queue {queue_kb:.1} KB"
    );
    for a in alphas {
        assert!((0.02..0.3).contains(&a), "alpha {a}");
    }
}

/// Milliseconds after the join (at 50 ms) until the two flows' goodputs
/// over a 5 ms window first differ by at most 10% (the fluid model's
/// convergence criterion), and flow 1's alpha just before the join.
fn dcqcn_convergence_ms(path: &str, seed: u64) -> (u64, f64) {
    let sc = common::scenario_file(path, &[]);
    let mut w = dcnsim::world::World::build(&sc, seed).expect("builds");
    let ms = |n: u64| SimTime::ZERO + sim_core::SimDuration::from_ms(n);
    let alpha = |w: &dcnsim::world::World| {
        w.flows()[0]
            .sender
            .get::<transport::roce::RoceSender>()
            .and_then(|s| s.dcqcn())
            .map_or(0.0, |d| d.alpha())
    };
    let mut acked: Vec<[u64; 2]> = Vec::new();
    let mut alpha_at_join = 0.0;
    for t in 1..=400 {
        w.run_until(ms(t));
        if t == 50 {
            alpha_at_join = alpha(&w);
        }
        acked.push([
            w.flows()[0].sender.bytes_acked(),
            w.flows()[1].sender.bytes_acked(),
        ]);
        // acked[i] is at t = i + 1 ms: the window (t - 5, t].
        if t >= 55 {
            let (now, then) = (acked[t as usize - 1], acked[t as usize - 6]);
            let (a, b) = ((now[0] - then[0]) as f64, (now[1] - then[1]) as f64);
            if (a - b).abs() <= 0.1 * a.max(b) {
                return (t - 50, alpha_at_join);
            }
        }
    }
    panic!("{path}: the two flows never came within 10% of each other");
}

/// The fluid model's ~59 ms convergence needs flow 1 to be marked before
/// the join: with a 39.6 Gb/s bottleneck it is (alpha settled), and the
/// flows come within 10% 55-67 ms after the join (seeds 1-4); on the
/// 40 Gb/s star flow 1 is never marked alone, so it meets the join with
/// its initial alpha of 1, and the first cuts are deep: 5-43 ms.
#[test]
fn dcqcn_converges_slowly_when_flow_1_is_marked_before_the_join() {
    let (marked, alpha) = dcqcn_convergence_ms("scenarios/dcqcn/convergence-39g6.toml", 1);
    let (unmarked, alpha_40) = dcqcn_convergence_ms("scenarios/dcqcn/convergence-40g.toml", 1);
    eprintln!(
        "DCQCN convergence after the join: 39.6 Gb/s bottleneck {marked} ms (alpha at the join {alpha:.3}), 40 Gb/s {unmarked} ms (alpha {alpha_40:.4}); fluid model ~59 ms"
    );
    assert!((40..=80).contains(&marked), "{marked} ms");
    // Marked alone, flow 1's alpha has settled near the fixed point's
    // 0.101; unmarked, it is still the initial 1 (no CNP has come).
    assert!((0.02..0.3).contains(&alpha), "alpha {alpha}");
    assert!(alpha_40 > 0.9, "alpha {alpha_40}");
    assert!(marked > 5 * unmarked, "{marked} against {unmarked} ms");
}

#[test]
fn a_roce_incast_over_pfc_completes_without_loss() {
    // A low static XOFF (20 KB per ingress port and priority) so that the
    // NICs are paused before DCQCN has brought the rates down.
    let (w, s) = common::run(&common::fill(
        include_str!("scenarios/roce/a_roce_incast_over_pfc_completes_without_loss.toml"),
        &[("DCQCN_CP", DCQCN_CP)],
    ));
    let p = s.pfc.as_ref().expect("PFC is on");
    let cnps: u64 = w
        .flows()
        .iter()
        .map(|f| f.sender.record().counters.ecn_reductions)
        .sum();
    eprintln!(
        "RoCE 8-to-1 at 40G: {} PAUSEs, {cnps} CNPs, {} drops, last FCT {:.1} us",
        p.pauses_sent,
        s.drops,
        s.flows.fct_us.max.unwrap_or(0.0)
    );
    assert_eq!(s.flows.completed, 8);
    assert_eq!(
        (s.drops, p.lossless_drops, s.flows.retransmissions),
        (0, 0, 0)
    );
    assert!(cnps > 0, "DCQCN reacted");
    assert!(
        p.pauses_sent > 0,
        "20 KB per ingress port pauses the senders' NICs"
    );
    assert!(p.mean_nic_paused_fraction > 0.0);
}

#[test]
fn roce_keys_are_checked() {
    let base = two_flows();
    let err = |from: &str, to: &str| {
        dcnsim::scenario::parse_str("r.toml", &base.replace(from, to)).unwrap_err()
    };
    let e = err("kind = \"roce\"", "kind = \"roce\"\nmtu = \"10B\"");
    assert_eq!(e.key, "transport.mtu");
    let e = err("kind = \"roce\"", "kind = \"roce\"\nwindow = \"huge\"");
    assert!(e.to_string().contains("bdp_x_rate"), "{e}");
    let e = err(
        "kind = \"roce\"",
        "kind = \"roce\"\ncc = { kind = \"dcqcn\", variant = \"v2\" }",
    );
    assert!(e.to_string().contains("\"mellanox\""), "{e}");
    let e = err(
        "kind = \"roce\"",
        "kind = \"roce\"\ncc = { kind = \"dcqcn\", variant = \"mellanox\", byte_counter = \"1MB\" }",
    );
    assert!(e.to_string().contains("no byte counter"), "{e}");
    let e = err("kind = \"roce\"", "kind = \"roce\"\nsack = true");
    assert!(e.to_string().contains("unknown key"), "{e}");
    // RCC and TIMELY.
    let e = err(
        "kind = \"roce\"",
        "kind = \"roce\"\ncc = { kind = \"rcc\", variant = \"rcc-fast\" }",
    );
    assert_eq!(e.key, "transport.cc.variant");
    assert!(e.to_string().contains("\"rcc-sender\""), "{e}");
    let e = err(
        "kind = \"roce\"",
        "kind = \"roce\"\ncc = { kind = \"rcc\", delta = 1.5 }",
    );
    assert!(e.to_string().contains("(0, 1)"), "{e}");
    let e = err(
        "kind = \"roce\"",
        "kind = \"roce\"\ncc = \"rcc\"\nwindow = \"bdp\"",
    );
    assert!(e.to_string().contains("assigns its own window"), "{e}");
    let e = err(
        "kind = \"roce\"",
        "kind = \"roce\"\ncc = { kind = \"timely\", t_low = \"600us\" }",
    );
    assert_eq!(e.key, "transport.cc.t_high");
    let e = err("kind = \"roce\"", "kind = \"roce\"\ncc = \"expresspass\"");
    assert!(e.to_string().contains("timely"), "{e}");
}

#[test]
fn r_aqm_and_abq_hold_and_release_roce_acks() {
    // The bottleneck port's ingress sees the receiver's RoCE ACKs: both
    // plugins hold them (Kind::Ack, whatever the family) and release every
    // one; the windowed senders complete without loss. (A VIQ may drop,
    // so RoCE behind it needs a retransmission timeout: refused without.)
    for ingress in [
        r#"kind = "r-aqm"
        k_min = "20pkt"
        k_max = "40pkt"
        compensation = "none""#,
        r#"kind = "abq"
        k = "20pkt"
        q_max = "300pkt""#,
    ] {
        let (_, s) = common::run(&common::fill(
            include_str!("scenarios/roce/r_aqm_and_abq_hold_and_release_roce_acks.toml"),
            &[("DCQCN_CP", DCQCN_CP), ("ingress", ingress)],
        ));
        eprintln!(
            "RoCE incast with {}: {} ACKs held, {} released, {} completed",
            ingress.lines().next().unwrap_or(""),
            s.ingress.held,
            s.ingress.released,
            s.flows.completed
        );
        assert!(s.ingress.held > 0, "{ingress}: RoCE ACKs are held");
        assert_eq!(s.ingress.held, s.ingress.released);
        assert_eq!((s.flows.completed, s.drops), (8, 0));
    }
}

/// `scenarios/r-aqm/roce-shuffle.toml` at half its hosts (30, on 10 racks)
/// and 20 mice per pair instead of 50, with `set` applied: returns the
/// mice's FCT p50 and p99 (us) and the largest switch queue (packets).
fn small_shuffle(set: &[&str]) -> (f64, f64, u64) {
    let mut overrides = vec![
        r#"workload[0].hosts="0-29""#.to_string(),
        "workload[0].mice=20".to_string(),
    ];
    overrides.extend(set.iter().map(|s| s.to_string()));
    let (_, s) = common::run_file("scenarios/r-aqm/roce-shuffle.toml", &overrides);
    let mice = &s.flows.by_size[0];
    assert_eq!(mice.up_to_bytes, Some(5_000));
    assert_eq!((mice.unfinished, s.drops), (0, 0), "{set:?}");
    let fct = &mice.fct_us;
    (
        fct.p50.expect("mice finished"),
        fct.p99.expect("mice finished"),
        s.max_switch_queue_packets,
    )
}

#[test]
fn r_aqm_vii_shuffle_orders_the_mice_tail_dcqcn_then_window_then_r_aqm() {
    // R-AQM paper VII-C, Fig. 15 at 40% load: mice p99 2030 / 900 / 543 us.
    let no_ingress = r#"switch.ingress={kind="none"}"#;
    let dcqcn = small_shuffle(&["transport.window=none", no_ingress]);
    let window = small_shuffle(&[no_ingress]);
    let r_aqm = small_shuffle(&[]);
    for (name, (p50, p99, q)) in [
        ("DCQCN", dcqcn),
        ("+window", window),
        ("+window+R-AQM", r_aqm),
    ] {
        eprintln!("{name:>14}: mice p50 {p50:.1} us, p99 {p99:.1} us; largest queue {q} packets");
    }
    assert!(
        dcqcn.1 > 2.0 * window.1,
        "the window cuts DCQCN's mice tail"
    );
    assert!(
        window.1 > r_aqm.1,
        "R-AQM cuts the window's mice tail further"
    );
    assert!(window.2 > r_aqm.2, "R-AQM keeps the forward queue shorter");
}
