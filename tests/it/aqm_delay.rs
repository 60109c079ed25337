//! CoDel and PIE end to end: scaled to a datacenter (target 50 us), four
//! long-lived CUBIC flows through a 10 Gb/s bottleneck hold a standing
//! queueing delay within 30% of the target, at line rate, without one
//! buffer overflow; CoDel's losses are head drops, PIE's early drops.
use crate::common;

use dcnsim::world::World;
use sim_core::{SimDuration, SimTime};

/// The standing delay (us), utilisation and the port's drop counters of
/// the dumbbell's bottleneck, measured from 30 ms (past slow start).
fn bottleneck(sc: &dcnsim::scenario::Scenario) -> (f64, f64, net::PortStats) {
    let mut w = World::build(sc, 1).expect("world builds");
    let port = (0..w.fabric().ports().len())
        .map(|i| net::PortId(i as u32))
        .find(|&p| w.port_name(p) == "left->right")
        .expect("the dumbbell's bottleneck");
    let m = common::measure_window(&mut w, port, SimTime::ZERO + SimDuration::from_ms(30));
    let rate_bps = w.fabric().port(port).rate.bps() as f64;
    let delay_us = m.avg_bytes * 8.0 / rate_bps * 1e6;
    (delay_us, m.utilisation, w.fabric().port(port).stats.clone())
}

fn shipped(path: &str) -> (f64, f64, net::PortStats) {
    bottleneck(&common::scenario_file(path, &[]))
}

#[test]
fn codel_holds_the_standing_delay_near_its_target_by_head_drops() {
    let (delay_us, util, st) = shipped("scenarios/kinds/codel-cubic.toml");
    assert!(
        (delay_us - 50.0).abs() <= 15.0,
        "standing delay {delay_us:.1} us, target 50 us"
    );
    assert!(util > 0.95, "utilisation {util:.3}");
    assert_eq!(st.drops_overflow, 0, "the buffer never overflows");
    assert_eq!(st.drops_aqm, 0, "CoDel drops nothing as it arrives");
    assert!(
        st.drops_aqm_dequeue > 0,
        "CoDel's head drops control the queue"
    );
}

#[test]
fn pie_holds_the_standing_delay_near_its_target_by_early_drops() {
    let (delay_us, util, st) = shipped("scenarios/kinds/pie-cubic.toml");
    assert!(
        (delay_us - 50.0).abs() <= 15.0,
        "standing delay {delay_us:.1} us, target 50 us"
    );
    assert!(util > 0.95, "utilisation {util:.3}");
    assert_eq!(st.drops_overflow, 0, "the buffer never overflows");
    assert_eq!(st.drops_aqm_dequeue, 0, "PIE drops only as packets arrive");
    assert!(st.drops_aqm > 0, "PIE's early drops control the queue");
}

/// Without the AQM the same flows fill the buffer: the AQM, not the
/// workload, holds the delay.
#[test]
fn without_an_aqm_the_same_flows_stand_far_above_the_target() {
    let text = std::fs::read_to_string("scenarios/kinds/codel-cubic.toml").expect("shipped");
    let plain = text.replace(
        "kind = \"codel\"\ntarget = \"50us\"\ninterval = \"1ms\"",
        "kind = \"droptail\"",
    );
    assert_ne!(plain, text);
    let (delay_us, _, st) = bottleneck(&common::scenario(&plain));
    assert_eq!(st.drops_aqm + st.drops_aqm_dequeue, 0);
    assert!(
        delay_us > 500.0,
        "drop-tail standing delay {delay_us:.1} us"
    );
}
