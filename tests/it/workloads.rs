//! Workloads and topologies end to end from TOML.
use crate::common;
use transport::{ReceiverEnd, SenderEnd};

#[test]
fn dumbbell_long_flows_stop_and_close_with_delayed_acks() {
    let text = std::fs::read_to_string("scenarios/dumbbell-dctcp.toml").unwrap();
    let (w, s) = common::run(&text);
    // Every flow stopped at 50 ms, drained, completed and closed before 60 ms.
    assert_eq!(s.flows.completed, 4, "{s:?}");
    for f in w.flows() {
        let tcp = f
            .sender
            .get::<transport::tcp::TcpSender>()
            .expect("a TCP flow");
        assert_eq!(tcp.state(), transport::tcp::sender::SenderState::Closed);
        assert_eq!(f.sender.bytes_acked(), f.sender.size_bytes());
        assert_eq!(f.receiver.bytes_received(), f.sender.size_bytes());
    }
    // The bottleneck (10 of 40 Gb/s) was shared and kept busy: ~50 ms x 10 Gb/s.
    let total: u64 = w.flows().iter().map(|f| f.sender.bytes_acked()).sum();
    assert!(
        total as f64 > 0.9 * 50e-3 * 10e9 / 8.0 * 1460.0 / 1538.0,
        "{total}"
    );
    let jain = s.flows.jain_index.expect("flows sent");
    assert!(jain > 0.95, "{jain}");
    assert_eq!(s.drops, 0);
    assert!(s.ecn_marks > 0);
    // Delayed ACKs: about one ACK per two data segments.
    let acks: u64 = w
        .flows()
        .iter()
        .map(|f| {
            f.receiver
                .get::<transport::tcp::TcpReceiver>()
                .expect("TCP")
                .acks_sent()
        })
        .sum();
    let segs = total / 1460;
    assert!(
        acks < segs * 6 / 10 && acks > segs * 4 / 10,
        "{acks} ACKs for {segs} segments"
    );
}

#[test]
fn sized_long_flows_complete_without_a_stop() {
    let (_, s) = common::run(include_str!(
        "scenarios/workloads/sized_long_flows_complete_without_a_stop.toml"
    ));
    assert_eq!(s.stop_reason, "completed");
    assert_eq!((s.flows.completed, s.flows.bytes_acked), (2, 10_000_000));
    assert!(s.ecn_marks > 0);
    assert_eq!(
        s.drops, 0,
        "ECN* keeps the 100-packet buffer from overflowing"
    );
}

#[test]
fn stop_time_cuts_the_run_and_reports_it() {
    let (w, s) = common::run(include_str!(
        "scenarios/workloads/stop_time_cuts_the_run_and_reports_it.toml"
    ));
    assert_eq!(s.stop_reason, "stop_time");
    assert_eq!(w.now().ps(), 2_000_000_000);
    assert_eq!(s.flows.completed, 0);
    // About 2 ms of a 10 Gb/s link.
    let acked = w.flows()[0].sender.bytes_acked() as f64;
    assert!(acked > 0.8 * 2e-3 * 10e9 / 8.0 * 1460.0 / 1538.0, "{acked}");
}

#[test]
fn the_event_cap_stops_a_run() {
    let sc = common::scenario(include_str!(
        "scenarios/workloads/the_event_cap_stops_a_run.toml"
    ));
    let mut w = dcnsim::world::World::build(&sc, 1).unwrap();
    assert_eq!(w.run(), dcnsim::world::StopReason::EventLimit);
    assert_eq!(w.events_processed(), 1000);
}
