//! One run on many cores (issue 43): a partitioned run's bytes do not
//! depend on how its logical processes (LPs) are dealt to threads or in
//! what order they are stepped; a cut the windows cannot cross is refused;
//! what reads the whole run keeps it in one LP.

use crate::common;
use dcnsim::registry::workload::plan_all;
use dcnsim::report::{RunSummary, flows_csv, ports_csv};
use dcnsim::scenario::Scenario;
use dcnsim::world::{Lps, Threads, partition_for};
use proptest::prelude::*;

/// A k = 4 fat-tree (4 pods) under a permutation of DCTCP flows and a few
/// Poisson packet sources: flows and sources crossing the cut both ways.
const FABRIC: &str = include_str!("scenarios/parallel/fabric.toml");

/// A run's three result files, as bytes.
fn outputs(sc: &Scenario, dealt: Option<Vec<Vec<usize>>>) -> (String, String, String) {
    let planned = plan_all(sc, 1);
    let cut = partition_for(sc, &planned).expect("cuts");
    assert_eq!(cut.lps, 4, "one LP per pod");
    let lps = Lps::build(sc, 1, &planned, cut, Threads(1)).expect("builds");
    let (world, stop, _) = match dealt {
        Some(d) => lps.run_dealt(d, u64::MAX, &mut |_| true),
        None => lps.run(Threads(1), u64::MAX, &mut |_| true),
    };
    let summary = RunSummary::of(&world.run_record(), "fabric", 1, stop);
    let json = serde_json::to_string(&summary).expect("serialises");
    (
        json,
        flows_csv(&world.run_record()),
        ports_csv(&world.run_record()),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Dealing the LPs to 1 to 5 threads in any order, and stepping each
    /// thread's LPs in any order, gives the one-thread bytes.
    #[test]
    fn any_dealing_and_stepping_order_gives_the_same_bytes(
        order in Just((0..4usize).collect::<Vec<_>>()).prop_shuffle(),
        threads in 1usize..=5,
    ) {
        let sc = common::scenario(FABRIC);
        let reference = outputs(&sc, None);
        let mut dealt = vec![Vec::new(); threads];
        for (i, lp) in order.into_iter().enumerate() {
            dealt[i % threads].push(lp);
        }
        let got = outputs(&sc, Some(dealt));
        prop_assert!(got == reference, "the bytes moved");
    }
}

#[test]
fn the_partitioned_fabric_finishes_every_flow_and_conserves_packets() {
    let sc = common::scenario(&FABRIC.replace("stop_time = \"300us\"", ""));
    let planned = plan_all(&sc, 1);
    let cut = partition_for(&sc, &planned).expect("cuts");
    let lps = Lps::build(&sc, 1, &planned, cut, Threads(3)).expect("builds");
    let (world, stop, windows) = lps.run(Threads(3), u64::MAX, &mut |_| true);
    assert!(
        windows.windows > 10 && windows.lp_events.iter().all(|&e| e > 0),
        "{windows:?}"
    );
    assert_eq!(stop, dcnsim::world::StopReason::Completed);
    let s = RunSummary::of(&world.run_record(), "fabric", 1, stop);
    assert_eq!((s.flows.total, s.flows.completed), (16, 16));
    // Every packet a source sent arrived: none was lost crossing the cut.
    for src in world.sources() {
        assert_eq!(src.sent, src.received, "{} -> {}", src.src, src.dst);
    }
}

/// Runs the CLI on scenario `text`; its output and the run folder.
fn run_cli(text: &str, tag: &str) -> (std::process::Output, std::path::PathBuf) {
    let dir = common::temp_dir(tag);
    let file = dir.join("scenario.toml");
    std::fs::write(&file, text).expect("written");
    let out = dir.join("out");
    let args = [
        "run".as_ref(),
        file.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ];
    let result = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(args)
        .args(["--no-plots", "--threads", "2"])
        .output()
        .expect("runs");
    (result, out)
}

#[test]
fn a_cut_across_a_zero_delay_link_is_refused_by_name() {
    let text = FABRIC.replace("link_delay = \"1us\"", "link_delay = \"0us\"");
    let (out, dir) = run_cli(&text, "zero-delay-cut");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "refused");
    assert!(
        err.contains("zero delay") && err.contains("simulation.partition"),
        "{err}"
    );
    assert!(!dir.exists(), "nothing written");
    // Under `auto` the same fabric runs, as one LP.
    assert_eq!(lps_under_auto(&text, "zero-delay-auto"), "1");
}

