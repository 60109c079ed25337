//! R-AQM (R-AQM paper VI-B): a 100-to-1 NewReno incast of 1 MB flows on a
//! 10 Gb/s star with a 300-packet buffer and RTO_min 100 ms. DropTail has
//! timeouts; R-AQM with rwnd compensation has none, and so has the HSCC
//! clamp it builds on. The initial window is 2 MSS so that the first flight
//! (200 packets) fits the buffer: R-AQM shapes the ACK clock, it cannot
//! shrink a first flight (IV-F).
use crate::common;

use dcnsim::report::RunSummary;

fn incast(ingress: &str) -> RunSummary {
    common::run(&format!(
        r#"
        [topology]
        kind = "star"
        hosts = 101
        link_rate = "10Gbps"
        link_delay = "1us"
        [switch]
        buffer = "300pkt"
        [switch.ingress]
        {ingress}
        [transport]
        cc = "newreno"
        rto_min = "100ms"
        initial_window_mss = 2
        sack = false
        prr = false
        limited_transmit = false
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = "1-100"
        size = "1MB"
        "#
    ))
    .1
}

#[test]
fn r_aqm_removes_incast_timeouts_of_newreno() {
    let droptail = incast(r#"kind = "none""#);
    let raqm = incast(r#"kind = "r-aqm""#);
    let hscc = incast(r#"kind = "hscc""#);
    for (name, s) in [("DropTail", &droptail), ("R-AQM", &raqm), ("HSCC", &hscc)] {
        eprintln!(
            "{name}: {:.3} Gb/s, {} timeouts, {} drops, max queue {} pkt, max VIQ {} pkt",
            s.flows.goodput_gbps.expect("flows ran"),
            s.flows.timeouts,
            s.drops,
            s.max_switch_queue_packets,
            s.ingress.max_viq_packets
        );
        assert_eq!(s.flows.completed, 100, "{name}");
    }
    assert!(droptail.flows.timeouts > 0, "DropTail has no timeouts");
    assert_eq!((raqm.flows.timeouts, raqm.drops), (0, 0));
    assert_eq!((hscc.flows.timeouts, hscc.drops), (0, 0));
    assert!(raqm.flows.goodput_gbps > droptail.flows.goodput_gbps.map(|g| 2.0 * g));
    // R-AQM really holds ACKs (the fluid model's q_in), HSCC holds none.
    assert!(raqm.ingress.max_viq_packets > 50, "{:?}", raqm.ingress);
    assert_eq!(hscc.ingress.held, 0);
    // Every held ACK left the VIQ.
    assert_eq!(raqm.ingress.held, raqm.ingress.released);
}

/// Without compensation the ACK shaping alone does not stop NewReno from
/// overflowing (the paper's reason for compensating, IV-D): the first
/// flights' windows keep growing in slow start.
#[test]
fn r_aqm_without_compensation_does_not_save_newreno() {
    let s = incast(
        r#"kind = "r-aqm"
        compensation = "none""#,
    );
    eprintln!(
        "R-AQM, no compensation: {} timeouts, {:?}",
        s.flows.timeouts, s.drops_by_cause
    );
    assert!(s.flows.timeouts > 0);
}
