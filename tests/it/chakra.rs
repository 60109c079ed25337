//! Chakra execution traces end to end (issue 61): the traces Chakra's
//! generator writes and ASTRA-sim ships run as written; a trace's
//! collective runs as the collective workload runs it; compute overlaps
//! communication where the dependencies allow and is serialised on its
//! stream where ASTRA-sim serialises it; a cut run gives the one-LP
//! bytes; bad traces are refused naming the file and node.

use crate::common;
use dcnsim::registry::workload::chakra::schema::{self, AttributeProto, NodeType, Value};
use dcnsim::report::{collective_rows, collectives_csv, flows_csv, iterations_csv, nodes_csv};
use prost::Message as _;

/// A leaf-spine of 2 x 4 hosts at 100 Gb/s, non-blocking, RoCE without a
/// controller (the collectives tests' fabric), and a workload.
fn scenario(workload: &str) -> String {
    format!(
        "[topology]\nkind = \"leaf-spine\"\nleaves = 2\nspines = 2\nhosts_per_leaf = 4\n\
         host_rate = \"100Gbps\"\nfabric_rate = \"100Gbps\"\nlink_delay = \"1us\"\n\
         [switch]\nbuffer = \"4MB\"\n[transport]\nkind = \"roce\"\nmtu = \"4000B\"\n\
         ack_interval = 16\ncc = \"none\"\n[[workload]]\n{workload}"
    )
}

fn trace(prefix: &str, hosts: &str) -> String {
    scenario(&format!(
        "kind = \"chakra\"\ntrace = \"{prefix}\"\nhosts = {hosts}\n"
    ))
}

/// ASTRA-sim's microbenchmarks run as the same collective written as a
/// `collective` workload: the same transfers at the same times.
#[test]
fn astra_sims_microbenchmarks_run_as_the_collective_workload() {
    for (op, name, size) in [
        ("all-reduce", "all_reduce", 1u64 << 20),
        ("all-gather", "all_gather", 4 << 20),
        ("all-to-all", "all_to_all", 1 << 20),
    ] {
        let prefix = format!("tests/traces/chakra/astra-sim/{name}_4npus_1MB/{name}");
        let (w, s) = common::run(&trace(&prefix, "[0, 1, 4, 5]"));
        let coll = collective_rows(&w.run_record());
        assert_eq!(coll.len(), 1, "{name}");
        let job = format!(
            "kind = \"collective\"\nhosts = [0, 1, 4, 5]\nop = \"{op}\"\nsize = \"{size}B\"\n"
        );
        let (w2, s2) = common::run(&scenario(&job));
        let coll2 = collective_rows(&w2.run_record());
        assert_eq!(
            (coll[0].start, coll[0].end),
            (coll2[0].start, coll2[0].end),
            "{name}"
        );
        assert_eq!(s.flows.completed, s2.flows.completed, "{name}");
        // The trace's iteration is its collective from the job's start,
        // until each rank's last send is acknowledged: the CCT (the last
        // byte's arrival) and an acknowledgment's way back, a few us.
        let t = &s.traces[0];
        assert_eq!((t.iterations, t.completed), (1, 1));
        let cct = coll[0].end.expect("done").ps() as f64 / 1e6;
        let it = t.iteration_us.max.expect("one");
        assert!(
            it > cct && it < cct + 8.0,
            "{name}: iteration {it} us, CCT {cct} us"
        );
        assert_eq!(t.compute_us, Some(0.0));
        assert_eq!(t.overlapped_us, Some(0.0));
    }
}

/// Every collective type of Chakra's generator that dcnsim runs.
#[test]
fn chakra_generators_collectives_run() {
    for name in [
        "ALL_REDUCE",
        "ALL_GATHER",
        "REDUCE_SCATTER",
        "ALL_TO_ALL",
        "BROADCAST",
    ] {
        let prefix = format!("tests/traces/chakra/generator/{name}");
        let (_, s) = common::run(&trace(&prefix, "\"0-3\""));
        assert_eq!(s.traces[0].completed, 1, "{name}");
        assert!(
            s.flows.completed > 0 && s.flows.completed == s.flows.total,
            "{name}"
        );
    }
}

