//! The verdict engine end to end (issue 39): an axis the quick sweep
//! empties is NOT RUN, a shortened one says how many values it judged, a
//! zero denominator is reported, a why's numbers are the run's, a quick
//! run lists the verdicts that part from the full one, and the new keys
//! are checked at load.
use crate::common::{self, report_row as row, verdict};
use std::path::Path;

/// A 4-to-1 incast swept over two flow sizes (three jittered seeds), and
/// a quick sweep of one size and one seed.
fn setup(dir: &Path, claims: &str) {
    std::fs::write(
        dir.join("base.toml"),
        "[topology]\nkind = \"star\"\nhosts = 5\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
         [switch]\nbuffer = \"100pkt\"\n\
         [[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = \"1-4\"\nsize = \"20KB\"\n\
         start_jitter = \"5us\"\n",
    )
    .expect("written");
    let cases = "[[sweep.case]]\nname = \"A\"\n[[sweep.case]]\nname = \"B\"\n\
                 set = { \"transport.cc\" = \"dctcp\" }\n";
    std::fs::write(
        dir.join("full.toml"),
        format!(
            "[sweep]\nbase = \"base.toml\"\nseeds = 3\n[sweep.grid]\n\
             \"workload[0].size\" = [\"20KB\", \"40KB\"]\n{cases}"
        ),
    )
    .expect("written");
    std::fs::write(
        dir.join("quick.toml"),
        format!("[sweep]\nbase = \"base.toml\"\nseeds = 1\n[sweep.grid]\n\"workload[0].size\" = [\"20KB\"]\n{cases}"),
    )
    .expect("written");
    std::fs::write(
        dir.join("reproduce.toml"),
        format!(
            "[paper]\nname = \"T\"\ntitle = \"t\"\nsetup = \"Every switch marks nothing.\"\n\
             [[experiment]]\nid = \"e\"\ntitle = \"e\"\nsweep = \"full.toml\"\nquick = \"quick.toml\"\n{claims}"
        ),
    )
    .expect("written");
}

fn reproduce(dir: &Path, out: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "reproduce".to_string(),
        dir.display().to_string(),
        "--out".into(),
        dir.join(out).display().to_string(),
        "--no-plots".into(),
        "-j".into(),
        "2".into(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let o = common::run_cli(&args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    std::fs::read_to_string(dir.join(out).join("report.md")).expect("report.md")
}

const CLAIMS: &str = r#"
[[claim]]
experiment = "e"
name = "A drops no more than B beyond 20 KB"
where = "Fig. 1"
quote = "A never drops more."
ours = { y = "drops", case = "A" }
over = "workload[0].size"
except = ["20KB"]
not_above = { case = "B" }

[[claim]]
experiment = "e"
name = "A's median FCT grows with the size"
where = "Fig. 2"
ours = { y = "fct_p50_us", case = "A" }
grows_with = "workload[0].size"

[[claim]]
experiment = "e"
name = "goodput per drop"
where = "Fig. 3"
ours = { y = "goodput_gbps", case = "A", at = { "workload[0].size" = "20KB" } }
per = { y = "drops" }
paper = { value = 1, derived = "read off Fig. 3's bars" }
tolerance = 0.5

[[claim]]
experiment = "e"
name = "A drops at least one packet"
where = "text"
ours = { y = "drops", case = "A", at = { "workload[0].size" = "20KB" } }
at_least = 1
why = "A drops {ours}, and B's median FCT is {b}."
numbers = { b = { y = "fct_p50_us", case = "B" } }
"#;

#[test]
fn the_engine_reports_how_it_judged_and_the_whys_numbers_are_the_runs() {
    let dir = common::temp_dir("verdicts");
    setup(&dir, CLAIMS);
    let full = reproduce(&dir, "full", &[]);
    assert!(full.contains("Every switch marks nothing."), "{full}");
    // Every seed of A's 40 KB FCT is above every seed of its 20 KB one.
    assert_eq!(verdict(&full, "A's median FCT grows with the size"), "PASS");
    assert!(
        row(&full, "A's median FCT grows with the size").contains("3 seeds]"),
        "the range over seeds is shown:\n{full}"
    );
    // Neither drops on any seed: it holds, but on seeds that agree
    // exactly, so its spread is not measured (issue 57).
    assert_eq!(
        verdict(&full, "A drops no more than B beyond 20 KB"),
        "NO SPREAD"
    );
    // No drops: the ratio's denominator is zero, said, and nothing is left.
    let per = row(&full, "goodput per drop");
    assert!(
        per.contains("the denominator can be zero at its one value"),
        "{per}"
    );
    assert_eq!(verdict(&full, "goodput per drop"), "NOT RUN");
    assert!(full.contains("The paper's number is derived: read off Fig. 3's bars"));
    assert!(full.contains("\"A never drops more.\" (Fig. 1)"), "{full}");
    // The why's numbers come from the run: B's median FCT at 20 KB, the
    // mean of its three seeds as sweep.csv gives them.
    let csv = std::fs::read_to_string(dir.join("full/e/sweep.csv")).expect("sweep.csv");
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().expect("header").split(',').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).expect(n);
    let b: Vec<f64> = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[col("case")] == "B" && f[col("workload[0].size")] == "20KB")
        .map(|f| f[col("fct_p50_us")].parse().expect("a number"))
        .collect();
    assert_eq!(b.len(), 3);
    let mean = b.iter().sum::<f64>() / 3.0;
    let want = format!(
        "A drops 0, and B's median FCT is {}.",
        dcnsim::reproduce::eval::shown(mean, "us")
    );
    assert!(full.contains(&want), "wanted '{want}' in:\n{full}");

    // Quick: the excepted axis leaves nothing to judge; the trend has one
    // of its two values; the report lists what parts from the full run.
    let full_dir = dir.join("full").display().to_string();
    let quick = reproduce(&dir, "quick", &["--quick", "--against", &full_dir]);
    let emptied = row(&quick, "A drops no more than B beyond 20 KB");
    assert!(emptied.contains("no value left to judge at"), "{emptied}");
    assert!(
        emptied.contains("judged at 0 of the full sweep's 1 value of"),
        "{emptied}"
    );
    assert_eq!(
        verdict(&quick, "A drops no more than B beyond 20 KB"),
        "NOT RUN"
    );
    let trend = row(&quick, "A's median FCT grows with the size");
    assert!(
        trend.contains("judged at 1 of the full sweep's 2 values"),
        "{trend}"
    );
    assert!(trend.contains("1 seed: a direction needs 3"), "{trend}");
    assert_eq!(
        verdict(&quick, "A's median FCT grows with the size"),
        "DIFFERS"
    );
    assert!(
        quick.contains("**--quick against full:** 2 of 4 verdicts differ."),
        "{quick}"
    );
    assert!(
        quick.contains("| A drops no more than B beyond 20 KB | NOT RUN | NO SPREAD |"),
        "{quick}"
    );
    std::fs::remove_dir_all(dir).expect("cleaned");
}

