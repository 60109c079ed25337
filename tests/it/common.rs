//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use transport::SenderEnd;

use dcnsim::report::RunSummary;
use dcnsim::scenario::{Scenario, parse_str};
use dcnsim::world::World;

/// Parses a scenario from text (panics with the error on bad input).
pub fn scenario(text: &str) -> Scenario {
    parse_str("test.toml", text).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds and runs a scenario to its end.
pub fn run(text: &str) -> (World, RunSummary) {
    run_scenario(&scenario(text))
}

/// Loads a shipped scenario file (a path from the repository's root) with
/// `--set` overrides (panics with the error on bad input).
pub fn scenario_file(path: &str, overrides: &[String]) -> Scenario {
    dcnsim::scenario::load(Path::new(path), overrides).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds and runs a shipped scenario file with overrides to its end.
pub fn run_file(path: &str, overrides: &[String]) -> (World, RunSummary) {
    run_scenario(&scenario_file(path, overrides))
}

/// Builds and runs a loaded scenario to its end, at its own seed.
pub fn run_scenario(sc: &Scenario) -> (World, RunSummary) {
    let mut w = World::build(sc, sc.simulation.seed).expect("world builds");
    let stop = w.run();
    let s = RunSummary::of(&w.run_record(), "test", sc.simulation.seed, stop);
    (w, s)
}

/// Runs a loaded scenario cut into its LPs (its `[simulation]`'s
/// partition, which must cut it into `lps`) on `threads` threads, at
/// seed 1: the merged world and its summary.
pub fn run_cut(sc: &Scenario, lps: u32, threads: usize) -> (World, RunSummary) {
    use dcnsim::world::{Lps, Threads, partition_for};
    let planned = dcnsim::registry::workload::plan_all(sc, 1);
    let cut = partition_for(sc, &planned).expect("cuts");
    assert_eq!(cut.lps, lps);
    let parts = Lps::build(sc, 1, &planned, cut, Threads(threads)).expect("builds");
    let (w, stop, _) = parts.run(Threads(threads), u64::MAX, &mut |_| true);
    let s = RunSummary::of(&w.run_record(), "job", 1, stop);
    (w, s)
}

/// What a port and the flows did over a window of a run.
pub struct Window {
    /// Time-average queue of the port, packets.
    pub avg_packets: f64,
    /// Time-average queue of the port, bytes.
    pub avg_bytes: f64,
    /// The port's link utilisation on the wire (1.0 = line rate).
    pub utilisation: f64,
    /// Bytes acknowledged per flow in the window.
    pub shares: Vec<f64>,
}

/// Runs `w` to `from`, then to its end, and measures port `port` and the
/// flows over that window.
pub fn measure_window(w: &mut World, port: net::PortId, from: sim_core::SimTime) -> Window {
    w.run_until(from);
    let snap = |w: &World| {
        let st = &w.fabric().port(port).stats;
        let now = w.now().ps();
        let acked: Vec<u64> = w.flows().iter().map(|f| f.sender.bytes_acked()).collect();
        (
            st.queue_packets_area.area_at(now),
            st.queue_bytes_area.area_at(now),
            st.tx_wire_bytes,
            acked,
        )
    };
    let (p0, b0, wire0, acked0) = snap(w);
    w.run();
    let (p1, b1, wire1, acked1) = snap(w);
    let dt_ps = w.now().since(from).ps() as f64;
    let rate_bps = w.fabric().port(port).rate.bps() as f64;
    Window {
        avg_packets: (p1 - p0) as f64 / dt_ps,
        avg_bytes: (b1 - b0) as f64 / dt_ps,
        utilisation: (wire1 - wire0) as f64 * 8.0 / (rate_bps * dt_ps / 1e12),
        shares: acked1
            .iter()
            .zip(&acked0)
            .map(|(a, b)| (a - b) as f64)
            .collect(),
    }
}

/// Every file below `dir` that `keep` accepts, sorted.
pub fn files_under(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    fn walk(dir: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                walk(&p, keep, out);
            } else if keep(&p) {
                out.push(p);
            }
        }
    }
    let mut v = Vec::new();
    walk(dir, keep, &mut v);
    v.sort();
    v
}

/// Every Rust file below `dir`, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    files_under(dir, &|p| p.extension().is_some_and(|x| x == "rs"))
}

