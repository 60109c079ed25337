//! The queue model against M/D/1 theory: Poisson arrivals of fixed-size
//! packets at the sending host's NIC. Mean wait W = rho S / (2 (1 - rho)).
use crate::common;

fn md1(load: f64) -> (f64, f64) {
    let (_, s) = common::run(&common::fill(
        include_str!("scenarios/queue_md1/md1.toml"),
        &[("load", &load.to_string())],
    ));
    let src = &s.sources[0];
    assert_eq!(src.packets_sent, 1_000_000);
    assert_eq!(src.packets_received, 1_000_000);
    assert_eq!(s.drops, 0);
    // S: 1538 wire bytes at 10 Gb/s.
    let service_ns = 1538.0 * 8.0 / 10.0;
    let theory = load * service_ns / (2.0 * (1.0 - load));
    let wait_ns = src.mean_nic_wait_ns.expect("packets were sent");
    eprintln!("load {load}: W = {wait_ns:.2} ns, M/D/1 {theory:.2} ns");
    (wait_ns, theory)
}

#[test]
fn md1_mean_wait_at_load_0_5_within_3_percent() {
    let (got, want) = md1(0.5);
    assert!(
        (got / want - 1.0).abs() < 0.03,
        "W = {got:.2} ns, M/D/1 says {want:.2} ns"
    );
}

#[test]
fn md1_mean_wait_at_load_0_8_within_5_percent() {
    let (got, want) = md1(0.8);
    assert!(
        (got / want - 1.0).abs() < 0.05,
        "W = {got:.2} ns, M/D/1 says {want:.2} ns"
    );
}
