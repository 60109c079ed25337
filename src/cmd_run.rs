//! `dcnsim run`: one run, in this process or as one rank of an MPI job
//! (the `mpi` feature): rank 0 reads, checks the output folder and
//! writes; the other ranks load the same scenario quietly, run their LPs
//! and hand their rows to rank 0 (docs/architecture.md, "Across
//! machines").

use crate::{Checked, load_checked_as, on_stop_signal, plot_after};
use anyhow::{Context, Result};
use dcnsim::runner;
use std::path::PathBuf;

/// The error of a rank other than 0 where the ranks stop together: rank
/// 0 reports it, this rank ends quietly, with MPI finalised (a rank that
/// exits without finalising makes the launcher abort the job, rank 0's
/// report with it).
#[derive(Debug)]
pub(crate) struct QuietRank;

impl std::fmt::Display for QuietRank {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("stopped with rank 0, which says why")
    }
}

impl std::error::Error for QuietRank {}

/// Across MPI ranks, whether every rank got here: an error of any rank
/// stops them all, reported once, by rank 0 (naming the rank); a rank
/// other than 0 leaves quietly. Alone, `mine` as it is.
fn agree_or_bail<T>(ranked: &Ranked, mine: Result<T, &anyhow::Error>) -> Result<()> {
    let Some(peers) = ranked else {
        return mine.map(|_| ()).map_err(|e| anyhow::anyhow!("{e:#}"));
    };
    let mine = mine.map(|_| ()).map_err(|e| format!("{e:#}"));
    match dcnsim::world::agree(&**peers, mine) {
        Ok(()) => Ok(()),
        Err(_) if peers.rank() != 0 => Err(anyhow::Error::new(QuietRank)),
        Err(all) => Err(anyhow::Error::msg(all)),
    }
}

/// The threads a run uses: `--threads`, else `simulation.threads`, else
/// every core.
fn threads_for(threads: Option<u16>, sc: &dcnsim::scenario::Scenario) -> dcnsim::world::Threads {
    let threads = threads.map(usize::from).or(sc.simulation.threads);
    let cores = || std::thread::available_parallelism().map_or(1, |n| n.get());
    dcnsim::world::Threads(threads.unwrap_or_else(cores))
}

/// A rank other than 0 of a run across MPI ranks: it loads the scenario
/// as rank 0 does, runs its share of the LPs, hands its rows to rank 0
/// and writes nothing.
#[cfg(feature = "mpi")]
fn serve_rank(
    path: &std::path::Path,
    seed: Option<u64>,
    set: &[String],
    max_memory: Option<u64>,
    threads: Option<u16>,
    peers: &std::rc::Rc<dyn dcnsim::world::Peers>,
) -> Result<()> {
    let ranked: Ranked = Some(std::rc::Rc::clone(peers));
    let rank = Some((peers.rank(), peers.size()));
    let checked = load_checked_as(path, set, seed, max_memory, rank);
    agree_or_bail(&ranked, checked.as_ref().map(|_| ()))?;
    let Checked {
        sc, seed, planned, ..
    } = checked?;
    let stop = on_stop_signal("")?;
    let threads = threads_for(threads, &sc);
    let served = runner::serve(
        &sc,
        seed,
        planned,
        threads,
        std::rc::Rc::clone(peers),
        &mut |_| !stop.load(std::sync::atomic::Ordering::Relaxed),
    );
    match served {
        Ok(()) | Err(runner::RunError::Interrupted) => Ok(()),
        // Rank 0 reports the run's error, once.
        Err(_) => Err(anyhow::Error::new(QuietRank)),
    }
}

/// The other ranks of this run, when it is one of several MPI processes
/// (built with the `mpi` feature; without it such a run is refused).
type Ranked = Option<std::rc::Rc<dyn dcnsim::world::Peers>>;

/// Joins the MPI job this process was started in, if it was started as
/// one of several processes.
fn join_ranks() -> Result<Ranked> {
    let several = dcnsim::launch::several_processes(|v| std::env::var(v).ok());
    #[cfg(feature = "mpi")]
    {
        if several.is_none() {
            return Ok(None);
        }
        let ranks = dcnsim::ranks::MpiRanks::join()
            .context("cannot join the MPI job: MPI was started already")?;
        Ok(Some(std::rc::Rc::new(ranks)))
    }
    #[cfg(not(feature = "mpi"))]
    {
        dcnsim::launch::refuse(several).map_err(anyhow::Error::msg)?;
        Ok(None)
    }
}

/// The scenario loaded and checked, and the output folder it writes,
/// checked as a place dcnsim may write a run.
fn prepare(
    path: &std::path::Path,
    out: Option<PathBuf>,
    set: &[String],
    seed: Option<u64>,
    max_memory: Option<u64>,
    rank: Option<(usize, usize)>,
) -> Result<(Checked, PathBuf)> {
    let checked = load_checked_as(path, set, seed, max_memory, rank)?;
    let dir = out
        .or_else(|| checked.sc.output.dir.as_ref().map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("results").join(&checked.sc.name));
    use dcnsim::report::claim;
    claim::check_target(&dir, claim::FolderKind::Run)?;
    claim::check_not_inside(&dir, claim::FolderKind::Run)?;
    let inputs: Vec<PathBuf> = (checked.sc.inputs.iter())
        .map(|f| PathBuf::from(&f.path))
        .collect();
    claim::check_holds_no_input(&dir, &inputs)?;
    Ok((checked, dir))
}

