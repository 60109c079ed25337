//! Whole runs: the quickstart (16-to-1 DCTCP incast), a 128-to-1 DCTCP
//! incast of 1 MB each on a 10 Gb/s star, and the 64-to-1 runs that price
//! PFC, pacing and the RoCE controllers: DCTCP on a 300-packet buffer
//! against RoCE with DCQCN, RCC, HPCC and TIMELY over PFC on a 2 MB shared
//! buffer (RED marking, which only DCQCN reads), 1 MB each on the same
//! star. Throughput is reported in packet hops (criterion "elements"),
//! measured over the event loop only: parsing and building happen in the
//! untimed setup.
use criterion::{Criterion, criterion_group, criterion_main};
use dcnsim::scenario::parse_str;

mod common;

fn incast(n: u32) -> String {
    format!(
        r#"
        [topology]
        kind = "star"
        hosts = {hosts}
        link_rate = "10Gbps"
        link_delay = "1us"
        [switch]
        buffer = "300pkt"
        [switch.aqm]
        kind = "step-ecn"
        k = "65pkt"
        [transport]
        cc = "dctcp"
        rto_min = "10ms"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = "1-{n}"
        size = "1MB"
        "#,
        hosts = n + 1
    )
}

/// The RoCE incast: DCQCN (paper variant) over PFC, RED at 5 KB / 200 KB / 1%.
fn roce_incast(n: u32) -> String {
    format!(
        r#"
        [topology]
        kind = "star"
        hosts = {hosts}
        link_rate = "10Gbps"
        link_delay = "1us"
        [switch]
        shared_buffer = "2MB"
        [switch.aqm]
        kind = "red"
        k_min = "5KB"
        k_max = "200KB"
        p_max = 0.01
        mark_at = "dequeue"
        spread = false
        [switch.pfc]
        lossless = [3]
        mtu = "1044B"
        [transport]
        kind = "roce"
        [[workload]]
        kind = "incast"
        receiver = 0
        senders = "1-{n}"
        size = "1MB"
        priority = 3
        "#,
        hosts = n + 1
    )
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("whole_run");
    g.sample_size(20);
    for (name, text) in [
        (
            "quickstart_16to1",
            std::fs::read_to_string("scenarios/quickstart.toml").expect("quickstart"),
        ),
        ("dctcp_incast_128to1", incast(128)),
        ("dctcp_incast_64to1", incast(64)),
        ("dcqcn_pfc_incast_64to1", roce_incast(64)),
        (
            "rcc_pfc_incast_64to1",
            roce_incast(64).replace(
                "[transport]\n        kind = \"roce\"",
                "[transport]\n        kind = \"roce\"\n        cc = \"rcc\"",
            ),
        ),
        (
            "hpcc_pfc_incast_64to1",
            roce_incast(64).replace(
                "[transport]\n        kind = \"roce\"",
                "[transport]\n        kind = \"roce\"\n        cc = \"hpcc\"",
            ),
        ),
        (
            "timely_pfc_incast_64to1",
            roce_incast(64).replace(
                "[transport]\n        kind = \"roce\"",
                "[transport]\n        kind = \"roce\"\n        cc = \"timely\"",
            ),
        ),
    ] {
        assert!(
            name.starts_with("dc") || name.starts_with("quick") || text.contains("cc = "),
            "{name}: the cc replacement failed"
        );
        let sc = parse_str(name, &text).expect("valid scenario");
        common::whole_run(&mut g, name, &sc, |w| w.fabric().hops);
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
