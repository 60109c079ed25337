//! `ports.csv` and the VIQ rows of `queues.csv` report what the switch did.
use crate::common;

use net::HostId;

const SCENARIO: &str = include_str!("scenarios/ports_csv/scenario.toml");

#[test]
fn ports_csv_has_a_row_per_port_and_class_with_viq_counters() {
    let (w, s) = common::run(SCENARIO);
    let csv = dcnsim::report::ports_csv(&w.run_record());
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let switch_ports = w.fabric().ports().values().filter(|p| p.at_switch).count();
    // One "all" row per switch port and one per class (2 classes).
    assert_eq!(rows.len(), switch_ports * 3);
    let port = w.fabric().port_towards_host(HostId(0)).0.to_string();
    let all = rows
        .iter()
        .find(|r| r[0] == port && r[col("class")] == "all")
        .expect("the receiver's port");
    let held: u64 = all[col("viq_held")].parse().expect("number");
    let released: u64 = all[col("viq_released")].parse().expect("number");
    assert!(
        held > 0 && held == released,
        "held {held}, released {released}"
    );
    // The only other pure ACKs are the senders' last ones (of the receiver's
    // FIN), one per flow, held at the senders' ports.
    assert_eq!(s.ingress.held - held, 20);
    let total_drops: u64 = rows
        .iter()
        .filter(|r| r[col("class")] == "all")
        .map(|r| r[col("drops")].parse::<u64>().expect("number"))
        .sum();
    assert_eq!(
        total_drops,
        s.drops_by_cause.overflow + s.drops_by_cause.aqm
    );
}

#[test]
fn queues_csv_samples_the_viq() {
    let (w, _) = common::run(SCENARIO);
    let csv = dcnsim::report::queues_csv(&w.run_record());
    let viq: Vec<u64> = csv
        .lines()
        .filter(|l| l.split(',').nth(4) == Some("viq"))
        .map(|l| {
            l.rsplit(',')
                .next()
                .expect("packets")
                .parse()
                .expect("number")
        })
        .collect();
    assert!(!viq.is_empty());
    assert!(viq.iter().any(|&n| n > 0), "the VIQ was never seen holding");
}
