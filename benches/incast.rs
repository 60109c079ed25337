//! Whole runs: the quickstart (16-to-1 DCTCP incast) and a 128-to-1 DCTCP
//! incast of 1 MB each on a 10 Gb/s star. Throughput is reported in packet
//! hops (criterion "elements"), measured over the event loop only: parsing
//! and building happen in the untimed setup.
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

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("whole_run");
    g.sample_size(20);
    for (name, text) in [
        (
            "quickstart_16to1",
            std::fs::read_to_string("scenarios/quickstart.toml").expect("quickstart"),
        ),
        ("dctcp_incast_128to1", incast(128)),
    ] {
        let sc = parse_str(name, &text).expect("valid scenario");
        common::whole_run(&mut g, name, &sc, |w| w.fabric.hops);
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
