//! Never lose what a user owns: `--out` pointed at a user's folder, file,
//! device or a sweep's folder is refused with nothing touched; SIGTERM is
//! handled as Ctrl-C; a sweep's runs never mix inputs; a merge never joins
//! rows that do not belong together.
use crate::common;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const SMALL: &str = "[topology]\nkind = \"star\"\nhosts = 5\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
[switch]\nbuffer = \"100pkt\"\n[transport]\ncc = \"dctcp\"\n[switch.aqm]\nkind = \"step-ecn\"\nk = \"20pkt\"\n\
[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-4\"\nsize = \"100KB\"\n";

fn dcnsim(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(args)
        .output()
        .expect("dcnsim starts")
}

fn run_into(scenario: &Path, out: &Path) -> Output {
    dcnsim(&[
        "run".as_ref(),
        scenario.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--no-plots".as_ref(),
    ])
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every entry under `dir`, sorted, with file contents.
fn tree(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(dir).expect("folder") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            v.push((p.clone(), Vec::new()));
            v.extend(tree(&p));
        } else {
            v.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
        }
    }
    v.sort();
    v
}

#[test]
fn a_users_folder_and_file_survive_out_and_nothing_is_hidden() {
    let dir = common::temp_dir("user-out");
    let sc = dir.join("small.toml");
    std::fs::write(&sc, SMALL).expect("write");
    std::fs::create_dir(dir.join("mine")).expect("mkdir");
    std::fs::write(dir.join("mine/thesis.tex"), "chapter 1").expect("write");
    std::fs::write(dir.join("notes.txt"), "keep me").expect("write");
    let before = tree(&dir);
    for target in ["mine", "notes.txt"] {
        let o = run_into(&sc, &dir.join(target));
        assert!(!o.status.success(), "{target} was written into");
        let e = stderr(&o);
        assert!(
            e.contains("refusing to write there") && e.contains(target),
            "{e}"
        );
        assert_eq!(e.matches("refusing").count(), 1, "said once: {e}");
    }
    // The scenario's own folder holds the scenario: refused too.
    let o = run_into(&sc, &dir);
    assert!(!o.status.success());
    assert_eq!(tree(&dir), before, "nothing touched, renamed or hidden");
    #[cfg(unix)]
    {
        let o = run_into(&sc, Path::new("/dev/null"));
        assert!(stderr(&o).contains("device"), "{}", stderr(&o));
        assert!(Path::new("/dev/null").metadata().is_ok_and(|m| !m.is_dir()));
    }
    // An empty folder and an earlier run may be written; the earlier run is replaced whole.
    std::fs::create_dir(dir.join("empty")).expect("mkdir");
    assert!(run_into(&sc, &dir.join("empty")).status.success());
    assert!(dir.join("empty/.dcnsim").is_file(), "the run is marked");
    assert!(run_into(&sc, &dir.join("empty")).status.success());
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn a_run_folder_holding_the_scenario_is_refused() {
    let dir = common::temp_dir("holds-input");
    let sc = dir.join("small.toml");
    std::fs::write(&sc, SMALL).expect("write");
    assert!(run_into(&sc, &dir.join("r")).status.success());
    std::fs::copy(&sc, dir.join("r/copy.toml")).expect("copy");
    let o = run_into(&dir.join("r/copy.toml"), &dir.join("r"));
    // Refused as a file dcnsim did not write there (and, were it listed,
    // as an input of the run).
    assert!(
        stderr(&o).contains("copy.toml (not written by dcnsim)"),
        "{}",
        stderr(&o)
    );
    assert!(dir.join("r/copy.toml").is_file());
    std::fs::remove_dir_all(dir).expect("cleanup");
}

fn sweep_file(dir: &Path, base: &str) -> PathBuf {
    let f = dir.join("sweep.toml");
    let text = format!(
        "[sweep]\nbase = \"{base}\"\nseeds = 2\n[sweep.grid]\n\"workload[0].size\" = [\"50KB\", \"100KB\"]\n"
    );
    std::fs::write(&f, text).expect("write");
    f
}

/// `dcnsim sweep FILE --out OUT --no-plots EXTRA...`.
pub fn sweep(file: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "sweep".as_ref(),
        file.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--no-plots".as_ref(),
    ];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    dcnsim(&args)
}