/// Compute nodes hold their GPU's compute stream: two independent 5 us
/// nodes take 10 us, as in ASTRA-sim (one GPU operation at a time), the
/// same as two dependent ones; a rank computes alone, with no flow.
#[test]
fn compute_is_serialised_on_its_stream() {
    for (name, us) in [
        ("one_comp_node", 5.0),
        ("two_comp_nodes_independent", 10.0),
        ("two_comp_nodes_dependent", 10.0),
    ] {
        let prefix = format!("tests/traces/chakra/generator/{name}");
        let (w, s) = common::run(&trace(&prefix, "\"0-3\""));
        let t = &s.traces[0];
        assert_eq!(t.iteration_us.max, Some(us), "{name}");
        assert_eq!(t.compute_us, Some(us), "{name}");
        assert_eq!(s.flows.completed, 0);
        assert_eq!(
            w.now().ps(),
            (us * 1e6) as u64,
            "{name}: the run ends with the compute"
        );
    }
}

/// The data-parallel iteration: each layer's all-reduce runs beside the
/// backward of the layers before it, so the iteration is shorter than
/// its compute and communication one after the other, and the split adds
/// up.
#[test]
fn compute_overlaps_communication_where_the_trace_allows() {
    let (w, s) = common::run_file("scenarios/ai-training/chakra-dp.toml", &[]);
    let t = &s.traces[0];
    assert_eq!((t.iterations, t.completed), (2, 2));
    let compute = t.compute_us.expect("done");
    let overlapped = t.overlapped_us.expect("done");
    let exposed = t.exposed_us.expect("done");
    // 4 x 300 us forward, 4 x 600 us backward, 50 us optimizer.
    assert!((compute - 3650.0).abs() < 1e-6, "{compute}");
    // Three backward layers run beside all-reduces.
    assert!((overlapped - 1800.0).abs() < 1e-6, "{overlapped}");
    let it = t.iteration_us.mean.expect("two");
    let comm = overlapped + exposed;
    assert!(
        it < compute + comm - 1000.0,
        "{it} against {compute} + {comm}"
    );
    assert!(
        it >= compute + exposed - 1.0,
        "{it} against {compute} + {exposed}"
    );
    let run = w.run_record();
    // Every node of every rank and iteration: 13 each, the backward of
    // layer 2 beside layer 3's all-reduce.
    let nodes = nodes_csv(&run);
    assert_eq!(nodes.lines().count(), 1 + 2 * 8 * 13);
    assert!(
        nodes.contains("\n0,0,0,0,5,allreduce3,collective,1800.000000,"),
        "{nodes}"
    );
    assert!(
        nodes.contains("\n0,0,0,0,6,bwd2,compute,1800.000000,2400.000000\n"),
        "{nodes}"
    );
    let csv = iterations_csv(&run);
    assert_eq!(csv.lines().count(), 1 + 2 * 8, "{csv}");
    // Each row: time = compute + exposed + idle.
    for line in csv.lines().skip(1) {
        let c: Vec<f64> = line
            .split(',')
            .skip(6)
            .map(|v| v.parse().expect("number"))
            .collect();
        let (time, comp, comm, over, exp, idle) = (c[0], c[1], c[2], c[3], c[4], c[5]);
        assert!((time - (comp + exp + idle)).abs() < 1e-3, "{line}");
        assert!((comm - (over + exp)).abs() < 1e-3, "{line}");
    }
}

