//! One run, from a loaded scenario to its result folder: what `dcnsim run`
//! does, and what each run of a sweep does on a worker thread.
//!
//! A run simulates into a staging folder ([`RunFolder`]) and returns its
//! results with the staged files ([`Staged`]); committing moves the folder
//! into place whole. A sweep's workers simulate and its writer thread
//! commits, so the file system is touched by one thread in a fixed order.

use crate::registry::workload::Planned;
use crate::report::{CsvRows, Perf, RunFolder, RunSummary, flows_csv, peak_rss_bytes, ports_csv};
use crate::scenario::Scenario;
use crate::world::{BuildError, Lps, Peers, RunRecord, StopReason, Threads, World, agree};
use sim_core::SimTime;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

/// What a run produced, beside its files.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The simulated results (`summary.json`).
    pub summary: RunSummary,
    /// Wall-clock figures (`perf.json`).
    pub perf: Perf,
    /// Why the run ended.
    pub stop: StopReason,
    /// Flows whose data was not all acknowledged.
    pub unfinished_flows: usize,
    /// Simulated time when the run ended.
    pub now: SimTime,
    /// For a stalled run under PFC: the paused ports and any pause cycle.
    pub pfc_stall: Option<String>,
    /// For a run the livelock watch stopped: where its flows are stuck.
    pub livelock: Option<String>,
}

/// A run's files, written into its staging folder, waiting for [`Staged::commit`].
pub struct Staged {
    folder: RunFolder,
    dir: PathBuf,
    files: Vec<(&'static str, Vec<u8>)>,
}

/// A run that could not be carried out (as opposed to one that ran and
/// reports a stop reason).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The world could not be built.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// A result file could not be written.
    #[error("{what} in {}: {cause}", .dir.display())]
    Io {
        /// What was being done.
        what: String,
        /// The run's output folder.
        dir: PathBuf,
        /// The cause (not a `source`: the message already says it, once).
        cause: std::io::Error,
    },
    /// The run was stopped from outside (its `progress` said stop).
    #[error("interrupted")]
    Interrupted,
    /// `simulation.partition` asked for a cut the scenario does not allow.
    #[error("{0}")]
    Cut(String),
    /// Across MPI ranks: a rank could not take its part (rank 0 has every
    /// rank's error, naming the rank; another rank an empty one).
    #[error("{0}")]
    Ranks(String),
}

fn io(what: impl Into<String>, dir: &Path) -> impl FnOnce(std::io::Error) -> RunError {
    let (what, dir) = (what.into(), dir.to_path_buf());
    move |cause| RunError::Io { what, dir, cause }
}

/// Events between two progress calls: about a tenth of a second of a run.
pub const PROGRESS_EVENTS: u64 = 1 << 20;

/// The sinks of the sampled series `sc` asks for: a CSV file each in the
/// run's staging folder.
fn series_sinks(
    sc: &Scenario,
    world: &World,
    folder: &RunFolder,
    dir: &Path,
) -> Result<crate::world::SeriesSinks, RunError> {
    let create = |name: &str| {
        folder
            .create_file(name)
            .map_err(io(format!("creating {name}"), dir))
    };
    let mut sinks = crate::world::SeriesSinks::default();
    if sc.output.queue_interval.is_some() {
        let names = world.port_names();
        sinks.queues = Some(Box::new(CsvRows::queues(create("queues.csv")?, names)));
    }
    if world.cc_trace_on() {
        sinks.cc = Some(Box::new(CsvRows::cc(create("cc.csv")?)));
    }
    if let Some(interval) = world.goodput_interval() {
        sinks.goodput = Some(Box::new(CsvRows::goodput(create("goodput.csv")?, interval)));
    }
    if sc.output.rtt_interval.is_some() {
        sinks.rtt = Some(Box::new(CsvRows::rtt(create("rtt.csv")?)));
    }
    Ok(sinks)
}

