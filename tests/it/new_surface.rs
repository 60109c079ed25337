//! Issue 56: the surface added since the last hardening (collectives,
//! htsim matrices, UEC and NDP keys, trimming, failures, planes,
//! partitions, PIE) as safe as the old. Each test is one defect's
//! reproducer: refused at load naming its key, warned about, or run
//! sanely.
use crate::common;
use dcnsim::scenario::{ScenarioError, load, parse_str};
use std::path::Path;

/// The error of loading shipped scenario `file` with `sets`.
fn refused(file: &str, sets: &[&str]) -> ScenarioError {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    match load(Path::new(file), &sets) {
        Ok(_) => panic!("accepted: {file} {sets:?}"),
        Err(e) => e,
    }
}

/// `refused`, checking the key and a phrase of the message.
fn refused_at(file: &str, sets: &[&str], key: &str, says: &str) {
    let e = refused(file, sets);
    assert_eq!(e.key, key, "{e}");
    assert!(e.to_string().contains(says), "'{says}' not in: {e}");
}

/// The warnings of loading `file` with `sets`, as text.
fn warnings(file: &str, sets: &[&str]) -> Vec<String> {
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let sc = load(Path::new(file), &sets).unwrap_or_else(|e| panic!("{e}"));
    sc.warnings.iter().map(ToString::to_string).collect()
}

const NDP: &str = "scenarios/ai-fabric/ndp-perm-k4.toml";
const UEC: &str = "scenarios/ai-fabric/uec-perm-k8.toml";
const PIE: &str = "scenarios/kinds/pie-cubic.toml";
const FAILURE: &str = "scenarios/ai-fabric/link-failure.toml";
const RING: &str = "scenarios/ai-fabric/ring-allreduce-k8.toml";
const MOE: &str = "scenarios/ai-fabric/moe-alltoall-k8.toml";

#[test]
fn buffers_hold_the_largest_packet_and_a_trimmed_header_is_smaller_than_a_full_one() {
    // NDP's 9,000 B packets in a 1.5 KB buffer were trimmed forever.
    refused_at(NDP, &["switch.buffer=\"1.5KB\""], "switch.buffer", "9000 B");
    refused_at(
        NDP,
        &["topology.nic_buffer=\"2KB\""],
        "topology.nic_buffer",
        "9000 B",
    );
    // A 512 B header beside 320 B packets "trimmed" 2,623 packets to
    // more than their size.
    refused_at(
        UEC,
        &["transport.mss=\"256B\"", "switch.trim.header=\"512B\""],
        "switch.trim.header",
        "no smaller than a full packet",
    );
}

#[test]
fn timer_keys_have_a_floor_a_switch_could_run() {
    refused_at(
        PIE,
        &["switch.aqm.t_update=\"1ps\""],
        "switch.aqm.t_update",
        "at least 1us",
    );
    refused_at(
        "scenarios/r-aqm/roce-incast.toml",
        &[
            r#"switch.ingress={kind="r-aqm", t="1ps"}"#,
            "transport.rto=\"10ms\"",
        ],
        "switch.ingress.t",
        "at least 100ns",
    );
    refused_at(
        NDP,
        &["transport.pull_rate=1e-300"],
        "transport.pull_rate",
        "0.001 to 2",
    );
}