/// The production source files: the crates' and the simulator's, without
/// unit-test files (`tests.rs`, `*_tests.rs`, the transport harness).
pub fn production_files() -> Vec<PathBuf> {
    let mut files = rust_files(Path::new("src"));
    for e in std::fs::read_dir("crates").expect("crates folder") {
        files.extend(rust_files(&e.expect("entry").path().join("src")));
    }
    files.retain(|f| {
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        name != "tests.rs" && !name.ends_with("_tests.rs") && name != "harness.rs"
    });
    files.sort();
    files
}

/// Every scenario shipped in `scenarios/`, sorted.
pub fn shipped_scenarios() -> Vec<PathBuf> {
    files_under(Path::new("scenarios"), &|p| {
        p.extension().is_some_and(|x| x == "toml")
            && !is_sweep(p)
            && p.file_name().is_none_or(|n| n != "reproduce.toml")
    })
}

/// Every shipped reproduction file (`scenarios/*/reproduce.toml`).
pub fn shipped_reproductions() -> Vec<PathBuf> {
    files_under(Path::new("scenarios"), &|p| {
        p.file_name().is_some_and(|n| n == "reproduce.toml")
    })
}

/// Whether a shipped TOML file is a sweep (it has a `[sweep]` table).
pub fn is_sweep(p: &Path) -> bool {
    std::fs::read_to_string(p).is_ok_and(|t| t.lines().any(|l| l.trim() == "[sweep]"))
}

/// Every shipped sweep file.
pub fn shipped_sweeps() -> Vec<PathBuf> {
    files_under(Path::new("scenarios"), &|p| {
        p.extension().is_some_and(|x| x == "toml") && is_sweep(p)
    })
}

/// A fresh, empty folder for one test's files.
pub fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("dcnsim-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp folder");
    d
}

/// Runs the `dcnsim` binary with `args`; panics with its stderr unless it succeeds.
pub fn run_cli<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(args)
        .output()
        .expect("dcnsim runs");
    assert!(
        out.status.success(),
        "dcnsim {:?} failed:\n{}",
        args.iter().map(|a| a.as_ref()).collect::<Vec<_>>(),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Sends `signal` (`kill -s`) to `child` once `ready()` holds (it must
/// not end first), then waits for it.
#[cfg(unix)]
pub fn signal_when(
    mut child: std::process::Child,
    signal: &str,
    ready: impl Fn() -> bool,
) -> std::process::Output {
    let t0 = std::time::Instant::now();
    while !ready() {
        assert!(
            child.try_wait().expect("wait").is_none(),
            "ended before the signal"
        );
        assert!(t0.elapsed().as_secs() < 120, "never got ready");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let pid = child.id().to_string();
    let ok = std::process::Command::new("kill")
        .args(["-s", signal, &pid])
        .status();
    assert!(ok.is_ok_and(|s| s.success()), "kill -s {signal}");
    child.wait_with_output().expect("reaped")
}

/// Runs `dcnsim reproduce DIR --out DIR/out` on a reproduction file that
/// must be refused: exit status 1, every `want` in the error, and nothing
/// written. Returns the error text.
pub fn reproduce_refused(dir: &Path, want: &[&str]) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(["reproduce", &dir.display().to_string(), "--out"])
        .arg(dir.join("out"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(1), "{err}");
    for w in want {
        assert!(err.contains(w), "wanted '{w}' in: {err}");
    }
    assert!(!dir.join("out").exists(), "nothing written: {err}");
    err
}

/// The table row of the claim named `name` in a reproduction's report.
pub fn report_row<'a>(report: &'a str, name: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.starts_with(&format!("| {name} |")))
        .unwrap_or_else(|| panic!("no claim '{name}' in:\n{report}"))
}

/// Whether verdict `v` shows the claim's effect: PASS, or NO SPREAD (a
/// quick sweep runs one seed, so a claim it would pass has its spread
/// unmeasured: issue 57).
pub fn shows(v: &str) -> bool {
    v == "PASS" || v == "NO SPREAD"
}

/// The verdict of the claim named `name` in a reproduction's report.
pub fn verdict<'a>(report: &'a str, name: &str) -> &'a str {
    report_row(report, name)
        .rsplit("**")
        .nth(1)
        .expect("a verdict")
}

/// A scenario template of `tests/it/scenarios` with each `{NAME}` filled
/// in by its value (a template has no other braces' use for `{NAME}`).
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut text = template.to_string();
    for (name, value) in values {
        let hole = format!("{{{name}}}");
        assert!(text.contains(&hole), "the template has no {hole}");
        text = text.replace(&hole, value);
    }
    text
}
