//! Running a sweep: the runs of this shard that are not finished yet, on a
//! rayon pool of `jobs` workers, each simulating one run at a time; a
//! writer thread, fed through a bounded crossbeam channel, commits each
//! finished run's folder and counts progress. The sweep's table is written
//! last from the finished runs' rows, in run order, so it is the same
//! whatever `jobs` is and whichever run finished first.
//!
//! The output folder:
//!
//! ```text
//! OUT/sweep.json                the sweep's runs (written first)
//! OUT/sweep.csv                 a row per finished run (sweep.shard-I-of-N.csv for a shard)
//! OUT/runs/r0007/               a run's files, plus run.json and row.csv
//! ```
//!
//! A run counts as finished when its folder holds its `summary.json` and a `run.json` equal to
//! the run's (same overrides, seed and fingerprint) and its `row.csv`:
//! folders move into place whole, so a run killed at any point is either
//! finished or absent, and rerunning the command redoes exactly the absent
//! ones. A finished run whose fingerprint differs from the sweep's now (the
//! base scenario or a CDF edited, another dcnsim) stops the command before
//! anything runs, and so does an input edited while the sweep runs: the
//! runs of one folder are always made from the same inputs.

use super::fingerprint::disagreement;
use super::spec::{Run, Sweep};
use super::table;
use crate::memory::{Estimate, Limit};
use crate::registry::workload::plan_all;
use crate::report::write_atomic;
use crate::runner::{self, RunError};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// A deterministic slice of a sweep: run `i` belongs to shard `i mod count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This slice, from 0.
    pub index: usize,
    /// How many slices.
    pub count: usize,
}

impl Shard {
    /// The whole sweep.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// Parses `I/N` (0 <= I < N).
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("'{text}' is not a shard: expected I/N with 0 <= I < N, e.g. 0/4");
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let index: usize = i.trim().parse().map_err(|_| bad())?;
        let count: usize = n.trim().parse().map_err(|_| bad())?;
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether run `index` is in this slice.
    pub fn holds(self, index: usize) -> bool {
        index % self.count == self.index
    }

    /// The runs of `runs` in this slice, in order.
    pub fn runs(self, runs: &[Run]) -> impl Iterator<Item = &Run> {
        runs.iter().filter(move |r| self.holds(r.index))
    }

    /// The name of this slice's table: `sweep.csv` for the whole sweep.
    pub fn table_name(self) -> String {
        if self == Shard::ALL {
            "sweep.csv".into()
        } else {
            format!("sweep.shard-{}-of-{}.csv", self.index, self.count)
        }
    }
}

/// How to run a sweep.
#[derive(Debug, Clone)]
pub struct Options {
    /// Runs simulated at once.
    pub jobs: usize,
    /// The sweep's output folder.
    pub out: PathBuf,
    /// The slice to run.
    pub shard: Shard,
    /// `--max-memory` (the whole sweep's; each run gets `1/jobs` of it).
    pub max_memory: Option<u64>,
}

/// What a sweep did.
#[derive(Debug, Default)]
pub struct Report {
    /// Runs in this slice.
    pub selected: usize,
    /// Of which already finished before this command.
    pub already_done: usize,
    /// Of which run and committed now.
    pub ran: usize,
    /// Runs that failed, with why.
    pub failed: Vec<(String, String)>,
    /// Whether it was stopped before every run was done.
    pub interrupted: bool,
}

/// `runs/<id>` under `out`.
pub fn run_dir(out: &Path, run: &Run) -> PathBuf {
    out.join("runs").join(&run.id)
}

/// The `run.json` of a run.
fn run_json(run: &Run) -> Vec<u8> {
    serde_json::to_vec_pretty(run).expect("plain data serialises")
}

/// The row of `run` if its folder holds it finished (as it is: `merge`
/// checks it).
pub fn finished_row(out: &Path, run: &Run) -> Option<String> {
    let dir = run_dir(out, run);
    let meta = std::fs::read(dir.join("run.json")).ok()?;
    if meta != run_json(run) || !dir.join("summary.json").is_file() {
        return None;
    }
    std::fs::read_to_string(dir.join("row.csv")).ok()
}