/// The LPs a run of `text` under `partition = "auto"` used (it must run).
fn lps_under_auto(text: &str, tag: &str) -> String {
    let auto = text.replace("partition = \"pods\"", "partition = \"auto\"");
    let (out, dir) = run_cli(&auto, tag);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let perf = std::fs::read_to_string(dir.join("perf.json")).expect("perf.json");
    let v: serde_json::Value = serde_json::from_str(&perf).expect("JSON");
    v["lps"].to_string()
}

#[test]
fn what_reads_the_whole_run_keeps_it_in_one_lp_or_is_refused() {
    let logged = FABRIC.replace(
        "[transport]",
        "[output]\nevents = { flows = [0] }\n\n[transport]",
    );
    assert_eq!(lps_under_auto(&logged, "logged-auto"), "1");
    let (out, _) = run_cli(&logged, "logged-pods");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("event log"), "{err}");
}

/// The sampled series are taken between windows, reading every LP: on a
/// dumbbell cut in two, whose two sides never act at one picosecond, the
/// cut run writes the undivided run's bytes, series included, at 1 and 3
/// threads.
#[test]
fn a_cut_dumbbell_writes_the_undivided_bytes_series_included() {
    let run = |tag: &str, flags: &[&str]| {
        let dir = common::temp_dir(tag);
        let out = dir.join("out");
        let mut args = vec!["run", "scenarios/cubic/long-fat-link.toml", "--out"];
        args.push(out.to_str().expect("utf-8"));
        args.extend(flags);
        common::run_cli(&args);
        out
    };
    let whole = run("dumbbell-whole", &["--set", "simulation.partition=none"]);
    for t in ["1", "3"] {
        let cut = run(
            "dumbbell-cut",
            &["--set", "simulation.partition=pods", "--threads", t],
        );
        let perf = std::fs::read_to_string(cut.join("perf.json")).expect("perf.json");
        assert!(perf.contains("\"lps\": 2"), "{perf}");
        for f in [
            "summary.json",
            "flows.csv",
            "ports.csv",
            "goodput.csv",
            "cc.csv",
        ] {
            let (a, b) = (std::fs::read(whole.join(f)), std::fs::read(cut.join(f)));
            assert!(a.is_ok() && a.ok() == b.ok(), "{f} differs at {t} threads");
        }
    }
}

#[test]
fn an_event_cap_stops_at_a_window_end_with_the_same_bytes_at_any_thread_count() {
    let capped = FABRIC.replace("lps = 4", "lps = 4\nmax_events = 20000");
    let sc = common::scenario(&capped);
    let planned = plan_all(&sc, 1);
    let run = |threads| {
        let cut = partition_for(&sc, &planned).expect("cuts");
        let lps = Lps::build(&sc, 1, &planned, cut, Threads(threads)).expect("builds");
        let (world, stop, _) = lps.run(Threads(threads), u64::MAX, &mut |_| true);
        assert_eq!(stop, dcnsim::world::StopReason::EventLimit);
        assert!(world.events_processed() >= 20_000);
        (
            flows_csv(&world.run_record()),
            ports_csv(&world.run_record()),
            world.events_processed(),
        )
    };
    assert_eq!(run(1), run(3));
}

/// Small fabrics that exercise what crosses a cut: a dumbbell, a
/// leaf-spine, k = 4 and k = 8 fat-trees, RoCE with PFC, a trimming UEC
/// incast, a failed link and a collective job, each for a short time.
const ANY_CUT: [(&str, &str); 6] = [
    ("scenarios/dumbbell-dctcp.toml", "2ms"),
    ("scenarios/websearch-leafspine.toml", "1ms"),
    ("scenarios/r-aqm/roce-incast.toml", "1ms"),
    ("scenarios/ai-fabric/uec-incast-k8.toml", "200us"),
    ("scenarios/ai-fabric/link-failure.toml", "400us"),
    ("scenarios/ai-fabric/ring-allreduce-k8.toml", "300us"),
];

