//! Golden outputs: every shipped scenario, run through the real CLI at a
//! pinned seed, gives byte for byte the `summary.json`, `flows.csv` and
//! `ports.csv` (and `pfc.csv` when PFC is on) stored in
//! `tests/golden/<scenario path>/`.
//!
//! A scenario whose text has a line `# golden: skip (why)` (a long
//! reproduction, meant for the CLI) is loaded by `scenario_files` but not
//! run here.
//!
//! A change that moves results fails here. If the change is meant to move
//! them, rerun with `UPDATE_GOLDEN=1 cargo test golden` and say in the
//! commit message why the results changed.

use crate::common;
use std::path::{Path, PathBuf};

/// The seed every golden run uses.
const GOLDEN_SEED: &str = "1";
/// The files compared.
const GOLDEN_FILES: [&str; 3] = ["summary.json", "flows.csv", "ports.csv"];
/// Files compared when the run writes them.
const GOLDEN_IF_WRITTEN: [&str; 1] = ["pfc.csv"];

/// `scenarios/r-aqm/incast-newreno.toml` -> `tests/golden/r-aqm/incast-newreno`.
fn golden_dir(scenario: &Path) -> PathBuf {
    let rel = scenario
        .strip_prefix("scenarios")
        .expect("under scenarios/")
        .with_extension("");
    Path::new("tests/golden").join(rel)
}

/// Whether a scenario's text opts out of a golden (`# golden: skip (why)`).
fn skips_golden(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("# golden: skip"))
}

/// The first line where two texts differ, for a readable failure.
fn first_difference(want: &str, got: &str) -> String {
    let (mut w, mut g) = (want.lines(), got.lines());
    for n in 1.. {
        match (w.next(), g.next()) {
            (None, None) => break,
            (a, b) if a == b => continue,
            (a, b) => {
                return format!(
                    "line {n}:\n  golden: {}\n  now:    {}",
                    a.unwrap_or("<end>"),
                    b.unwrap_or("<end>")
                );
            }
        }
    }
    "bytes differ (line endings?)".into()
}

/// Runs scenario `sc` through the CLI into `out` at the golden seed, with
/// `extra` flags.
fn run_at_golden_seed(sc: &Path, out: &Path, extra: &[&str]) {
    let mut args: Vec<&std::ffi::OsStr> = vec![
        "run".as_ref(),
        sc.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
        "--seed".as_ref(),
        GOLDEN_SEED.as_ref(),
    ];
    args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
    common::run_cli(&args);
}

/// Runs scenario `sc` into `out` at the golden seed, with `extra` flags,
/// and compares (or, with `update`, writes) its golden files; what
/// differs goes to `failures`.
fn check_golden(sc: &Path, out: &Path, extra: &[&str], update: bool, failures: &mut Vec<String>) {
    run_at_golden_seed(sc, out, extra);
    let golden = golden_dir(sc);
    let optional = GOLDEN_IF_WRITTEN
        .into_iter()
        .filter(|f| out.join(f).exists());
    for f in GOLDEN_FILES.into_iter().chain(optional) {
        let got = std::fs::read_to_string(out.join(f)).expect("the run wrote it");
        let path = golden.join(f);
        if update {
            std::fs::create_dir_all(&golden).expect("golden folder");
            std::fs::write(&path, &got).expect("golden written");
            continue;
        }
        let flags = extra.join(" ");
        match std::fs::read_to_string(&path) {
            Ok(want) if want == got => {}
            Ok(want) => failures.push(format!(
                "{} [{flags}]: {}",
                path.display(),
                first_difference(&want, &got)
            )),
            Err(e) => failures.push(format!(
                "{}: {e} (run with UPDATE_GOLDEN=1 to create it)",
                path.display()
            )),
        }
    }
}

/// The shipped scenarios that have a golden.
fn golden_scenarios() -> Vec<PathBuf> {
    let skipped = |p: &Path| std::fs::read_to_string(p).is_ok_and(|t| skips_golden(&t));
    let mut all = common::shipped_scenarios();
    all.retain(|p| !skipped(p));
    all
}

#[test]
fn shipped_scenarios_match_their_golden_outputs() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let tmp = common::temp_dir("golden");
    let mut failures = Vec::new();
    for sc in golden_scenarios() {
        let out = tmp.join(
            golden_dir(&sc)
                .strip_prefix("tests/golden")
                .expect("prefix"),
        );
        check_golden(&sc, &out, &[], update, &mut failures);
    }
    std::fs::remove_dir_all(&tmp).ok();
    assert!(
        failures.is_empty(),
        "results changed (if meant, rerun with UPDATE_GOLDEN=1 and say why in the commit):\n{}",
        failures.join("\n")
    );
    // Every golden folder belongs to a shipped scenario (none left behind by a rename).
    let golden_runs = common::files_under(Path::new("tests/golden"), &|p| {
        p.file_name().is_some_and(|f| f == "summary.json")
    });
    let scenarios = common::shipped_scenarios();
    for s in golden_runs {
        let dir = s.parent().expect("folder");
        let rel = dir.strip_prefix("tests/golden").expect("prefix");
        let scenario = Path::new("scenarios").join(rel).with_extension("toml");
        assert!(
            scenarios.contains(&scenario),
            "{} has no scenario {}",
            dir.display(),
            scenario.display()
        );
    }
}

