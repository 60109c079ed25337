//! Class queues and schedulers end to end: shares follow the scheduler, not
//! the number of flows.
use crate::common;
use transport::SenderEnd;

use dcnsim::world::World;
use net::HostId;

/// 1 flow in class 0 and 4 flows in class 1 into host 0 over a 10 Gb/s
/// star, DCTCP with ECN marking at 30 packets (no drops: the scheduler
/// alone sets the shares).
fn shares(scheduler: &str) -> (f64, f64, World) {
    let text = common::fill(
        include_str!("scenarios/switch_classes/shares.toml"),
        &[("scheduler", scheduler)],
    );
    let (w, _) = common::run(&text);
    let port = w.fabric().port(w.fabric().port_towards_host(HostId(0)));
    let (a, b) = (
        port.class_stats[0].tx_bytes as f64,
        port.class_stats[1].tx_bytes as f64,
    );
    (a / (a + b), b / (a + b), w)
}

#[test]
fn dwrr_with_equal_quanta_splits_the_link_per_class() {
    let (a, b, w) = shares("[switch.scheduler]\nkind = \"dwrr\"\nquantum = \"1500B\"");
    eprintln!("DWRR shares: class 0 {a:.3}, class 1 {b:.3}");
    assert!((0.45..=0.55).contains(&a), "class 0 (1 flow) got {a:.3}");
    // Packets were classified by priority: each class saw only its flows.
    let port = w.fabric().port(w.fabric().port_towards_host(HostId(0)));
    assert!(port.class_stats[0].tx_packets > 0 && port.class_stats[1].tx_packets > 0);
}

#[test]
fn dwrr_quanta_set_the_ratio() {
    let (a, _, _) = shares("[switch.scheduler]\nkind = \"dwrr\"\nquanta = [\"4500B\", \"1500B\"]");
    eprintln!("DWRR 3:1 share of class 0: {a:.3}");
    assert!((0.70..=0.80).contains(&a), "class 0 got {a:.3}, want ~0.75");
}

#[test]
fn wrr_with_equal_quanta_also_splits_evenly() {
    let (a, _, _) = shares("[switch.scheduler]\nkind = \"wrr\"\nquantum = \"1500B\"");
    assert!((0.45..=0.55).contains(&a), "class 0 got {a:.3}");
}

#[test]
fn strict_priority_gives_class_zero_what_it_wants() {
    let (a, _, _) = shares("[switch.scheduler]\nkind = \"strict-priority\"");
    eprintln!("SP share of class 0: {a:.3}");
    assert!(a > 0.9, "class 0 got only {a:.3}");
}

#[test]
fn a_single_fifo_shares_per_flow() {
    // Every priority in class 0: one FIFO, so the lone flow gets about a
    // fifth (per-flow sharing), not half.
    let (_, _, w) = shares("class_of_priority = [0, 0, 0, 0, 0, 0, 0, 0]");
    let acked: Vec<f64> = w
        .flows()
        .iter()
        .map(|f| f.sender.bytes_acked() as f64)
        .collect();
    let lone = acked[0] / acked.iter().sum::<f64>();
    eprintln!("FIFO share of the lone flow: {lone:.3}");
    assert!(lone < 0.4, "the lone flow got {lone:.3} of a shared FIFO");
    let port = w.fabric().port(w.fabric().port_towards_host(HostId(0)));
    assert_eq!(port.class_stats[1].tx_packets, 0);
}

