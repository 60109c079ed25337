//! DCTCP holds the queue near K with full utilisation and fair shares.
use crate::common;

use dcnsim::world::World;
use net::HostId;
use sim_core::stats::jain_index;
use sim_core::{SimDuration, SimTime};

#[test]
fn dctcp_eight_long_flows_keep_queue_near_k() {
    let sc = common::scenario(include_str!(
        "scenarios/dctcp_steady_state/dctcp_eight_long_flows_keep_queue_near_k.toml"
    ));
    let mut w = World::build(&sc, 1).unwrap();
    let port = w.fabric().port_towards_host(HostId(0));
    let m = common::measure_window(&mut w, port, SimTime::ZERO + SimDuration::from_ms(10));
    let (avg_q, util, jain) = (
        m.avg_packets,
        m.utilisation,
        jain_index(&m.shares).expect("shares"),
    );
    let shares = m.shares;
    let drops: u64 = w.fabric().ports().values().map(|p| p.stats.drops()).sum();
    eprintln!("avg queue {avg_q:.2} pkt, utilisation {util:.4}, Jain {jain:.5}, drops {drops}");
    assert!(
        (32.5..=130.0).contains(&avg_q),
        "time-average queue {avg_q:.1} packets, K = 65"
    );
    assert!(util >= 0.95, "utilisation {util:.4}");
    assert_eq!(drops, 0);
    assert!(jain >= 0.95, "Jain {jain:.4}, shares {shares:?}");
}

/// The DCTCP analysis (Alizadeh et al., SIGCOMM 2010, 3.3) cuts the window
/// at once on a mark; Linux reduces it through PRR over a round trip. With
/// two flows and K below the analysis's C x RTT / 7 the two differ: the
/// cut at once (the ns3-dctcp preset) keeps the link full; PRR (the linux
/// preset) leaves about 1% idle (measured 98.96%). Each stack pinned to
/// what it gives, so that a reproduction's choice of preset is a choice
/// of this number.
#[test]
fn dctcp_utilisation_at_small_k_depends_on_prr_on_marks() {
    let run = |preset: &str, delay: &str| {
        let sc = common::scenario(&common::fill(
            include_str!(
                "scenarios/dctcp_steady_state/dctcp_utilisation_at_small_k_depends_on_prr_on_marks.toml"
            ),
            &[("delay", delay), ("preset", preset)],
        ));
        let mut w = World::build(&sc, 1).unwrap();
        let port = w.fabric().port_towards_host(HostId(0));
        common::measure_window(&mut w, port, SimTime::ZERO + SimDuration::from_ms(10)).utilisation
    };
    // A 100 us base RTT: a BDP of 83 packets, so K = 8 is below the
    // analysis's C x RTT / 7 = 12 packets.
    let (prr, at_once) = (run("linux", "25us"), run("ns3-dctcp", "25us"));
    eprintln!("utilisation: PRR on marks {prr:.4}, cut at once {at_once:.4}");
    assert!(at_once >= 0.999, "cut at once: {at_once:.4}");
    assert!((0.98..0.995).contains(&prr), "PRR on marks: {prr:.4}");
}
