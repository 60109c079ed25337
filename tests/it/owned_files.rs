//! Issue 38: what a user puts inside a dcnsim folder survives every later
//! command; shards started at the same moment into one fresh folder all
//! run and merge; a sweep resumes from any working directory; an
//! interrupted reproduction reports no verdict it has not earned.
use crate::common;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SMALL: &str = "[topology]\nkind = \"star\"\nhosts = 5\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
[switch]\nbuffer = \"100pkt\"\n[transport]\ncc = \"dctcp\"\n[switch.aqm]\nkind = \"step-ecn\"\nk = \"20pkt\"\n\
[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-4\"\nsize = \"20KB\"\n";

fn dcnsim_in(cwd: &Path, args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .current_dir(cwd)
        .args(args)
        .output()
        .expect("dcnsim starts")
}

fn dcnsim(args: &[&std::ffi::OsStr]) -> Output {
    dcnsim_in(Path::new("."), args)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn run_into(scenario: &Path, out: &Path, plots: bool) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "run".as_ref(),
        scenario.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ];
    if !plots {
        args.push("--no-plots".as_ref());
    }
    dcnsim(&args)
}

fn small(dir: &Path) -> PathBuf {
    let sc = dir.join("small.toml");
    std::fs::write(&sc, SMALL).expect("write");
    sc
}

/// A sweep of 8 tiny runs (4 sizes x 2 seeds) beside its base.
fn sweep_file(dir: &Path) -> PathBuf {
    small(dir);
    let f = dir.join("sweep.toml");
    std::fs::write(
        &f,
        "[sweep]\nbase = \"small.toml\"\nseeds = 2\n[sweep.grid]\n\
         \"workload[0].size\" = [\"10KB\", \"20KB\", \"30KB\", \"40KB\"]\n",
    )
    .expect("write");
    f
}

