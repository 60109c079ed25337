//! `dcnsim reproduce`: a paper's claims checked on its experiments, the
//! report, resuming, and the errors of a reproduction file.
use crate::common::{self, verdict};
use std::path::Path;

/// ABQ's scaled reproduction shows the effects the paper exists to show
/// (a shorter queue than DCTCP's, ECN's goodput dip at 20 senders, fewer
/// drops at scale), every claim runs, and a second run resumes.
#[test]
fn abq_quick_reproduction_shows_the_papers_effects_and_resumes() {
    let dir = common::temp_dir("reproduce-abq");
    let out = dir.join("abq");
    let args = |out: &Path| {
        vec![
            "reproduce".to_string(),
            "scenarios/abq".into(),
            "--quick".into(),
            "--out".into(),
            out.display().to_string(),
            "-j".into(),
            "2".into(),
        ]
    };
    let o = common::run_cli(&args(&out));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("reproduction ABQ:") && said.contains("0 NOT RUN"),
        "{said}"
    );
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    for claim in [
        "ECN's mean queue is 1.6 x ABQ's (mean over N)",
        "ECN's goodput is below DropTail's at 20 senders",
        "ABQ's median FCT grows with N",
        "ABQ's p99 FCT is 10% below ECN's (ratio, mean over N)",
        "ABQ drops fewer packets than ECN at every rate",
        "ECN drops fewer packets than DropTail at every rate",
    ] {
        assert!(common::shows(verdict(&report, claim)), "{claim}:\n{report}");
    }
    // A claim that differs carries its reason.
    assert!(
        report.contains("*ABQ's p99 FCT is 90% below DropTail's"),
        "{report}"
    );
    assert!(out.join("fig4/plots/queue.png").exists());
    // Run again: every run is found finished, and the report is the same.
    let again = common::run_cli(&args(&out));
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("experiment fig4: 0 runs ran, 12 were already finished"),
        "{err}"
    );
    let second = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert_eq!(report, second);
    let csv = std::fs::read_to_string(out.join("verdicts.csv")).expect("verdicts.csv");
    as_published("abq", &csv, &[]);
    std::fs::remove_dir_all(dir).expect("cleaned");
}

/// Runs `scenarios/PAPER --quick` into a temporary folder and returns its
/// report.
fn quick_report(paper: &str) -> String {
    quick_report_of(paper, &[])
}

/// Runs the experiments `only` of `scenarios/PAPER --quick` (all of them
/// when empty) into one temporary folder and returns the last report.
fn quick_report_of(paper: &str, only: &[&str]) -> String {
    let dir = common::temp_dir(&format!("reproduce-{paper}"));
    let out = dir.join("out");
    let run = |only: Option<&str>| {
        let mut args = vec![
            "reproduce".to_string(),
            format!("scenarios/{paper}"),
            "--quick".into(),
            "--out".into(),
            out.display().to_string(),
            "-j".into(),
            "2".into(),
        ];
        if let Some(id) = only {
            args.extend(["--only".to_string(), id.to_string()]);
        }
        common::run_cli(&args);
    };
    if only.is_empty() {
        run(None);
    }
    for id in only {
        run(Some(id));
    }
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    let csv = std::fs::read_to_string(out.join("verdicts.csv")).expect("verdicts.csv");
    as_published(paper, &csv, only);
    std::fs::remove_dir_all(dir).expect("cleaned");
    report
}

/// Issue 57: a published report is what HEAD produces. Each claim of the
/// experiments run (all of them when `only` is empty) has the verdict and
/// number the published quick run has (docs/reproductions/PAPER/
/// quick-verdicts.csv, which scripts/publish-reproduction.sh writes beside
/// the report); a change to the simulator or the rules that moves one
/// fails here until the report is published again.
fn as_published(paper: &str, csv: &str, only: &[&str]) {
    let file = format!("docs/reproductions/{paper}/quick-verdicts.csv");
    let published = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{file}: {e}"));
    let ran = |line: &&str| {
        let fields = dcnsim::sweep::table::split(line);
        only.is_empty() || fields.get(1).is_some_and(|e| only.contains(&e.as_str()))
    };
    let now: Vec<&str> = csv.lines().skip(1).filter(ran).collect();
    let then: Vec<&str> = published.lines().skip(1).filter(ran).collect();
    let moved: Vec<String> = (now.iter().zip(&then))
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("  published: {b}\n  HEAD:      {a}"))
        .collect();
    assert!(
        moved.is_empty() && now.len() == then.len(),
        "{paper}'s quick run is no longer the published one ({} of {} claims moved, {} \
         against {} claims): publish again with scripts/publish-reproduction.sh {paper}\n{}",
        moved.len(),
        now.len(),
        now.len(),
        then.len(),
        moved.join("\n")
    );
}

