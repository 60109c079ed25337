//! The UEC transport end to end: spraying beats one path per flow,
//! trimming spares an incast its timeouts, REPS steers around a degraded
//! link, and what needs one path per flow refuses a spraying transport.

use crate::common::run_file;
use dcnsim::report::RunSummary;
use dcnsim::scenario::parse_str;

fn set(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn fct(s: &RunSummary) -> (f64, f64) {
    let f = &s.flows.fct_us;
    (
        f.mean.expect("flows completed"),
        f.p99.expect("flows completed"),
    )
}

#[test]
fn spraying_beats_one_entropy_value_per_flow_on_a_permutation() {
    let file = "scenarios/ai-fabric/uec-perm-k8.toml";
    let k4 = ["topology.k=4", "workload[0].hosts=0-15"];
    let run = |spray: &str| {
        let mut o = set(&k4);
        o.push(format!("transport.spray={spray}"));
        let (_, s) = run_file(file, &o);
        assert_eq!(s.flows.completed, 16, "{spray}");
        fct(&s)
    };
    let (none, _) = run("none");
    // Measured (seed 1): 600 us with one value per flow (the hash's
    // collisions), 378-392 us sprayed; 4 MB take 325 us at line rate.
    for spray in ["oblivious", "reps"] {
        let (mean, _) = run(spray);
        assert!(none > 1.4 * mean, "{spray}: {mean} us, one path {none} us");
        assert!(mean < 1.3 * 325.0, "{spray}: {mean} us");
    }
}

#[test]
fn trimming_spares_an_incast_its_timeouts() {
    let file = "scenarios/ai-fabric/uec-incast-k8.toml";
    let (_, trimmed) = run_file(file, &[]);
    let (_, dropped) = run_file(file, &set(&["switch.trim=false"]));
    for s in [&trimmed, &dropped] {
        assert_eq!(s.flows.completed, 32);
    }
    // Measured: 4 timeouts with trimming (a resend trimmed again behind
    // a full header queue), 2,223 without: every drop waits for its RTO.
    assert!(trimmed.flows.timeouts < 20, "{}", trimmed.flows.timeouts);
    assert!(dropped.flows.timeouts > 1000, "{}", dropped.flows.timeouts);
    assert_eq!(trimmed.drops, 0, "every overflow was trimmed");
    assert!(dropped.drops > 1000, "{}", dropped.drops);
}

#[test]
fn reps_shortens_the_tail_around_a_degraded_link() {
    let file = "scenarios/ai-fabric/uec-failed-link-k8.toml";
    let (_, reps) = run_file(file, &[]);
    let (_, oblivious) = run_file(file, &set(&["transport.spray=oblivious"]));
    let ((_, reps_p99), (_, obl_p99)) = (fct(&reps), fct(&oblivious));
    // Measured over seeds 1-4: REPS 426-444 us, oblivious 458-492 us.
    assert!(
        reps_p99 < 0.95 * obl_p99,
        "REPS {reps_p99} us, oblivious {obl_p99} us"
    );
}

#[test]
fn what_needs_one_path_per_flow_refuses_a_spraying_transport() {
    let base = std::fs::read_to_string("scenarios/ai-fabric/uec-incast-k8.toml").expect("shipped");
    let with = |extra: &str| parse_str("t.toml", &format!("{base}\n{extra}\n"));
    let e = with("[routing]\nspray = \"oblivious\"").unwrap_err();
    assert_eq!(e.key, "routing.spray", "{e}");
    assert!(e.to_string().contains("entropy values itself"), "{e}");
    let e = with("[output]\nmax_min = true").unwrap_err();
    assert_eq!(e.key, "transport.spray", "{e}");
    let plain = base.replace("spray = \"oblivious\"", "spray = \"none\"");
    parse_str("t.toml", &format!("{plain}\n[output]\nmax_min = true\n"))
        .expect("one path per flow");
    let e = parse_str(
        "t.toml",
        &base.replace("spray = \"oblivious\"", "spray = \"spiral\""),
    )
    .unwrap_err();
    assert_eq!(e.key, "transport.spray", "{e}");
    assert!(e.to_string().contains("\"reps\""), "{e}");
    let e = parse_str(
        "t.toml",
        &base.replace("kind = \"uec\"", "kind = \"uec\"\nentropies = 48"),
    )
    .unwrap_err();
    assert_eq!(e.key, "transport.entropies", "{e}");
}

#[test]
fn receiver_credit_shares_an_incast_round_robin_with_fewer_trims() {
    let file = "scenarios/ai-fabric/uec-incast-k8.toml";
    let trims = |w: &dcnsim::world::World| -> u64 {
        w.fabric()
            .ports()
            .values()
            .enumerate()
            .map(|(i, _)| w.fabric().trimmed(net::PortId(i as u32)))
            .sum()
    };
    let (nscc_w, nscc) = run_file(file, &[]);
    let (rccc_w, rccc) = run_file(file, &set(&["transport.rccc=true"]));
    assert_eq!(rccc.flows.completed, 32);
    // Measured (seed 1): 1,276 trimmed against 1,910, every one in the
    // speculative first window; flows finish together (p50 2.60 ms, last
    // 2.64) where NSCC alone lets some finish early (p50 2.37 ms).
    assert!(
        trims(&rccc_w) * 10 < trims(&nscc_w) * 8,
        "{} vs {}",
        trims(&rccc_w),
        trims(&nscc_w)
    );
    let spread = |s: &RunSummary| {
        let f = &s.flows.fct_us;
        f.max.expect("completed") - f.p50.expect("completed")
    };
    assert!(
        spread(&rccc) * 4.0 < spread(&nscc),
        "{} vs {}",
        spread(&rccc),
        spread(&nscc)
    );
}

#[test]
fn receiver_credit_recovers_a_message_sent_whole_in_its_speculative_window() {
    // 64 KB fits the first, speculative window: when a packet of it is
    // trimmed, no data packet is left to tell the receiver the sender
    // needs credit again. The sender asks with an RTS (htsim's sendRTS);
    // without it every flow stalled.
    let file = "scenarios/ai-fabric/uec-incast-k8.toml";
    let (w, s) = run_file(
        file,
        &set(&[
            "transport.rccc=true",
            "workload[0].size=64KB",
            "workload[0].senders=\"1-8\"",
        ]),
    );
    assert_eq!(s.flows.completed, 8);
    let asked: u64 = w
        .flow_rows()
        .iter()
        .map(|f| f.record.counters.window_probes)
        .sum();
    assert!(asked > 0, "no RTS was needed: the test lost its point");
}

/// Issue 56: UEC's counters reconcile. `timeouts` counts the packets its
/// timer gives up (one by one, as htsim's `rtxTimerExpired`), and
/// `sack_recovered` those a NACK names; each of them went again
/// (`retransmissions`), was acknowledged before it could (a late ACK:
/// `given_up_then_acked`), or still waits (`resends_pending`). With an
/// `rto` below the incast's queueing delay many timeouts are spurious,
/// so timeouts exceed retransmissions (as 399 against 309 did), by
/// exactly the late ACKs.
#[test]
fn timeouts_and_retransmissions_reconcile() {
    for sets in [vec!["switch.trim=false", "transport.rto=\"20us\""], vec![]] {
        let sets: Vec<String> = sets.into_iter().map(String::from).collect();
        let (_, s) = run_file("scenarios/ai-fabric/uec-incast-k8.toml", &sets);
        let f = &s.flows;
        assert_eq!(
            f.retransmissions + f.given_up_then_acked + f.resends_pending,
            f.timeouts + f.sack_recovered,
            "{sets:?}: {f:?}"
        );
        if !sets.is_empty() {
            assert!(
                f.timeouts > f.retransmissions && f.given_up_then_acked > 0,
                "{f:?}"
            );
        }
    }
}

/// Issue 57: htsim's other sender controllers run from `sender_cc`. On
/// the trimmed 32-to-1 incast a constant window never backs off, so
/// nearly every packet beyond the first is trimmed and NACKed again and
/// again; DCTCP's NACK cut keeps it near NSCC; with receiver credit alone
/// the receiver's pacing keeps the NACKs to the speculative window's.
#[test]
fn htsims_sender_controllers_run_from_sender_cc() {
    let file = "scenarios/ai-fabric/uec-incast-k8.toml";
    let run = |sets: &[&str]| {
        let (_, s) = run_file(file, &set(sets));
        assert_eq!(s.flows.completed, 32, "{sets:?}");
        s
    };
    let nscc = run(&[]);
    let dctcp = run(&["transport.sender_cc=\"dctcp\""]);
    let constant = run(&["transport.sender_cc=\"constant\""]);
    let none = run(&["transport.sender_cc=\"none\"", "transport.rccc=true"]);
    let nacked = |s: &RunSummary| s.flows.sack_recovered;
    // Measured (seed 1): NACKs 1,910 (NSCC), 1,925 (DCTCP), 301,292
    // (constant), 1,282 (credit alone); mean FCT 2,305, 2,360, 3,900 and
    // 2,595 us.
    assert!(
        nacked(&constant) > 50 * nacked(&nscc),
        "{}",
        nacked(&constant)
    );
    assert!(nacked(&dctcp) < 2 * nacked(&nscc), "{}", nacked(&dctcp));
    assert!(nacked(&none) < nacked(&nscc), "{}", nacked(&none));
    assert!(fct(&constant).0 > 1.4 * fct(&nscc).0);
    let cc = |s: &RunSummary| s.transports[0].cc;
    assert_eq!(
        [cc(&nscc), cc(&dctcp), cc(&constant), cc(&none)],
        ["nscc", "dctcp", "constant", "rccc"]
    );
}
