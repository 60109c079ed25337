//! R-AQM (R-AQM paper VI-B): a 100-to-1 NewReno incast of 1 MB flows on a
//! 10 Gb/s star with a 300-packet buffer and RTO_min 100 ms. DropTail has
//! timeouts; R-AQM with rwnd compensation has none, and so has the HSCC
//! clamp it builds on. The initial window is 2 MSS so that the first flight
//! (200 packets) fits the buffer: R-AQM shapes the ACK clock, it cannot
//! shrink a first flight (IV-F).
use crate::common;

use dcnsim::report::RunSummary;

fn incast(ingress: &str) -> RunSummary {
    common::run(&common::fill(
        include_str!("scenarios/r_aqm/incast.toml"),
        &[("ingress", ingress)],
    ))
    .1
}

#[test]
fn r_aqm_removes_incast_timeouts_of_newreno() {
    let droptail = incast(r#"kind = "none""#);
    let raqm = incast(r#"kind = "r-aqm""#);
    let hscc = incast(r#"kind = "hscc""#);
    for (name, s) in [("DropTail", &droptail), ("R-AQM", &raqm), ("HSCC", &hscc)] {
        eprintln!(
            "{name}: {:.3} Gb/s, {} timeouts, {} drops, max queue {} pkt, max VIQ {} pkt",
            s.flows.goodput_gbps.expect("flows ran"),
            s.flows.timeouts,
            s.drops,
            s.max_switch_queue_packets,
            s.ingress.max_viq_packets
        );
        assert_eq!(s.flows.completed, 100, "{name}");
    }
    assert!(droptail.flows.timeouts > 0, "DropTail has no timeouts");
    assert_eq!((raqm.flows.timeouts, raqm.drops), (0, 0));
    assert_eq!((hscc.flows.timeouts, hscc.drops), (0, 0));
    assert!(raqm.flows.goodput_gbps > droptail.flows.goodput_gbps.map(|g| 2.0 * g));
    // R-AQM really holds ACKs (the fluid model's q_in), HSCC holds none.
    assert!(raqm.ingress.max_viq_packets > 50, "{:?}", raqm.ingress);
    assert_eq!(hscc.ingress.held, 0);
    // Every held ACK left the VIQ.
    assert_eq!(raqm.ingress.held, raqm.ingress.released);
}

/// Without compensation the ACK shaping alone does not stop NewReno from
/// overflowing (the paper's reason for compensating, IV-D): the first
/// flights' windows keep growing in slow start.
#[test]
fn r_aqm_without_compensation_does_not_save_newreno() {
    let s = incast(
        r#"kind = "r-aqm"
        compensation = "none""#,
    );
    eprintln!(
        "R-AQM, no compensation: {} timeouts, {:?}",
        s.flows.timeouts, s.drops_by_cause
    );
    assert!(s.flows.timeouts > 0);
}

/// A 30-to-1 NewReno incast across a 4-leaf, 2-spine fabric (senders under
/// leaves 1-3, the receiver under leaf 0) whose 200 Gb/s fabric links
/// leave only leaf 0's port to the receiver congested, with `ingress` as
/// its `[switch.ingress]` table (none when empty).
fn fabric_incast_text(ingress: &str) -> String {
    let ingress = if ingress.is_empty() {
        String::new()
    } else {
        format!("[switch.ingress]\n{ingress}")
    };
    common::fill(
        include_str!("scenarios/r_aqm/fabric_incast_text.toml"),
        &[("ingress", &ingress.to_string())],
    )
}

/// [`fabric_incast_text`] with R-AQM placed by `switches` (R-AQM VI-D's
/// incremental deployment), run.
fn fabric_incast(switches: &str) -> RunSummary {
    common::run(&fabric_incast_text(&format!(
        "kind = \"r-aqm\"\n{switches}"
    )))
    .1
}

/// R-AQM at the receiver's ToR alone (by name or index) holds every ACK
/// once and removes most of the incast's drops; at a sender's ToR alone it
/// sees a third of the ACKs and changes little, since that ToR's ports are
/// not congested; everywhere, each ACK passes three VIQs.
#[test]
fn r_aqm_at_the_congested_tor_alone_removes_the_drops() {
    let everywhere = fabric_incast("");
    let receivers_tor = fabric_incast(r#"switches = ["leaf0"]"#);
    let by_index = fabric_incast(r#"switches = ["s0"]"#);
    let senders_tor = fabric_incast(r#"switches = ["leaf1"]"#);
    let none = common::run(&fabric_incast_text("")).1;
    let key = |s: &RunSummary| (s.ingress.held, s.drops, s.flows.timeouts, s.events);
    assert_eq!(key(&by_index), key(&receivers_tor));
    assert_eq!(none.ingress.held, 0);
    assert!(receivers_tor.ingress.held > 0);
    assert_eq!(everywhere.ingress.held, 3 * receivers_tor.ingress.held);
    // A third of the ACKs, give or take the retransmissions: leaf 1's
    // senders lose packets to the unshaped incast (hundreds of drops), so
    // their flows carry more or fewer packets than an average third.
    let third = 3 * senders_tor.ingress.held;
    assert!(
        third.abs_diff(receivers_tor.ingress.held) * 10 <= receivers_tor.ingress.held,
        "leaf1 held {} ACKs, a third of leaf0's {} within 10%",
        senders_tor.ingress.held,
        receivers_tor.ingress.held
    );
    assert!(
        receivers_tor.drops * 10 < none.drops,
        "R-AQM at leaf0: {} drops, none: {}",
        receivers_tor.drops,
        none.drops
    );
    assert!(
        senders_tor.drops * 10 >= none.drops * 9,
        "R-AQM at leaf1: {} drops, none: {}",
        senders_tor.drops,
        none.drops
    );
}

/// `switches` names switches of the topology, once each, and needs a plugin.
#[test]
fn ingress_switches_are_checked() {
    let with = |ingress: &str| {
        dcnsim::scenario::parse_str("f.toml", &fabric_incast_text(ingress))
            .expect_err(ingress)
            .to_string()
    };
    let e = with(
        r#"kind = "r-aqm"
    switches = ["tor0"]"#,
    );
    assert!(
        e.contains("switch.ingress.switches[0]") && e.contains("leaf0, leaf1"),
        "{e}"
    );
    let e = with(
        r#"kind = "r-aqm"
    switches = ["leaf0", "s0"]"#,
    );
    assert!(
        e.contains("switches[1]") && e.contains("named twice"),
        "{e}"
    );
    let e = with(
        r#"kind = "r-aqm"
    switches = []"#,
    );
    assert!(e.contains("names no switch"), "{e}");
    let e = with(
        r#"kind = "r-aqm"
    switches = "leaf0""#,
    );
    assert!(e.contains("a list of switch names"), "{e}");
    let e = with(r#"switches = ["leaf0"]"#);
    assert!(e.contains("kind \"none\" runs none"), "{e}");
}

/// R-AQM VII on RoCE (`scenarios/r-aqm/roce-incast.toml` at 25 senders,
/// DCQCN + window + R-AQM): with `compensation = "ece"` the ACKs R-AQM
/// releases above its threshold carry an ECN echo, which each sender takes
/// as a CNP (at most one per 50 us); the bottleneck's mean queue falls to
/// about a third (62 against 177 packets), goodput unchanged.
#[test]
fn r_aqm_ecn_echo_lowers_the_roce_incasts_queue() {
    let run = |compensation: &str| {
        let overrides = [
            r#"workload[0].senders="1-25""#.to_string(),
            r#"transport.window="bdp_x_rate""#.to_string(),
            r#"transport.rto="10ms""#.to_string(),
            format!(
                r#"switch.ingress={{ kind = "r-aqm", k_min = "100pkt", k_max = "400pkt", t = "3us", normal = [1, 1], draining = [1, 2], congest = [10, 1], viq_capacity = "500pkt", compensation = "{compensation}" }}"#
            ),
        ];
        common::run_file("scenarios/r-aqm/roce-incast.toml", &overrides).1
    };
    let (plain, echo) = (run("none"), run("ece"));
    let q = |s: &RunSummary| s.busiest_port.as_ref().map_or(0.0, |p| p.mean_packets);
    let gp = |s: &RunSummary| s.flows.goodput_gbps.unwrap_or(0.0);
    eprintln!(
        "RoCE incast, 25 senders: mean queue {:.1} -> {:.1} packets with the echo, goodput {:.2} -> {:.2} Gb/s",
        q(&plain),
        q(&echo),
        gp(&plain),
        gp(&echo)
    );
    assert!(q(&echo) < 0.5 * q(&plain));
    assert!(gp(&echo) >= 0.99 * gp(&plain));
}
