//! `--set KEY=VALUE` overrides: applied before validation, equal to editing
//! the file, and errors that name the override.
use crate::common;
use dcnsim::scenario::load_str;

const BASE: &str = include_str!("scenarios/overrides/base.toml");

fn debug_of(text: &str, set: &[&str]) -> String {
    let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
    format!(
        "{:?}",
        load_str("o.toml", text, &set).unwrap_or_else(|e| panic!("{e}"))
    )
}

#[test]
fn an_override_equals_the_edited_file() {
    let cases = [
        (
            "switch.aqm.k=40pkt",
            BASE.replace("k = \"65pkt\"", "k = \"40pkt\""),
        ),
        (
            "workload[0].size=\"2MB\"",
            BASE.replace("size = \"1MB\"", "size = \"2MB\""),
        ),
        (
            "workload[0].senders=[1, 2]",
            BASE.replace("senders = \"1-8\"", "senders = [1, 2]"),
        ),
        (
            "topology.link_rate=40Gbps",
            BASE.replace("\"10Gbps\"", "\"40Gbps\""),
        ),
        (
            "switch.ingress.kind=hscc",
            format!("{BASE}\n[switch.ingress]\nkind = \"hscc\"\n"),
        ),
        (
            "simulation.seed=7",
            format!("[simulation]\nseed = 7\n{BASE}"),
        ),
    ];
    for (set, edited) in cases {
        assert_eq!(
            debug_of(BASE, &[set]),
            debug_of(&edited, &[]),
            "--set {set}"
        );
    }
    assert_ne!(debug_of(BASE, &["switch.aqm.k=40pkt"]), debug_of(BASE, &[]));
}

/// `[*]` sets the key in every element of an array of tables, exactly as
/// setting each element would.
#[test]
fn a_star_sets_every_element() {
    let two = format!(
        "{BASE}\n[[workload]]\nkind = \"incast\"\nreceiver = 1\nsenders = \"2-3\"\nsize = \"1MB\"\n"
    );
    assert_eq!(
        debug_of(&two, &["workload[*].size=\"3MB\""]),
        debug_of(
            &two,
            &["workload[0].size=\"3MB\"", "workload[1].size=\"3MB\""]
        )
    );
    assert_ne!(
        debug_of(&two, &["workload[*].size=\"3MB\""]),
        debug_of(&two, &["workload[0].size=\"3MB\""])
    );
    let e = load_str("o.toml", BASE, &["switch[*].buffer=1pkt".to_string()])
        .expect_err("switch is a table")
        .to_string();
    assert!(e.contains("`switch` is a table, not an array"), "{e}");
    let e = load_str("o.toml", BASE, &["flows[*].size=1MB".to_string()])
        .expect_err("no such array")
        .to_string();
    assert!(e.contains("`flows` is not in the scenario"), "{e}");
}

#[test]
fn later_overrides_win() {
    assert_eq!(
        debug_of(BASE, &["switch.aqm.k=1pkt", "switch.aqm.k=40pkt"]),
        debug_of(BASE, &["switch.aqm.k=40pkt"])
    );
}

#[test]
fn override_errors_name_the_override() {
    let err = |set: &str| {
        load_str("o.toml", BASE, &[set.to_string()])
            .expect_err(set)
            .to_string()
    };
    let e = err("switch.aqm.k=abc");
    assert!(
        e.starts_with("o.toml: --set switch.aqm.k=abc: key `switch.aqm.k`"),
        "{e}"
    );
    assert!(e.contains("pkt, B, KB"), "{e}");
    let e = err("workload[0].senders=1-40");
    assert!(
        e.contains("--set workload[0].senders=1-40") && e.contains("host 40 does not exist"),
        "{e}"
    );
    let e = err("switch.aqm.kind=no-such-aqm");
    assert!(
        e.contains("--set switch.aqm.kind=no-such-aqm") && e.contains("\"red\""),
        "{e}"
    );
    let e = err("workload[2].size=1MB");
    assert!(e.contains("indices are 0 to 0"), "{e}");
    let e = err("topology.hosts");
    assert!(e.contains("KEY=VALUE"), "{e}");
    let e = err("topology..hosts=3");
    assert!(e.contains("dotted key"), "{e}");
    let e = err("switch.buffer.x=1");
    assert!(e.contains("`switch.buffer` is not a table"), "{e}");
    // A file error that an override exposes is still located in the file.
    let e = err("topology.hosts=4");
    assert!(e.starts_with("o.toml:17:"), "{e}");
}

#[test]
fn run_and_validate_take_overrides() {
    let out = common::temp_dir("overrides");
    let v = common::run_cli(&[
        "validate",
        "scenarios/quickstart.toml",
        "--set",
        "topology.hosts=33",
        "--set",
        "workload[0].senders=1-32",
    ]);
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(
        text.contains("ok (33 hosts, 1 switches, 1 workloads, 32 flows, about "),
        "{text}"
    );
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args([
            "validate",
            "scenarios/quickstart.toml",
            "--set",
            "transport.cc=no-such-cc",
        ])
        .output()
        .expect("runs");
    assert!(!bad.status.success());
    let e = String::from_utf8_lossy(&bad.stderr);
    assert!(
        e.contains("--set transport.cc=no-such-cc") && e.contains("\"dctcp\""),
        "{e}"
    );
    common::run_cli(&[
        "run".as_ref(),
        "scenarios/quickstart.toml".as_ref(),
        "--set".as_ref(),
        "workload[0].senders=1-4".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let summary = std::fs::read_to_string(out.join("summary.json")).expect("summary");
    assert!(summary.contains("\"total\": 4"), "{summary}");
    std::fs::remove_dir_all(out).ok();
}

#[test]
fn list_prints_the_registries() {
    let o = common::run_cli(&["list"]);
    let text = String::from_utf8_lossy(&o.stdout);
    for family in [
        "topology",
        "scheduler",
        "aqm",
        "ingress",
        "transport",
        "cc",
        "workload",
    ] {
        assert!(text.contains(family), "{family}: {text}");
    }
    assert!(
        text.contains("k-ary-fat-tree") && text.contains("R-AQM IV-V") && text.contains("cubic"),
        "{text}"
    );
    let o = common::run_cli(&["list", "workload"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("poisson-packets") && !text.contains("step-ecn"),
        "{text}"
    );
}

/// Issue 56: the README promises every kind with its keys; the routing
/// choices and the tables of fixed keys ([switch.pfc], [switch.trim],
/// [routing], [[failure]]) are listed too, each from the one list the
/// loader reads (`PathChoice::ALL` and its siblings).
#[test]
fn list_prints_routing_and_the_tables_of_fixed_keys() {
    let o = common::run_cli(&["list"]);
    let text = String::from_utf8_lossy(&o.stdout);
    for (_, name, _) in net::path_choice::PathChoice::ALL {
        assert!(text.contains(&format!("\"{name}\"")), "{name}: {text}");
    }
    for table in ["[switch.pfc]", "[switch.trim]", "[routing]", "[[failure]]"] {
        assert!(text.contains(table), "{table}");
    }
    for key in ["flowlet_gap", "header_queue", "reroute_after", "xoff_alpha"] {
        assert!(text.contains(key), "{key}");
    }
    let o = common::run_cli(&["list", "routing"]);
    let one = String::from_utf8_lossy(&o.stdout);
    assert!(
        one.contains("adaptive-flowlet") && !one.contains("reroute_after"),
        "{one}"
    );
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(["list", "nothing"])
        .output()
        .expect("dcnsim starts");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("routing, failure"), "{e}");
}