/// R-AQM's effect at a small scale (its scaled reproduction): goodput,
/// no drop and no timeout to 200 senders with DCTCP, a short forward queue
/// and latency against ECN.
#[test]
fn r_aqm_quick_reproduction_shows_the_papers_effects() {
    // The TCP experiments (the RDMA ones, Figs. 14-15, take 90 s; their
    // effect is tested in tests/it/r_aqm.rs at 25 senders).
    let tcp = ["fig9", "fig10b", "fig11-10", "fig11-100", "fig12", "fig13"];
    let report = quick_report_of("r-aqm", &tcp);
    for claim in [
        "R-AQM (ECN) keeps line-rate goodput at 200 senders",
        "R-AQM (ECN) drops nothing below 200 senders",
        "R-AQM (ECN) has no timeout below 200 senders",
        "ECN times out at 200 senders, R-AQM (ECN) does not",
        "R-AQM's largest queue is below ECN's at 200 senders",
        "R-AQM's p99 RTT stays below 0.3 ms at 200 senders",
    ] {
        assert!(common::shows(verdict(&report, claim)), "{claim}:\n{report}");
    }
}

/// FairQ's effect at a small scale: far fewer drops than DropTail in both
/// incasts and against long flows, and a shorter tail.
#[test]
fn fairq_quick_reproduction_shows_the_papers_effects() {
    let report = quick_report("fairq");
    for claim in [
        "FairQ drops about 55% fewer packets than DropTail (ratio 0.45)",
        "FairQ drops about 73% fewer packets than DropTail (ratio 0.27)",
        "FairQ's maximum FCT is two orders of magnitude below DropTail's (ratio)",
        "FairQ's mean FCT is below DropTail's under heavy load",
        "FairQ's p99 request FCT is two orders of magnitude below DropTail's (ratio)",
        "FairQ's short-term fairness is better than DCTCP's",
    ] {
        let v = verdict(&report, claim);
        assert!(
            common::shows(v) || v == "DIRECTION ONLY" || v == "AT THE EDGE",
            "{claim}: {v}\n{report}"
        );
    }
}

/// MQ-ECN's testbed effects: RTT grows with the number of queues under
/// per-queue standard thresholds; MQ-ECN shares fairly at a lower RTT.
/// (Its large-scale simulations take minutes even scaled: CI runs their
/// quick reproduction as a step of its own, scripts/ci-reproductions.sh.)
#[test]
fn mq_ecn_quick_reproduction_shows_the_papers_effects() {
    let report = quick_report_of("mq-ecn", &["fig1", "fig3", "fig6"]);
    for claim in [
        "8 queues raise the mean RTT 5.7x over one queue (279 to 1582 us)",
        "Per-port ECN: the 4-flow service grabs more (service 2 above service 1)",
        "MQ-ECN shares the link equally between 1 and 4 flows (service 1 / service 2)",
        "MQ-ECN's mean RTT is 32.3% below the standard threshold's (651 to 441 us)",
    ] {
        assert!(common::shows(verdict(&report, claim)), "{claim}:\n{report}");
    }
}

/// RCC's Table II and Figs. 7-8 (about 2 s; Fig. 6 takes 30 s, and
/// tests/it/rcc.rs runs it at 1/100): RCC keeps PFC quiet where DCQCN and
/// TIMELY pause, and finishes the incast before HPCC.
#[test]
fn rcc_reproduction_shows_the_papers_effects() {
    let report = quick_report_of("rcc", &["table2", "fig78"]);
    for claim in [
        "N = 256: RCC pauses less than DCQCN",
        "N = 256: RCC pauses less than TIMELY",
        "TIMELY pauses 54.9% at N = 256",
        "RCC's median incast FCT is 5.2% below HPCC's",
        "RCC's p99 incast FCT is 4.1% below HPCC's",
    ] {
        assert!(common::shows(verdict(&report, claim)), "{claim}:\n{report}");
    }
}

