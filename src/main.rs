//! The `dcnsim` command line.

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use dcnsim::memory::{Estimate, Limit, human};
use dcnsim::registry::workload::{Planned, plan_all};

use dcnsim::scenario::{Scenario, load};
use std::path::{Path, PathBuf};

/// Writes a line to stdout. A reader that went away (`dcnsim list | head`)
/// ends the program quietly, as Unix tools do, instead of a panic: by then
/// every result is already on disk. Any other write error is reported.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*))
    };
}

mod cmd_run;

fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    if let Err(e) = writeln!(std::io::stdout().lock(), "{args}") {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// dcnsim: a discrete-event, packet-level simulator of datacenter networks.
#[derive(Parser)]
#[command(version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one scenario and write its results.
    Run {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Output folder (default: the scenario's [output] dir, else results/<name>).
        #[arg(long, value_parser = out_path)]
        out: Option<PathBuf>,
        /// Seed, overriding [simulation] seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Override a scenario key before validation (repeatable), e.g.
        /// `--set switch.aqm.k=40pkt --set workload[0].size=2MB`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Refuse a run whose memory estimate is above this, e.g. `4GB`
        /// (default: 3/4 of this machine's memory).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_memory: Option<u64>,
        /// Do not draw the run's figures into OUT/plots/.
        #[arg(long)]
        no_plots: bool,
        /// Threads for the run, overriding [simulation] threads (default:
        /// every core). The results are the same bytes at any count.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
        threads: Option<u16>,
    },
    /// Check a scenario (with any overrides) without running it.
    Validate {
        /// The scenario file (TOML).
        scenario: PathBuf,
        /// Override a scenario key before validation (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// The memory limit to check the estimate against, e.g. `4GB`
        /// (default: 3/4 of this machine's memory).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_memory: Option<u64>,
        /// Also estimate the memory of each of N processes of a run
        /// spread over N MPI ranks (`mpirun -np N`): each holds whole LPs
        /// (docs/architecture.md, "Across machines").
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65536))]
        np: Option<u32>,
    },
    /// Run a sweep: a base scenario over named cases x a grid of keys x
    /// seeds (docs/sweeps.md). Rerunning the same command resumes it.
    Sweep {
        /// The sweep file (TOML with a [sweep] table).
        file: PathBuf,
        /// Runs simulated at once (default: the machine's cores).
        #[arg(short = 'j', long = "jobs")]
        jobs: Option<usize>,
        /// Output folder (default: results/<sweep name>).
        #[arg(long, value_parser = out_path)]
        out: Option<PathBuf>,
        /// Run only slice I of N (runs I, I+N, I+2N, ...), for job arrays.
        #[arg(long, value_name = "I/N", value_parser = dcnsim::sweep::Shard::parse)]
        shard: Option<dcnsim::sweep::Shard>,
        /// List the runs (and check every run's scenario) without running.
        #[arg(long)]
        dry_run: bool,
        /// Memory for the whole sweep, e.g. `16GB`; each of the -j runs
        /// may use 1/j of it (default: 3/4 of this machine's memory).
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_memory: Option<u64>,
        /// Do not draw the sweep's figures into OUT/plots/ (a shard never
        /// does: plot after merging).
        #[arg(long)]
        no_plots: bool,
    },
    /// Reproduce a paper: run the experiments its reproduce.toml lists (a
    /// sweep each, resumable) and write report.md, paper against dcnsim,
    /// claim by claim (docs/reproductions/).
    Reproduce {
        /// A folder holding reproduce.toml (e.g. scenarios/abq), or the file.
        dir: PathBuf,
        /// Run the scaled experiments (minutes on 2 cores) instead of the
        /// papers' sizes.
        #[arg(long)]
        quick: bool,
        /// Runs simulated at once (default: the machine's cores).
        #[arg(short = 'j', long = "jobs")]
        jobs: Option<usize>,
        /// Output folder (default: results/reproduce-<paper>[-quick]).
        #[arg(long, value_parser = out_path)]
        out: Option<PathBuf>,
        /// Run only this experiment (every claim is still reported).
        #[arg(long, value_name = "ID")]
        only: Option<String>,
        /// Memory for each experiment's sweep, e.g. `16GB`.
        #[arg(long, value_name = "SIZE", value_parser = parse_size)]
        max_memory: Option<u64>,
        /// Do not draw figures.
        #[arg(long)]
        no_plots: bool,
        /// Another reproduction folder of the same paper (e.g. the --quick
        /// run's): the report lists the claims whose verdicts differ from it.
        #[arg(long, value_name = "DIR")]
        against: Option<PathBuf>,
    },
    /// Join the folders of a sweep's shards into one with a single sweep.csv.
    Merge {
        /// The shards' output folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The merged folder (may be one of the shards' folders).
        #[arg(long, value_parser = out_path)]
        out: PathBuf,
        /// Do not draw the sweep's figures into OUT/plots/.
        #[arg(long)]
        no_plots: bool,
    },
    /// Draw the figures of run or sweep folders into DIR/plots/ (PNG and SVG).
    Plot {
        /// Folders written by `dcnsim run`, `sweep` or `merge`.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Which files: png, svg or both.
        #[arg(long, default_value = "both", value_parser = parse_formats)]
        format: dcnsim::plot::Formats,
    },
    /// List every plugin kind with its keys, defaults, units and paper section.
    List {
        /// Only this family: topology, scheduler, aqm, ingress, transport, cc,
        /// workload; or `outputs`: every output file's columns and the
        /// summary's keys.
        family: Option<String>,
    },
}