/// The cut of `sc`'s fabric that puts node `n` in LP `lps[n % lps.len()]`,
/// each host then in its switch's LP; `None` where that leaves one LP.
fn cut_by(sc: &Scenario, lps: &[u32]) -> Option<net::Partition> {
    let graph = sc.topology.spec.shape.build();
    let mut lp_of_node: Vec<u32> = (0..graph.nodes.len()).map(|i| lps[i % lps.len()]).collect();
    for c in &graph.cables {
        let (a, b) = (c.a.idx(), c.b.idx());
        if graph.nodes[a] == net::NodeKind::Host {
            lp_of_node[a] = lp_of_node[b];
        } else if graph.nodes[b] == net::NodeKind::Host {
            lp_of_node[b] = lp_of_node[a];
        }
    }
    let count = lp_of_node.iter().max().map_or(1, |m| m + 1);
    let cut = net::Partition::of_nodes(&graph, lp_of_node, count).expect("delays");
    (cut.lps > 1).then_some(cut)
}

/// The bytes of `sc` as one queue (`cut` `None`) or cut by `cut` on
/// `threads` threads: its summary (which counts the unfinished flows by
/// what they wait on, packets still in any LP's arena included), flows
/// and ports.
fn bytes_of(sc: &Scenario, cut: Option<net::Partition>, threads: usize) -> String {
    let seed = sc.simulation.seed;
    let (world, stop) = match cut {
        None => {
            let mut w = dcnsim::world::World::build(sc, seed).expect("world builds");
            let stop = w.run();
            (w, stop)
        }
        Some(cut) => {
            let planned = plan_all(sc, seed);
            let lps = Lps::build(sc, seed, &planned, cut, Threads(threads)).expect("builds");
            let (w, stop, _) = lps.run(Threads(threads), u64::MAX, &mut |_| true);
            (w, stop)
        }
    };
    let record = world.run_record();
    let summary = RunSummary::of(&record, "cut", seed, stop);
    let json = serde_json::to_string(&summary).expect("serialises");
    format!("{json}\n{}\n{}", flows_csv(&record), ports_csv(&record))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Ordered by the model (issue 60), any cut of a small fabric into 2
    /// to 6 LPs, switch by switch at random, on 1 to 3 threads, writes the
    /// one queue's bytes: PFC frames, trimmed headers, failures and a
    /// collective's steps included.
    #[test]
    fn ordered_by_the_model_any_cut_gives_the_one_queue_bytes(
        which in 0..ANY_CUT.len(),
        lps in proptest::collection::vec(0u32..6, 1..24),
        threads in 1usize..=3,
    ) {
        let (path, stop) = ANY_CUT[which];
        let set = [
            "simulation.order=model".to_string(),
            format!("simulation.stop_time={stop}"),
        ];
        let sc = common::scenario_file(path, &set);
        let whole = bytes_of(&sc, None, 1);
        let cut = bytes_of(&sc, cut_by(&sc, &lps), threads);
        prop_assert!(cut == whole, "{path}: a cut by {lps:?} moved the bytes");
    }
}

/// `dcnsim validate --np N` prints each MPI rank's estimate, with the LPs
/// it holds, and refuses more ranks than LPs by name.
#[test]
fn validate_estimates_each_rank_of_a_run_across_processes() {
    let file = "benches/scenarios/perm-k16-0.5ms.toml";
    let validate = |np: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["validate", file, "--np", np])
            .output()
            .expect("dcnsim runs")
    };
    let out = validate("3");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for line in [
        "rank 0 of 3: about",
        "(LPs 0-1; ",
        "rank 1 of 3: about",
        "(LPs 2-4; ",
        "rank 2 of 3: about",
        "(LPs 5-7; ",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    let out = validate("9");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "9 ranks for 8 LPs refused");
    assert!(
        err.contains(file) && err.contains("--np") && err.contains("at most 8"),
        "{err}"
    );
}