/// `dcnsim run`: the scenario at `path` into its output folder, in this
/// process or, started by an MPI launcher, as rank 0 or another rank.
pub(crate) fn run_one(
    path: PathBuf,
    out: Option<PathBuf>,
    seed: Option<u64>,
    set: &[String],
    max_memory: Option<u64>,
    no_plots: bool,
    threads: Option<u16>,
) -> Result<()> {
    let ranked = join_ranks()?;
    #[cfg(feature = "mpi")]
    if let Some(peers) = &ranked
        && peers.rank() != 0
    {
        return serve_rank(&path, seed, set, max_memory, threads, peers);
    }
    let rank = ranked.as_ref().map(|p| (p.rank(), p.size()));
    let prepared = prepare(&path, out, set, seed, max_memory, rank);
    agree_or_bail(&ranked, prepared.as_ref().map(|_| ()))?;
    let (
        Checked {
            sc,
            seed,
            planned,
            volume,
            ..
        },
        dir,
    ) = prepared?;
    let stop = on_stop_signal("stopping: the run is dropped and nothing of it is kept")?;
    let mut progress = dcnsim::progress::SimProgress::new(sc.simulation.stop_time);
    let threads = threads_for(threads, &sc);
    let peers = ranked.clone();
    let simulated = runner::simulate(
        &sc,
        seed,
        planned,
        volume.bytes,
        &dir,
        threads,
        peers,
        &mut |t| {
            progress.update(t);
            !stop.load(std::sync::atomic::Ordering::Relaxed)
        },
    );
    let (outcome, staged) = match simulated {
        Err(runner::RunError::Interrupted) => {
            progress.finish();
            eprintln!(
                "interrupted: nothing of this run was written; {} is as it was",
                dir.display()
            );
            std::process::exit(130);
        }
        other => other.with_context(|| format!("{}", path.display()))?,
    };
    progress.finish();
    if stop.load(std::sync::atomic::Ordering::Relaxed) {
        // The signal came after the last progress call: the run is
        // dropped as the terminal said, not written.
        drop(staged);
        eprintln!(
            "interrupted: nothing of this run was written; {} is as it was",
            dir.display()
        );
        std::process::exit(130);
    }
    staged.commit()?;
    let runner::Outcome {
        summary,
        perf,
        stop,
        unfinished_flows,
        now,
        pfc_stall,
        livelock,
    } = outcome;
    let wall = perf.wall_seconds;
    say!("{}", summary.human());
    say!(
        "  wall              {:.3} s ({:.2} M events/s, {:.2} M packet hops/s), peak RSS {}",
        wall,
        perf.events_per_second / 1e6,
        perf.packet_hops_per_second / 1e6,
        perf.peak_rss_bytes
            .map_or("n/a".into(), dcnsim::memory::human)
    );
    say!("  results           {}", dir.display());
    if !no_plots {
        plot_after(&dir);
    }
    use dcnsim::world::StopReason;
    match stop {
        StopReason::EventLimit => {
            eprintln!("warning: the run hit simulation.max_events; results are partial")
        }
        StopReason::Stalled => match (livelock, pfc_stall) {
            (Some(why), _) => eprintln!(
                "warning: the run stalled: {} of {} flows unfinished: {why}",
                unfinished_flows, summary.flows.total
            ),
            (None, Some(why)) => eprintln!(
                "warning: the run stalled: {} of {} flows unfinished and no event left that \
                 could make progress; {why} (pfc.csv has each port's pauses)",
                unfinished_flows, summary.flows.total
            ),
            (None, None) => eprintln!(
                "warning: the run stalled: {} of {} flows unfinished and no event left that \
                 could make progress (is a buffer or nic_buffer smaller than one packet?)",
                unfinished_flows, summary.flows.total
            ),
        },
        StopReason::TimeOverflow => {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let (longest, slowest) = dcnsim::scenario::extremes::extremes(&text, set);
            let named: Vec<String> = [
                longest.map(|k| format!("the longest duration is {k}")),
                slowest.map(|k| format!("the slowest rate is {k}")),
            ]
            .into_iter()
            .flatten()
            .collect();
            anyhow::bail!(
                "{}: an event would land past the end of representable simulated time \
                 (2^64 ps, about 213 days) at {:.3} s: a rate or delay is extreme ({}); the \
                 results written are those up to that point",
                path.display(),
                now.ps() as f64 / 1e12,
                if named.is_empty() {
                    "e.g. a 1 bps link".to_string()
                } else {
                    named.join(", ")
                }
            )
        }
        StopReason::Completed | StopReason::StopTime | StopReason::Interrupted => {}
    }
    Ok(())
}
