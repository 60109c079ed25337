//! Sweeps end to end through the binary: results identical whatever -j,
//! interrupted (SIGINT) and killed (SIGKILL) sweeps resumed to the same
//! results with nothing lost or duplicated, shards merged into the
//! unsharded table, bad sweep files refused with their line.

use crate::common;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A 16-to-1 incast of `size` per sender; the sweep varies the buffer and
/// the scheme over two seeds: 2 x 2 x 2 = 8 runs.
fn write_sweep(dir: &Path, size: &str) -> PathBuf {
    std::fs::write(
        dir.join("base.toml"),
        format!(
            "[topology]\nkind = \"star\"\nhosts = 17\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
             [switch]\nbuffer = \"100pkt\"\n[transport]\nrto_min = \"1ms\"\n\
             [[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-16\"\nsize = \"{size}\"\n\
             start_jitter = \"20us\"\n"
        ),
    )
    .expect("base written");
    let sweep = dir.join("sweep.toml");
    std::fs::write(
        &sweep,
        "[sweep]\nbase = \"base.toml\"\nseeds = 2\n\
         [sweep.grid]\n\"switch.buffer\" = [\"100pkt\", \"300pkt\"]\n\
         [[sweep.case]]\nname = \"DropTail\"\n\
         [[sweep.case]]\nname = \"DCTCP, K=65\"\n\
         set = { \"switch.aqm\" = { kind = \"step-ecn\", k = \"65pkt\" }, \"transport.cc\" = \"dctcp\" }\n",
    )
    .expect("sweep written");
    sweep
}