/// A trace of every kind: GPU and CPU compute, metadata, collectives on
/// two named groups, a send and its receive.
#[test]
fn a_trace_of_every_kind_runs() {
    let job = "kind = \"chakra\"\ntrace = \"scenarios/ai-training/traces/every-kind/every-kind\"\n\
               hosts = [0, 4, 1, 5]\ngroups = { \"0\" = [0, 1], \"1\" = [2, 3] }\n";
    let (w, s) = common::run(&scenario(job));
    assert_eq!(s.traces[0].completed, 1);
    let run = w.run_record();
    // Two pair all-reduces (2 ranks, 2 steps: 4 transfers each) and a ring of 4
    // sends.
    let coll = collective_rows(&run);
    assert_eq!(coll.len(), 2);
    assert_eq!(s.flows.completed, 2 * 4 + 4);
    // The sends go from host of rank r to the host of rank r + 1.
    let flows = flows_csv(&run);
    for (src, dst) in [(0, 4), (4, 1), (1, 5), (5, 0)] {
        let pair = format!(",{src},{dst},262144,");
        assert!(flows.contains(&pair), "{pair} in\n{flows}");
    }
    // The CPU's 5 us runs beside the GPU's 20 us: compute is their union.
    assert_eq!(s.traces[0].compute_us, Some(20.0 + 10.0));
}

/// The same trace job cut into LPs writes the one-LP bytes.
#[test]
fn a_partitioned_trace_run_gives_the_one_lp_bytes() {
    let text = format!(
        "[simulation]\npartition = \"pods\"\nlps = 2\n{}",
        trace(
            "scenarios/ai-training/traces/moe-2layer/moe-2layer",
            "\"0-7\""
        )
    );
    let sc = common::scenario(&text);
    let bytes = |threads: usize| {
        let (w, s) = common::run_cut(&sc, 2, threads);
        let run = w.run_record();
        (
            serde_json::to_string(&s).expect("serialises"),
            flows_csv(&run),
            collectives_csv(&run, &collective_rows(&run)),
            iterations_csv(&run),
        )
    };
    let one_lp = {
        let (w, _) = common::run(&text);
        let run = w.run_record();
        (
            flows_csv(&run),
            collectives_csv(&run, &collective_rows(&run)),
            iterations_csv(&run),
        )
    };
    let cut = bytes(2);
    assert!(cut.3.lines().count() == 9, "{}", cut.3);
    assert_eq!((&cut.1, &cut.2, &cut.3), (&one_lp.0, &one_lp.1, &one_lp.2));
    assert_eq!(bytes(1), cut);
}

fn attr_i(name: &str, v: i64) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        doc_string: String::new(),
        value: Some(Value::Int64Val(v)),
    }
}

fn node(id: u64, ty: NodeType, deps: &[u64], attrs: Vec<AttributeProto>) -> schema::Node {
    schema::Node {
        id,
        name: format!("n{id}"),
        r#type: ty as i32,
        data_deps: deps.to_vec(),
        duration_micros: 3,
        attr: attrs,
        ..Default::default()
    }
}

fn write_traces(dir: &std::path::Path, ranks: &[Vec<schema::Node>]) {
    for (r, nodes) in ranks.iter().enumerate() {
        let mut out = Vec::new();
        let meta = schema::GlobalMetadata {
            version: "0.0.4".into(),
            attr: Vec::new(),
        };
        meta.encode_length_delimited(&mut out).expect("encodes");
        for n in nodes {
            n.encode_length_delimited(&mut out).expect("encodes");
        }
        std::fs::write(dir.join(format!("t.{r}.et")), out).expect("written");
    }
}

fn refused(ranks: &[Vec<schema::Node>], extra: &str) -> String {
    let dir = common::temp_dir(&temp_tag());
    write_traces(&dir, ranks);
    let hosts = ranks.len();
    let text = format!(
        "{}{extra}",
        trace(
            &format!("{}/t", dir.display()),
            &format!("\"0-{}\"", hosts - 1)
        )
    );
    let e = dcnsim::scenario::parse_str("test.toml", &text).expect_err("refused");
    let _ = std::fs::remove_dir_all(&dir);
    e.to_string()
}

/// A folder name of its own for each use in this process.
fn temp_tag() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!("chakra-{}", N.fetch_add(1, Ordering::Relaxed))
}

fn coll(id: u64, size: i64) -> schema::Node {
    node(
        id,
        NodeType::CommCollNode,
        &[],
        vec![attr_i("comm_type", 0), attr_i("comm_size", size)],
    )
}