/// [`finished_row`] as a row of this dcnsim's `sweep.csv`: a row written
/// before the newest columns is completed from the run's `summary.json`;
/// any other row of another column set is not, and its run is run again
/// when the sweep resumes, so that the table stays one table.
pub fn current_row(out: &Path, run: &Run) -> Option<String> {
    as_current(out, run, finished_row(out, run)?)
}

/// `row`, the finished row of `run` in `out`, as [`current_row`] gives it.
pub fn as_current(out: &Path, run: &Run, row: String) -> Option<String> {
    if super::table::check_row(run, &row).is_ok() {
        return Some(row);
    }
    let summary = std::fs::read_to_string(run_dir(out, run).join("summary.json")).ok()?;
    super::table::completed_row(run, &row, &summary)
}

/// The runs of `sweep` finished in `out` (by any shard) from other inputs:
/// same id, overrides and seed, another fingerprint; with what changed.
pub fn fingerprint_conflicts(sweep: &Sweep, out: &Path) -> Vec<(String, Vec<String>)> {
    runs_from_other_inputs(&sweep.runs, out)
}

/// The runs of `runs` finished in `out` from other inputs than the ones
/// recorded in `runs`, with what changed.
pub fn runs_from_other_inputs(runs: &[Run], out: &Path) -> Vec<(String, Vec<String>)> {
    let mut conflicts = Vec::new();
    for run in runs {
        let Ok(bytes) = std::fs::read(run_dir(out, run).join("run.json")) else {
            continue;
        };
        let Ok(done) = serde_json::from_slice::<Run>(&bytes) else {
            continue; // not a run of this sweep's form: redone, not joined
        };
        let same_run =
            done.id == run.id && done.overrides == run.overrides && done.seed == run.seed;
        if same_run && done.fingerprint != run.fingerprint {
            conflicts.push((run.id.clone(), done.fingerprint.changes(&run.fingerprint)));
        }
    }
    conflicts
}

/// What a worker hands the writer.
enum Done {
    Ran {
        run: usize,
        staged: runner::Staged,
        /// The run's wall time and headline, for the log line.
        note: String,
    },
    Failed {
        run: usize,
        why: String,
    },
}