#[test]
fn the_new_claim_keys_are_checked_at_load() {
    let dir = common::temp_dir("verdicts-errors");
    let fixed = "ours = { y = \"drops\", case = \"A\" }\n";
    let claim = |rest: &str| {
        format!("[[claim]]\nexperiment = \"e\"\nname = \"n\"\nwhere = \"w\"\n{fixed}{rest}")
    };
    for (rest, want) in [
        (
            "flat_with = \"workload[0].size\"\n",
            &["claim[0].flat_within", "band around the mean"][..],
        ),
        ("at_most = 1\nat = 1\n", &["claim[0]", "unknown key `at`"]),
        (
            "over = \"workload[0].size\"\nflat_with = \"workload[0].size\"\nflat_within = 0.1\n",
            &["flat_with and over", "give one of them"],
        ),
        (
            "over = \"workload[0].size\"\nat_most = 1\nstep_tolerance = 0.1\n",
            &["claim[0].step_tolerance", "grows_with or falls_with"],
        ),
        (
            "grows_with = \"workload[0].size\"\nstep_tolerance = -1\n",
            &["claim[0].step_tolerance", "finite number >= 0"],
        ),
        (
            "over = \"workload[0].size\"\nat_most = 1\nwhy = \"it is {nope}\"\n",
            &["claim[0].why", "{nope} is not a number", "{ours}"],
        ),
        (
            "over = \"workload[0].size\"\nat_most = 1\nnumbers = { x = { case = \"B\" } }\n",
            &["claim[0].numbers.x", "not quoted by why"],
        ),
        (
            "over = \"workload[0].size\"\nat_most = 1\nwhy = \"{x}\"\nnumbers = { x = { case = \"B\" } }\n",
            &[
                "claim[0].numbers.x.at",
                "several values of workload[0].size",
            ],
        ),
        // Issue 57: a number names its scheme; one that takes the claim's
        // case in silence is refused (MQ-ECN printed the minimum
        // threshold's drops as the standard's).
        (
            "over = \"workload[0].size\"\nat_most = 1\nwhy = \"{std_drops}\"\nnumbers = { std_drops = { y = \"drops\", at = { \"workload[0].size\" = \"20KB\" } } }\n",
            &["claim[0].numbers.std_drops", "gives no case", "(\"A\")"],
        ),
    ] {
        setup(&dir, &claim(rest));
        common::reproduce_refused(&dir, want);
    }
    std::fs::remove_dir_all(dir).expect("cleaned");
}