#[test]
fn a_run_into_a_sweeps_folder_or_its_runs_is_refused() {
    let dir = common::temp_dir("run-in-sweep");
    std::fs::write(dir.join("small.toml"), SMALL).expect("write");
    let file = sweep_file(&dir, "small.toml");
    let out = dir.join("sw");
    let o = sweep(&file, &out, &["-j", "64"]);
    assert!(o.status.success(), "-j above the run count: {}", stderr(&o));
    let before = tree(&out);
    for target in [out.clone(), out.join("runs/r0001"), out.join("runs")] {
        let o = run_into(&dir.join("small.toml"), &target);
        assert!(!o.status.success(), "{} written", target.display());
    }
    assert_eq!(tree(&out), before);
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn a_changed_base_scenario_is_refused_on_resume_naming_the_change() {
    let dir = common::temp_dir("fingerprint");
    let base = dir.join("small.toml");
    std::fs::write(&base, SMALL).expect("write");
    let file = sweep_file(&dir, "small.toml");
    let out = dir.join("sw");
    assert!(sweep(&file, &out, &["--shard", "0/2"]).status.success());
    std::fs::write(&base, SMALL.replace("10Gbps", "25Gbps")).expect("edit");
    for shard in ["0/2", "1/2"] {
        let o = sweep(&file, &out, &["--shard", shard]);
        assert!(!o.status.success(), "shard {shard} joined other inputs");
        let e = stderr(&o);
        assert!(e.contains("r0") && e.contains("small.toml"), "{e}");
    }
    // Restored, the sweep resumes.
    std::fs::write(&base, SMALL).expect("restore");
    assert!(sweep(&file, &out, &[]).status.success());
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn merge_refuses_garbage_rows_and_other_sweeps() {
    let dir = common::temp_dir("merge-check");
    std::fs::write(dir.join("small.toml"), SMALL).expect("write");
    let file = sweep_file(&dir, "small.toml");
    let (a, b) = (dir.join("a"), dir.join("b"));
    assert!(sweep(&file, &a, &["--shard", "0/2"]).status.success());
    assert!(sweep(&file, &b, &["--shard", "1/2"]).status.success());
    let merge = |out: &Path| {
        dcnsim(&[
            "merge".as_ref(),
            a.as_os_str(),
            b.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--no-plots".as_ref(),
        ])
    };
    // A shard table edited by hand.
    let table = a.join("sweep.shard-0-of-2.csv");
    let good = std::fs::read_to_string(&table).expect("table");
    std::fs::write(&table, good.replacen(",completed,", ",completed,9", 1)).expect("edit");
    let o = merge(&dir.join("m"));
    assert!(
        stderr(&o).contains("is not the row its run folder holds"),
        "{}",
        stderr(&o)
    );
    std::fs::write(&table, &good).expect("restore");
    // A run folder's row that is not a row.
    let row = a.join("runs/r0000/row.csv");
    let good_row = std::fs::read_to_string(&row).expect("row");
    std::fs::write(&row, good_row.replace(",completed,", ",completed,x,")).expect("edit");
    let o = merge(&dir.join("m"));
    assert!(
        stderr(&o).contains("not a row of run r0000"),
        "{}",
        stderr(&o)
    );
    std::fs::write(&row, &good_row).expect("restore");
    // A shard of another sweep.
    let other = dir.join("other.toml");
    std::fs::write(&other, "[sweep]\nbase = \"small.toml\"\nseeds = 3\n").expect("write");
    let c = dir.join("c");
    assert!(sweep(&other, &c, &["--shard", "1/2"]).status.success());
    let o = dcnsim(&[
        "merge".as_ref(),
        a.as_os_str(),
        c.as_os_str(),
        "--out".as_ref(),
        dir.join("m").as_os_str(),
    ]);
    assert!(stderr(&o).contains("different sweeps"), "{}", stderr(&o));
    assert!(merge(&dir.join("m")).status.success());
    std::fs::remove_dir_all(dir).expect("cleanup");
}

/// Sends `signal` to `child` once `ready` holds, then waits for it.
#[cfg(unix)]
#[cfg(unix)]
#[test]
fn sigterm_stops_a_sweep_keeping_finished_runs_and_a_resumable_folder() {
    let dir = common::temp_dir("sigterm-sweep");
    // Long enough per run that the signal falls while runs remain.
    let long = SMALL.replace("size = \"100KB\"", "size = \"20MB\"");
    std::fs::write(dir.join("small.toml"), long).expect("write");
    let file = dir.join("sweep.toml");
    std::fs::write(&file, "[sweep]\nbase = \"small.toml\"\nseeds = 12\n").expect("write");
    let out = dir.join("sw");
    let child = Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args([
            "sweep".as_ref(),
            file.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ])
        .args(["-j", "1", "--no-plots"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let first = out.join("runs/r0000/row.csv");
    let o = common::signal_when(child, "TERM", || first.exists());
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("rerun the same command"),
        "{}",
        stderr(&o)
    );
    let table = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv kept");
    let done = table.lines().count() - 1;
    assert!((1..12).contains(&done), "{done} runs in the table");
    let partial = std::fs::read_dir(out.join("runs"))
        .expect("runs")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.file_name().to_string_lossy().contains("partial"))
        })
        .count();
    assert_eq!(partial, 0, "no staging folder left");
    let o = sweep(&file, &out, &["-j", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = std::fs::read_to_string(out.join("sweep.csv")).expect("sweep.csv");
    assert_eq!(table.lines().count(), 13, "resumed to the end");
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[cfg(unix)]
#[test]
fn sigterm_stops_a_run_leaving_the_earlier_run_whole() {
    let dir = common::temp_dir("sigterm-run");
    let sc = dir.join("long.toml");
    // Seconds of wall time: 2 GB through one 10 Gb/s link (the stop flag
    // is polled every 2^20 events).
    std::fs::write(&sc, SMALL.replace("size = \"100KB\"", "size = \"500MB\"")).expect("write");
    let target = dir.join("run");
    let small = dir.join("small.toml");
    std::fs::write(&small, SMALL).expect("write");
    assert!(run_into(&small, &target).status.success());
    let before = tree(&target);
    let child = Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args([
            "run".as_ref(),
            sc.as_os_str(),
            "--out".as_ref(),
            target.as_os_str(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let staging = dir.join(format!(".run.partial-{}", child.id()));
    let o = common::signal_when(child, "TERM", || staging.exists());
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("nothing of this run was written"),
        "{}",
        stderr(&o)
    );
    assert!(!staging.exists(), "the staging folder is removed");
    assert_eq!(tree(&target), before, "the earlier run is whole");
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn a_sweep_into_a_users_folder_is_refused() {
    let dir = common::temp_dir("sweep-foreign");
    std::fs::write(dir.join("small.toml"), SMALL).expect("write");
    let file = sweep_file(&dir, "small.toml");
    std::fs::create_dir(dir.join("mine")).expect("mkdir");
    std::fs::write(dir.join("mine/data.csv"), "1,2").expect("write");
    let o = sweep(&file, &dir.join("mine"), &[]);
    assert!(stderr(&o).contains("did not make"), "{}", stderr(&o));
    let o = sweep(&file, &dir, &[]);
    assert!(!o.status.success(), "the sweep file's own folder");
    assert_eq!(std::fs::read_dir(dir.join("mine")).expect("dir").count(), 1);
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn a_base_edited_while_a_sweep_runs_fails_its_remaining_runs() {
    use dcnsim::sweep::{Options, Shard, Sweep, execute};
    let dir = common::temp_dir("edited-midway");
    let base = dir.join("small.toml");
    std::fs::write(&base, SMALL).expect("write");
    let mut sweep = Sweep::read(&sweep_file(&dir, "small.toml")).expect("reads");
    sweep.check().expect("valid");
    // The inputs as the sweep recorded them at its start, then edited.
    std::fs::write(&base, SMALL.replace("20pkt", "30pkt")).expect("edit");
    let opts = Options {
        jobs: 2,
        out: dir.join("sw"),
        shard: Shard::ALL,
        max_memory: None,
    };
    let stop = std::sync::atomic::AtomicBool::new(false);
    let report = execute(&sweep, &opts, &stop).expect("the sweep itself runs");
    assert_eq!(report.ran, 0, "no run of other inputs joins the folder");
    assert_eq!(report.failed.len(), 4);
    assert!(
        report.failed[0].1.contains("changed while the sweep ran"),
        "{:?}",
        report.failed
    );
    std::fs::remove_dir_all(dir).expect("cleanup");
}

/// A run whose row was written before the newest `sweep.csv` columns is
/// completed from its `summary.json` on resume (not run again: a full
/// reproduction may take hours); a row of any other column set is run
/// again, so that the table stays one table.
#[test]
fn a_row_of_an_older_column_set_is_completed_or_run_again() {
    let dir = common::temp_dir("older-row");
    std::fs::write(dir.join("small.toml"), SMALL).expect("write");
    let file = sweep_file(&dir, "small.toml");
    let out = dir.join("out");
    assert!(sweep(&file, &out, &[]).status.success());
    let row = out.join("runs/r0000/row.csv");
    let now = std::fs::read_to_string(&row).expect("row");
    let table = std::fs::read_to_string(out.join("sweep.csv")).expect("table");
    let older = |drop: usize| {
        let mut fields: Vec<&str> = now.trim_end().split(',').collect();
        fields.truncate(fields.len() - drop);
        std::fs::write(&row, fields.join(",") + "\n").expect("older row");
        // As that dcnsim wrote it: listed in the folder's manifest.
        dcnsim::report::marker::seal(&out.join("runs/r0000")).expect("sealed");
        let again = sweep(&file, &out, &[]);
        assert!(again.status.success(), "{}", stderr(&again));
        String::from_utf8_lossy(&again.stdout).into_owned()
    };
    // Without syn_retransmissions, offered_load, the two counts of
    // unfinished flows (issue 56) and the two CCT columns (issue 58):
    // completed.
    let said = older(6);
    assert!(said.contains("(0 now,"), "{said}");
    assert_eq!(
        std::fs::read_to_string(out.join("sweep.csv")).expect("table"),
        table
    );
    // Seven columns short: not a row of any dcnsim's table; run again.
    let said = older(7);
    assert!(said.contains("(1 now,"), "{said}");
    assert_eq!(std::fs::read_to_string(&row).expect("row"), now);
    std::fs::remove_dir_all(dir).expect("cleanup");
}