/// A `--format` value.
fn parse_formats(text: &str) -> Result<dcnsim::plot::Formats, String> {
    let (png, svg) = match text {
        "png" => (true, false),
        "svg" => (false, true),
        "both" => (true, true),
        _ => return Err(format!("'{text}' is not a format: choose png, svg or both")),
    };
    Ok(dcnsim::plot::Formats { png, svg })
}

/// Draws a result folder's figures after `run`, `sweep` or `merge`: a
/// failure is reported, but the results are already written and stand.
fn plot_after(dir: &Path) {
    match dcnsim::plot::plot_dir(dir, dcnsim::plot::Formats::BOTH) {
        Ok(files) => {
            let figures = files
                .iter()
                .filter(|f| f.extension().is_some_and(|e| e == "png"))
                .count();
            let noun = if figures == 1 { "figure" } else { "figures" };
            if figures == 0 {
                say!("  plots             none (no flow or sample to draw)");
            } else {
                say!(
                    "  plots             {figures} {noun} in {}",
                    dir.join("plots").display()
                );
            }
        }
        Err(e) => {
            eprintln!("warning: the results are written, but drawing their figures failed: {e}")
        }
    }
}

/// An `--out` path as the folder it names: `link/` is the link itself, not
/// the folder it points to (so a symbolic link is refused before anything
/// runs), and `.` parts are dropped.
fn out_path(text: &str) -> Result<PathBuf, String> {
    let p: PathBuf = Path::new(text).components().collect();
    if p.as_os_str().is_empty() {
        return Err("an output folder needs a name".into());
    }
    Ok(p)
}

/// A `--max-memory` value: a size with a unit, as in scenario files.
fn parse_size(text: &str) -> Result<u64, String> {
    sim_core::Bytes::parse(text)
        .map(|b| b.0)
        .map_err(|e| e.to_string())
}

/// A loaded scenario, its workloads planned for the run's seed, and the
/// memory estimate of that run, checked against the limit.
struct Checked {
    sc: Scenario,
    seed: u64,
    planned: Vec<Planned>,
    estimate: Estimate,
    /// What the run will write, checked against the sample limit.
    volume: dcnsim::report::volume::Volume,
}