/// Every kind of every registry family runs in a shipped scenario that has
/// a golden output: named in it (`kind = "NAME"`, or a controller's
/// `cc = "NAME"`), or its family's default, which a scenario without that
/// table runs. Under `UPDATE_GOLDEN` a scenario counts if it will get its
/// golden (it is not skipped): the test above writes it at the same time,
/// so the first update run of a new kind passes.
#[test]
fn every_registry_row_has_a_golden_scenario() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let will_have_golden = |p: &Path, text: &str| {
        golden_dir(p).join("summary.json").is_file() || (update && !skips_golden(text))
    };
    let with_golden: Vec<String> = common::shipped_scenarios()
        .iter()
        .filter_map(|p| {
            let text = std::fs::read_to_string(p).expect("shipped");
            will_have_golden(p, &text).then_some(text)
        })
        .collect();
    let mut missing = Vec::new();
    for family in dcnsim::registry::families() {
        for row in &family.kinds {
            if family.default == Some(row.name) {
                continue;
            }
            let name = format!("\"{}\"", row.name);
            let found = with_golden.iter().any(|text| {
                text.lines().any(|l| {
                    let l = l.trim_start();
                    (l.starts_with("kind = ") || l.starts_with("cc = ")) && l.contains(&name)
                })
            });
            if !found {
                missing.push(format!("{} {name}", family.name));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "no shipped scenario with a golden runs: {missing:?}"
    );
}

/// One order for every cut (issue 60): every golden scenario whose fabric
/// can be cut runs, ordered by the model (`simulation.order = "model"`),
/// as one queue and cut by pods into at most 2, 4, 8 and 16 LPs (each
/// distinct cut once), and every cut writes the one queue's bytes. The
/// finest cut runs at 1, 2 and 3 threads, each coarser one at one of them
/// in turn (threads only deal LPs to cores: `tests/it/parallel.rs` deals
/// them every way). The debug build, which also checks the invariants
/// under the cut, runs each scenario's finest cut at 3 threads.
#[test]
fn ordered_by_the_model_every_cut_writes_the_one_queue_bytes() {
    let (max_lps, threads): (&[u32], &[&str]) = if cfg!(debug_assertions) {
        (&[16], &["3"])
    } else {
        (&[2, 4, 8, 16], &["1", "2", "3"])
    };
    let model = "simulation.order=model".to_string();
    let tmp = common::temp_dir("golden-cuts");
    let mut failures = Vec::new();
    let mut cut = Vec::new();
    let mut runs = 0;
    let mut run = |sc: &Path, set: &[String], t: &str| {
        runs += 1;
        let out = tmp.join(format!("{runs}"));
        let mut extra = vec!["--no-plots", "--threads", t];
        for s in set {
            extra.extend(["--set", s.as_str()]);
        }
        run_at_golden_seed(sc, &out, &extra);
        out
    };
    for sc in golden_scenarios() {
        let path = sc.to_str().expect("utf-8 path");
        let mut seen: Vec<Vec<u32>> = Vec::new();
        let mut cuts = Vec::new();
        for lps in max_lps {
            let set = [
                model.clone(),
                "simulation.partition=pods".to_string(),
                format!("simulation.lps={lps}"),
            ];
            let loaded = common::scenario_file(path, &set);
            let planned = dcnsim::registry::workload::plan_all(&loaded, 1);
            let Ok(p) = dcnsim::world::partition_for(&loaded, &planned) else {
                break;
            };
            if p.lps < 2 || seen.contains(&p.lp_of_node) {
                continue;
            }
            seen.push(p.lp_of_node);
            cut.push(format!("{} ({} LPs)", sc.display(), p.lps));
            cuts.push(set);
        }
        if cuts.is_empty() {
            continue;
        }
        let whole = run(
            &sc,
            &[model.clone(), "simulation.partition=none".into()],
            "1",
        );
        for (i, set) in cuts.iter().enumerate() {
            let finest = i + 1 == cuts.len();
            for (j, t) in threads.iter().enumerate() {
                if !finest && j != i % threads.len() {
                    continue;
                }
                let out = run(&sc, set, t);
                for f in GOLDEN_FILES.into_iter().chain(GOLDEN_IF_WRITTEN) {
                    let (a, b) = (whole.join(f), out.join(f));
                    if !a.exists() {
                        continue;
                    }
                    let (want, got) = (std::fs::read_to_string(a), std::fs::read_to_string(b));
                    let (want, got) = (want.expect("written"), got.expect("written"));
                    if want != got {
                        failures.push(format!(
                            "{path} {f} [{}, {t} threads]: {}",
                            set.join(" "),
                            first_difference(&want, &got)
                        ));
                    }
                }
            }
        }
    }
    std::fs::remove_dir_all(&tmp).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The cut is exercised: fat-trees, leaf-spines and dumbbells, PFC,
    // failures, trimming and collectives, in several LP counts.
    for want in [
        "k-ary-permutation.toml (2 LPs)",
        "k-ary-permutation.toml (4 LPs)",
        "websearch-leafspine",
        "roce-incast",
        "dumbbell",
        "link-failure",
        "uec-incast-k8.toml (8 LPs)",
        "ring-allreduce-k8",
    ] {
        // The debug build cuts each scenario once, at its finest.
        let want = match want.split_once(" (") {
            Some((name, _)) if cfg!(debug_assertions) => name,
            _ => want,
        };
        assert!(
            cut.iter().any(|p| p.contains(want)),
            "{want} is not cut: {cut:?}"
        );
    }
}
