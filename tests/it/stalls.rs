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
    let late = w.flows().last().expect("the late flow");
    assert_eq!(late.start.ps(), 1_000_000_000_000);
    assert!(
        late.received_at.is_some(),
        "the late flow ran: {:?}",
        w.stall_detail()
    );
    assert!(w.now() > late.start);
}

/// Issue 56: a host's cable fails while it has traffic. Progress is data
/// delivered, not packets moved, so resending into the dead cable every
/// `rto` is no progress: the ring all-reduce (UEC, a 100 us rto) ends as
/// stalled within a few milliseconds of simulated time, naming the
/// failure that cut the flows off (it spun towards the event cap for tens
/// of minutes before).
#[test]
fn a_host_cut_off_by_a_failure_stalls_the_run_naming_the_failure() {
    let failure = r#"failure=[{ between = ["host4", "tor1"], at = "10us" }]"#.to_string();
    let mut sc = common::scenario_file("scenarios/ai-fabric/ring-allreduce-k8.toml", &[failure]);
    sc.simulation.max_events = 100_000_000;
    let mut w = World::build(&sc, 1).expect("builds");
    assert_eq!(w.run(), StopReason::Stalled);
    assert!(w.now().ps() < 20_000_000_000, "stalled at {}", w.now());
    let why = w.stall_detail().expect("a stall report");
    assert!(
        why.contains("host4's cable is down") && why.contains("failure[0]"),
        "{why}"
    );
    assert!(why.contains("never started, waiting on them"), "{why}");
}

/// The same on one TCP permutation with few events: host0's cable fails
/// at 30 us and its two flows back their timeouts off towards `rto_max`
/// (they ran until simulated time overflowed at 213 days and blamed
/// `transport.rto_initial`). The watch's checks at points of simulated
/// time catch it after 8 timeouts each, within a minute of simulated
/// time; the other 14 flows complete first.
#[test]
fn a_quiet_run_of_timeouts_stalls_long_before_time_runs_out() {
    let failure = r#"failure=[{ between = ["host0", "tor0"], at = "30us" }]"#.to_string();
    let (w, s) = common::run_file("scenarios/kinds/k-ary-permutation.toml", &[failure]);
    assert_eq!(s.flows.completed, 14);
    let why = w.stall_detail().expect("stalled");
    assert!(w.now().ps() < 120 * 1_000_000_000_000, "{}", w.now());
    assert!(why.contains("host0's cable is down"), "{why}");
    assert!(why.contains("8 timeouts"), "{why}");
}

/// A planes fabric whose host-NIC cable fails: the same stall, in a run
/// cut into LPs too (the watch sums what every LP delivered).
#[test]
fn a_host_nic_cable_failure_stalls_cut_or_whole() {
    let failure = r#"failure=[{ between = ["host0", "nic0"], at = "10us" }]"#.to_string();
    let (w, s) = common::run_file("scenarios/ai-fabric/planes-k4.toml", &[failure]);
    assert_eq!(s.flows.completed, 14);
    assert!(
        w.stall_detail()
            .expect("stalled")
            .contains("host0's cable is down")
    );

    let perm = r#"failure=[{ between = ["host0", "tor0"], at = "30us" }]"#.to_string();
    let cut = [
        perm,
        "simulation.partition=\"pods\"".to_string(),
        "simulation.lps=4".to_string(),
    ];
    let sc = common::scenario_file("scenarios/kinds/k-ary-permutation.toml", &cut);
    let planned = dcnsim::registry::workload::plan_all(&sc, 1);
    let partition = dcnsim::world::partition_for(&sc, &planned).expect("cuts");
    assert_eq!(partition.lps, 4);
    let lps = dcnsim::world::Lps::build(&sc, 1, &planned, partition, dcnsim::world::Threads(2))
        .expect("builds");
    let (w, stop, _) = lps.run(dcnsim::world::Threads(2), u64::MAX, &mut |_| true);
    assert_eq!(stop, StopReason::Stalled);
    assert!(w.now().ps() < 120 * 1_000_000_000_000, "{}", w.now());
    let why = w.stall_detail().expect("a stall report");
    assert!(why.contains("host0's cable is down"), "{why}");
}

/// A failure routed around late is a wait, not a stall: the flows hashed
/// into the dead link deliver nothing for 20 ms, but a reroute is due,
/// and after it every flow completes.
#[test]
fn a_reroute_still_to_come_is_not_a_stall() {
    let text = std::fs::read_to_string("scenarios/ai-fabric/link-failure.toml").expect("shipped");
    let text = text
        .replace("stop_time = \"3ms\"", "")
        .replace("reroute_after = \"100us\"", "reroute_after = \"20ms\"");
    let (w, s) = common::run(&text);
    assert_eq!(s.flows.completed, 16, "{:?}", w.stall_detail());
    assert!(w.now().ps() > 20_000_000_000, "{}", w.now());
}

/// Issue 56: flows stuck at the stop say so. Every packet dropped at the
/// switch, a 40 ms stop before the SYNs' 1 s initial RTO fires: no flow
/// completes, and no timeout or SYN retransmission is counted yet.
/// summary.json, sweep.csv and the terminal count the flows that ended
/// waiting on a timer still to fire (no packet of theirs left in the
/// network) and those with nothing acknowledged.
#[test]
fn flows_stuck_at_the_stop_are_counted_as_waiting_on_their_timer() {
    let text = "[simulation]\nstop_time = \"40ms\"\n[topology]\nkind = \"star\"\nhosts = 4\n\
                link_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[switch]\nbuffer = \"1pkt\"\n\
                [switch.aqm]\nkind = \"red\"\nk_min = \"0pkt\"\nk_max = \"0pkt\"\np_max = 1.0\n\
                ecn = false\n[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = [1, 2, 3]\n\
                size = \"1MB\"\n";
    let (_, s) = common::run(text);
    let f = &s.flows;
    assert_eq!((f.completed, f.timeouts, f.syn_retransmissions), (0, 0, 0));
    assert_eq!(f.unfinished_waiting_on_timer, 3);
    assert_eq!(f.unfinished_nothing_acked, 3);
    assert!(
        s.human()
            .contains("unfinished        3 flows: 3 waiting on a retransmission timer")
    );
    // A run that completes has neither.
    let (_, done) = common::run_file("scenarios/quickstart.toml", &[]);
    assert_eq!(
        (
            done.flows.unfinished_waiting_on_timer,
            done.flows.unfinished_nothing_acked
        ),
        (0, 0)
    );
}