/// Loads a scenario, plans its workloads once for `seed` (else the
/// scenario's), and checks the run's memory estimate against the limit.
fn load_checked(
    path: &Path,
    set: &[String],
    seed: Option<u64>,
    max_memory: Option<u64>,
) -> Result<Checked> {
    load_checked_as(path, set, seed, max_memory, None)
}

/// [`load_checked`] as rank `rank` of `ranks` MPI processes, where
/// `rank` is given: only rank 0 prints the warnings, and the memory limit
/// holds each rank's own share (`Estimate::per_rank`).
fn load_checked_as(
    path: &Path,
    set: &[String],
    seed: Option<u64>,
    max_memory: Option<u64>,
    rank: Option<(usize, usize)>,
) -> Result<Checked> {
    let sc = load(path, set)?;
    if rank.is_none_or(|(r, _)| r == 0) {
        for w in &sc.warnings {
            eprintln!("warning: {w}");
        }
    }
    let seed = seed.unwrap_or(sc.simulation.seed);
    let limit = Limit::new(max_memory);
    // Refused before anything is planned where the workloads' own counts
    // already pass the limit, then on the plans.
    Estimate::before_planning(&sc)
        .check(limit)
        .with_context(|| format!("{}", path.display()))?;
    let planned = plan_all(&sc, seed);
    let estimate = match rank {
        None => Estimate::of(&sc, &planned),
        Some((r, ranks)) => {
            let mut all = Estimate::per_rank(&sc, &planned, ranks as u32)
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
            all.swap_remove(r).1
        }
    };
    let estimate = estimate
        .check(limit)
        .with_context(|| format!("{}", path.display()))?;
    // The cut is checked here, so that `validate` refuses what `run` would.
    dcnsim::world::partition_for(&sc, &planned)
        .map_err(|why| anyhow::anyhow!("{}: {why}", path.display()))?;
    let volume = dcnsim::report::volume::Volume::of(&sc, &planned)
        .check()
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    Ok(Checked {
        sc,
        seed,
        planned,
        estimate,
        volume,
    })
}

fn main() {
    match run() {
        Ok(()) => {}
        Err(e) if e.is::<cmd_run::QuietRank>() => {}
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(1);
        }
    }
}

fn run() -> Result<()> {
    match Cli::parse().command {
        Command::Run {
            scenario,
            out,
            seed,
            set,
            max_memory,
            no_plots,
            threads,
        } => cmd_run::run_one(scenario, out, seed, &set, max_memory, no_plots, threads),
        Command::Validate {
            scenario,
            set,
            max_memory,
            np,
        } => validate(&scenario, &set, max_memory, np),
        Command::Sweep {
            file,
            jobs,
            out,
            shard,
            dry_run,
            max_memory,
            no_plots,
        } => sweep(&file, jobs, out, shard, dry_run, max_memory, no_plots),
        Command::Reproduce {
            dir,
            quick,
            jobs,
            out,
            only,
            max_memory,
            no_plots,
            against,
        } => {
            let r = dcnsim::reproduce::Reproduction::read(&dir)?;
            let out = out.unwrap_or_else(|| reproduction_folder(&r, quick));
            let opts = dcnsim::reproduce::Options {
                quick,
                jobs: jobs
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
                out,
                only,
                max_memory,
                no_plots,
                against,
            };
            reproduce(&r, &opts)
        }
        Command::Merge {
            dirs,
            out,
            no_plots,
        } => merge(&dirs, &out, no_plots),
        Command::Plot { dirs, format } => {
            for dir in &dirs {
                let files = dcnsim::plot::plot_dir(dir, format)?;
                say!(
                    "{}: {} files in {}",
                    dir.display(),
                    files.len(),
                    dir.join("plots").display()
                );
            }
            Ok(())
        }
        Command::List { family } => list(family),
    }
}