#[test]
fn a_users_file_or_folder_inside_a_run_folder_survives_a_rerun() {
    let dir = common::temp_dir("owned-run");
    let sc = small(&dir);
    let out = dir.join("r");
    assert!(run_into(&sc, &out, true).status.success());
    // Rerunning over what dcnsim wrote (figures included) is allowed.
    assert!(run_into(&sc, &out, true).status.success());
    for (what, make) in [
        (
            "notes.md",
            &(|p: &Path| std::fs::write(p.join("notes.md"), "mine"))
                as &dyn Fn(&Path) -> std::io::Result<()>,
        ),
        ("mine/", &|p: &Path| std::fs::create_dir(p.join("mine"))),
        ("plots/mine.png", &|p: &Path| {
            std::fs::write(p.join("plots/mine.png"), "x")
        }),
        ("summary.json (changed", &|p: &Path| {
            std::fs::write(p.join("summary.json"), "{}")
        }),
    ] {
        assert!(run_into(&sc, &out, true).status.success(), "{what}: clean");
        make(&out).expect("user's change");
        let before = std::fs::read_dir(&out).expect("dir").count();
        let o = run_into(&sc, &out, false);
        assert!(!o.status.success(), "{what}: replaced");
        assert!(stderr(&o).contains(what), "{what}: {}", stderr(&o));
        assert_eq!(std::fs::read_dir(&out).expect("dir").count(), before);
        std::fs::remove_dir_all(&out).expect("reset");
    }
    // A copy of a results folder reused as a project folder is the user's.
    assert!(run_into(&sc, &out, false).status.success());
    let copy = dir.join("project");
    std::fs::create_dir(&copy).expect("mkdir");
    for e in std::fs::read_dir(&out).expect("dir") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), copy.join(e.file_name())).expect("copy");
    }
    std::fs::write(copy.join("draft.tex"), "chapter").expect("write");
    assert!(!run_into(&sc, &copy, false).status.success());
    assert!(copy.join("draft.tex").is_file());
    // A forged marker whose manifest does not match is foreign too.
    let forged = dir.join("forged");
    std::fs::create_dir(&forged).expect("mkdir");
    std::fs::write(forged.join("data.csv"), "mine").expect("write");
    std::fs::write(
        forged.join(".dcnsim"),
        "{\"tool\":\"dcnsim\",\"kind\":\"run\",\"format\":2,\"files\":{\"data.csv\":{\"bytes\":4,\"sha256\":\"00\"}}}",
    )
    .expect("write");
    assert!(!run_into(&sc, &forged, false).status.success());
    assert!(forged.join("data.csv").is_file());
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn a_users_note_in_a_sweeps_run_folder_survives_a_grid_edit() {
    let dir = common::temp_dir("owned-sweep");
    let file = sweep_file(&dir);
    let out = dir.join("o");
    let sweep = || crate::user_files::sweep(&file, &out, &["-j", "1"]);
    assert!(sweep().status.success());
    std::fs::write(out.join("runs/r0000/notes.md"), "why r0000 is odd").expect("write");
    std::fs::write(out.join("notes.md"), "the sweep's notes").expect("write");
    // The grid edited: r0000's overrides change, so it would be redone.
    let text = std::fs::read_to_string(&file)
        .expect("read")
        .replace("10KB", "15KB");
    std::fs::write(&file, text).expect("write");
    let o = sweep();
    assert!(!o.status.success(), "redone over the note");
    assert!(stderr(&o).contains("notes.md"), "{}", stderr(&o));
    assert!(stderr(&o).contains("nothing was run"), "{}", stderr(&o));
    assert!(out.join("runs/r0000/notes.md").is_file());
    std::fs::remove_file(out.join("runs/r0000/notes.md")).expect("rm");
    assert!(sweep().status.success(), "{}", stderr(&sweep()));
    assert!(
        out.join("notes.md").is_file(),
        "a note beside the runs is kept"
    );
    // No lock file is left behind.
    let locks = common::files_under(&out, &|p| p.to_string_lossy().ends_with(".lock"));
    assert!(locks.is_empty(), "{locks:?}");
    // A sweep or a run into a folder inside it, at any depth, is refused.
    let inner = out.join("runs/r0001/deeper");
    let o = run_into(&dir.join("small.toml"), &inner, false);
    assert!(
        stderr(&o).contains("inside the dcnsim run folder"),
        "{}",
        stderr(&o)
    );
    assert!(!inner.exists());
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn shards_released_at_once_into_one_fresh_folder_all_run_and_merge() {
    let dir = common::temp_dir("owned-race");
    let file = sweep_file(&dir);
    const SHARDS: usize = 8;
    for trial in 0..20 {
        let out = dir.join(format!("o{trial}"));
        let barrier = std::sync::Barrier::new(SHARDS);
        let outputs: Vec<Output> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..SHARDS)
                .map(|i| {
                    let (barrier, file, out) = (&barrier, &file, &out);
                    s.spawn(move || {
                        let shard = format!("{i}/{SHARDS}");
                        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dcnsim"));
                        cmd.arg("sweep")
                            .arg(file)
                            .arg("--out")
                            .arg(out)
                            .args(["--shard", &shard, "-j", "1"]);
                        barrier.wait();
                        cmd.output().expect("dcnsim starts")
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("joined"))
                .collect()
        });
        for (i, o) in outputs.iter().enumerate() {
            assert!(o.status.success(), "trial {trial} shard {i}: {}", stderr(o));
        }
        let m = dcnsim(&[
            "merge".as_ref(),
            out.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
            "--no-plots".as_ref(),
        ]);
        assert!(m.status.success(), "trial {trial}: {}", stderr(&m));
        let left: Vec<String> = std::fs::read_dir(&dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with('.'))
            .collect();
        assert!(
            left.is_empty(),
            "trial {trial}: left beside the folder: {left:?}"
        );
    }
    // Two sweeps of different inputs into one folder are still refused.
    let other = dir.join("other");
    std::fs::create_dir(&other).expect("mkdir");
    sweep_file(&other);
    std::fs::write(other.join("small.toml"), SMALL.replace("dctcp", "newreno")).expect("write");
    let o = dcnsim(&[
        "sweep".as_ref(),
        other.join("sweep.toml").as_os_str(),
        "--out".as_ref(),
        dir.join("o0").as_os_str(),
    ]);
    assert!(
        stderr(&o).contains("made from other inputs"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn a_sweep_resumes_from_another_directory_and_by_absolute_path() {
    let dir = common::temp_dir("owned-cwd");
    let sub = dir.join("d");
    std::fs::create_dir(&sub).expect("mkdir");
    sweep_file(&sub);
    let out = dir.join("o");
    let a = dcnsim_in(
        &sub,
        &[
            "sweep".as_ref(),
            "sweep.toml".as_ref(),
            "--out".as_ref(),
            out.as_os_str(),
            "--shard".as_ref(),
            "0/2".as_ref(),
            "--no-plots".as_ref(),
        ],
    );
    assert!(a.status.success(), "{}", stderr(&a));
    let abs = sub.join("sweep.toml");
    let b = dcnsim_in(
        &dir,
        &[
            "sweep".as_ref(),
            "d/sweep.toml".as_ref(),
            "--out".as_ref(),
            "o".as_ref(),
            "--shard".as_ref(),
            "1/2".as_ref(),
            "--no-plots".as_ref(),
        ],
    );
    assert!(b.status.success(), "{}", stderr(&b));
    let c = dcnsim(&[
        "sweep".as_ref(),
        abs.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--no-plots".as_ref(),
    ]);
    assert!(c.status.success(), "{}", stderr(&c));
    assert!(
        String::from_utf8_lossy(&c.stdout).contains("0 now, 8 before"),
        "{}",
        String::from_utf8_lossy(&c.stdout)
    );
    let m = dcnsim(&[
        "merge".as_ref(),
        out.as_os_str(),
        "--out".as_ref(),
        dir.join("m").as_os_str(),
        "--no-plots".as_ref(),
    ]);
    assert!(m.status.success(), "{}", stderr(&m));
    std::fs::remove_dir_all(dir).expect("cleanup");
}

/// SIGTERM with a few runs of a reproduction finished: the report's first
/// line says it is incomplete, and a claim whose runs did not all finish
/// is NOT RUN, not judged on the seeds that happened to finish.
#[cfg(unix)]
#[test]
fn an_interrupted_reproduction_reports_no_verdict_it_has_not_earned() {
    let dir = common::temp_dir("owned-repro");
    // Runs of a few tenths of a second each.
    std::fs::write(dir.join("small.toml"), SMALL.replace("20KB", "50MB")).expect("write");
    std::fs::write(
        dir.join("s.toml"),
        "[sweep]\nbase = \"small.toml\"\nseeds = 8\n[[sweep.case]]\nname = \"A\"\n\
         [[sweep.case]]\nname = \"B\"\nset = { \"transport.cc\" = \"newreno\" }\n",
    )
    .expect("write");
    std::fs::write(
        dir.join("reproduce.toml"),
        "[paper]\nname = \"T\"\ntitle = \"t\"\n[[experiment]]\nid = \"e\"\ntitle = \"e\"\nsweep = \"s.toml\"\n\
         [[claim]]\nexperiment = \"e\"\nname = \"A drops nothing\"\nwhere = \"w\"\n\
         ours = { y = \"drops\", case = \"A\" }\nat_most = 1000000\n",
    )
    .expect("write");
    let out = dir.join("x");
    let child = Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .arg("reproduce")
        .arg(&dir)
        .arg("--out")
        .arg(&out)
        .args(["-j", "1", "--no-plots"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    let second = out.join("e/runs/r0002/row.csv");
    let o = common::signal_when(child, "TERM", || second.exists());
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let report = std::fs::read_to_string(out.join("report.md")).expect("report written");
    let first = report.lines().next().unwrap_or_default();
    assert!(first.starts_with("# INCOMPLETE reproduction"), "{first}");
    assert!(first.contains("of 16 runs finished"), "{first}");
    assert!(report.contains("**NOT RUN**"), "{report}");
    assert!(!report.contains("**PASS**"), "{report}");
    // Finished, it is judged and the first line is the plain title.
    let o = dcnsim(&[
        "reproduce".as_ref(),
        dir.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--no-plots".as_ref(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = std::fs::read_to_string(out.join("report.md")).expect("report written");
    assert!(report.starts_with("# Reproduction: T"), "{report}");
    // Judged now: an incast drops nothing under any seed, so the verdict
    // is the one for a claim whose seeds agree exactly.
    assert!(report.contains("**NO SPREAD**"), "{report}");
    assert!(!report.contains("**NOT RUN**"), "{report}");
    // Another sweep into one of its experiments' folders is refused.
    let exp = out.join("e");
    let o = dcnsim(&[
        "sweep".as_ref(),
        dir.join("s.toml").as_os_str(),
        "--out".as_ref(),
        exp.as_os_str(),
    ]);
    assert!(
        stderr(&o).contains("inside the dcnsim reproduction folder"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn a_run_with_no_figure_to_draw_leaves_no_plots_folder_and_reruns_in_place() {
    // Stopped before any flow finished or any sample was taken: nothing
    // to draw. An empty plots/ left behind used to be nobody's, and the
    // next run into the folder refused it.
    let dir = common::temp_dir("owned-no-figures");
    let sc = dir.join("stopped.toml");
    std::fs::write(&sc, format!("{SMALL}[simulation]\nstop_time = \"1ns\"\n")).expect("write");
    let out = dir.join("r");
    for _ in 0..2 {
        let o = run_into(&sc, &out, true);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert!(!out.join("plots").exists());
    }
}
