//! DCTCP holds the queue near K with full utilisation and fair shares.
use crate::common;

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
    let port = w.fabric.port_towards_host(HostId(0));
    let m = common::measure_window(&mut w, port, SimTime::ZERO + SimDuration::from_ms(10));
    let (avg_q, util, jain) = (
        m.avg_packets,
        m.utilisation,
        jain_index(&m.shares).expect("shares"),
    );
    let shares = m.shares;
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
