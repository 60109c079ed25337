//! `dcnsim reproduce DIR`: runs a paper's experiments ([`spec`]: the
//! `reproduce.toml` in DIR, a sweep per experiment) into one folder, each
//! experiment a resumable sweep folder, then checks the paper's claims on
//! the results ([`eval`]) and writes `report.md` ([`report`]).

mod check;
pub mod eval;
pub mod report;
pub mod rules;
pub mod spec;

pub use spec::Reproduction;

use crate::report::claim::{FolderKind, check_holds_no_input, claim_folder};
use crate::sweep::{Shard, Sweep, exec};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// How to run a reproduction.
#[derive(Debug, Clone)]
pub struct Options {
    /// The scaled sweeps instead of the papers' sizes.
    pub quick: bool,
    /// Runs simulated at once.
    pub jobs: usize,
    /// The reproduction's folder.
    pub out: PathBuf,
    /// Only this experiment (its claims are still all reported).
    pub only: Option<String>,
    /// `--max-memory` of each sweep.
    pub max_memory: Option<u64>,
    /// Do not draw figures.
    pub no_plots: bool,
    /// Another reproduction folder of the same paper (e.g. the quick run's,
    /// for a full one): the report lists the claims whose verdicts differ.
    pub against: Option<PathBuf>,
}

/// What a reproduction did.
#[derive(Debug)]
pub struct Done {
    /// `report.md`.
    pub report: PathBuf,
    /// The claims' verdicts.
    pub tally: report::Tally,
    /// Runs that failed, by experiment.
    pub failed: Vec<(String, String)>,
    /// Whether a signal stopped it before every run was done.
    pub interrupted: bool,
}

/// Runs `r`'s experiments (those not finished yet) and writes the report.
pub fn run(r: &Reproduction, opts: &Options, stop: &AtomicBool) -> anyhow::Result<Done> {
    if let Some(only) = &opts.only
        && r.experiment(only).is_none()
    {
        let ids: Vec<&str> = r
            .experiments
            .iter()
            .map(|e| e.id.get_ref().as_str())
            .collect();
        anyhow::bail!(
            "--only {only}: no such experiment; the experiments are {}",
            ids.join(", ")
        );
    }
    let against = match &opts.against {
        Some(dir) => {
            Some(report::Against::read(dir).map_err(|e| anyhow::anyhow!("--against {e}"))?)
        }
        None => None,
    };
    let mut sweeps = Vec::new();
    for e in &r.experiments {
        if opts.only.as_ref().is_some_and(|o| o != e.id.get_ref()) {
            continue;
        }
        let mut s = Sweep::read(&r.sweep_file(e, opts.quick))?;
        for w in s.check()? {
            eprintln!("warning: experiment {}: {w}", e.id.get_ref());
        }
        check_holds_no_input(&opts.out, &s.input_paths())?;
        sweeps.push((e.id.get_ref().clone(), s));
    }
    check_holds_no_input(&opts.out, std::slice::from_ref(&r.file))?;
    claim_folder(&opts.out, FolderKind::Reproduction)?;
    let mut failed = Vec::new();
    let mut interrupted = false;
    for (id, sweep) in &sweeps {
        eprintln!(
            "experiment {id}: {} ({} runs)",
            sweep.file.display(),
            sweep.runs.len()
        );
        let out = opts.out.join(id);
        let sweep_opts = exec::Options {
            jobs: opts.jobs,
            out: out.clone(),
            shard: Shard::ALL,
            max_memory: opts.max_memory,
        };
        let rep = exec::execute(sweep, &sweep_opts, stop)?;
        eprintln!(
            "experiment {id}: {} runs ran, {} were already finished, {} failed",
            rep.ran,
            rep.already_done,
            rep.failed.len()
        );
        failed.extend(
            rep.failed
                .into_iter()
                .map(|(run, why)| (format!("{id}/{run}"), why)),
        );
        if rep.interrupted {
            interrupted = true;
            break;
        }
        if !opts.no_plots
            && let Err(e) = crate::plot::plot_dir(&out, crate::plot::Formats::BOTH)
        {
            eprintln!("warning: experiment {id}'s figures were not drawn: {e}");
        }
    }
    // Figures of single runs the experiments show (`RUN/NAME`).
    for e in &r.experiments {
        for f in &e.figures {
            let Some((run, _)) = f.split_once('/') else {
                continue;
            };
            let dir = opts.out.join(e.id.get_ref()).join("runs").join(run);
            let png = opts.out.join(figure_path(e.id.get_ref(), f));
            if !opts.no_plots
                && dir.join("summary.json").exists()
                && !png.exists()
                && let Err(err) = crate::plot::plot_dir(&dir, crate::plot::Formats::BOTH)
            {
                eprintln!("warning: {}'s figures were not drawn: {err}", dir.display());
            }
        }
    }
    let mut results = eval::Results::read(r, &opts.out)?;
    let outcomes = r
        .claims
        .iter()
        .map(|c| eval::evaluate(c, &mut results, opts.quick))
        .collect::<Result<Vec<_>, _>>()?;
    let incomplete = incompleteness(r, &sweeps, &opts.out, opts.quick);
    let text = report::render(
        r,
        &outcomes,
        &opts.out,
        opts.quick,
        incomplete.as_deref(),
        against.as_ref(),
    );
    let file = opts.out.join("report.md");
    crate::report::write_atomic(&file, text.as_bytes())?;
    let verdicts = report::verdicts_csv(r, &outcomes, opts.quick);
    crate::report::write_atomic(&opts.out.join("verdicts.csv"), verdicts.as_bytes())?;
    Ok(Done {
        report: file,
        tally: report::Tally::of(&outcomes),
        failed,
        interrupted,
    })
}

