//! FairQ (FairQ paper III): long flows converge to equal windows and the
//! queue settles at the target alpha x B.
use crate::common;

use dcnsim::world::World;
use net::HostId;
use sim_core::stats::jain_index;
use sim_core::{SimDuration, SimTime};

/// 8 long NewReno flows into one 1 Gb/s port, base RTT 200 us, 100-packet
/// buffer: B = 150,000 B, target alpha B = 30,000 B. Measured over 100-200 ms.
fn run(ingress: &str) -> (f64, f64, u64, f64) {
    let sc = common::scenario(&common::fill(
        include_str!("scenarios/fairq/run.toml"),
        &[("ingress", ingress)],
    ));
    let mut w = World::build(&sc, 1).expect("builds");
    let port = w.fabric().port_towards_host(HostId(0));
    let m = common::measure_window(&mut w, port, SimTime::ZERO + SimDuration::from_ms(100));
    let drops: u64 = w.fabric().ports().values().map(|p| p.stats.drops()).sum();
    (
        m.avg_bytes,
        jain_index(&m.shares).expect("shares"),
        drops,
        m.utilisation,
    )
}

#[test]
fn fairq_holds_the_queue_at_target_with_fair_shares() {
    let (q, jain, drops, util) = run(r#"kind = "fairq""#);
    let (q0, jain0, drops0, util0) = run(r#"kind = "none""#);
    eprintln!("FairQ: avg queue {q:.0} B, Jain {jain:.4}, drops {drops}, util {util:.4}");
    eprintln!("DropTail: avg queue {q0:.0} B, Jain {jain0:.4}, drops {drops0}, util {util0:.4}");
    let target = 0.2 * 150_000.0;
    assert!(jain >= 0.99, "Jain {jain:.4}");
    assert!(
        (0.75 * target..=1.25 * target).contains(&q),
        "time-average queue {q:.0} B, target {target} B"
    );
    assert_eq!(drops, 0, "FairQ keeps the queue below the buffer");
    assert!(util >= 0.98, "utilisation {util:.4}");
    // Without FairQ the same flows fill the buffer and lose packets.
    assert!(
        q0 > 2.0 * target && drops0 > 0,
        "DropTail: {q0:.0} B, {drops0} drops"
    );
}
