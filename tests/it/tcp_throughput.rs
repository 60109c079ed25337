//! A single NewReno flow fills a 10 Gb/s path.
use crate::common;

use net::HostId;

#[test]
fn newreno_single_flow_reaches_95_percent_of_header_adjusted_line_rate() {
    // host -> switch -> host, 10 Gb/s, 1 us per link; 300 packets of switch
    // buffer is far above 2 BDP (BDP ~ 4.5 us x 10 Gb/s ~ 4 packets).
    let (w, s) = common::run(
        r#"
        [topology]
        kind = "star"
        hosts = 2
        link_rate = "10Gbps"
        link_delay = "1us"
        [switch]
        buffer = "300pkt"
        [transport]
        cc = "newreno"
        window_scaling = true
        [[workload]]
        kind = "incast"
        receiver = 1
        senders = [0]
        size = "100MB"
        "#,
    );
    assert_eq!(s.flows.completed, 1);
    assert_eq!(s.flows.retransmissions, 0);
    let f = &w.flows[0];
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
    assert!(f.receiver.as_tcp().expect("TCP").wscale() > 0);
    assert!(
        w.fabric
            .port(w.fabric.port_towards_host(HostId(1)))
            .stats
            .drops()
            == 0
    );
}