/// Runs the slice `opts.shard` of `sweep` into `opts.out`, showing
/// progress on stderr; `stop` set (by SIGINT) makes workers abandon their
/// runs and start no more.
pub fn execute(sweep: &Sweep, opts: &Options, stop: &AtomicBool) -> anyhow::Result<Report> {
    let out = &opts.out;
    crate::report::claim::claim_sweep_folder(out)?;
    let _lock = lock(out, opts.shard)?;
    let conflicts = fingerprint_conflicts(sweep, out);
    if !conflicts.is_empty() {
        return Err(disagreement(&out.display().to_string(), &conflicts));
    }
    write_atomic(&out.join("sweep.json"), &manifest(sweep))?;
    let selected: Vec<&Run> = opts.shard.runs(&sweep.runs).collect();
    let todo: Vec<&Run> = selected
        .iter()
        .copied()
        .filter(|r| current_row(out, r).is_none())
        .collect();
    // A run redone replaces its folder whole: refused, before any run
    // starts, where a folder to be replaced holds what dcnsim did not write.
    let refused: Vec<String> = todo
        .iter()
        .filter_map(|r| {
            crate::report::claim::check_target(&run_dir(out, r), crate::report::FolderKind::Run)
                .err()
                .map(|e| e.to_string())
        })
        .collect();
    if !refused.is_empty() {
        anyhow::bail!(
            "{} run folder{} to be redone hold{} files dcnsim did not write; nothing was run: {}",
            refused.len(),
            if refused.len() == 1 { "" } else { "s" },
            if refused.len() == 1 { "s" } else { "" },
            refused
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    let mut report = Report {
        selected: selected.len(),
        already_done: selected.len() - todo.len(),
        ..Report::default()
    };
    let mut progress =
        crate::progress::SweepProgress::new(selected.len() as u64, report.already_done as u64);
    let jobs = opts.jobs.max(1).min(todo.len().max(1));
    // Each of the runs simulated at once gets an equal share: `jobs` is
    // already capped at the runs left, so a large -j never starves them.
    let mut limit = Limit::new(opts.max_memory);
    limit.bytes /= jobs as u64;
    let next = AtomicUsize::new(0);
    let (tx, rx) = crossbeam_channel::bounded::<Done>(jobs);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("dcnsim-run-{i}"))
        .build()?;
    std::thread::scope(|scope| {
        let work = scope.spawn(|| {
            pool.scope(|s| {
                for _ in 0..jobs {
                    let tx = tx.clone();
                    s.spawn(|_| worker(sweep, &todo, &next, out, limit, stop, tx));
                }
            });
            drop(tx);
        });
        for done in rx.iter() {
            match done {
                Done::Ran { run, staged, note } => {
                    let r = &sweep.runs[run];
                    match staged.commit() {
                        Ok(()) => {
                            report.ran += 1;
                            progress.run_done(&format!("{} ({}): {note}", r.id, sweep.describe(r)));
                        }
                        Err(e) => {
                            progress.println(&format!("run {} failed: {e}", r.id));
                            report.failed.push((r.id.clone(), e.to_string()));
                        }
                    }
                }
                Done::Failed { run, why } => {
                    let r = &sweep.runs[run];
                    progress.println(&format!("run {} failed: {why}", r.id));
                    report.failed.push((r.id.clone(), why));
                }
            }
        }
        let _ = work.join();
    });
    progress.finish();
    report.interrupted = stop.load(Ordering::SeqCst);
    write_table(sweep, out, opts.shard)?;
    Ok(report)
}

/// Takes runs off `todo` until none is left or `stop` is set.
fn worker(
    sweep: &Sweep,
    todo: &[&Run],
    next: &AtomicUsize,
    out: &Path,
    limit: Limit,
    stop: &AtomicBool,
    tx: crossbeam_channel::Sender<Done>,
) {
    while !stop.load(Ordering::SeqCst) {
        let Some(run) = todo.get(next.fetch_add(1, Ordering::SeqCst)) else {
            return;
        };
        // A panic is a simulator bug; it fails this run, reported with the
        // others, instead of silently ending the worker and losing the run.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            simulate(sweep, run, out, limit, stop)
        }));
        let done = match result {
            Ok(Ok(Some((staged, note)))) => Done::Ran {
                run: run.index,
                staged,
                note,
            },
            Ok(Ok(None)) => return, // interrupted: nothing of it is kept
            Ok(Err(why)) => Done::Failed {
                run: run.index,
                why: format!("{why:#}"),
            },
            Err(panic) => Done::Failed {
                run: run.index,
                why: format!(
                    "the simulation panicked (a dcnsim bug): {}",
                    panic_text(&panic)
                ),
            },
        };
        if tx.send(done).is_err() {
            return;
        }
    }
}

/// A panic's message, when it is a string.
fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}

