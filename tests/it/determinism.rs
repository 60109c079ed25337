//! Same scenario and seed: byte-identical outputs, through the real CLI.
use crate::common;
use std::path::Path;
use transport::SenderEnd;

fn run_cli(out: &Path, seed: &str) {
    run_scenario("scenarios/quickstart.toml", out, seed)
}

fn run_scenario(scenario: &str, out: &Path, seed: &str) {
    common::run_cli(&[
        "run".as_ref(),
        scenario.as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        "--seed".as_ref(),
        seed.as_ref(),
    ]);
}

#[test]
fn same_seed_gives_byte_identical_outputs() {
    let base = std::env::temp_dir().join(format!("dcnsim-det-{}", std::process::id()));
    let (a, b) = (base.join("a"), base.join("b"));
    run_cli(&a, "3");
    run_cli(&b, "3");
    for f in ["summary.json", "flows.csv", "ports.csv"] {
        let x = std::fs::read(a.join(f)).unwrap();
        let y = std::fs::read(b.join(f)).unwrap();
        assert!(!x.is_empty());
        assert_eq!(x, y, "{f} differs between identical runs");
    }
    // perf.json exists but holds wall-clock figures, which may differ.
    assert!(a.join("perf.json").exists());
    std::fs::remove_dir_all(base).unwrap();
}

#[test]
fn another_seed_gives_other_flows() {
    let base = common::temp_dir("seeds");
    let (a, b, c) = (base.join("a"), base.join("b"), base.join("c"));
    run_cli(&a, "1");
    run_cli(&b, "2");
    run_cli(&c, "1");
    let flows = |d: &Path| std::fs::read(d.join("flows.csv")).expect("flows.csv");
    assert_ne!(flows(&a), flows(&b), "seeds 1 and 2 gave the same flows");
    assert_eq!(flows(&a), flows(&c), "seed 1 twice gave different flows");
    std::fs::remove_dir_all(base).ok();
}

/// On a multipath fabric the seed moves flows between equal-cost paths (by
/// the switches' ECMP salts and the hosts' ephemeral ports), while each
/// flow's ACKs still retrace its data's path.
#[test]
fn the_seed_sets_ecmp_salts_and_source_ports() {
    let text = "[topology]\nkind = \"k-ary-fat-tree\"\nk = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
                [switch]\nbuffer = \"100pkt\"\n[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"4-15\"\nsize = \"10KB\"\n";
    let sc = dcnsim::scenario::parse_str("t.toml", text).expect("valid");
    let paths = |seed: u64| {
        let w = dcnsim::world::World::build(&sc, seed).expect("built");
        let mut ports = Vec::new();
        let paths: Vec<_> = w
            .flows()
            .iter()
            .map(|f| {
                let a = f.sender.addr();
                assert!((32768..61000).contains(&a.sport), "sport {}", a.sport);
                ports.push(a.sport);
                let data = net::Packet {
                    src: a.src,
                    dst: a.dst,
                    sport: a.sport,
                    dport: a.dport,
                    ..Default::default()
                };
                let ack = net::Packet {
                    src: a.dst,
                    dst: a.src,
                    sport: a.dport,
                    dport: a.sport,
                    ..Default::default()
                };
                let (there, back) = (w.fabric().path(&data), w.fabric().path(&ack));
                let nodes = |p: &[net::PortId]| -> Vec<u32> {
                    p.iter().map(|&q| w.fabric().port(q).node.0).collect()
                };
                let mut back_nodes = nodes(&back);
                back_nodes.reverse();
                // The same switches in reverse order (the hosts' own ports aside).
                assert_eq!(nodes(&there)[1..], back_nodes[..back_nodes.len() - 1]);
                nodes(&there)
            })
            .collect();
        (paths, ports)
    };
    let (p1, s1) = paths(1);
    let (p2, s2) = paths(2);
    assert_eq!((p1.clone(), s1.clone()), paths(1));
    assert_ne!(p1, p2, "seeds 1 and 2 routed every flow alike");
    assert_ne!(s1, s2, "seeds 1 and 2 gave the same source ports");
}

#[test]
fn poisson_arrivals_depend_on_the_seed_only() {
    let text = |seed: u64| {
        format!(
            "[simulation]\nseed = {seed}\n[topology]\nkind = \"star\"\nhosts = 2\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
             [switch]\nbuffer = \"1000pkt\"\n[[workload]]\nkind = \"poisson-packets\"\nsrc = 0\ndst = 1\nload = 0.5\npackets = 2000\n"
        )
    };
    let summary = |seed| {
        let sc = dcnsim::scenario::parse_str("t.toml", &text(seed)).unwrap();
        let mut w = dcnsim::world::World::build(&sc, seed).unwrap();
        let stop = w.run();
        serde_json::to_string(&dcnsim::report::RunSummary::of(
            &w.run_record(),
            "t",
            seed,
            stop,
        ))
        .unwrap()
    };
    assert_eq!(summary(1), summary(1));
    assert_ne!(summary(1), summary(2));
}

/// The ingress plugins (VIQs, hook timers, rwnd rewriting) are deterministic too.
#[test]
fn ingress_plugins_give_byte_identical_outputs() {
    let base = std::env::temp_dir().join(format!("dcnsim-det-ingress-{}", std::process::id()));
    for scenario in [
        "scenarios/r-aqm/incast-newreno.toml",
        "scenarios/abq/incast-dctcp.toml",
    ] {
        let (a, b) = (base.join("a"), base.join("b"));
        run_scenario(scenario, &a, "5");
        run_scenario(scenario, &b, "5");
        for f in ["summary.json", "flows.csv", "ports.csv"] {
            let x = std::fs::read(a.join(f)).unwrap();
            let y = std::fs::read(b.join(f)).unwrap();
            assert!(!x.is_empty());
            assert_eq!(x, y, "{scenario}: {f} differs between identical runs");
        }
    }
    std::fs::remove_dir_all(base).unwrap();
}
