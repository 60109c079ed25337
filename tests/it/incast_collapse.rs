//! TCP incast collapse: shallow DropTail buffers and a 200 ms RTO_min.
use crate::common;

fn incast(buffer: &str) -> dcnsim::report::RunSummary {
    common::run(&common::fill(
        include_str!("scenarios/incast_collapse/incast.toml"),
        &[("buffer", buffer)],
    ))
    .1
}

/// The run's aggregate goodput (every run here has flows).
fn goodput(s: &dcnsim::report::RunSummary) -> f64 {
    s.flows.goodput_gbps.expect("flows ran")
}

#[test]
fn shallow_buffer_collapses_and_deep_buffer_does_not() {
    let shallow = incast("100pkt");
    let deep = incast("100000pkt");
    eprintln!(
        "shallow: {:.3} Gb/s, {} timeouts, {} drops; deep: {:.3} Gb/s, {} timeouts",
        goodput(&shallow),
        shallow.flows.timeouts,
        shallow.drops,
        goodput(&deep),
        deep.flows.timeouts
    );
    assert_eq!(shallow.flows.completed, 64);
    assert_eq!(deep.flows.completed, 64);
    assert!(
        shallow.flows.timeouts > 0,
        "no timeouts with a 100-packet buffer"
    );
    assert!(shallow.drops > 0);
    assert_eq!((deep.drops, deep.flows.timeouts), (0, 0));
    assert!(
        goodput(&deep) > 9.0,
        "deep-buffer goodput {}",
        goodput(&deep)
    );
    assert!(
        goodput(&shallow) < 0.25 * goodput(&deep),
        "shallow {} Gb/s vs deep {} Gb/s",
        goodput(&shallow),
        goodput(&deep)
    );
}