/// A reproduction file's mistakes are named with file, line and key, and
/// an output folder of the user's is refused before anything runs.
#[test]
fn reproduction_files_are_checked_and_user_folders_refused() {
    let dir = common::temp_dir("reproduce-errors");
    std::fs::write(
        dir.join("base.toml"),
        include_str!(
            "scenarios/reproduce/reproduction_files_are_checked_and_user_folders_refused.toml"
        ),
    )
    .expect("written");
    std::fs::write(
        dir.join("s.toml"),
        "[sweep]\nbase = \"base.toml\"\nseeds = 1\n[sweep.grid]\n\"workload[0].size\" = [\"20KB\", \"40KB\"]\n\
         [[sweep.case]]\nname = \"A\"\n[[sweep.case]]\nname = \"B\"\nset = { \"transport.cc\" = \"dctcp\" }\n",
    )
    .expect("written");
    let head = "[paper]\nname = \"T\"\ntitle = \"t\"\n[[experiment]]\nid = \"e\"\ntitle = \"e\"\nsweep = \"s.toml\"\n";
    let check = |claim: &str, want: &[&str]| {
        std::fs::write(dir.join("reproduce.toml"), format!("{head}{claim}")).expect("written");
        common::reproduce_refused(&dir, want);
    };
    check(
        "[[claim]]\nexperiment = \"e\"\nname = \"n\"\nwhere = \"w\"\nours = { y = \"goodput_gbps\", case = \"C\", at = { \"workload[0].size\" = \"20KB\" } }\nat_least = 1\n",
        &[
            "reproduce.toml:12:",
            "claim[0].ours.case",
            "'C' is not a case",
            "A, B",
        ],
    );
    check(
        "[[claim]]\nexperiment = \"f\"\nname = \"n\"\nwhere = \"w\"\nours = { y = \"drops\", case = \"A\" }\nat_most = 0\n",
        &[
            "reproduce.toml:9:",
            "no experiment 'f'",
            "the experiments are e",
        ],
    );
    check(
        "[[claim]]\nexperiment = \"e\"\nname = \"n\"\nwhere = \"w\"\nours = { y = \"drops\", case = \"A\" }\nat_most = 0\n",
        &["several values of workload[0].size", "fix one with at"],
    );
    check(
        "[[claim]]\nexperiment = \"e\"\nname = \"n\"\nwhere = \"w\"\nours = { y = \"drop\", case = \"A\", at = { \"workload[0].size\" = \"20KB\" } }\nat_most = 0\n",
        &["claim[0].ours.y", "\"drops\""],
    );
    check(
        "[[claim]]\nexperiment = \"e\"\nname = \"n\"\nwhere = \"w\"\nours = { y = \"drops\", case = \"A\", at = { \"workload[0].size\" = \"20KB\" } }\n",
        &["compares nothing"],
    );
    // Numbers that could judge nothing, and keys that do not exist (issue 38).
    let fixed =
        "ours = { y = \"drops\", case = \"A\", at = { \"workload[0].size\" = \"20KB\" } }\n";
    let claim = |rest: &str| {
        format!("[[claim]]\nexperiment = \"e\"\nname = \"n\"\nwhere = \"w\"\n{fixed}{rest}")
    };
    for (rest, want) in [
        (
            "paper = { value = 1 }\ntolerance = inf\n",
            &["claim[0].tolerance", "reproduce.toml:14:", "finite"][..],
        ),
        (
            "paper = { value = 1 }\ntolerance = -0.1\n",
            &["claim[0].tolerance", "finite relative tolerance >= 0"],
        ),
        (
            "paper = { value = 1 }\ntolerance = nan\n",
            &["claim[0].tolerance"],
        ),
        (
            "paper = { value = nan }\ntolerance = 0.1\n",
            &["claim[0].paper.value", "finite"],
        ),
        (
            "paper = { value = 1 }\nband = [2.0, 0.5]\n",
            &["claim[0].band", "low <= high"],
        ),
        ("at_most = nan\n", &["claim[0].at_most", "finite"]),
    ] {
        check(&claim(rest), want);
    }
    check(
        "[[claim]]\nexperiment = \"e\"\nname = \"n\"\nwhere = \"w\"\nours = { y = \"drops\", case = \"A\" }\nover = \"workload[0].size\"\nexcept = [\"30KB\"]\nat_most = 0\nbelow = { case = \"B\" }\n",
        &[
            "claim[0].except[0]",
            "30KB is not a value of workload[0].size",
            "20KB, 40KB",
        ],
    );
    // A trend leaves out the values its except lists (issue 57): checked
    // against its own axis.
    check(
        "[[claim]]\nexperiment = \"e\"\nname = \"n\"\nwhere = \"w\"\nours = { y = \"drops\", case = \"A\" }\ngrows_with = \"workload[0].size\"\nexcept = [\"10KB\"]\n",
        &[
            "claim[0].except[0]",
            "10KB is not a value of workload[0].size",
        ],
    );
    check(
        "[[claim]]\nexperiment = \"e\"\nname = \"n\"\nwhere = \"w\"\nours = { y = \"drops\", case = \"A\" }\ngrows_with = \"workload[0].sizes\"\n",
        &["claim[0].grows_with", "not an axis"],
    );
    check(
        &claim("at_most = 1\n").replace("\"drops\"", "\"flows.by_size.3.fct_us.p99\""),
        &[
            "claim[0].ours.y",
            "position 3 does not exist",
            "3 flow-size buckets",
        ],
    );
    check(
        &format!(
            "{}[[not_reproduced]]\nwhat = \"x\"\nwhere = \"y\"\n",
            claim("at_most = 0\n")
        ),
        &["not_reproduced[0]", "why"],
    );
    // A good file, but the output path holds the user's files.
    std::fs::write(
        dir.join("reproduce.toml"),
        format!("{head}[[claim]]\nexperiment = \"e\"\nname = \"n\"\nwhere = \"w\"\nours = {{ y = \"drops\", case = \"A\", at = {{ \"workload[0].size\" = \"20KB\" }} }}\nat_most = 0\n"),
    )
    .expect("written");
    std::fs::create_dir(dir.join("mine")).expect("made");
    std::fs::write(dir.join("mine/thesis.tex"), "x").expect("written");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dcnsim"))
        .args(["reproduce", &dir.display().to_string(), "--out"])
        .arg(dir.join("mine"))
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("refusing to write there"), "{err}");
    assert_eq!(
        std::fs::read_dir(dir.join("mine")).expect("listed").count(),
        1,
        "{err}"
    );
    std::fs::remove_dir_all(dir).expect("cleaned");
}

