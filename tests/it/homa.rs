//! Homa end to end: short messages preempt long ones through the
//! receiver's grants and the switches' priority queues (Homa 3.4-3.5).

use crate::common;
use transport::SenderEnd;

/// The completion times (us) of the long and the short messages of
/// scenarios/homa/incast-preempt.toml under `overrides`, and the drops.
fn fcts(overrides: &[&str]) -> (Vec<f64>, Vec<f64>, u64) {
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let (w, s) = common::run_file("scenarios/homa/incast-preempt.toml", &overrides);
    let (mut long, mut short) = (Vec::new(), Vec::new());
    for f in w.flows() {
        let r = f.sender.record();
        let done = r.completed_at.expect("every message completes").ps() as f64 / 1e6;
        let fct = done - r.started_at.expect("started").ps() as f64 / 1e6;
        if f.workload == 0 {
            long.push(fct)
        } else {
            short.push(fct)
        }
    }
    (long, short, s.drops)
}

#[test]
fn short_messages_preempt_long_ones_in_an_incast() {
    let (long, short, drops) = fcts(&[]);
    assert_eq!(drops, 0);
    // Four 20 KB messages into a 100 Gb/s host take 6.4 us of its link
    // together; with 4 us of base RTT they finish within 12 us although
    // 8 MB of long messages are in progress.
    let worst_short = short.iter().cloned().fold(0.0, f64::max);
    assert!(
        worst_short < 12.0,
        "short messages took up to {worst_short} us"
    );
    // The long ones share what is left: 8 MB at 100 Gb/s is 640 us.
    let last_long = long.iter().cloned().fold(0.0, f64::max);
    assert!(
        (640.0..760.0).contains(&last_long),
        "long messages ended at {last_long} us"
    );
    // Without priority queues (one FIFO class) the short messages queue
    // behind the long ones' packets.
    let (_, fifo_short, _) = fcts(&["switch.classes=1"]);
    let fifo_worst = fifo_short.iter().cloned().fold(0.0, f64::max);
    assert!(
        fifo_worst > 1.5 * worst_short,
        "FIFO {fifo_worst} us against priorities {worst_short} us"
    );
}

#[test]
fn homa_refuses_priorities_the_switch_map_lacks_and_pfc() {
    let err = |set: &[&str]| {
        let o: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        dcnsim::scenario::load(
            std::path::Path::new("scenarios/homa/incast-preempt.toml"),
            &o,
        )
        .expect_err("refused")
        .to_string()
    };
    let e = err(&["workload[0].priority=60"]);
    assert!(
        e.contains("workload[0].transport") && e.contains("60 to 67"),
        "{e}"
    );
    let e = err(&["switch.class_of_priority=[0, 1, 2, 3]"]);
    assert!(e.contains("lists 0 to 3 only"), "{e}");
    let e = err(&["transport.priorities=9"]);
    assert!(
        e.contains("transport.priorities") && e.contains("2 to 8"),
        "{e}"
    );
    let text = "[topology]\nkind = \"star\"\nhosts = 3\nlink_rate = \"100Gbps\"\n\
                link_delay = \"1us\"\n[switch]\nshared_buffer = \"4MB\"\nclasses = 8\n\
                [switch.pfc]\nlossless = [3]\n[transport]\nkind = \"homa\"\n\
                [[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-2\"\nsize = \"1MB\"\n";
    let e = dcnsim::scenario::parse_str("pfc.toml", text)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("pfc.toml:13:") && e.contains("without switch.pfc"),
        "{e}"
    );
    // `switch.pfc = false` (what a sweep case sets) turns PFC off.
    let off = |v: &str| dcnsim::scenario::load_str("pfc.toml", text, &[format!("switch.pfc={v}")]);
    let sc = off("false").expect("PFC off, Homa runs");
    assert!(sc.switch.pfc.is_none());
    let e = off("true").expect_err("not a table").to_string();
    assert!(
        e.contains("switch.pfc") && e.contains("or false for no PFC"),
        "{e}"
    );
}
