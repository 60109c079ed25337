//! RED/ECN end to end.
use crate::common;

use dcnsim::world::World;
use net::HostId;
use sim_core::{SimDuration, SimTime};

/// 1 flow (class 0) vs 4 flows (class 1) through two equal-quantum DWRR
/// queues, in MQ-ECN's regime (2.2.3 and 5.1): 1 Gb/s, base RTT 250 us
/// (4 links of 62.5 us), DCTCP, K = 16 packets.
fn mq_ecn_regime(red_keys: &str) -> (f64, f64) {
    mq_ecn_regime_with(&format!("[switch.aqm]\nkind = \"red\"\n{red_keys}"))
}

fn mq_ecn_regime_with(aqm_table: &str) -> (f64, f64) {
    let sc = common::scenario(&common::fill(
        include_str!("scenarios/red_ecn/mq_ecn_regime_with.toml"),
        &[("aqm_table", aqm_table)],
    ));
    let mut w = World::build(&sc, 1).expect("world builds");
    let t0 = SimTime::ZERO + SimDuration::from_ms(100);
    w.run_until(t0);
    let port = w.fabric().port_towards_host(HostId(0));
    let snap = |w: &World| {
        let p = w.fabric().port(port);
        (
            p.class_stats[0].tx_bytes,
            p.class_stats[1].tx_bytes,
            p.stats.queue_packets_area.area_at(w.now().ps()),
        )
    };
    let (a0, b0, q0) = snap(&w);
    w.run();
    let (a1, b1, q1) = snap(&w);
    let (a, b) = ((a1 - a0) as f64, (b1 - b0) as f64);
    let avg_q = (q1 - q0) as f64 / w.now().since(t0).ps() as f64;
    (b / (a + b), avg_q)
}

#[test]
fn per_port_ecn_breaks_weighted_fair_sharing_per_queue_keeps_it() {
    let (port_share, port_q) =
        mq_ecn_regime("k_min = \"16pkt\"\nk_max = \"16pkt\"\np_max = 1.0\nscope = \"port\"");
    let (queue_share, queue_q) = mq_ecn_regime("preset = \"standard\"\nk_standard = \"16pkt\"");
    eprintln!(
        "4-flow class share: per-port {port_share:.3} (avg queue {port_q:.1} pkt), per-queue standard {queue_share:.3} (avg queue {queue_q:.1} pkt)"
    );
    // MQ-ECN 2.2.3: per-port marking over-marks the 1-flow queue.
    assert!(port_share > 0.53, "per-port share {port_share:.3}");
    // Per-queue standard thresholds isolate the queues...
    assert!(
        (0.45..=0.55).contains(&queue_share),
        "per-queue share {queue_share:.3}"
    );
    // ...at the price of a longer total queue (MQ-ECN 2.2.1: up to N x K).
    assert!(
        queue_q > port_q,
        "per-queue {queue_q:.1} vs per-port {port_q:.1}"
    );
}

/// MQ-ECN's headline effect (MQ-ECN paper 2.2.3, 5.1): in the same regime,
/// MQ-ECN shares evenly like per-queue standard thresholds, with a shorter
/// total queue.
#[test]
fn mq_ecn_shares_evenly_with_less_queueing_than_per_queue_standard() {
    let (share, q) = mq_ecn_regime_with("[switch.aqm]\nkind = \"mq-ecn\"\nk_standard = \"16pkt\"");
    let (_, q_std) = mq_ecn_regime("preset = \"standard\"\nk_standard = \"16pkt\"");
    eprintln!(
        "MQ-ECN: 4-flow class share {share:.3}, avg queue {q:.1} pkt; per-queue standard {q_std:.1} pkt"
    );
    assert!((0.45..=0.55).contains(&share), "MQ-ECN share {share:.3}");
    assert!(
        q < q_std,
        "MQ-ECN queue {q:.1} vs per-queue standard {q_std:.1}"
    );
}

#[test]
fn red_with_equal_thresholds_holds_dctcp_near_k() {
    let (w, s) = common::run(include_str!(
        "scenarios/red_ecn/red_with_equal_thresholds_holds_dctcp_near_k.toml"
    ));
    let p = w.fabric().port(w.fabric().port_towards_host(HostId(0)));
    let avg = p.stats.queue_packets_area.area_at(w.now().ps()) as f64 / w.now().ps() as f64;
    assert!((30.0..=100.0).contains(&avg), "average queue {avg:.1}");
    assert_eq!(s.drops, 0);
    assert!(s.ecn_marks > 0);
}

#[test]
fn red_keys_are_validated_with_their_line() {
    let base = "[topology]\nkind = \"star\"\nhosts = 2\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[switch]\nbuffer = \"100pkt\"\n[switch.aqm]\nkind = \"red\"\n";
    let err =
        |extra: &str| dcnsim::scenario::parse_str("r.toml", &format!("{base}{extra}")).unwrap_err();
    let e = err("k_min = \"40pkt\"\nk_max = \"20pkt\"\n");
    assert_eq!((e.key.as_str(), e.line), ("switch.aqm.k_max", 11), "{e}");
    let e = err("k_min = \"20pkt\"\nk_max = \"40pkt\"\np_max = 2.0\n");
    assert_eq!(e.key, "switch.aqm.p_max", "{e}");
    let e = err("preset = \"medium\"\n");
    assert!(
        e.to_string().contains("standard") && e.to_string().contains("minimum"),
        "{e}"
    );
    let e = err("scope = \"everything\"\nk_min = \"1pkt\"\nk_max = \"2pkt\"\n");
    assert!(
        e.to_string().contains("queue") && e.to_string().contains("pool"),
        "{e}"
    );
}
