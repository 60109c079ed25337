//! Issue 38: inputs that were accepted as nonsense, or refused with an
//! unclear error, now get a clear error naming the file, line and key (or
//! run correctly).
use crate::common;
use std::path::Path;
use std::process::Output;

const SMALL: &str = "[topology]\nkind = \"star\"\nhosts = 5\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
[switch]\nbuffer = \"100pkt\"\n[transport]\ncc = \"dctcp\"\n[switch.aqm]\nkind = \"step-ecn\"\nk = \"20pkt\"\n\
[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-4\"\nsize = \"20KB\"\n";

fn cli(args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(args)
        .output()
        .expect("dcnsim starts")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `dcnsim validate` of `text` (and `--set`s) fails, saying every `want`.
fn refused(dir: &Path, text: &str, sets: &[&str], want: &[&str]) {
    let f = dir.join("s.toml");
    std::fs::write(&f, text).expect("write");
    let mut args = vec!["validate", f.to_str().expect("utf-8")];
    for s in sets {
        args.extend(["--set", s]);
    }
    let o = cli(&args);
    let e = stderr(&o);
    assert!(!o.status.success(), "accepted: {text} {sets:?}");
    for w in want {
        assert!(e.contains(w), "wanted '{w}' in: {e}");
    }
}

/// `dcnsim sweep --dry-run` of a sweep file over SMALL fails, saying every `want`.
fn sweep_refused(dir: &Path, sweep: &str, want: &[&str]) {
    std::fs::write(dir.join("small.toml"), SMALL).expect("write");
    let f = dir.join("sw.toml");
    std::fs::write(
        &f,
        format!("[sweep]\nbase = \"small.toml\"\nseeds = 1\n{sweep}"),
    )
    .expect("write");
    let o = cli(&["sweep", f.to_str().expect("utf-8"), "--dry-run"]);
    let e = stderr(&o);
    assert!(!o.status.success(), "accepted: {sweep}");
    for w in want {
        assert!(e.contains(w), "wanted '{w}' in: {e}");
    }
}

#[test]
fn sweep_files_refuse_overlapping_keys_duplicates_and_escaping_names() {
    let dir = common::temp_dir("nonsense-sweep");
    sweep_refused(
        &dir,
        "[sweep.grid]\n\"workload[*].size\" = [\"1KB\", \"2KB\"]\n\"workload[0].size\" = [\"3KB\"]\n",
        &[
            "sw.toml:",
            "sweep.grid.workload[0].size",
            "workload[*].size",
            "keep one",
        ],
    );
    sweep_refused(
        &dir,
        "set = { \"switch.aqm\" = { kind = \"red\" } }\n[sweep.grid]\n\"switch.aqm.k\" = [\"1pkt\"]\n",
        &["sweep.grid.switch.aqm.k", "overlaps"],
    );
    sweep_refused(
        &dir,
        "[sweep.grid]\n\"workload[0].size\" = [\"1KB\", \"2KB\", \"1KB\"]\n",
        &["sweep.grid.workload[0].size", "1KB is listed twice"],
    );
    sweep_refused(
        &dir,
        "[sweep.grid]\n\"workload[0].size\" = [\"1KB\", \"2KB\"]\n[[plot]]\ny = \"drops\"\nname = \"a\"\n[[plot]]\ny = \"goodput_gbps\"\nname = \"a\"\n",
        &["plot[1].name", "two [[plot]] tables are named 'a'"],
    );
    for name in ["/tmp/abs", "../escape", "a/../../b"] {
        sweep_refused(
            &dir,
            &format!("name = \"{name}\"\n"),
            &["sweep.name", "results/NAME"],
        );
    }
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn scenarios_refuse_empty_wildcards_nameless_transports_and_stray_transport_keys() {
    let dir = common::temp_dir("nonsense-scenario");
    refused(
        &dir,
        SMALL,
        &["workload=[]", "workload[*].size=\"1KB\""],
        &["workload[*]", "matches nothing"],
    );
    refused(
        &dir,
        &SMALL.replace(
            "[transport]\ncc = \"dctcp\"",
            "[transport.\"\"]\ncc = \"dctcp\"",
        ),
        &[],
        &["transport", "needs a name"],
    );
    let ping = format!(
        "{}[[workload]]\nkind = \"ping\"\nsrc = 1\ndst = 0\ninterval = \"10us\"\nstop = \"1ms\"\ntransport = \"default\"\n",
        SMALL
    );
    refused(&dir, &ping, &[], &["workload[1].transport", "bare packets"]);
    // A type error inside an inline table names the inline key.
    refused(
        &dir,
        &SMALL.replace("cc = \"dctcp\"", "cc = { kind = \"dctcp\", g = \"x\" }"),
        &[],
        &["s.toml:9:", "key `transport.cc.g`"],
    );
    refused(
        &dir,
        SMALL,
        &["transport.cc={kind=\"dctcp\", g=\"x\"}"],
        &["key `transport.cc.g`"],
    );
    // A duplicate key, a table written twice.
    refused(
        &dir,
        &SMALL.replace("hosts = 5", "hosts = 5\nhosts = 6"),
        &[],
        &["s.toml:4:", "`topology.hosts` is given twice"],
    );
    refused(
        &dir,
        &format!("{SMALL}[switch]\nbuffer = \"1pkt\"\n"),
        &[],
        &["the table [switch] is written twice"],
    );
    // DCQCN's variant keys, in plain grammar.
    refused(
        &dir,
        "[topology]\nkind = \"star\"\nhosts = 3\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n[switch]\nbuffer = \"100pkt\"\n\
         [transport]\nkind = \"roce\"\ncc = { kind = \"dcqcn\", rate_on_first_cnp = 0.5 }\n\
         [[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = [1]\nsize = \"10KB\"\n",
        &[],
        &["only the mellanox variant reads this key"],
    );
    // Bytes that are not UTF-8 are located; a FIFO or a device is not read.
    std::fs::write(dir.join("bad.toml"), b"[topology]\nkind = \"st\xffar\"\n").expect("write");
    let e = stderr(&cli(&[
        "validate",
        dir.join("bad.toml").to_str().expect("utf-8"),
    ]));
    assert!(e.contains("bad.toml:2:") && e.contains("not UTF-8"), "{e}");
    #[cfg(unix)]
    {
        let e = stderr(&cli(&["validate", "/dev/zero"]));
        assert!(e.contains("not a regular file"), "{e}");
    }
    // A duration with trailing zeros is read exactly.
    let f = dir.join("ok.toml");
    std::fs::write(&f, SMALL).expect("write");
    let o = cli(&[
        "validate",
        f.to_str().expect("utf-8"),
        "--set",
        &format!("simulation.stop_time=\"1.{}ms\"", "0".repeat(40)),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = cli(&[
        "validate",
        f.to_str().expect("utf-8"),
        "--set",
        &format!("simulation.stop_time=\"{}ms\"", "9".repeat(50)),
    ]);
    assert!(
        stderr(&o).contains("too large for a duration"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn plot_refuses_corrupt_results_and_folders_dcnsim_did_not_make() {
    let dir = common::temp_dir("nonsense-plot");
    let sc = dir.join("small.toml");
    std::fs::write(&sc, SMALL).expect("write");
    let run = |out: &Path| {
        assert!(
            cli(&[
                "run",
                sc.to_str().expect("utf-8"),
                "--out",
                out.to_str().expect("utf-8"),
                "--no-plots"
            ])
            .status
            .success()
        );
    };
    let plot = |d: &Path| cli(&["plot", d.to_str().expect("utf-8")]);
    let a = dir.join("a");
    run(&a);
    std::fs::write(a.join("summary.json"), "{broken").expect("write");
    let e = stderr(&plot(&a));
    assert!(e.contains("summary.json"), "{e}");
    let b = dir.join("b");
    run(&b);
    let text = std::fs::read_to_string(b.join("flows.csv")).expect("read");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fields: Vec<&str> = lines[1].split(',').collect();
    fields[7] = "NaN";
    lines[1] = fields.join(",");
    std::fs::write(b.join("flows.csv"), lines.join("\n") + "\n").expect("write");
    let e = stderr(&plot(&b));
    assert!(e.contains("'NaN' is not a number dcnsim writes"), "{e}");
    std::fs::write(b.join("flows.csv"), &text[..text.len() - 7]).expect("write");
    let e = stderr(&plot(&b));
    assert!(e.contains("truncated") || e.contains("fields"), "{e}");
    // A folder dcnsim did not make gets no plots/.
    let mine = dir.join("mine");
    std::fs::create_dir(&mine).expect("mkdir");
    std::fs::write(mine.join("summary.json"), "{}").expect("write");
    let o = plot(&mine);
    assert!(!o.status.success());
    assert!(!mine.join("plots").exists());
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn output_paths_that_cannot_work_are_refused_before_simulating() {
    let dir = common::temp_dir("nonsense-out");
    let sc = dir.join("small.toml");
    std::fs::write(&sc, SMALL).expect("write");
    let s = sc.to_str().expect("utf-8");
    #[cfg(unix)]
    {
        std::fs::create_dir(dir.join("real")).expect("mkdir");
        std::os::unix::fs::symlink(dir.join("real"), dir.join("link")).expect("link");
        let out = format!("{}/", dir.join("link").display());
        let e = stderr(&cli(&["run", s, "--out", &out]));
        assert!(
            e.contains("symbolic link") && !e.contains("simulated"),
            "{e}"
        );
        assert_eq!(std::fs::read_dir(dir.join("real")).expect("dir").count(), 0);
    }
    let long = dir.join("x".repeat(250));
    let e = stderr(&cli(&["run", s, "--out", long.to_str().expect("utf-8")]));
    assert!(e.contains("a name of 250 bytes"), "{e}");
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn merging_shards_of_two_dcnsim_versions_names_the_version() {
    let dir = common::temp_dir("nonsense-merge");
    std::fs::write(dir.join("small.toml"), SMALL).expect("write");
    let f = dir.join("sw.toml");
    std::fs::write(&f, "[sweep]\nbase = \"small.toml\"\nseeds = 2\n").expect("write");
    let out = dir.join("o");
    let (f, o) = (f.to_str().expect("utf-8"), out.to_str().expect("utf-8"));
    assert!(
        cli(&["sweep", f, "--out", o, "--shard", "0/2", "--no-plots"])
            .status
            .success()
    );
    assert!(
        cli(&["sweep", f, "--out", o, "--shard", "1/2", "--no-plots"])
            .status
            .success()
    );
    // Shard 0's runs as an older dcnsim would have recorded them (a shard
    // started after them refuses them, so here they came last).
    let run_json = out.join("runs/r0000/run.json");
    let text = std::fs::read_to_string(&run_json).expect("read");
    let version = format!("\"dcnsim\": \"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&version), "{text}");
    std::fs::write(&run_json, text.replace(&version, "\"dcnsim\": \"0.0.1\"")).expect("write");
    let e = stderr(&cli(&["merge", o, "--out", o, "--no-plots"]));
    assert!(e.contains("the dcnsim version (0.0.1 then"), "{e}");
    assert!(!e.contains("was edited"), "{e}");
    std::fs::remove_dir_all(dir).expect("cleanup");
}
