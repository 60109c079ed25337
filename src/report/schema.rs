//! The keys of `summary.json`, as plot paths: read off a real summary
//! rather than kept by hand, so that the list cannot drift from the code.
//! A small built-in scenario that turns every optional block on (two
//! transports and ExpressPass's credits, an incast with rounds, a
//! load-defined workload, a ping, a collective job, PFC,
//! `jain_flows`, the goodput series) is run once, its summary serialised, and every numeric
//! leaf's dotted path kept, list positions written `N`
//! (`workloads.N.rtt_us.p99`). A test checks that every shipped golden
//! summary's paths are among them. A trace job's block is its type serialised
//! (a built-in scenario names no trace file).

use std::sync::OnceLock;

/// The built-in scenario whose summary has every block.
const SCHEMA_SCENARIO: &str = r#"
[simulation]
stop_time = "3ms"
[topology]
kind = "star"
hosts = 6
link_rate = "10Gbps"
link_delay = "1us"
[switch]
shared_buffer = "1MB"
[switch.pfc]
lossless = [3]
[transport.tcp]
cc = "dctcp"
[transport.roce]
kind = "roce"
[transport.xpass]
kind = "expresspass"
[[workload]]
kind = "incast"
transport = "tcp"
receiver = 0
senders = "1-2"
size = "20KB"
rounds = 2
[[workload]]
kind = "flows"
transport = "tcp"
cdf = "websearch"
load = 0.1
hosts = "3-4"
flows = 2
[[workload]]
kind = "incast"
transport = "roce"
receiver = 5
senders = "3-4"
size = "20KB"
priority = 3
[[workload]]
kind = "incast"
transport = "xpass"
receiver = 2
senders = "4-5"
size = "20KB"
[[workload]]
kind = "ping"
src = 1
dst = 2
interval = "100us"
count = 3
[[workload]]
kind = "collective"
transport = "roce"
hosts = "0-2"
op = "all-gather"
size = "3KB"
[output]
jain_flows = [0, 1]
goodput_interval = "100us"
queue_interval = "100us"
queue_from = "0s"
"#;

/// A second built-in scenario for the blocks a failure fills: a
/// dumbbell whose bottleneck goes down and is routed around, leaving the
/// left switch no route (`drops_by_cause.link_down` and `unroutable`).
const SCHEMA_FAILURE_SCENARIO: &str = r#"
[simulation]
stop_time = "1ms"
[topology]
kind = "dumbbell"
left = 1
right = 1
host_rate = "10Gbps"
host_delay = "1us"
bottleneck_rate = "10Gbps"
bottleneck_delay = "1us"
[switch]
buffer = "100pkt"
[transport]
rto_min = "20us"
rto_initial = "100us"
[[workload]]
kind = "long-flows"
pairs = [[0, 1]]
[[failure]]
between = ["left", "right"]
at = "10us"
reroute_after = "10us"
"#;

/// Every plottable path of `summary.json`, sorted: numeric leaves (and
/// leaves that may be `null` where a statistic does not exist), list
/// positions as `N`.
pub fn summary_paths() -> &'static [String] {
    static PATHS: OnceLock<Vec<String>> = OnceLock::new();
    PATHS.get_or_init(|| {
        let mut paths = Vec::new();
        for text in [SCHEMA_SCENARIO, SCHEMA_FAILURE_SCENARIO] {
            let sc = crate::scenario::parse_str("(built-in schema scenario)", text)
                .expect("the built-in schema scenario is valid (a dcnsim bug otherwise)");
            let mut w = crate::world::World::build(&sc, 1)
                .expect("the built-in schema scenario builds (a dcnsim bug otherwise)");
            let stop = w.run();
            let run = w.run_record();
            let mut summary = super::RunSummary::of(&run, "schema", 1, stop);
            summary.max_min = crate::max_min::of_run(&w, &run);
            let value = serde_json::to_value(&summary).expect("plain data serialises");
            paths.extend(leaf_paths(&value));
        }
        // A trace job's block: its own type serialised, since a built-in
        // scenario names no trace file.
        let trace = super::TraceJobSummary {
            workload: 0,
            ranks: 0,
            iterations: 0,
            completed: 0,
            iteration_us: sim_core::stats::Summary::default(),
            compute_us: None,
            overlapped_us: None,
            exposed_us: None,
            idle_us: None,
        };
        let traces = serde_json::json!({ "traces": [trace] });
        paths.extend(leaf_paths(&traces));
        paths.sort();
        paths.dedup();
        paths
    })
}

/// The dotted paths of `v`'s numeric (or null) leaves, list positions as `N`.
pub fn leaf_paths(v: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(v, String::new(), &mut out);
    out
}

fn walk(v: &serde_json::Value, at: String, out: &mut Vec<String>) {
    let join = |k: &str| {
        if at.is_empty() {
            k.to_string()
        } else {
            format!("{at}.{k}")
        }
    };
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                walk(x, join(k), out);
            }
        }
        serde_json::Value::Array(a) => {
            for x in a {
                walk(x, join("N"), out);
            }
        }
        serde_json::Value::Number(_) | serde_json::Value::Null => out.push(at),
        serde_json::Value::String(_) | serde_json::Value::Bool(_) => {}
    }
}

/// `path` with its list positions written `N` (`workloads.1.rtt_us.p99`
/// -> `workloads.N.rtt_us.p99`).
pub fn generic(path: &str) -> String {
    path.split('.')
        .map(|p| {
            if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
                "N"
            } else {
                p
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_golden_summarys_paths_are_known() {
        let known = summary_paths();
        assert!(
            known.iter().any(|p| p == "transports.N.goodput_gbps"),
            "{known:?}"
        );
        assert!(known.iter().any(|p| p.starts_with("pfc.")), "{known:?}");
        let mut dirs = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/golden"
        ))];
        let mut checked = 0;
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).expect("golden folder") {
                let p = e.expect("entry").path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.file_name().is_some_and(|n| n == "summary.json") {
                    let v: serde_json::Value =
                        serde_json::from_slice(&std::fs::read(&p).expect("read")).expect("json");
                    for path in leaf_paths(&v) {
                        // A block that is `null` here (fairness unset) is an
                        // object in the schema.
                        let block = format!("{path}.");
                        let ok =
                            known.contains(&path) || known.iter().any(|k| k.starts_with(&block));
                        assert!(ok, "{}: {path} is not in the schema", p.display());
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked >= 10, "{checked} golden summaries");
    }
}
