//! `[output] cc_trace`: the chosen flows' controller state over time in
//! `cc.csv`, and their window and rate figures.
use crate::common;
use std::path::Path;

/// `cc.csv`'s rows of `flow` and `variable`, as (time_us, value).
fn series(csv: &str, flow: &str, variable: &str) -> Vec<(f64, f64)> {
    csv.lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1] == flow && f[2] == variable)
                .then(|| (f[0].parse().expect("time"), f[3].parse().expect("value")))
        })
        .collect()
}

fn traced_run(scenario: &str, trace: &str, tag: &str) -> (String, std::path::PathBuf) {
    let out = common::temp_dir(tag).join("run");
    common::run_cli(&[
        "run".as_ref(),
        scenario.as_ref(),
        "--set".as_ref(),
        format!("output.cc_trace={trace}").as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let csv = std::fs::read_to_string(out.join("cc.csv")).expect("cc.csv written");
    (csv, out)
}

#[test]
fn a_traced_rcc_run_has_each_flows_window_and_its_figure() {
    let (csv, out) = traced_run(
        "scenarios/rcc/incast-pfc.toml",
        "{flows = [0, 5], interval = \"5us\"}",
        "cc-trace-rcc",
    );
    assert!(csv.starts_with("time_us,flow,variable,value\n"));
    for flow in ["0", "5"] {
        let w = series(&csv, flow, "window_bytes");
        assert!(w.len() > 10, "flow {flow}: {} window samples", w.len());
        // RCC starts every flow at the line-rate BDP, then assigns shares.
        assert!(
            w[0].1 > w[w.len() - 1].1,
            "flow {flow}'s window shrinks: {w:?}"
        );
        assert!(
            !series(&csv, flow, "pid_u").is_empty(),
            "the receiver's PID state"
        );
    }
    assert!(
        series(&csv, "1", "window_bytes").is_empty(),
        "only traced flows"
    );
    for fig in ["cc_window.png", "cc_rate.png"] {
        assert!(out.join("plots").join(fig).is_file(), "{fig}");
    }
    std::fs::remove_dir_all(out.parent().expect("temp")).expect("cleanup");
}

#[test]
fn a_traced_tcp_run_has_cwnd_and_the_controllers_own_state() {
    let (csv, out) = traced_run(
        "scenarios/quickstart.toml",
        "{flows = [3], interval = \"50us\"}",
        "cc-trace-tcp",
    );
    let cwnd = series(&csv, "3", "cwnd_bytes");
    let alpha = series(&csv, "3", "alpha");
    assert!(
        cwnd.len() > 100 && alpha.len() == cwnd.len(),
        "{} / {}",
        cwnd.len(),
        alpha.len()
    );
    assert!(
        alpha.iter().all(|(_, a)| (0.0..=1.0).contains(a)),
        "DCTCP's alpha in [0, 1]"
    );
    // Identical inputs, identical trace.
    let (again, out2) = traced_run(
        "scenarios/quickstart.toml",
        "{flows = [3], interval = \"50us\"}",
        "cc-trace-tcp2",
    );
    assert_eq!(csv, again);
    for o in [out, out2] {
        std::fs::remove_dir_all(o.parent().unwrap_or(Path::new("."))).expect("cleanup");
    }
}

#[test]
fn a_trace_of_a_missing_flow_or_too_short_an_interval_is_refused() {
    let base = std::fs::read_to_string("scenarios/quickstart.toml").expect("shipped");
    for (trace, says) in [
        (
            "{ flows = [99], interval = \"10us\" }",
            "flow 99 does not exist",
        ),
        ("{ flows = [1], interval = \"1ps\" }", "at least 1ns"),
        ("{ flows = [], interval = \"10us\" }", "at least one flow"),
        ("{ flows = [1] }", "interval"),
    ] {
        let text = format!("{base}\n[output.cc_trace]\n")
            .replace("[output.cc_trace]\n", &format!("cc_trace = {trace}\n"));
        let text = if base.contains("[output]") {
            text
        } else {
            text.replace("cc_trace = ", "[output]\ncc_trace = ")
        };
        let e = dcnsim::scenario::parse_str("t.toml", &text).expect_err("refused");
        assert!(e.to_string().contains(says), "{trace}: {e}");
    }
}

/// Series that grow with the run are streamed to disk as they are taken
/// (issue 38: a 1 ns trace of a long CUBIC flow held 67 B a row in memory
/// and aborted): the streamed `cc.csv`, `goodput.csv`, `rtt.csv` and
/// `queues.csv` are byte-identical to the same series kept in memory and
/// written whole, and a streamed run keeps no row.
#[test]
fn growing_series_stream_to_disk_with_the_same_bytes() {
    let sets = [
        "output.cc_trace={flows = [0, 1], interval = \"100ns\"}",
        "output.goodput_interval=\"10us\"",
        "output.rtt_interval=\"20us\"",
        "output.queue_interval=\"50us\"",
    ];
    let out = common::temp_dir("stream-series").join("run");
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["run".as_ref(), "scenarios/quickstart.toml".as_ref()];
    for s in &sets {
        args.push("--set".as_ref());
        args.push(s.as_ref());
    }
    args.extend(["--no-plots".as_ref(), "--out".as_ref(), out.as_os_str()]);
    assert!(common::run_cli(&args).status.success());
    let overrides: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let (w, _) = common::run_file("scenarios/quickstart.toml", &overrides);
    assert!(!w.cc_samples().is_empty(), "kept without a sink");
    for (file, whole) in [
        ("cc.csv", dcnsim::report::cc_csv(&w.run_record())),
        ("goodput.csv", dcnsim::report::goodput_csv(&w.run_record())),
        ("rtt.csv", dcnsim::report::rtt_csv(&w.run_record())),
        ("queues.csv", dcnsim::report::queues_csv(&w.run_record())),
    ] {
        let streamed = std::fs::read_to_string(out.join(file)).expect("written");
        assert!(streamed.lines().count() > 10, "{file}");
        assert_eq!(streamed, whole, "{file}");
    }
    // Streamed, nothing is kept.
    let mut sc = common::scenario_file("scenarios/quickstart.toml", &overrides);
    sc.name = "streamed".into();
    let mut w = dcnsim::world::World::build(&sc, 1).expect("builds");
    w.stream_series_to(dcnsim::world::SeriesSinks {
        cc: Some(Box::new(dcnsim::report::CsvRows::cc(std::io::sink()))),
        ..Default::default()
    });
    w.run();
    w.finish_series().expect("flushed");
    assert!(w.cc_samples().is_empty());
    std::fs::remove_dir_all(out.parent().expect("parent")).expect("cleanup");
}

/// The variables of `cc.csv`'s table in docs/outputs.md (backquoted names
/// in its first column).
fn documented_cc_variables() -> Vec<String> {
    let doc = std::fs::read_to_string("docs/outputs.md").expect("docs");
    let section = doc
        .split("## `cc.csv`")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a cc.csv section");
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .filter_map(|l| l.split('|').nth(1))
        .flat_map(|cell| cell.split('`').skip(1).step_by(2).map(str::to_string))
        .collect()
}

/// Every variable any controller or transport writes to `cc.csv` is in
/// docs/outputs.md, and every one documented is written by some run: one
/// traced run per row of the `cc` registry (RCC also as rcc-sender) and
/// per receiver-driven transport.
#[test]
fn every_cc_csv_variable_is_documented() {
    let mut runs: Vec<(String, Vec<String>)> = Vec::new();
    for c in dcnsim::registry::cc::FAMILY.kinds {
        let (scenario, cc) = match c.doc.runs_on {
            "tcp" => ("scenarios/quickstart.toml", c.doc.name.to_string()),
            _ => ("scenarios/cc/incast-none.toml", c.doc.name.to_string()),
        };
        runs.push((scenario.into(), vec![format!("transport.cc={cc}")]));
    }
    runs.push((
        "scenarios/cc/incast-none.toml".into(),
        vec!["transport.cc={kind = \"rcc\", variant = \"rcc-sender\"}".into()],
    ));
    runs.push(("scenarios/homa/incast-preempt.toml".into(), vec![]));
    runs.push(("scenarios/expresspass/incast.toml".into(), vec![]));
    let tmp = common::temp_dir("cc-vars");
    let mut written = std::collections::BTreeSet::new();
    for (i, (scenario, sets)) in runs.iter().enumerate() {
        let out = tmp.join(format!("r{i}"));
        let mut args: Vec<std::ffi::OsString> = vec!["run".into(), scenario.into()];
        for s in sets.iter().map(String::as_str).chain([
            "output.cc_trace={flows = [0, 1], interval = \"20us\"}",
            "simulation.stop_time=2ms",
        ]) {
            args.push("--set".into());
            args.push(s.into());
        }
        args.extend(["--no-plots".into(), "--out".into(), out.clone().into()]);
        let argv: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        common::run_cli(&argv);
        let csv = std::fs::read_to_string(out.join("cc.csv")).expect("cc.csv written");
        assert!(csv.lines().count() > 1, "{scenario} {sets:?}: no row");
        written.extend(
            csv.lines()
                .skip(1)
                .filter_map(|l| l.split(',').nth(2))
                .map(str::to_string),
        );
    }
    std::fs::remove_dir_all(&tmp).ok();
    let documented = documented_cc_variables();
    let undocumented: Vec<&String> = written.iter().filter(|v| !documented.contains(v)).collect();
    assert!(
        undocumented.is_empty(),
        "cc.csv variables missing from docs/outputs.md: {undocumented:?}"
    );
    let stale: Vec<&String> = documented
        .iter()
        .filter(|v| !written.contains(*v))
        .collect();
    assert!(
        stale.is_empty(),
        "documented but written by no run: {stale:?}"
    );
}