/// Every shipped reproduction file reads and checks against its sweeps
/// (full and quick), and every experiment is one of them.
#[test]
fn shipped_reproductions_are_valid() {
    let files = common::shipped_reproductions();
    assert!(!files.is_empty());
    for path in files {
        let r = dcnsim::reproduce::Reproduction::read(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!r.claims.is_empty(), "{}", path.display());
        // Every claim is the paper's: it quotes the sentence or caption it
        // comes from (issue 39), and says what its paper's simulator does.
        for c in &r.claims {
            let quote = c.quote.as_deref().map_or("", str::trim);
            assert!(
                !quote.is_empty(),
                "{}: '{}' quotes nothing",
                path.display(),
                c.name
            );
        }
        assert!(r.paper.setup.is_some(), "{}: no setup", path.display());
    }
}

/// Every shipped reproduction runs each of its runs as one logical
/// process, so its bytes are the undivided run's (docs/architecture.md):
/// `partition = "auto"` cut ABQ's 1,000-host scale experiment, and 8
/// rows of its published report moved (issue 57). Checked on each
/// case and axis value of every full and quick sweep (the cut does not
/// depend on the seed); no plan is passed, so a scenario the cut could
/// take fails here.
#[test]
fn every_reproduction_runs_as_one_logical_process() {
    for path in common::shipped_reproductions() {
        let r = dcnsim::reproduce::Reproduction::read(&path).unwrap_or_else(|e| panic!("{e}"));
        for e in &r.experiments {
            for quick in [false, true] {
                let sweep = dcnsim::sweep::Sweep::read(&r.sweep_file(e, quick))
                    .unwrap_or_else(|err| panic!("{err}"));
                for run in sweep
                    .runs
                    .iter()
                    .filter(|run| run.seed == sweep.runs[0].seed)
                {
                    let sc = sweep.load(run).unwrap_or_else(|err| panic!("{err}"));
                    let cut = dcnsim::world::partition_for(&sc, &[]).expect("a cut");
                    assert_eq!(cut.lps, 1, "{} run {}", sweep.file.display(), run.id);
                }
            }
        }
    }
}
