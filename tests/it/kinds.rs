//! Small runs of kinds that no paper scenario uses (`scenarios/kinds/`):
//! each has a golden; here, the two schedulers' difference.
use crate::common;

/// The largest queue of each class at the port towards host 0.
fn class_peaks(text: &str) -> Vec<u64> {
    let (w, _) = common::run(text);
    let csv = dcnsim::report::ports_csv(&w.run_record());
    let cols = dcnsim::report::columns::PORTS;
    let at = |n: &str| cols.index(n).expect("column");
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[at("peer_node")] == "0" && f[at("class")] != "all")
        .map(|f| f[at("max_packets")].parse().expect("number"))
        .collect()
}

#[test]
fn sp_dwrr_serves_its_strict_class_first_where_wrr_shares() {
    let text = std::fs::read_to_string("scenarios/kinds/schedulers-poisson.toml").expect("shipped");
    let wrr = class_peaks(&text);
    let sp = class_peaks(&text.replace(
        "kind = \"wrr\"\nquantum = \"1500B\"",
        "kind = \"sp-dwrr\"\nstrict = 1\nquantum = \"1500B\"",
    ));
    assert_eq!((wrr.len(), sp.len()), (3, 3));
    // 4 Gb/s offered per class into 10 Gb/s: WRR's third of the port is
    // short of class 0's load, so it queues; strict priority never lets it.
    assert!(
        sp[0] <= 2 && wrr[0] > 20,
        "class 0 peaks: sp-dwrr {sp:?}, wrr {wrr:?}"
    );
    assert!(
        sp[1] > wrr[1] && sp[2] > wrr[2],
        "the DWRR classes wait more: {sp:?} vs {wrr:?}"
    );
}
