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