#[test]
fn bad_traces_are_refused_naming_the_file_and_node() {
    // Ranks that call different collectives in one place.
    let e = refused(&[vec![coll(1, 1000)], vec![coll(1, 2000)]], "");
    assert!(
        e.contains(
            "t.1.et: node 1 ('n1'): all-reduce of 2000 B, where rank 0 calls all-reduce of 1000 B"
        ),
        "{e}"
    );
    // A rank that makes fewer calls.
    let e = refused(
        &[vec![coll(1, 1000), coll(2, 1000)], vec![coll(1, 1000)]],
        "",
    );
    assert!(
        e.contains("t.1.et: rank 1 calls 1 collectives on group 'every rank', other ranks of it 2"),
        "{e}"
    );
    // A group the workload does not give.
    let mut g = coll(1, 1000);
    g.attr.push(AttributeProto {
        name: "pg_name".into(),
        doc_string: String::new(),
        value: Some(Value::StringVal("tp".into())),
    });
    let e = refused(&[vec![g.clone()], vec![g]], "");
    assert!(
        e.contains("pg_name 'tp' is not a group of the workload's groups (given: none)"),
        "{e}"
    );
    // A send without its receive.
    let send = node(
        1,
        NodeType::CommSendNode,
        &[],
        vec![attr_i("comm_dst", 1), attr_i("comm_size", 10)],
    );
    let e = refused(
        &[vec![send], vec![node(1, NodeType::CompNode, &[], vec![])]],
        "",
    );
    assert!(
        e.contains(
            "t.0.et: node 1 ('n1'): rank 0 sends 1 messages with tag 0 to rank 1, which receives 0"
        ),
        "{e}"
    );
    // One host more than the traces.
    let dir = common::temp_dir(&temp_tag());
    write_traces(&dir, &[vec![coll(1, 1000)], vec![coll(1, 1000)]]);
    let text = trace(&format!("{}/t", dir.display()), "\"0-2\"");
    let e = dcnsim::scenario::parse_str("test.toml", &text)
        .expect_err("refused")
        .to_string();
    assert!(e.contains("t.2.et: No such file"), "{e}");
    // One trace more than the hosts.
    let text = trace(&format!("{}/t", dir.display()), "[0]");
    let e = dcnsim::scenario::parse_str("test.toml", &text)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("t.1.et exists: the trace has more ranks than the 1 hosts given"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    // A group with a stranger.
    let e = refused(
        &[vec![coll(1, 1000)], vec![coll(1, 1000)]],
        "groups = { a = [0, 7] }\n",
    );
    assert!(
        e.contains("group 'a': rank 7 is not a rank: the job has ranks 0 to 1"),
        "{e}"
    );
    let e = refused(
        &[vec![coll(1, 1000)], vec![coll(1, 1000)]],
        "algorithms = { all-reduce = \"direct\" }\n",
    );
    assert!(
        e.contains("direct cannot run all-reduce: valid algorithms are ring, halving-doubling"),
        "{e}"
    );
}

/// Two trace jobs on one fabric, each with its own trace, hosts and
/// start: each job's iteration is longer beside the other than alone (the
/// shipped scenario), and each alone matches its run as the only job.
#[test]
fn two_trace_jobs_share_the_fabric() {
    let (_, both) = common::run_file("scenarios/ai-training/two-trace-jobs.toml", &[]);
    assert_eq!(both.traces.len(), 2);
    let text = std::fs::read_to_string("scenarios/ai-training/two-trace-jobs.toml").expect("read");
    let (head, rest) = text.split_once("\n[[workload]]\n").expect("a workload");
    let (w0, w1) = rest.split_once("\n[[workload]]\n").expect("two");
    for (i, w) in [w0, w1].iter().enumerate() {
        let alone = format!("{head}\n[[workload]]\n{w}").replace(
            "trace = \"traces/",
            "trace = \"scenarios/ai-training/traces/",
        );
        let (_, s) = common::run(&alone);
        let solo = s.traces[0].iteration_us.max.expect("done");
        let shared = both.traces[i].iteration_us.max.expect("done");
        assert!(
            shared > solo * 1.2,
            "job {i}: {shared} us beside the other, {solo} us alone"
        );
        assert_eq!(s.traces[0].compute_us, both.traces[i].compute_us);
    }
}

/// A job too large to plan is refused before it is planned, naming the
/// key: iterations past the node runs a job may have.
#[test]
fn a_job_too_large_to_plan_is_refused() {
    let text =
        trace("tests/traces/chakra/generator/one_comp_node", "\"0-3\"") + "iterations = 100000\n";
    let ok = dcnsim::scenario::parse_str("test.toml", &text);
    assert!(ok.is_ok(), "4 x 100,000 node runs fit");
    let text = trace(
        "scenarios/ai-training/traces/dp-4layer/dp-4layer",
        "\"0-7\"",
    ) + "iterations = 100000\n";
    let e = dcnsim::scenario::parse_str("test.toml", &text)
        .expect_err("too large")
        .to_string();
    assert!(
        e.contains("100000 iterations of 448 transfers plan 44800000, more than the 16777216"),
        "{e}"
    );
    assert!(e.contains("iterations"), "{e}");
    let text = trace(
        "scenarios/ai-training/traces/dp-4layer/dp-4layer",
        "\"0-7\"",
    )
    .replace(
        "kind = \"chakra\"",
        "kind = \"chakra\"\niterations = 100000\nchannels = 64",
    );
    let e = dcnsim::scenario::parse_str("test.toml", &text)
        .expect_err("too large")
        .to_string();
    assert!(e.contains("transfers"), "{e}");
}

fn attr_list(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        doc_string: String::new(),
        value: Some(Value::Int64List(schema::Int64List { values: v.to_vec() })),
    }
}