/// Why the report does not cover every claim, in words (`None` when every
/// run of every experiment finished): runs interrupted or failed, and
/// experiments left out by `--only` whose runs are not all in the folder
/// from an earlier run (those that are count as finished: their claims are
/// judged).
fn incompleteness(
    r: &Reproduction,
    sweeps: &[(String, Sweep)],
    out: &std::path::Path,
    quick: bool,
) -> Option<String> {
    let finished_of = |id: &str, s: &Sweep| {
        let dir = out.join(id);
        let done = s
            .runs
            .iter()
            .filter(|run| exec::current_row(&dir, run).is_some())
            .count();
        (done, s.runs.len())
    };
    let (mut finished, mut total) = (0, 0);
    let mut left_out = Vec::new();
    for e in &r.experiments {
        let id = e.id.get_ref();
        let ran = sweeps.iter().find(|(i, _)| i == id);
        let counted = match ran {
            Some((_, s)) => Some(finished_of(id, s)),
            // A run is finished with the inputs it was run from: the
            // fingerprints `check` computes.
            None => Sweep::read(&r.sweep_file(e, quick))
                .ok()
                .and_then(|mut s| s.check().ok().map(|_| finished_of(id, &s))),
        };
        let (done, runs) = counted.unwrap_or((0, 1));
        if done < runs && ran.is_none() {
            left_out.push(id.as_str());
        }
        finished += done;
        total += runs;
    }
    let mut why = Vec::new();
    if finished < total {
        why.push(format!("{finished} of {total} runs finished"));
    }
    if !left_out.is_empty() {
        why.push(format!(
            "not run this time (--only): {}",
            left_out.join(", ")
        ));
    }
    (!why.is_empty()).then(|| why.join("; "))
}

/// Where figure `f` of experiment `id` is, relative to the reproduction's
/// folder: a sweep figure (`NAME`) under the sweep's `plots/`, or one run's
/// (`RUN/NAME`, e.g. `r0001/goodput`) under that run's `plots/`.
pub fn figure_path(id: &str, f: &str) -> PathBuf {
    match f.split_once('/') {
        Some((run, name)) => PathBuf::from(id)
            .join("runs")
            .join(run)
            .join("plots")
            .join(format!("{name}.png")),
        None => PathBuf::from(id).join("plots").join(format!("{f}.png")),
    }
}