/// Simulates one run into its staging folder, with `run.json` and
/// `row.csv` among its files, and its log note (wall time and headline);
/// `None` if `stop` interrupted it.
fn simulate(
    sweep: &Sweep,
    run: &Run,
    out: &Path,
    limit: Limit,
    stop: &AtomicBool,
) -> anyhow::Result<Option<(runner::Staged, String)>> {
    let sc = sweep.load(run)?;
    let now = sweep.fingerprint(&sc);
    if now != run.fingerprint {
        anyhow::bail!(
            "its inputs changed while the sweep ran ({}): it is not run, so that every run of \
             the sweep comes from the same inputs; restore them and rerun to resume, or start \
             the sweep anew in another folder",
            run.fingerprint.changes(&now).join("; ")
        );
    }
    // Refused before planning where the workloads' own counts already
    // pass the limit (as `dcnsim run` refuses it), then on the plans.
    Estimate::before_planning(&sc).check(limit)?;
    let planned = plan_all(&sc, run.seed);
    Estimate::of(&sc, &planned).check(limit)?;
    let volume = crate::report::volume::Volume::of(&sc, &planned)
        .check()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let dir = run_dir(out, run);
    // The sweep runs its runs side by side: one thread each, unless the
    // scenario asks for more.
    let threads = crate::world::Threads(sc.simulation.threads.unwrap_or(1));
    let result = runner::simulate(
        &sc,
        run.seed,
        planned,
        volume.bytes,
        &dir,
        threads,
        None,
        &mut |_| !stop.load(Ordering::Relaxed),
    );
    let (outcome, mut staged) = match result {
        Ok(x) => x,
        Err(RunError::Interrupted) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let row = table::row(run, &outcome.summary);
    staged.add("run.json", run_json(run));
    staged.add("row.csv", row.into_bytes());
    Ok(Some((staged, headline(&outcome))))
}

/// A run's log note: its wall time and one headline number (a collective
/// job's mean CCT and its ratio to the bound; else the mean FCT when flows
/// completed, else goodput, else the stop reason).
fn headline(o: &runner::Outcome) -> String {
    let f = &o.summary.flows;
    if let Some(c) = crate::report::headline(&o.summary.jobs)
        && let Some(mean) = c.cct_us.mean
    {
        let ratio = c
            .cct_over_bound()
            .map_or("n/a".into(), |r| format!("{r:.3}"));
        let number = format!(
            "mean CCT {} ({ratio} x bound), {} {}",
            crate::report::units::fmt_time_us(mean),
            c.cct_us.count,
            if c.cct_us.count == 1 {
                "completion"
            } else {
                "completions"
            }
        );
        return format!("{:.2} s, {number}", o.perf.wall_seconds);
    }
    let number = match (f.fct_us.mean, f.goodput_gbps) {
        (Some(fct), _) => format!(
            "mean FCT {}, {}/{} flows",
            crate::report::units::fmt_time_us(fct),
            f.completed,
            f.total
        ),
        (None, Some(g)) => format!("goodput {g:.3} Gb/s"),
        (None, None) => o.summary.stop_reason.to_string(),
    };
    format!("{:.2} s, {number}", o.perf.wall_seconds)
}

/// Writes this slice's table from its finished runs, in run order.
pub fn write_table(sweep: &Sweep, out: &Path, shard: Shard) -> std::io::Result<()> {
    let mut text = table::header(sweep.axis_keys());
    for run in shard.runs(&sweep.runs) {
        if let Some(row) = current_row(out, run) {
            text.push_str(&row);
        }
    }
    write_atomic(&out.join(shard.table_name()), text.as_bytes())
}

/// `sweep.json`: the sweep's name, base, axes and every run.
pub fn manifest(sweep: &Sweep) -> Vec<u8> {
    let v = serde_json::json!({
        "name": sweep.name,
        "base": super::fingerprint::relative_to(&sweep.base, sweep.root()),
        "axes": sweep.axis_keys().collect::<Vec<_>>(),
        "cases": sweep.cases(),
        "plots": sweep.plots,
        "runs": sweep.runs,
    });
    serde_json::to_vec_pretty(&v).expect("plain data serialises")
}

/// Locks the sweep folder for this slice: two commands running the same
/// slice into one folder would redo each other's runs.
fn lock(out: &Path, shard: Shard) -> anyhow::Result<crate::report::Lock> {
    let path = out.join(format!(".{}.lock", shard.table_name()));
    crate::report::try_lock(&path)?.ok_or_else(|| {
        anyhow::anyhow!(
            "{} is being written by another dcnsim sweep (it holds {})",
            out.display(),
            path.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_runs_round_robin() {
        let s = Shard::parse("1/3").unwrap();
        let mine: Vec<usize> = (0..10).filter(|&i| s.holds(i)).collect();
        assert_eq!(mine, [1, 4, 7]);
        assert_eq!(s.table_name(), "sweep.shard-1-of-3.csv");
        assert_eq!(Shard::ALL.table_name(), "sweep.csv");
        for bad in ["3/3", "1", "a/2", "0/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
