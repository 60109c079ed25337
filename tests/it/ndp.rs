//! NDP end to end: trimming and pull pacing spare an incast its
//! timeouts and share the receiver fairly, and spraying beats one path per
//! flow on a permutation.

use crate::common::run_file;

fn set(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn pull_pacing_and_trimming_carry_an_incast_without_a_timeout() {
    let file = "scenarios/ai-fabric/ndp-incast.toml";
    let (_, trimmed) = run_file(file, &[]);
    assert_eq!(trimmed.flows.completed, 15);
    assert_eq!((trimmed.flows.timeouts, trimmed.drops), (0, 0));
    // 15 MB through one 100 Gb/s port: 1.22 ms at line rate. Measured
    // (seed 1): the last message at 1.42 ms.
    let last = trimmed.flows.fct_us.max.expect("completed");
    assert!(last < 1.25 * 1_220.0, "{last} us");
    let (_, dropped) = run_file(file, &set(&["switch.trim=false"]));
    // Measured: 678 drops, each waiting for its 1 ms timeout; 7.0 ms.
    assert!(dropped.flows.timeouts > 100, "{}", dropped.flows.timeouts);
    assert!(dropped.flows.fct_us.max.expect("completed") > 3.0 * last);
}

#[test]
fn spraying_beats_one_path_per_flow_on_a_permutation() {
    let file = "scenarios/ai-fabric/ndp-perm-k4.toml";
    let (_, sprayed) = run_file(file, &[]);
    let (_, one) = run_file(file, &set(&["transport.spray=none"]));
    let mean = |s: &dcnsim::report::RunSummary| s.flows.fct_us.mean.expect("completed");
    // Measured (seed 1): 432 us sprayed with 4 resends, 576 us on one
    // path each with 2,112.
    assert!(
        mean(&one) > 1.2 * mean(&sprayed),
        "{} vs {}",
        mean(&one),
        mean(&sprayed)
    );
    assert!(
        sprayed.flows.retransmissions < 50,
        "{}",
        sprayed.flows.retransmissions
    );
}