/// `dcnsim validate`: load and check, and say what the run would be.
fn validate(
    scenario: &Path,
    set: &[String],
    max_memory: Option<u64>,
    np: Option<u32>,
) -> Result<()> {
    let Checked {
        sc,
        estimate,
        planned,
        ..
    } = load_checked(scenario, set, None, max_memory)?;
    let per_rank = np
        .map(|n| Estimate::per_rank(&sc, &planned, n))
        .transpose()
        .map_err(|why| anyhow::anyhow!("{}: --np: {why}", scenario.display()))?;
    say!(
        "{}: ok ({} hosts, {} switches, {} workloads, {} flows, about {} of memory)",
        scenario.display(),
        sc.topology.spec.size.hosts,
        sc.topology.spec.size.switches,
        sc.workloads.len(),
        estimate.flows,
        human(estimate.total()),
    );
    for (rank, (lps, e)) in per_rank.iter().flatten().enumerate() {
        let largest = (e.parts.iter().take(2))
            .map(|p| format!("{} {}", p.what, human(p.bytes)))
            .collect::<Vec<_>>()
            .join(", ");
        let lps = match lps.len() {
            1 => format!("LP {}", lps.start),
            _ => format!("LPs {}-{}", lps.start, lps.end - 1),
        };
        say!(
            "  rank {rank} of {}: about {} ({lps}; {largest})",
            per_rank.as_ref().map_or(0, Vec::len),
            human(e.total()),
        );
    }
    Ok(())
}

/// A reproduction's default folder: `results/reproduce-<paper>[-quick]`.
fn reproduction_folder(r: &dcnsim::reproduce::Reproduction, quick: bool) -> PathBuf {
    let name: String = r
        .paper
        .name
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    PathBuf::from("results").join(format!(
        "reproduce-{name}{}",
        if quick { "-quick" } else { "" }
    ))
}

/// `dcnsim reproduce`: run a paper's sweeps and write its report; exits
/// 130 when interrupted (rerun to resume), fails when a run failed.
fn reproduce(r: &dcnsim::reproduce::Reproduction, opts: &dcnsim::reproduce::Options) -> Result<()> {
    let stop = on_stop_signal(
        "stopping: runs in progress are dropped, finished ones are kept; rerun the same \
         command to resume",
    )?;
    let done = dcnsim::reproduce::run(r, opts, stop)?;
    say!(
        "reproduction {}: {}; report {}",
        r.paper.name,
        done.tally.text(),
        done.report.display()
    );
    if done.interrupted {
        eprintln!("interrupted: rerun the same command to resume");
        std::process::exit(130);
    }
    if !done.failed.is_empty() {
        for (run, why) in &done.failed {
            eprintln!("run {run} failed: {why}");
        }
        anyhow::bail!("{} runs failed", done.failed.len());
    }
    Ok(())
}

/// `dcnsim merge`: the shards' runs into one sweep folder.
fn merge(dirs: &[PathBuf], out: &Path, no_plots: bool) -> Result<()> {
    let m = dcnsim::sweep::merge::merge(dirs, out)?;
    say!(
        "merged {} runs into {} ({} run folders copied)",
        m.runs,
        out.join("sweep.csv").display(),
        m.copied
    );
    if !no_plots {
        plot_after(out);
    }
    Ok(())
}

/// `dcnsim list [FAMILY]`: a registry's rows, or the output columns.
fn list(family: Option<String>) -> Result<()> {
    if family.as_deref() == Some("outputs") {
        say!(
            "{}",
            dcnsim::report::columns::render_outputs().trim_end_matches('\n')
        );
        return Ok(());
    }
    let text = dcnsim::registry::render_list(family.as_deref()).ok_or_else(|| {
        anyhow::anyhow!(
            "no family '{}': families are {} (and `outputs`: the output files' columns)",
            family.unwrap_or_default(),
            dcnsim::registry::family_names()
        )
    })?;
    say!("{}", text.trim_end_matches('\n'));
    Ok(())
}