/// The whole-file results of a finished run, by file name.
fn result_files(
    run: &RunRecord,
    summary: &RunSummary,
    perf: &Perf,
) -> Vec<(&'static str, Vec<u8>)> {
    let mut files = vec![
        ("summary.json", json(summary)),
        ("flows.csv", flows_csv(run).into_bytes()),
        ("ports.csv", ports_csv(run).into_bytes()),
        ("perf.json", json(perf)),
    ];
    if run.pfc.is_some() {
        files.push(("pfc.csv", crate::report::pfc_csv(run).into_bytes()));
    }
    if run.links.is_some() {
        files.push(("links.csv", crate::report::links_csv(run).into_bytes()));
    }
    if run.sources.iter().any(|s| s.echo) {
        files.push(("pings.csv", crate::report::pings_csv(run).into_bytes()));
    }
    if !run.collectives.is_empty() {
        let table = crate::report::collectives_csv(run, &summary.collectives);
        files.push(("collectives.csv", table.into_bytes()));
        files.push((
            "transfers.csv",
            crate::report::transfers_csv(run).into_bytes(),
        ));
    }
    if !run.traces.is_empty() {
        files.push((
            "iterations.csv",
            crate::report::iterations_csv(run).into_bytes(),
        ));
        files.push(("nodes.csv", crate::report::nodes_csv(run).into_bytes()));
    }
    if run.workloads.iter().any(|w| w.rounds > 0) {
        files.push(("rounds.csv", crate::report::rounds_csv(run).into_bytes()));
    }
    files
}

/// Runs `sc` under `seed` with its workloads already `planned`, into a
/// staging folder for `dir` (locked from now on: a second run into `dir`
/// is refused). `progress` is called with the simulated time every
/// [`PROGRESS_EVENTS`] events; when it returns false the run stops and
/// nothing of it is kept. `output_bytes` is the run's output estimate
/// (`report::volume::Volume::bytes`), checked against the free space of
/// the staging folder's disk before anything is built.
#[allow(clippy::too_many_arguments)]
pub fn simulate(
    sc: &Scenario,
    seed: u64,
    planned: Vec<Planned>,
    output_bytes: u64,
    dir: &Path,
    threads: Threads,
    peers: Option<Rc<dyn Peers>>,
    progress: &mut dyn FnMut(SimTime) -> bool,
) -> Result<(Outcome, Staged), RunError> {
    let partition = crate::world::partition_for(sc, &planned).map_err(RunError::Cut)?;
    if let Some(p) = &peers {
        cut_for_ranks(&partition, &**p)?;
    }
    let folder = (RunFolder::create(dir).map_err(io("cannot write results", dir))).and_then(|f| {
        check_free_space(f.staging(), output_bytes).map_err(io("before the run", dir))?;
        Ok(f)
    });
    let lps = partition.lps;
    let (world, stop, wall, windows, folder) = if lps > 1 {
        let cut = Cut {
            partition,
            threads,
            peers,
        };
        let (world, stop, wall, windows, folder) =
            run_cut(sc, seed, &planned, cut, folder, dir, progress)?;
        (world, stop, wall, Some(windows), folder)
    } else {
        let folder = folder?;
        let (world, stop, wall) = run_whole(sc, seed, planned, &folder, dir, progress)?;
        (world, stop, wall, None, folder)
    };
    if stop == StopReason::Interrupted {
        return Err(RunError::Interrupted);
    }
    let run = world.run_record();
    let mut summary = RunSummary::of(&run, &sc.name, seed, stop);
    if sc.output.max_min {
        summary.max_min = crate::max_min::of_run(&world, &run);
    }
    let perf = Perf {
        threads: threads.0.min(lps as usize) as u32,
        lps,
        wall_seconds: wall,
        events_per_second: summary.events as f64 / wall.max(1e-9),
        packet_hops_per_second: summary.packet_hops as f64 / wall.max(1e-9),
        peak_rss_bytes: peak_rss_bytes(),
        windows,
    };
    let files = result_files(&run, &summary, &perf);
    let outcome = Outcome {
        summary,
        perf,
        stop,
        unfinished_flows: world.unfinished_flows(),
        now: world.now(),
        livelock: world.stall_detail().map(str::to_string),
        pfc_stall: (stop == StopReason::Stalled)
            .then(|| crate::report::pfc_stall(&run))
            .flatten(),
    };
    let staged = Staged {
        folder,
        dir: dir.to_path_buf(),
        files,
    };
    Ok((outcome, staged))
}