fn sweep_cli(sweep: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args: Vec<String> = vec!["sweep".into(), sweep.display().to_string()];
    args.extend(["--out".into(), out.display().to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    common::run_cli(&args)
}

/// Every file of every run folder and the table, by relative path
/// (perf.json holds wall-clock figures and is left out).
fn results(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = common::files_under(out, &|p| {
        p.file_name()
            .is_some_and(|n| n != "perf.json" && !n.to_string_lossy().starts_with('.'))
            && !p.components().any(|c| c.as_os_str() == "plots")
    })
    .into_iter()
    .map(|p| {
        let rel = p
            .strip_prefix(out)
            .expect("under out")
            .display()
            .to_string();
        (rel, std::fs::read(&p).expect("readable"))
    })
    .collect();
    files.sort();
    files
}

fn finished_runs(out: &Path) -> usize {
    std::fs::read_dir(out.join("runs")).map_or(0, |d| {
        d.filter_map(Result::ok)
            // `.r0003.partial-PID` is a run being written, not finished.
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .filter(|e| e.path().join("row.csv").exists())
            .count()
    })
}

#[test]
fn a_sweep_gives_the_same_results_whatever_the_thread_count() {
    let dir = common::temp_dir("sweep-j");
    let sweep = write_sweep(&dir, "200KB");
    let dry = sweep_cli(&sweep, &dir.join("a"), &["--dry-run"]);
    let listing = String::from_utf8_lossy(&dry.stdout);
    assert!(listing.contains("8 runs"), "{listing}");
    assert!(
        listing.contains("r0007  case 'DCTCP, K=65', switch.buffer=300pkt, seed 2"),
        "{listing}"
    );
    assert!(!dir.join("a").exists(), "a dry run writes nothing");
    sweep_cli(&sweep, &dir.join("a"), &["-j", "1"]);
    sweep_cli(&sweep, &dir.join("b"), &["-j", "2"]);
    let a = results(&dir.join("a"));
    assert_eq!(a, results(&dir.join("b")), "-j 1 and -j 2 differ");
    let table = String::from_utf8_lossy(&a.iter().find(|f| f.0 == "sweep.csv").expect("table").1)
        .into_owned();
    println!("{table}");
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 9);
    assert!(lines[0].starts_with("run,case,switch.buffer,seed,stop_reason,"));
    assert!(lines[8].starts_with("r0007,\"DCTCP, K=65\",300pkt,2,completed,"));
    // A run's summary is the one `dcnsim run` gives for the same overrides.
    let single = dir.join("single");
    common::run_cli(&[
        "run".to_string(),
        dir.join("base.toml").display().to_string(),
        "--out".into(),
        single.display().to_string(),
        "--set".into(),
        "switch.aqm={ kind = \"step-ecn\", k = \"65pkt\" }".into(),
        "--set".into(),
        "transport.cc=dctcp".into(),
        "--set".into(),
        "switch.buffer=300pkt".into(),
        "--seed".into(),
        "2".into(),
    ]);
    let flows = |d: &Path| std::fs::read(d.join("flows.csv")).expect("flows.csv");
    assert_eq!(flows(&single), flows(&dir.join("a/runs/r0007")));
    // Rerunning a finished sweep runs nothing and changes nothing.
    let again = sweep_cli(&sweep, &dir.join("a"), &["-j", "2"]);
    let said = String::from_utf8_lossy(&again.stdout);
    assert!(
        said.contains("8 of 8 runs finished (0 now, 8 before)"),
        "{said}"
    );
    assert_eq!(a, results(&dir.join("a")));
    std::fs::remove_dir_all(dir).expect("cleaned");
}

/// Starts a sweep, and once `runs` of its runs are finished stops it with
/// `signal`; returns its exit code.
#[cfg(unix)]
fn stop_midway(sweep: &Path, out: &Path, signal: &str) -> Option<i32> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(["sweep", &sweep.display().to_string(), "-j", "2", "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("dcnsim starts");
    let t0 = Instant::now();
    while finished_runs(out) < 1 {
        assert!(
            child.try_wait().expect("wait").is_none(),
            "the sweep ended early"
        );
        assert!(t0.elapsed() < Duration::from_secs(120), "no run finished");
        std::thread::sleep(Duration::from_millis(2));
    }
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    child.wait().expect("reaped").code()
}

#[cfg(unix)]
#[test]
fn interrupted_and_killed_sweeps_resume_to_the_same_results() {
    let dir = common::temp_dir("sweep-resume");
    // Runs of about a tenth of a second each, so that a signal sent when
    // the first finishes lands in the middle of the sweep.
    let sweep = write_sweep(&dir, "8MB");
    sweep_cli(&sweep, &dir.join("whole"), &["-j", "2"]);
    let whole = results(&dir.join("whole"));
    for (signal, code) in [("-INT", Some(130)), ("-KILL", None)] {
        let out = dir.join(format!("stopped{signal}"));
        assert_eq!(stop_midway(&sweep, &out, signal), code, "{signal}");
        let left = finished_runs(&out);
        println!("{signal}: {left} of 8 runs finished when stopped");
        assert!(left < 8, "{signal} came after the sweep ended");
        let resumed = sweep_cli(&sweep, &out, &["-j", "2"]);
        let said = String::from_utf8_lossy(&resumed.stdout);
        assert!(
            said.contains(&format!("({} now, {left} before)", 8 - left)),
            "{said}"
        );
        assert_eq!(whole, results(&out), "{signal}: resumed results differ");
        let staging = common::files_under(&out, &|p| p.to_string_lossy().contains(".partial-"));
        assert!(staging.is_empty(), "{staging:?}");
    }
    std::fs::remove_dir_all(dir).expect("cleaned");
}

#[test]
fn shards_merge_into_the_unsharded_table() {
    let dir = common::temp_dir("sweep-shards");
    let sweep = write_sweep(&dir, "100KB");
    sweep_cli(&sweep, &dir.join("whole"), &["-j", "2"]);
    for i in 0..3 {
        sweep_cli(
            &sweep,
            &dir.join(format!("s{i}")),
            &["--shard", &format!("{i}/3")],
        );
    }
    // One shard into the folder of another: a shared file system.
    sweep_cli(&sweep, &dir.join("s0"), &["--shard", "1/3"]);
    let s0 = std::fs::read_to_string(dir.join("s0/sweep.shard-0-of-3.csv")).expect("table");
    assert_eq!(s0.lines().count(), 1 + 3, "runs 0, 3, 6");
    let merge = |dirs: &[&str], out: &str| {
        let mut args = vec!["merge".to_string()];
        args.extend(dirs.iter().map(|d| dir.join(d).display().to_string()));
        args.extend(["--out".into(), dir.join(out).display().to_string()]);
        Command::new(env!("CARGO_BIN_EXE_dcnsim"))
            .args(&args)
            .output()
            .expect("merge runs")
    };
    let missing = merge(&["s0", "s1"], "m");
    assert!(!missing.status.success());
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("2 of 8 runs") && err.contains("r0002, r0005"),
        "{err}"
    );
    assert!(merge(&["s0", "s1", "s2"], "m").status.success());
    let table = |d: &str| std::fs::read(dir.join(d).join("sweep.csv")).expect("sweep.csv");
    assert_eq!(table("m"), table("whole"));
    assert_eq!(results(&dir.join("m")), results(&dir.join("whole")));
    // Merging into one of the slices' own folders.
    assert!(merge(&["s0", "s2"], "s0").status.success());
    assert_eq!(table("s0"), table("whole"));
    std::fs::remove_dir_all(dir).expect("cleaned");
}

#[test]
fn bad_sweeps_name_the_file_line_and_run() {
    let dir = common::temp_dir("sweep-bad");
    let sweep = write_sweep(&dir, "100KB");
    let run = |text: &str| {
        std::fs::write(&sweep, text).expect("written");
        let out = Command::new(env!("CARGO_BIN_EXE_dcnsim"))
            .args(["sweep", &sweep.display().to_string(), "--dry-run"])
            .output()
            .expect("runs");
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let e = run(
        "[sweep]\nbase = \"base.toml\"\nseeds = 2\n[sweep.grid]\n\"switch.buffer\" = [\"100pkt\", \"lots\"]\n",
    );
    assert!(
        e.contains("run r0002 (switch.buffer=lots, seed 1)") && e.contains("switch.buffer"),
        "{e}"
    );
    let e = run("[sweep]\nbase = \"nowhere.toml\"\nseeds = 1\n");
    assert!(
        e.contains("nowhere.toml") && e.contains("cannot read"),
        "{e}"
    );
    let e = run("[sweep]\nbase = \"base.toml\"\nseed = 1\n");
    assert!(e.contains("sweep.toml:3") && e.contains("seed"), "{e}");
    std::fs::remove_dir_all(dir).expect("cleaned");
}

#[test]
fn shipped_sweeps_are_valid() {
    let sweeps = common::shipped_sweeps();
    assert!(!sweeps.is_empty());
    for path in sweeps {
        let mut s = dcnsim::sweep::Sweep::read(&path).unwrap_or_else(|e| panic!("{e}"));
        s.check().unwrap_or_else(|e| panic!("{e:#}"));
        assert!(!s.runs.is_empty(), "{}", path.display());
    }
}
