//! ABQ (ABQ paper, "Micro-benchmark"): 80 DCTCP senders send 32 KB each to
//! one receiver through a 1 Gb/s switch with 40 us links, an 80-packet
//! buffer, ECN at K_ECN = 40 and ABQ's K = 20; RTO_min 10 ms and an initial
//! window of one segment so that the first flight fits; the paper's ns-3
//! TCP without SACK, PRR or limited transmit. ABQ drops fewer
//! packets and keeps a lower time-averaged output queue than DCTCP alone.
use crate::common;

use net::HostId;

/// (drops, time-average output queue in bytes, max VIQ) for an ingress plugin.
fn incast(ingress: &str) -> (u64, f64, u64) {
    let (w, s) = common::run(&common::fill(
        include_str!("scenarios/abq/incast.toml"),
        &[("ingress", ingress)],
    ));
    assert_eq!(s.flows.completed, 80);
    let port = w.fabric().port(w.fabric().port_towards_host(HostId(0)));
    let end = w.end_time().ps();
    let avg = port.stats.queue_bytes_area.area_at(end) as f64 / end as f64;
    (s.drops, avg, s.ingress.max_viq_packets)
}

#[test]
fn abq_drops_less_and_queues_less_than_dctcp_alone() {
    let (d0, q0, _) = incast(r#"kind = "none""#);
    let (d1, q1, viq) = incast(r#"kind = "abq""#);
    eprintln!(
        "DCTCP: {d0} drops, avg queue {q0:.0} B; DCTCP+ABQ: {d1} drops, avg queue {q1:.0} B, max VIQ {viq}"
    );
    assert!(d1 < d0, "drops: ABQ {d1} vs DCTCP {d0}");
    assert!(q1 < q0, "avg queue: ABQ {q1:.0} vs DCTCP {q0:.0}");
    assert!(viq > 0, "ABQ held no ACK");
}
