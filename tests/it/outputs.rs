//! Outputs a newcomer can trust: no statistic of an empty set reads as a
//! measurement, an unbounded flow has no size, and every retransmission
//! (SYN and FIN too) is counted.
use crate::common;

const STAR: &str =
    "[topology]\nkind = \"star\"\nhosts = 17\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n";

#[test]
fn statistics_of_nothing_are_null_not_zero() {
    // Long flows cut by the stop time: none completes, so FCTs do not exist.
    let text = format!(
        "[simulation]\nstop_time = \"1ms\"\n{STAR}[switch]\nbuffer = \"100pkt\"\n\
         [[workload]]\nkind = \"long-flows\"\npairs = [[1, 0], [2, 0]]\n"
    );
    let (w, s) = common::run(&text);
    assert_eq!(s.flows.completed, 0);
    let json = serde_json::to_value(&s).expect("json");
    let fct = &json["flows"]["fct_us"];
    assert_eq!(fct["count"], 0);
    for k in ["mean", "min", "p50", "p99", "max"] {
        assert!(fct[k].is_null(), "fct_us.{k} = {}", fct[k]);
    }
    assert!(s.flows.goodput_gbps.is_some_and(|g| g > 1.0));
    assert!(
        s.human()
            .contains("FCT               n/a (no flow completed)"),
        "{}",
        s.human()
    );
    // The unbounded flows' size is empty, not 2^64 - 3.
    let csv = dcnsim::report::flows_csv(&w);
    let row = csv.lines().nth(1).expect("a flow");
    assert!(row.starts_with("0,0,1,0,,0.000000,,,"), "{row}");

    // A source that never gets to send: no wait, no delay.
    let text = format!(
        "[simulation]\nstop_time = \"1us\"\n{STAR}[switch]\nbuffer = \"100pkt\"\n\
         [[workload]]\nkind = \"poisson-packets\"\nsrc = 1\ndst = 0\nload = 0.5\nstart = \"2us\"\n"
    );
    let (_, s) = common::run(&text);
    let src = &s.sources[0];
    assert_eq!(
        (src.packets_sent, src.mean_nic_wait_ns, src.mean_delay_us),
        (0, None, None)
    );
    assert_eq!((s.flows.goodput_gbps, s.flows.jain_index), (None, None));
    assert!(s.human().contains("NIC wait n/a ns"), "{}", s.human());
}

#[test]
fn lost_syns_are_counted() {
    // Sixteen SYNs at once into a two-packet buffer: most are dropped and sent
    // again after the initial RTO.
    let text = format!(
        "{STAR}[switch]\nbuffer = \"2pkt\"\n[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-16\"\nsize = \"10KB\"\n"
    );
    let (w, s) = common::run(&text);
    assert_eq!(s.flows.completed, 16);
    assert!(s.flows.syn_retransmissions > 0, "{:?}", s.flows);
    assert!(s.flows.timeouts >= s.flows.syn_retransmissions);
    let csv = dcnsim::report::flows_csv(&w);
    assert!(csv.starts_with(
        "id,workload,src,dst,size_bytes,start_us,finish_us,fct_us,bytes_acked,retransmissions,\
         syn_retransmissions,fin_retransmissions,timeouts\n"
    ));
    let per_flow: u64 = csv
        .lines()
        .skip(1)
        .map(|l| {
            l.split(',')
                .nth(10)
                .expect("column")
                .parse::<u64>()
                .expect("count")
        })
        .sum();
    assert_eq!(per_flow, s.flows.syn_retransmissions);
}
