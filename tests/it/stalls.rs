//! Issue 38, the last hang: a run whose packets stop moving while timers
//! keep firing ends as stalled, naming the stuck flows, long before the
//! event cap; a flow waiting on a retransmission timeout or its start is
//! not stuck; and the scenario that hung (R-AQM's VIQ in front of RoCE
//! with no `rto`) is refused at load, or completes with one.
use crate::common;
use dcnsim::world::{StopReason, World};

fn raqm_roce(rto: bool) -> Vec<String> {
    let mut v = vec![r#"switch.ingress={kind="r-aqm"}"#.to_string()];
    if rto {
        v.push(r#"transport.rto="10ms""#.to_string());
    }
    v
}

#[test]
fn raqm_in_front_of_roce_without_rto_is_refused_at_load_and_runs_with_one() {
    let e = dcnsim::scenario::load(
        std::path::Path::new("scenarios/r-aqm/roce-incast.toml"),
        &raqm_roce(false),
    )
    .expect_err("refused");
    let text = e.to_string();
    assert!(
        text.contains("transport.rto") && text.contains("VIQ"),
        "{text}"
    );
    let (w, s) = common::run_file("scenarios/r-aqm/roce-incast.toml", &raqm_roce(true));
    assert_eq!(s.flows.completed, 100, "{:?}", w.stall_detail());
}

/// The livelock itself, built past the loader's refusal: DCQCN's timers
/// fire on while tail ACKs the VIQ dropped are never repaired. It ends as
/// stalled within about 3 * 10^7 events (the cap is 10^9 here), naming
/// the stuck flows.
#[test]
fn a_livelock_ends_as_stalled_naming_the_stuck_flows() {
    let mut sc = common::scenario_file("scenarios/r-aqm/roce-incast.toml", &raqm_roce(true));
    for t in &mut sc.transports {
        if let transport::TransportConfig::Roce(c) = &mut t.config {
            c.rto = None;
        }
    }
    let mut w = World::build(&sc, sc.simulation.seed).expect("builds");
    let stop = w.run();
    assert_eq!(stop, StopReason::Stalled);
    assert!(
        w.events_processed() < 100_000_000,
        "{}",
        w.events_processed()
    );
    let why = w.stall_detail().expect("a livelock report");
    eprintln!("{why}");
    assert!(
        why.contains("flows are stuck") && why.contains("flow "),
        "{why}"
    );
    assert!(w.unfinished_flows() > 0);
}

/// The same livelock with another flow due to start at 1 s: a pending
/// start is progress to come, so the watch waits for it (the late flow
/// runs and completes), and only then calls the run stalled.
#[test]
fn a_pending_flow_start_is_not_a_stall() {
    let mut overrides = raqm_roce(true);
    overrides.push(
        r#"workload=[{ kind = "incast", receiver = 0, senders = "1-100", size = "3.2MB", priority = 3 }, { kind = "long-flows", pairs = [[101, 102]], start = "1s", size = "100KB", priority = 3 }]"#
            .to_string(),
    );
    let mut sc = common::scenario_file("scenarios/r-aqm/roce-incast.toml", &overrides);
    for t in &mut sc.transports {
        if let transport::TransportConfig::Roce(c) = &mut t.config {
            c.rto = None;
        }
    }
    let mut w = World::build(&sc, sc.simulation.seed).expect("builds");
    assert_eq!(w.run(), StopReason::Stalled);
    let late = w.flows.last().expect("the late flow");
    assert_eq!(late.start.ps(), 1_000_000_000_000);
    assert!(
        late.received_at.is_some(),
        "the late flow ran: {:?}",
        w.stall_detail()
    );
    assert!(w.now() > late.start);
}
