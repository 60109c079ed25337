//! Result folders never mix: a run killed with SIGKILL while it streams a
//! large `queues.csv` leaves its folder holding nothing new (the previous
//! complete run, or nothing), and the next run clears what it left.
use crate::common;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const INCAST: &str = "[topology]\nkind = \"star\"\nhosts = 17\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
[switch]\nbuffer = \"300pkt\"\n[switch.aqm]\nkind = \"step-ecn\"\nk = \"65pkt\"\n[transport]\ncc = \"dctcp\"\n\
[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-16\"\nsize = \"1MB\"\n[output]\n";

/// Every file of a folder (not its `plots/`, drawn from them), sorted,
/// with its bytes.
fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .expect("folder")
        .filter(|e| e.as_ref().is_ok_and(|e| e.path().is_file()))
        .map(|e| {
            let e = e.expect("entry");
            let bytes = std::fs::read(e.path()).expect("file");
            (e.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect();
    v.sort();
    v
}

/// Names in `dir` starting with `.run.partial-`.
fn remains(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".run.partial-"))
        .collect()
}

/// Starts a heavily sampled run into `target` and kills it (SIGKILL) once
/// its staging folder holds more than 1 MB of `queues.csv`.
fn kill_while_writing(scenario: &Path, target: &Path) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .arg("run")
        .arg(scenario)
        .arg("--out")
        .arg(target)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("dcnsim starts");
    let staging = target
        .parent()
        .expect("parent")
        .join(format!(".run.partial-{}", child.id()));
    let t0 = Instant::now();
    loop {
        let written = std::fs::metadata(staging.join("queues.csv")).map_or(0, |m| m.len());
        if written > 1_000_000 {
            break;
        }
        assert!(
            child.try_wait().expect("wait").is_none(),
            "the run ended before it was killed"
        );
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "queues.csv never grew"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    assert!(staging.exists(), "the killed run left its staging folder");
}

#[cfg(unix)]
#[test]
fn a_killed_run_leaves_nothing_new_and_is_cleared_by_the_next() {
    let dir = common::temp_dir("killed");
    let target = dir.join("run");
    let small = dir.join("small.toml");
    let large = dir.join("large.toml");
    std::fs::write(&small, format!("{INCAST}queue_interval = \"100us\"\n")).expect("written");
    // ~14 ms sampled every 20 ns at 17 ports: about 400 MB of rows.
    std::fs::write(&large, format!("{INCAST}queue_interval = \"20ns\"\n")).expect("written");

    // Killed into a fresh folder: nothing appears.
    kill_while_writing(&large, &target);
    assert!(!target.exists(), "a killed run made its folder");

    // A complete run, then a killed one: the complete run stays, whole.
    common::run_cli(&[Path::new("run"), &small, Path::new("--out"), &target]);
    let complete = contents(&target);
    kill_while_writing(&large, &target);
    assert_eq!(
        contents(&target),
        complete,
        "the killed run touched the folder"
    );
    // The complete run cleared the first killed run's staging folder.
    assert_eq!(
        remains(&dir).len(),
        1,
        "the second killed run's staging folder"
    );

    // The next run clears what the killed runs left.
    common::run_cli(&[Path::new("run"), &small, Path::new("--out"), &target]);
    assert!(remains(&dir).is_empty(), "left behind: {:?}", remains(&dir));
    assert_eq!(contents(&target).len(), complete.len());
    std::fs::remove_dir_all(dir).ok();
}