#[test]
fn keys_only_a_mode_reads_are_refused_without_it() {
    let none = "transport.spray=\"none\"";
    refused_at(
        UEC,
        &["transport.sender_cc=\"dctcp\"", "transport.gamma=0.5"],
        "transport.gamma",
        "sender_cc = \"nscc\"",
    );
    refused_at(
        UEC,
        &["transport.sender_cc=\"none\""],
        "transport.sender_cc",
        "rccc = true",
    );
    refused_at(
        UEC,
        &[none, "transport.reps_buffer=8"],
        "transport.reps_buffer",
        "spray = \"reps\"",
    );
    refused_at(
        UEC,
        &[none, "transport.reps_freeze=\"1ms\""],
        "transport.reps_freeze",
        "reps",
    );
    refused_at(
        UEC,
        &[none, "transport.entropies=16"],
        "transport.entropies",
        "sprays none",
    );
    refused_at(
        NDP,
        &[none, "transport.entropies=16"],
        "transport.entropies",
        "sprays none",
    );
    refused_at(
        PIE,
        &["switch.aqm.dq_threshold_bytes=16384"],
        "switch.aqm.dq_threshold_bytes",
        "departure-rate",
    );
    refused_at(
        PIE,
        &["switch.aqm.mark_ecnth=0.2"],
        "switch.aqm.mark_ecnth",
        "ecn = true",
    );
    refused_at(
        "scenarios/examples/red.toml",
        &["switch.aqm.average=\"instantaneous\""],
        "switch.aqm.weight",
        "average = \"ewma\"",
    );
    refused_at(
        PIE,
        &["simulation.partition=\"none\"", "simulation.lps=4"],
        "simulation.lps",
        "partition = \"none\" makes none",
    );
    // Header priority (issue 57): always on with trimming, refused where
    // a full header queue would drop a lossless class, and where no
    // transport sends header-only packets.
    refused_at(
        UEC,
        &["switch.header_priority=false"],
        "switch.header_priority",
        "[switch.trim]",
    );
    refused_at(
        PIE,
        &["switch.header_priority=true"],
        "switch.header_priority",
        "no transport here sends header-only packets",
    );
    refused_at(
        "scenarios/rcc/convergence-hpcc.toml",
        &["switch.header_priority=true"],
        "switch.header_priority",
        "lossless",
    );
    // With its mode, each is read.
    load(
        Path::new(UEC),
        &[
            "transport.spray=\"reps\"".into(),
            "transport.reps_buffer=8".into(),
        ],
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn times_past_what_a_run_can_reach_name_their_key_at_load() {
    // compute = 10000000s x 3 iterations simulated, then blamed
    // topology.link_delay.
    refused_at(
        RING,
        &["workload[0].compute=\"10000000s\""],
        "workload[0].compute",
        "start + 3 iterations x compute",
    );
    refused_at(
        RING,
        &["workload[0].start=\"5000000s\""],
        "workload[0].start",
        "2^62 ps",
    );
    // A matrix line's start 1e14 (microseconds).
    let dir = common::temp_dir("matrix-start");
    std::fs::write(dir.join("m.cm"), "Nodes 4\n0->1 start 1e14 size 1000\n").expect("write");
    let text = std::fs::read_to_string("scenarios/ai-fabric/htsim-allreduce-k8.toml")
        .expect("shipped")
        .replace("htsim-allreduce-16.cm", "m.cm");
    std::fs::write(dir.join("s.toml"), text).expect("write");
    let e = load(&dir.join("s.toml"), &[]).expect_err("refused");
    assert!(
        e.key.ends_with(".file") && e.to_string().contains("line 2: start 1e14"),
        "{e}"
    );
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn an_unknown_key_in_an_inline_list_is_named_by_its_index() {
    refused_at(
        MOE,
        &[
            r#"workload[0].then=[{ op = "all-to-all", size = "1MB" }, { op = "all-to-all", size = "1MB", hosts = "0-3" }]"#,
        ],
        "workload[0].then[1].hosts",
        "unknown key `hosts`",
    );
    refused_at(
        "scenarios/quickstart.toml",
        &[r#"transport.cc={kind="dctcp", gg=1}"#],
        "transport.cc.gg",
        "unknown key `gg`",
    );
}

#[test]
fn a_scenario_without_workloads_is_refused() {
    refused_at(
        "scenarios/quickstart.toml",
        &["workload=[]"],
        "workload",
        "no [[workload]]",
    );
}

#[test]
fn failures_of_one_cable_must_make_sense_together() {
    let twice = r#"failure=[{ between = ["agg0", "core0"], at = "50us" }, { between = ["core0", "agg0"], at = "70us" }]"#;
    refused_at(FAILURE, &[twice], "failure[1]", "a cable fails once");
    let after = r#"failure=[{ between = ["agg0", "core0"], at = "50us" }, { between = ["agg0", "core0"], at = "60us", degrade = 0.5 }]"#;
    refused_at(FAILURE, &[after], "failure[1]", "means nothing");
    let same = r#"failure=[{ between = ["agg0", "core0"], at = "50us", degrade = 0.5 }, { between = ["agg0", "core0"], at = "50us", degrade = 0.25 }]"#;
    refused_at(FAILURE, &[same], "failure[1]", "one degradation a time");
    // A degradation, a deeper one, then the cable goes down: legal.
    let steps = r#"failure=[{ between = ["agg0", "core0"], at = "50us", degrade = 0.5 }, { between = ["agg0", "core0"], at = "80us", degrade = 0.25 }, { between = ["agg0", "core0"], at = "120us", reroute_after = "10us" }]"#;
    let (_, s) = common::run_file(FAILURE, &[steps.to_string()]);
    assert_eq!(s.flows.completed, 16);
}

/// Several degradations of a direction: each sets the rate to its
/// fraction of the original from its time on (the latest wins; they do
/// not compound), also after one from time zero.
#[test]
fn the_latest_degradation_wins() {
    let steps = r#"failure=[{ between = ["agg0", "core0"], at = "0us", degrade = 0.5 }, { between = ["agg0", "core0"], at = "80us", degrade = 0.25 }]"#;
    let sc = common::scenario_file(FAILURE, &[steps.to_string()]);
    let mut w = dcnsim::world::World::build(&sc, 1).expect("builds");
    let port = (0..w.fabric().ports().len() as u32)
        .map(net::PortId)
        .find(|&p| w.port_name(p) == "agg0->core0")
        .expect("agg0's port to core0");
    let gbps = |w: &dcnsim::world::World| w.fabric().port(port).rate.bps() as f64 / 1e9;
    assert_eq!(gbps(&w), 50.0);
    w.run_until(sim_core::SimTime::ZERO + sim_core::SimDuration::from_us(90));
    assert_eq!(gbps(&w), 25.0, "a quarter of 100 Gb/s, not of 50");
}

#[test]
fn partition_pods_on_a_topology_it_cannot_cut_is_refused_by_validate() {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args([
            "validate",
            "scenarios/quickstart.toml",
            "--set",
            "simulation.partition=\"pods\"",
        ])
        .output()
        .expect("runs");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("it has one pod"), "{e}");
}

/// A 1 MB all-reduce in 1-byte chunks plans 14 million transfers: the
/// workload's own count refuses it before anything is planned, in
/// milliseconds and a few MB (it planned 4 GiB first).
#[test]
fn a_job_too_large_for_memory_is_refused_before_planning() {
    let t0 = std::time::Instant::now();
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 262144; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_dcnsim"))
        .args([
            "validate",
            RING,
            "--set",
            "workload[0].chunk=\"1B\"",
            "--set",
            "workload[0].size=\"1MB\"",
            "--set",
            "workload[0].hosts=\"0-7\"",
            "--set",
            "workload[0].iterations=1",
            "--set",
            "workload[0].channels=1",
            "--max-memory",
            "4GB",
        ])
        .output()
        .expect("runs");
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("14000000 flows") && e.contains("memory limit"),
        "{e}"
    );
    assert!(t0.elapsed().as_secs() < 10, "{:?}", t0.elapsed());
}

#[test]
fn slips_are_warned_about_at_load() {
    let has = |ws: &[String], key: &str, says: &str| {
        assert!(
            ws.iter()
                .any(|w| w.contains(&format!("key `{key}`")) && w.contains(says)),
            "no warning at {key} saying '{says}': {ws:?}"
        );
    };
    has(
        &warnings(NDP, &["switch.trim=false"]),
        "transport.kind",
        "NDP without [switch.trim]",
    );
    has(
        &warnings(UEC, &["transport.rto=\"1us\""]),
        "transport.rto",
        "below the run's longest",
    );
    has(
        &warnings(FAILURE, &["failure[0].at=\"10ms\""]),
        "failure[0].at",
        "never happens",
    );
    let tiny = r#"failure=[{ between = ["agg0", "core0"], at = "10us", degrade = 1e-12 }]"#;
    has(
        &warnings(FAILURE, &[tiny]),
        "failure[0].degrade",
        "1 bps floor",
    );
    let cut = r#"failure=[{ between = ["host4", "tor1"], at = "10us" }]"#;
    let ws = warnings(RING, &[cut]);
    has(&ws, "failure[0]", "cuts host 4 off while it has traffic");
    assert_eq!(ws.len(), 1, "only host 4 is cut off: {ws:?}");
    // A NIC's cable into one plane leaves the host its other plane.
    let plane = r#"failure=[{ between = ["nic0", "p0-tor0"], at = "10us" }]"#;
    assert!(warnings("scenarios/ai-fabric/planes-k4.toml", &[plane]).is_empty());
    // CoDel drops on a priority PFC keeps lossless.
    let text = "[topology]\nkind = \"star\"\nhosts = 4\nlink_rate = \"100Gbps\"\nlink_delay = \"1us\"\n\
                [switch]\nshared_buffer = \"2MB\"\n[switch.pfc]\n[switch.aqm]\nkind = \"codel\"\n\
                [transport]\nkind = \"roce\"\n[[workload]]\nkind = \"incast\"\nreceiver = 0\n\
                senders = \"1-3\"\nsize = \"100KB\"\n";
    let sc = parse_str("t.toml", text).unwrap_or_else(|e| panic!("{e}"));
    let ws: Vec<String> = sc.warnings.iter().map(ToString::to_string).collect();
    has(&ws, "switch.aqm.kind", "lossless");
    // Every shipped scenario loads without one.
    assert!(warnings(RING, &[]).is_empty() && warnings(NDP, &[]).is_empty());
}

/// One name for a port everywhere: `queue_ports` reads topology names as
/// `pcap.ports` reads indices, and an unknown name gets the nearest.
#[test]
fn ports_are_named_either_way_in_every_key() {
    let sample = "output.queue_interval=\"10us\"";
    let by_name = common::scenario_file(
        PIE,
        &[
            sample.into(),
            "output.queue_ports=[\"left->right\", \"right\"]".into(),
        ],
    );
    let by_index = common::scenario_file(
        PIE,
        &[
            sample.into(),
            "output.queue_ports=[\"s0->s1\", \"s1\"]".into(),
        ],
    );
    assert_eq!(by_name.output.queue_ports, by_index.output.queue_ports);
    let pcap = common::scenario_file(PIE, &["output.pcap={ports=[\"s0->h0\"]}".into()]);
    assert_eq!(pcap.output.pcap.expect("pcap").ports, ["left->host0"]);
    refused_at(
        PIE,
        &["output.pcap={ports=[\"left->rigth\"]}"],
        "output.pcap.ports[0]",
        "did you mean \"right\"",
    );
    refused_at(
        PIE,
        &[sample, "output.queue_ports=[\"host0->left\"]"],
        "output.queue_ports[0]",
        "is a host",
    );
}

/// `dcnsim plot` on results cut short at a line's end: a flows.csv with
/// fewer rows than summary.json's flows, a sweep.csv whose header lost
/// its line break, and one without the row of a run that finished. Each
/// drew "0 files" and exited 0.
#[test]
fn plot_refuses_tables_cut_short_at_a_line_end() {
    let dir = common::temp_dir("plot-cut");
    let plot = |d: &Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
            .args(["plot", d.to_str().expect("utf-8")])
            .output()
            .expect("runs")
    };
    let run = dir.join("run");
    common::run_cli(&[
        "run",
        "scenarios/quickstart.toml",
        "--out",
        run.to_str().expect("utf-8"),
        "--no-plots",
    ]);
    let flows = std::fs::read_to_string(run.join("flows.csv")).expect("flows.csv");
    let first: String = flows.lines().take(3).map(|l| format!("{l}\n")).collect();
    std::fs::write(run.join("flows.csv"), first).expect("write");
    let o = plot(&run);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("2 rows, but summary.json counts 16"),
        "{e}"
    );

    let base = dir.join("base.toml");
    std::fs::copy("scenarios/quickstart.toml", &base).expect("copy");
    let file = dir.join("sw.toml");
    std::fs::write(&file, "[sweep]\nbase = \"base.toml\"\nseeds = 2\n").expect("write");
    let sw = dir.join("sw");
    common::run_cli(&[
        "sweep",
        file.to_str().expect("utf-8"),
        "--out",
        sw.to_str().expect("utf-8"),
        "--no-plots",
    ]);
    let table = std::fs::read_to_string(sw.join("sweep.csv")).expect("sweep.csv");
    let header = table.lines().next().expect("a header");
    std::fs::write(sw.join("sweep.csv"), &header[..40]).expect("write");
    let o = plot(&sw);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("the header) ends without a line break"),
        "{e}"
    );
    let two: String = table.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(sw.join("sweep.csv"), two).expect("write");
    let o = plot(&sw);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("finished") && e.contains("has no row"),
        "{e}"
    );
    std::fs::remove_dir_all(dir).ok();
}

