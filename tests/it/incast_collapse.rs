//! TCP incast collapse: shallow DropTail buffers and a 200 ms RTO_min.
use crate::common;

fn incast(buffer: &str) -> dcnsim::report::RunSummary {
    common::run(&format!(
        r#"
        [topology]
        kind = "star"
        hosts = 65
        link_rate = "10Gbps"
        link_delay = "1us"
        [switch]
        buffer = "{buffer}"
        [transport]
        cc = "newreno"
        rto_min = "200ms"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = "1-64"
        size = "1MB"
        "#
    ))
    .1
}

#[test]
fn shallow_buffer_collapses_and_deep_buffer_does_not() {
    let shallow = incast("100pkt");
    let deep = incast("100000pkt");
    eprintln!(
        "shallow: {:.3} Gb/s, {} timeouts, {} drops; deep: {:.3} Gb/s, {} timeouts",
        shallow.flows.goodput_gbps,
        shallow.flows.timeouts,
        shallow.drops,
        deep.flows.goodput_gbps,
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
        deep.flows.goodput_gbps > 9.0,
        "deep-buffer goodput {}",
        deep.flows.goodput_gbps
    );
    assert!(
        shallow.flows.goodput_gbps < 0.25 * deep.flows.goodput_gbps,
        "shallow {} Gb/s vs deep {} Gb/s",
        shallow.flows.goodput_gbps,
        deep.flows.goodput_gbps
    );
}