/// How a run is cut: its LPs, the threads that run them, and the other
/// MPI ranks, in a run across processes.
struct Cut {
    partition: net::Partition,
    threads: Threads,
    peers: Option<Rc<dyn Peers>>,
}

/// Runs `sc` cut into LPs (this process's share, across ranks) with its
/// sampled series streamed into `folder` (LP 0's copy keeps them,
/// parallel/due.rs): the merged world, why it stopped, the event loop's
/// wall time, how the windows went, and the folder. Across ranks, the
/// folder's and every rank's build are agreed on first.
fn run_cut(
    sc: &Scenario,
    seed: u64,
    planned: &[Planned],
    cut: Cut,
    folder: Result<RunFolder, RunError>,
    dir: &Path,
    progress: &mut dyn FnMut(SimTime) -> bool,
) -> Result<(World, StopReason, f64, crate::world::WindowStats, RunFolder), RunError> {
    let threads = cut.threads;
    let (folder, mut lps) = build_agreed(folder, sc, seed, planned, cut)?;
    let sinks = series_sinks(sc, lps.first_mut(), &folder, dir)?;
    lps.first_mut().stream_series_to(sinks);
    let t0 = Instant::now();
    let (mut world, stop, windows) = (lps.run_ranked(threads, PROGRESS_EVENTS, progress))
        .expect("rank 0 merges every rank's LPs");
    let wall = t0.elapsed().as_secs_f64();
    if stop != StopReason::Interrupted {
        world
            .finish_series()
            .map_err(io("writing a sampled series", dir))?;
    }
    Ok((world, stop, wall, windows, folder))
}

/// A rank other than 0 of a run across MPI ranks: builds and runs its
/// share of `sc`'s LPs, and hands their rows to rank 0, which writes
/// everything ([`simulate`] there). An error this rank meets is rank 0's
/// to report.
pub fn serve(
    sc: &Scenario,
    seed: u64,
    planned: Vec<Planned>,
    threads: Threads,
    peers: Rc<dyn Peers>,
    progress: &mut dyn FnMut(SimTime) -> bool,
) -> Result<(), RunError> {
    let partition = crate::world::partition_for(sc, &planned).map_err(RunError::Cut)?;
    cut_for_ranks(&partition, &*peers)?;
    let cut = Cut {
        partition,
        threads,
        peers: Some(peers),
    };
    let ((), lps) = build_agreed(Ok(()), sc, seed, &planned, cut)?;
    let ran = lps.run_ranked(threads, PROGRESS_EVENTS, progress);
    debug_assert!(ran.is_none(), "rank 0 alone merges");
    Ok(())
}

/// Builds this process's LPs of `cut` once what came before, `ready`,
/// went well here; across ranks, every rank's `ready` and build are
/// agreed on, so that an error on any rank stops them all (rank 0 says
/// it, naming the rank).
fn build_agreed<T>(
    ready: Result<T, RunError>,
    sc: &Scenario,
    seed: u64,
    planned: &[Planned],
    cut: Cut,
) -> Result<(T, Lps), RunError> {
    let Cut {
        partition,
        threads,
        peers,
    } = cut;
    let built = ready.and_then(|r| {
        let lps = Lps::build_ranked(sc, seed, planned, partition, threads, peers.clone())?;
        Ok((r, lps))
    });
    if let Some(p) = &peers {
        let mine = built.as_ref().map(|_| ()).map_err(|e| e.to_string());
        agree(&**p, mine).map_err(RunError::Ranks)?;
    }
    built
}