#[test]
fn scheduler_errors_are_located() {
    let base = "[topology]\nkind = \"star\"\nhosts = 2\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[switch]\nbuffer = \"100pkt\"\n";
    let err =
        |extra: &str| dcnsim::scenario::parse_str("s.toml", &format!("{base}{extra}")).unwrap_err();
    let e = err("classes = 33\n");
    assert_eq!((e.key.as_str(), e.line), ("switch.classes", 8), "{e}");
    assert!(e.to_string().contains("1 to 32"), "{e}");
    let e = err(&format!("classes = 2\nclass_of_priority = {:?}\n", [0; 65]));
    assert!(e.to_string().contains("1 to 64 entries"), "{e}");
    // A listed table covers the priorities it lists: a workload beyond it
    // is refused, naming the table.
    let flows = "[[workload]]\nkind = \"flows\"\ncdf = \"websearch\"\nload = 0.1\nhosts = \"0-1\"\nflows = 5\n";
    let e = err(&format!(
        "classes = 2\nclass_of_priority = [0, 1]\n{flows}priority = 2\n"
    ));
    assert_eq!(e.key, "workload[0].priority", "{e}");
    assert!(
        e.to_string().contains("lists priorities 0 to 1 only"),
        "{e}"
    );
    let e = err(&format!(
        "classes = 2\n{flows}priority = 60\nservices = 8\n"
    ));
    assert!(e.to_string().contains("priority 67 does not exist"), "{e}");
    let e = err(&format!("{flows}services = 0\n"));
    assert_eq!(e.key, "workload[0].services", "{e}");
    assert!(e.to_string().contains("give 1 to 64"), "{e}");
    let e = err("classes = 2\nclass_of_priority = [0, 1, 2, 0, 0, 0, 0, 0]\n");
    assert!(e.to_string().contains("class 2 does not exist"), "{e}");
    let e = err("classes = 2\n[switch.scheduler]\nkind = \"wrr\"\nquantum = \"1000B\"\n");
    assert!(e.to_string().contains("below 1500B"), "{e}");
    let e = err("classes = 2\n[switch.scheduler]\nkind = \"dwrr\"\n");
    assert!(e.to_string().contains("`quantum`"), "{e}");
    let e = err("classes = 2\n[switch.scheduler]\nkind = \"fq\"\n");
    assert!(
        e.to_string().contains("\"dwrr\", \"wrr\", \"sp-dwrr\""),
        "{e}"
    );
    let e = err(
        "classes = 2\n[switch.scheduler]\nkind = \"sp-dwrr\"\nstrict = 2\nquantum = \"1500B\"\n",
    );
    assert_eq!(e.key, "switch.scheduler.strict", "{e}");
    let e = err(
        "[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = [1]\nsize = \"1MB\"\npriority = 64\n",
    );
    assert_eq!(e.key, "workload[0].priority", "{e}");
}

/// MQ-ECN 5.3.1's 32 queues: 32 long flows into one host, flow k in class
/// k, share the link equally under DWRR with equal quanta (every class
/// within 20% of 1/32 of the bytes).
#[test]
fn thirty_two_classes_share_the_link_by_dwrr() {
    let mut text = String::from(include_str!(
        "scenarios/switch_classes/thirty_two_classes_share_the_link_by_dwrr.toml"
    ));
    for k in 0..32 {
        text += &format!(
            "[[workload]]\nkind = \"long-flows\"\npairs = [[{}, 0]]\npriority = {k}\n",
            k + 1
        );
    }
    let (w, _) = common::run(&text);
    let port = w.fabric().port(w.fabric().port_towards_host(HostId(0)));
    let bytes: Vec<f64> = (0..32)
        .map(|c| port.class_stats[c].tx_bytes as f64)
        .collect();
    let total: f64 = bytes.iter().sum();
    for (c, b) in bytes.iter().enumerate() {
        let share = b / total * 32.0;
        assert!(
            (0.8..=1.2).contains(&share),
            "class {c}: {share:.3} of an equal share"
        );
    }
}

/// `services = S` spreads a `flows` workload's pairs as MQ-ECN's ns-2
/// script does: pair (i, j) of H hosts has priority `priority` +
/// (j x H + i) mod S, and every service gets flows.
#[test]
fn services_spread_the_pairs_by_the_ns2_mapping() {
    let (w, _) = common::run(include_str!(
        "scenarios/switch_classes/services_spread_the_pairs_by_the_ns2_mapping.toml"
    ));
    let mut seen = [0; 4];
    for f in w.flows() {
        let a = f.sender.addr();
        let want = 2 + (a.dst.0 * 5 + a.src.0) % 4;
        assert_eq!(a.priority as u32, want, "flow {} -> {}", a.src.0, a.dst.0);
        seen[(a.priority - 2) as usize] += 1;
    }
    assert!(seen.iter().all(|&n| n > 20), "flows per service: {seen:?}");
}