fn sweep(
    file: &Path,
    jobs: Option<usize>,
    out: Option<PathBuf>,
    shard: Option<dcnsim::sweep::Shard>,
    dry_run: bool,
    max_memory: Option<u64>,
    no_plots: bool,
) -> Result<()> {
    use dcnsim::sweep::{Options, Shard, Sweep, exec};
    let mut sweep = Sweep::read(file)?;
    for w in sweep.check()? {
        eprintln!("warning: {w}");
    }
    let shard = shard.unwrap_or(Shard::ALL);
    let out = out.unwrap_or_else(|| PathBuf::from("results").join(&sweep.name));
    if dry_run {
        use std::io::Write as _;
        let keys: Vec<&str> = sweep.axis_keys().collect();
        let mut listing = String::new();
        use std::fmt::Write as _;
        writeln!(
            listing,
            "sweep {}: {} runs of {} (cases {}; axes {}; shard {}/{})",
            sweep.name,
            sweep.runs.len(),
            sweep.base.display(),
            if sweep.cases().is_empty() {
                "none".into()
            } else {
                sweep.cases().join(", ")
            },
            if keys.is_empty() {
                "none".into()
            } else {
                keys.join(", ")
            },
            shard.index,
            shard.count
        )?;
        for run in shard.runs(&sweep.runs) {
            let done = exec::current_row(&out, run).is_some();
            writeln!(
                listing,
                "  {}  {}{}",
                run.id,
                sweep.describe(run),
                if done { "  (done)" } else { "" }
            )?;
        }
        // A reader that stops early (`| head`) is not an error.
        let _ = std::io::stdout().write_all(listing.as_bytes());
        return Ok(());
    }
    dcnsim::report::claim::check_holds_no_input(&out, &sweep.input_paths())?;
    dcnsim::report::claim::check_not_inside(&out, dcnsim::report::FolderKind::Sweep)?;
    let stop = on_stop_signal(
        "stopping: runs in progress are dropped, finished ones are kept and listed in the \
         sweep's table; rerun the same command to resume",
    )?;
    let jobs = jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let opts = Options {
        jobs,
        out: out.clone(),
        shard,
        max_memory,
    };
    let report = exec::execute(&sweep, &opts, stop)?;
    let finished = report.already_done + report.ran;
    say!(
        "sweep {}: {finished} of {} runs finished ({} now, {} before), {} failed; table {}",
        sweep.name,
        report.selected,
        report.ran,
        report.already_done,
        report.failed.len(),
        out.join(shard.table_name()).display()
    );
    if !report.failed.is_empty() {
        // Each failure was printed with its reason as it happened.
        let ids: Vec<&str> = report.failed.iter().map(|(id, _)| id.as_str()).collect();
        eprintln!("failed runs: {} (the reasons are above)", ids.join(", "));
    }
    if report.interrupted {
        eprintln!(
            "interrupted: {finished} finished runs are kept in {} and its table; rerun the same \
             command to run the {} runs left",
            out.display(),
            report.selected - finished
        );
        std::process::exit(130);
    }
    if !report.failed.is_empty() {
        anyhow::bail!("{} runs failed", report.failed.len());
    }
    if !no_plots && shard == Shard::ALL {
        plot_after(&out);
    }
    Ok(())
}

/// Makes SIGINT, SIGTERM and SIGHUP (Slurm's time limit, a closed
/// terminal) ask the command to stop: the first prints `message` and sets
/// the returned flag, which the simulation polls; a second leaves at once
/// (what is finished is on disk whole; a staging folder left behind is
/// cleared by the next run into the same place).
fn on_stop_signal(message: &'static str) -> Result<&'static std::sync::atomic::AtomicBool> {
    use std::sync::atomic::{AtomicBool, Ordering};
    static STOP: AtomicBool = AtomicBool::new(false);
    ctrlc::set_handler(move || {
        if STOP.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        // A rank other than 0 of a run across MPI ranks says nothing:
        // rank 0 says it, once.
        if !message.is_empty() {
            eprintln!("\n{message}");
        }
    })
    .context("cannot install the signal handler")?;
    Ok(&STOP)
}