/// `dcnsim run` started as one of several MPI processes (the variable an
/// MPI launcher sets) is refused before anything is written; as the only
/// one, it runs. (The build with the `mpi` feature joins the job instead:
/// scripts/mpi/test-ranks.sh runs it under a real mpirun.)
#[cfg(not(feature = "mpi"))]
#[test]
fn a_run_started_as_one_of_several_mpi_processes_is_refused() {
    let dir = crate::common::temp_dir("mpi-launch");
    let out = dir.join("run");
    let run = |var: &str, n: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env(var, n)
            .args(["run", "scenarios/quickstart.toml", "--no-plots", "--out"])
            .arg(&out)
            .output()
            .expect("dcnsim runs")
    };
    for var in dcnsim::launch::SIZE_VARIABLES {
        let refused = run(var, "4");
        let err = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success(), "{var}=4 refused");
        assert!(err.contains(&format!("{var}=4")), "{err}");
        assert!(
            err.contains("--features mpi"),
            "names the build that runs it: {err}"
        );
        assert!(!out.exists(), "nothing written");
    }
    let alone = run("OMPI_COMM_WORLD_SIZE", "1");
    assert!(
        alone.status.success(),
        "{}",
        String::from_utf8_lossy(&alone.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The bytes of `sc` (cut into its LPs at seed 1) run across `ranks`
/// processes, each on `threads` threads: ranks as threads of this
/// process ([`dcnsim::world::Loopback`]), the protocol MPI carries
/// (window mail as bytes, reduced next times and flags, each rank's rows
/// gathered to rank 0) without MPI.
fn ranked_outputs(sc: &Scenario, ranks: usize, threads: usize) -> (String, String, String) {
    use dcnsim::world::{Loopback, Peers};
    use std::rc::Rc;
    let planned = plan_all(sc, 1);
    let handles = Loopback::ranks(ranks);
    let results: Vec<_> = std::thread::scope(|s| {
        let runs: Vec<_> = (handles.into_iter())
            .map(|peer| {
                let planned = &planned;
                s.spawn(move || {
                    let peer: Rc<dyn Peers> = Rc::new(peer);
                    let cut = partition_for(sc, planned).expect("cuts");
                    let lps = Lps::build_ranked(sc, 1, planned, cut, Threads(threads), Some(peer))
                        .expect("builds");
                    lps.run_ranked(Threads(threads), u64::MAX, &mut |_| true)
                })
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("a rank"))
            .collect()
    });
    let mut results = results.into_iter();
    let (world, stop, stats) = results.next().flatten().expect("rank 0 merges");
    assert!(results.all(|r| r.is_none()), "the other ranks hand over");
    assert_eq!(stats.ranks, ranks as u32);
    let run = world.run_record();
    let summary = RunSummary::of(&run, "fabric", 1, stop);
    let json = serde_json::to_string(&summary).expect("serialises");
    (json, flows_csv(&run), ports_csv(&run))
}

/// Across 2 and 4 ranks (one and two LPs a rank, on 1 or 2 threads) the
/// cut fabric writes the one-process bytes: flows and sources crossing
/// ranks both ways, then under PFC, then with a link failing mid-run.
#[test]
fn ranks_write_the_one_process_bytes() {
    let plain = common::scenario(FABRIC);
    let pfc = common::scenario(
        &FABRIC
            .replace("buffer = \"100pkt\"", "shared_buffer = \"1MiB\"")
            .replace("[transport]", "[switch.pfc]\nlossless = [0]\n\n[transport]"),
    );
    let failure = common::scenario(&FABRIC.replace(
        "[transport]",
        "[[failure]]\nbetween = [\"agg0\", \"core0\"]\nat = \"40us\"\n\
         reroute_after = \"30us\"\n\n[transport]",
    ));
    for sc in [&plain, &pfc, &failure] {
        let reference = outputs(sc, None);
        for (ranks, threads) in [(2, 1), (4, 1), (2, 2)] {
            let got = ranked_outputs(sc, ranks, threads);
            assert!(
                got == reference,
                "{ranks} ranks x {threads} threads moved the bytes"
            );
        }
    }
}

/// A scenario that samples a series is refused across ranks by the key
/// (the samples read every LP between windows), and more ranks than LPs
/// by the count.
#[test]
fn ranks_refuse_a_sampled_series_and_more_ranks_than_lps() {
    use dcnsim::world::{Loopback, Peers};
    use std::rc::Rc;
    let sampled = common::scenario(&FABRIC.replace(
        "[transport]",
        "[output]\ngoodput_interval = \"50us\"\n\n[transport]",
    ));
    for (sc, ranks, want) in [
        (&sampled, 2, "output.goodput_interval"),
        (
            &common::scenario(FABRIC),
            5,
            "5 MPI ranks for a run cut into 4 LPs",
        ),
    ] {
        let planned = plan_all(sc, 1);
        let peer: Rc<dyn Peers> = Rc::new(Loopback::ranks(ranks).swap_remove(0));
        let cut = partition_for(sc, &planned).expect("cuts");
        let err = Lps::build_ranked(sc, 1, &planned, cut, Threads(1), Some(peer))
            .err()
            .expect("refused");
        assert!(err.to_string().contains(want), "{err}");
    }
}