fn all_to_all_v(row: &[i64]) -> schema::Node {
    node(
        1,
        NodeType::CommCollNode,
        &[],
        vec![attr_i("comm_type", 6), attr_list("comm_sizes", row)],
    )
}

/// MoE's variable all-to-all (`comm_sizes`, one entry per rank of the
/// group): each pair's bytes are one flow, a pair with nothing to send
/// none; rows that do not fit the group are refused.
#[test]
fn a_variable_all_to_all_sends_each_pair_its_bytes() {
    let dir = common::temp_dir(&temp_tag());
    let rows = [vec![0, 1000, 5000], vec![2000, 0, 0], vec![3000, 4000, 0]];
    write_traces(
        &dir,
        &rows
            .iter()
            .map(|r| vec![all_to_all_v(r)])
            .collect::<Vec<_>>(),
    );
    let (w, s) = common::run(&trace(&format!("{}/t", dir.display()), "[0, 1, 4]"));
    assert_eq!(s.traces[0].completed, 1);
    let flows = flows_csv(&w.run_record());
    let mut sent: Vec<(String, String, String)> = flows
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (c[2].to_string(), c[3].to_string(), c[4].to_string())
        })
        .collect();
    sent.sort();
    let want: Vec<(String, String, String)> = [
        ("0", "1", "1000"),
        ("0", "4", "5000"),
        ("1", "0", "2000"),
        ("4", "0", "3000"),
        ("4", "1", "4000"),
    ]
    .iter()
    .map(|&(a, b, c)| (a.into(), b.into(), c.into()))
    .collect();
    assert_eq!(sent, want, "{flows}");
    let _ = std::fs::remove_dir_all(&dir);
    let e = refused(
        &[
            vec![all_to_all_v(&[0, 10])],
            vec![all_to_all_v(&[10, 0, 5])],
        ],
        "",
    );
    assert!(
        e.contains("t.1.et: node 1 ('n1'): comm_sizes has 3 entries for a group of 2 ranks"),
        "{e}"
    );
    let e = refused(
        &[vec![all_to_all_v(&[7, 10])], vec![all_to_all_v(&[10, 0])]],
        "",
    );
    assert!(
        e.contains("comm_sizes gives 7 B to this rank itself (entry 0)"),
        "{e}"
    );
}