/// A 1,000,000-host star under PFC: its buffer check ran only after the
/// whole fabric was built (4.8 GB peak, against an estimate of 2.5
/// GiB), and `validate` said ok. Now both refuse it at load, naming the
/// switch, within a 512 MiB address space.
#[test]
fn pfc_buffers_are_checked_before_a_huge_fabric_is_built() {
    let dir = common::temp_dir("star-pfc");
    let file = dir.join("star.toml");
    let text = "[topology]\nkind = \"star\"\nhosts = 1000000\nlink_rate = \"10Gbps\"\n\
                link_delay = \"1us\"\n[switch]\nshared_buffer = \"12MB\"\n[switch.pfc]\n\
                [transport]\nkind = \"roce\"\n[[workload]]\nkind = \"incast\"\nreceiver = 0\n\
                senders = \"1-10\"\nsize = \"1MB\"\n";
    std::fs::write(&file, text).expect("write");
    for cmd in ["validate", "run"] {
        let o = std::process::Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 524288; exec \"$0\" \"$@\"")
            .arg(env!("CARGO_BIN_EXE_dcnsim"))
            .args([cmd, file.to_str().expect("utf-8")])
            .args(if cmd == "run" {
                vec!["--out".to_string(), dir.join("out").display().to_string()]
            } else {
                Vec::new()
            })
            .output()
            .expect("runs");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && e.contains("key `switch.shared_buffer`: PFC at switch"),
            "{cmd}: {e}"
        );
    }
    std::fs::remove_dir_all(dir).ok();
}
