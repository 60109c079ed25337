//! DCTCP holds the queue near K with full utilisation and fair shares.
mod common;

use dcnsim::world::World;
use net::HostId;
use sim_core::stats::jain_index;
use sim_core::{SimDuration, SimTime};

#[test]
fn dctcp_eight_long_flows_keep_queue_near_k() {
    let sc = common::scenario(
        r#"
        [simulation]
        stop_time = "60ms"
        [topology]
        kind = "star"
        hosts = 9
        link_rate = "10Gbps"
        link_delay = "1us"
        [switch]
        buffer = "300pkt"
        [switch.aqm]
        kind = "step-ecn"
        k = "65pkt"
        [transport]
        cc = "dctcp"
        [[workload]]
        kind = "long-flows"
        pairs = [[1, 0], [2, 0], [3, 0], [4, 0], [5, 0], [6, 0], [7, 0], [8, 0]]
        "#,
    );
    let mut w = World::build(&sc, 1).unwrap();
    let t0 = SimTime::ZERO + SimDuration::from_ms(10);
    w.run_until(t0);
    let port = w.fabric.port_towards_host(HostId(0));
    let snap = |w: &World| {
        let st = &w.fabric.port(port).stats;
        let acked: Vec<u64> = w.flows.iter().map(|f| f.sender.bytes_acked()).collect();
        (
            st.queue_packets_area.area_at(w.now().ps()),
            st.tx_wire_bytes,
            acked,
        )
    };
    let (area0, wire0, acked0) = snap(&w);
    w.run();
    let t1 = w.now();
    let (area1, wire1, acked1) = snap(&w);
    let dt_ps = t1.since(t0).ps() as f64;
    let avg_q = (area1 - area0) as f64 / dt_ps;
    let util = (wire1 - wire0) as f64 * 8.0 / (10e9 * dt_ps / 1e12);
    let shares: Vec<f64> = acked1
        .iter()
        .zip(&acked0)
        .map(|(a, b)| (a - b) as f64)
        .collect();
    let jain = jain_index(&shares);
    let drops: u64 = w.fabric.ports().iter().map(|p| p.stats.drops()).sum();
    eprintln!("avg queue {avg_q:.2} pkt, utilisation {util:.4}, Jain {jain:.5}, drops {drops}");
    assert!(
        (32.5..=130.0).contains(&avg_q),
        "time-average queue {avg_q:.1} packets, K = 65"
    );
    assert!(util >= 0.95, "utilisation {util:.4}");
    assert_eq!(drops, 0);
    assert!(jain >= 0.95, "Jain {jain:.4}, shares {shares:?}");
}