/// Refuses a run across MPI ranks that would not be cut: its ranks hold
/// whole LPs.
fn cut_for_ranks(partition: &net::Partition, peers: &dyn Peers) -> Result<(), RunError> {
    if partition.lps > 1 {
        return Ok(());
    }
    Err(RunError::Ranks(format!(
        "a run across {} MPI ranks spreads the LPs a fabric is cut into, but this scenario \
         runs as one LP: cut it (simulation.partition = \"pods\", simulation.lps of at least \
         the ranks)",
        peers.size()
    )))
}

/// Runs `sc` as one LP, with its sampled series streamed into `folder`
/// and its captures attached; the world, why it stopped, and the event
/// loop's wall time.
fn run_whole(
    sc: &Scenario,
    seed: u64,
    planned: Vec<Planned>,
    folder: &RunFolder,
    dir: &Path,
    progress: &mut dyn FnMut(SimTime) -> bool,
) -> Result<(World, StopReason, f64), RunError> {
    let mut world = World::build_planned(sc, seed, planned)?;
    // The series that grow with the run go to disk as they are taken.
    let sinks = series_sinks(sc, &world, folder, dir)?;
    world.stream_series_to(sinks);
    crate::observe::attach(&mut world, &sc.output, &mut |name| folder.create_file(name))
        .map_err(io("creating a capture or the event log", dir))?;
    let t0 = Instant::now();
    let stop = world.run_with_progress(PROGRESS_EVENTS, progress);
    let wall = t0.elapsed().as_secs_f64();
    if stop != StopReason::Interrupted {
        world
            .finish_series()
            .map_err(io("writing a sampled series", dir))?;
        crate::observe::finish(&mut world)
            .map_err(io("writing a capture or the event log", dir))?;
    }
    Ok((world, stop, wall))
}

/// Refuses a run whose files would not fit on the disk that holds its
/// staging folder (with a margin: the estimate is rough).
fn check_free_space(staging: &Path, bytes: u64) -> std::io::Result<()> {
    let Some(free) = free_bytes(staging) else {
        return Ok(()); // unknown here: the writes themselves will tell
    };
    let needed = bytes.saturating_add(bytes / 4);
    if needed > free {
        return Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            format!(
                "its files would take about {} and the disk has {} free: free some space or \
                 write elsewhere (nothing was simulated)",
                crate::memory::human(needed),
                crate::memory::human(free)
            ),
        ));
    }
    Ok(())
}

/// Bytes an unprivileged writer may still use on the file system of `path`.
#[cfg(unix)]
fn free_bytes(path: &Path) -> Option<u64> {
    let s = rustix::fs::statvfs(path).ok()?;
    Some(s.f_bavail.saturating_mul(s.f_frsize))
}

#[cfg(not(unix))]
fn free_bytes(_path: &Path) -> Option<u64> {
    None
}

impl Staged {
    /// Writes the run's files and moves its folder into place whole.
    pub fn commit(self) -> Result<(), RunError> {
        for (name, bytes) in &self.files {
            self.folder
                .write(name, bytes)
                .map_err(io(format!("writing {name}"), &self.dir))?;
        }
        self.folder
            .commit()
            .map_err(io("moving the results into place", &self.dir))
    }

    /// Adds a file to write with the others.
    pub fn add(&mut self, name: &'static str, bytes: Vec<u8>) {
        self.files.push((name, bytes));
    }

    /// The run's output folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Pretty JSON of plain data (string keys, no maps with other keys).
fn json<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec_pretty(v).expect("plain data serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_run_larger_than_the_free_space_is_refused_before_it_runs() {
        let dir = std::env::temp_dir();
        assert!(check_free_space(&dir, 1 << 20).is_ok());
        let e = check_free_space(&dir, u64::MAX / 2).expect_err("no disk is that large");
        assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
        assert!(e.to_string().contains("nothing was simulated"), "{e}");
    }
}
