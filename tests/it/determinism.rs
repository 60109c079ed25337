//! Same scenario and seed: byte-identical outputs, through the real CLI.
use crate::common;
use std::path::Path;

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
        serde_json::to_string(&dcnsim::report::RunSummary::of(&w, "t", seed, stop)).unwrap()
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
