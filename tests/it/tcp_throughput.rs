//! A single NewReno flow fills a 10 Gb/s path.
use crate::common;
use transport::SenderEnd;

use net::HostId;

#[test]
fn newreno_single_flow_reaches_95_percent_of_header_adjusted_line_rate() {
    // host -> switch -> host, 10 Gb/s, 1 us per link; 300 packets of switch
    // buffer is far above 2 BDP (BDP ~ 4.5 us x 10 Gb/s ~ 4 packets).
    let (w, s) = common::run(include_str!(
        "scenarios/tcp_throughput/newreno_single_flow_reaches_95_percent_of_header_adjusted_line_rate.toml"
    ));
    assert_eq!(s.flows.completed, 1);
    assert_eq!(s.flows.retransmissions, 0);
    let f = &w.flows()[0];
    // From the SYN to the ACK of the last byte.
    let secs = f
        .sender
        .completed_at()
        .unwrap()
        .since(f.start)
        .as_secs_f64();
    let goodput = 100e6 * 8.0 / secs;
    // C x MSS / (bytes on the wire per full segment) = 10G x 1460 / 1538.
    let line = 10e9 * 1460.0 / 1538.0;
    eprintln!(
        "goodput {:.4} Gb/s = {:.2}% of {:.4}",
        goodput / 1e9,
        100.0 * goodput / line,
        line / 1e9
    );
    assert!(
        goodput >= 0.95 * line,
        "goodput {:.4} Gb/s < 95% of {:.4}",
        goodput / 1e9,
        line / 1e9
    );
    assert!(goodput <= line, "faster than the wire allows: {goodput}");
    // The receiver's window never limited the flow: scaling was negotiated.
    assert!(
        f.receiver
            .get::<transport::tcp::TcpReceiver>()
            .expect("TCP")
            .wscale()
            > 0
    );
    assert!(
        w.fabric()
            .port(w.fabric().port_towards_host(HostId(1)))
            .stats
            .drops()
            == 0
    );
}

/// The largest cwnd of flow 0 in a traced run of `text`.
fn largest_cwnd(text: &str, tag: &str) -> f64 {
    let dir = common::temp_dir(tag);
    let file = dir.join("s.toml");
    std::fs::write(&file, text).expect("written");
    let out = dir.join("run");
    common::run_cli(&[
        "run".as_ref(),
        file.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let csv = std::fs::read_to_string(out.join("cc.csv")).expect("cc.csv");
    std::fs::remove_dir_all(&dir).expect("cleaned");
    csv.lines()
        .filter(|l| l.contains(",0,cwnd_bytes,"))
        .map(|l| {
            l.rsplit(',')
                .next()
                .expect("value")
                .parse::<f64>()
                .expect("a number")
        })
        .fold(0.0, f64::max)
}

/// Linux grows cwnd only while it limits the sender (`cwnd_validation`):
/// a flow alone on a 10 Gb/s path, paced by its NIC, stays within twice
/// what it has in flight (the path's BDP and the 15 KB NIC queue, about
/// 25 KB), where without validation it grows on every ACK to the 6 MB
/// receive window.
#[test]
fn cwnd_grows_only_while_it_limits_the_sender() {
    let text = |validation: bool| {
        common::fill(
            include_str!(
                "scenarios/tcp_throughput/cwnd_grows_only_while_it_limits_the_sender.toml"
            ),
            &[("validation", &validation.to_string())],
        )
    };
    let on = largest_cwnd(&text(true), "cwnd-validation-on");
    let off = largest_cwnd(&text(false), "cwnd-validation-off");
    eprintln!("cwnd: {on} B with validation, {off} B without");
    assert!(on < 60_000.0, "with validation cwnd reached {on} B");
    assert!(
        off > 5_000_000.0,
        "without validation cwnd reached only {off} B"
    );
}
