//! One run on many cores: the LP copies of a partitioned run
//! (`lp.rs`) stepped in conservative windows, on any number of threads,
//! with the same bytes out whatever that number is.
//!
//! A window runs every LP from the earliest pending event of all, `T`, to
//! `T + L - 1 ps`, where `L` is the smallest delay of a cut link: nothing
//! another LP sends in the window can arrive inside it. At the window's
//! end each LP hands what it put on its cut links to the far LPs, which
//! land it before their next window. No rollback.
//!
//! Why the output does not depend on the thread count: an LP's events
//! pop in the order of its own queue, `(time, seq)`; by default `seq` is
//! the LP's insertion sequence: the LP inserts its own events as it runs
//! them, and the crossings it receives at a window's start in a fixed
//! order (by sending LP, then in the order the sender put them on the
//! wire). The windows themselves are fixed by the events (`T` is a
//! minimum over all LPs), so every LP sees the same inputs in the same
//! order on one thread or sixty-four. Threads only decide which core runs
//! an LP's window. Ordered by the model (`simulation.order = "model"`),
//! `seq` is a key from the event alone (a crossing arrives with its uncut
//! link's delivery's key), so each LP runs its nodes' events in the one
//! queue's order and the cut does not matter either (docs/architecture.md,
//! "One order for every cut").

mod due;
mod leader;
mod mail;
mod merge;
pub mod peers;

use super::{BuildError, StopReason, World};
use crate::registry::workload::Planned;
use crate::scenario::Scenario;
use leader::{Ending, Leader};
use net::{Crossing, Partition};
use peers::Peers;
use sim_core::{RunLimit, SimDuration, SimTime};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How many threads one run uses (at least 1; more than its LPs run idle).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threads(pub usize);

/// One LP: its copy of the world and its mail.
struct Slot {
    world: World,
    /// What crossed into this LP in the last window, by sending LP.
    inbox: Vec<Vec<Crossing>>,
    /// The LP's next event after its window, or the earliest arrival of
    /// what it sent, whichever is first.
    next: Option<SimTime>,
    overflowed: bool,
    /// Time spent in its window steps.
    busy: Duration,
}

impl Slot {
    /// Lands the mail, runs the window to `end` and posts what crossed.
    fn step(&mut self, end: SimTime) {
        let t0 = Instant::now();
        for from in &mut self.inbox {
            self.world.land(from);
        }
        self.overflowed = self.world.run_window(end).is_err();
        let sent = self.world.first_sent();
        self.next = [self.world.next_event(), sent].into_iter().flatten().min();
        self.busy += t0.elapsed();
    }
}

/// What the threads of a run share besides the LPs.
struct Crew {
    /// The current window's last picosecond.
    window_end: AtomicU64,
    /// Set when the run is over.
    stop: AtomicBool,
    /// Where the threads meet, at a window's start and its end.
    barrier: Barrier,
}

impl Crew {
    fn end(&self) -> SimTime {
        SimTime::ZERO + SimDuration::from_ps(self.window_end.load(Ordering::Acquire))
    }

    /// Thread `k` (not the leading one): each window, its share of the
    /// LPs, until the run is over.
    fn member(&self, k: usize, share: &(dyn Fn(usize, &mut Clock) + Sync)) -> Clock {
        let mut clock = Clock::default();
        loop {
            clock.wait_at(&self.barrier);
            if self.stop.load(Ordering::Acquire) {
                return clock;
            }
            share(k, &mut clock);
            clock.wait_at(&self.barrier);
        }
    }

    /// Runs the window to `end` on every thread, or on the leading one
    /// alone (`solo`: the others stay parked).
    fn window(
        &self,
        end: SimTime,
        solo: bool,
        threads: usize,
        share: &dyn Fn(usize, &mut Clock),
        clock: &mut Clock,
    ) {
        self.window_end.store(end.ps(), Ordering::Release);
        if solo {
            for k in 0..threads {
                share(k, clock);
            }
        } else {
            clock.wait_at(&self.barrier);
            share(0, clock);
            clock.wait_at(&self.barrier);
        }
    }

    /// Ends the run: the parked threads wake to the stop flag.
    fn dismiss(&self) {
        self.stop.store(true, Ordering::Release);
        self.barrier.wait();
    }
}

/// Where one thread's time went.
#[derive(Clone, Copy, Debug, Default)]
struct Clock {
    work: Duration,
    wait: Duration,
}

impl Clock {
    fn wait_at(&mut self, barrier: &Barrier) {
        let t0 = Instant::now();
        barrier.wait();
        self.wait += t0.elapsed();
    }
}

/// How a partitioned run's time was spent (`perf.json`'s `windows`): the
/// figures the speed-up model of docs/performance.md is built from. Wall
/// clock, so they differ between runs; the results never do.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct WindowStats {
    /// Windows run.
    pub windows: u64,
    /// The window's length (the lookahead), in picoseconds.
    pub lookahead_ps: u64,
    /// Per thread, seconds stepping its LPs.
    pub work_seconds: Vec<f64>,
    /// Per thread, seconds waiting at the windows' barriers.
    pub wait_seconds: Vec<f64>,
    /// Seconds of the serial part between windows (thread 0 routes the
    /// mail and checks the run's bounds).
    pub serial_seconds: f64,
    /// Per LP of this process, seconds of its window steps.
    pub lp_seconds: Vec<f64>,
    /// Per LP of this process, events run.
    pub lp_events: Vec<u64>,
    /// MPI ranks the run spread over (1: one process).
    pub ranks: u32,
    /// Seconds this process spent in the ranks' exchanges at window ends
    /// (the mail and the reduced words), waiting for the slowest rank
    /// included.
    pub exchange_seconds: f64,
}

impl WindowStats {
    fn new(lps: &Lps, clocks: &[Clock], lead: &Leader) -> WindowStats {
        let slots = || lps.slots.iter().map(lock);
        WindowStats {
            windows: lead.windows,
            lookahead_ps: lps.lookahead.ps(),
            work_seconds: clocks.iter().map(|c| c.work.as_secs_f64()).collect(),
            wait_seconds: clocks.iter().map(|c| c.wait.as_secs_f64()).collect(),
            serial_seconds: lead.serial.as_secs_f64(),
            lp_seconds: slots().map(|s| s.busy.as_secs_f64()).collect(),
            lp_events: slots().map(|s| s.world.q.events_processed()).collect(),
            ranks: lps.peers.as_ref().map_or(1, |p| p.size() as u32),
            exchange_seconds: lead.exchange.as_secs_f64(),
        }
    }
}

/// A partitioned run: one copy of the world per LP, of the LPs this
/// process runs (all of them, but in a run across MPI ranks).
pub struct Lps {
    /// This process's LPs, from LP `first` on.
    slots: Vec<Mutex<Slot>>,
    /// The run's LP of `slots[0]`.
    first: usize,
    /// Each LP's rank, by LP (every LP's, not only this process's).
    rank_of: Vec<usize>,
    /// Each LP's ports: its share of the work, for dealing LPs to threads.
    weights: Vec<usize>,
    lookahead: SimDuration,
    limit: RunLimit,
    /// The other ranks, in a run across processes.
    peers: Option<Rc<dyn Peers>>,
}

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    // A worker that panicked has already failed the run: its panic
    // propagates from the scope; the data is not read again.
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

impl Lps {
    /// Builds the copy of every LP of `partition`, `threads` at a time.
    pub fn build(
        sc: &Scenario,
        seed: u64,
        planned: &[Planned],
        partition: Partition,
        threads: Threads,
    ) -> Result<Lps, BuildError> {
        Lps::build_ranked(sc, seed, planned, partition, threads, None)
    }

    /// Builds the copies of the LPs this process runs: all of them alone,
    /// its rank's (`Partition::lps_of_rank`) with `peers`. Fails where
    /// the ranks outnumber the LPs, and, across ranks, for a scenario
    /// that samples a series (which reads every LP between windows: not
    /// yet gathered across processes).
    pub fn build_ranked(
        sc: &Scenario,
        seed: u64,
        planned: &[Planned],
        partition: Partition,
        threads: Threads,
        peers: Option<Rc<dyn Peers>>,
    ) -> Result<Lps, BuildError> {
        let n = partition.lps as usize;
        assert!(n > 1, "a partitioned run has several LPs");
        let ranks = peers.as_ref().map_or(1, |p| p.size());
        let (mine, rank_of) = ranks_of_lps(&partition, peers.as_deref())?;
        let lookahead = partition.lookahead;
        let partition = Arc::new(partition);
        let wire = sc.topology.framing.wire();
        let graph = Arc::new(sc.topology.spec.shape.build());
        let config = super::build::fabric_config(sc, seed, wire);
        let shared = Arc::new(net::Fabric::shared(&graph, &config)?);
        let build = |me: usize| {
            let role = super::Role {
                me: me as u32,
                partition: Arc::clone(&partition),
                graph: Arc::clone(&graph),
                fabric: Arc::clone(&shared),
            };
            World::build_copy(sc, seed, planned.to_vec(), Some(role))
        };
        let first = mine.start as usize;
        let own = mine.len();
        let built = build_in_threads(mine, threads, &build);
        let mut slots = Vec::with_capacity(own);
        for b in built {
            let world = b.expect("every LP was built")?;
            slots.push(Mutex::new(Slot {
                world,
                inbox: (0..n).map(|_| Vec::new()).collect(),
                next: None,
                overflowed: false,
                busy: Duration::ZERO,
            }));
        }
        let limit = lock(&slots[0]).world.limit;
        if ranks > 1 {
            no_series_across_ranks(&lock(&slots[0]).world)?;
        }
        let weights = slots
            .iter()
            .map(|s| lock(s).world.fabric.ports().held())
            .collect();
        Ok(Lps {
            slots,
            first,
            rank_of,
            weights,
            lookahead,
            limit,
            peers,
        })
    }

    /// LP 0's copy, which keeps the sampled series' rows (this process's
    /// first LP: LP 0 where this is rank 0).
    pub fn first_mut(&mut self) -> &mut World {
        let slot = self.slots[0].get_mut().unwrap_or_else(|e| e.into_inner());
        &mut slot.world
    }

    /// Whether this process runs LP `lp`.
    fn runs(&self, lp: usize) -> bool {
        (self.first..self.first + self.slots.len()).contains(&lp)
    }

    /// The earliest of every rank's `t`.
    fn min_over_ranks(&self, t: Option<SimTime>) -> Option<SimTime> {
        let Some(p) = &self.peers else {
            return t;
        };
        let all = p.all_words(&[t.map_or(u64::MAX, |t| t.ps())]);
        (all.into_iter().min())
            .filter(|&ps| ps != u64::MAX)
            .map(SimTime)
    }

    /// Flows not finished, over every LP.
    fn open_flows(&self) -> usize {
        let open = self
            .slots
            .iter()
            .map(|s| lock(s).world.open_flows)
            .sum::<usize>();
        self.sum_over_ranks([open as u64])[0] as usize
    }

    /// A window's end over the ranks: the earliest next event, the events
    /// run and the stop flags (or-ed) of every rank, from this rank's.
    fn reduce_window(
        &self,
        next: Option<SimTime>,
        events: u64,
        flags: u64,
    ) -> (Option<SimTime>, u64, u64) {
        let Some(p) = &self.peers else {
            return (next, events, flags);
        };
        let all = p.all_words(&[next.map_or(u64::MAX, |t| t.ps()), events, flags]);
        let ranks = all.chunks_exact(3);
        let next = ranks
            .clone()
            .map(|w| w[0])
            .min()
            .filter(|&ps| ps != u64::MAX);
        let events = ranks.clone().map(|w| w[1]).sum();
        let flags = ranks.fold(0, |f, w| f | w[2]);
        (next.map(SimTime), events, flags)
    }

    /// The sum over the ranks of each of this rank's `words` (the words
    /// themselves alone).
    fn sum_over_ranks<const N: usize>(&self, words: [u64; N]) -> [u64; N] {
        let Some(p) = &self.peers else {
            return words;
        };
        let all = p.all_words(&words);
        std::array::from_fn(|i| all.iter().skip(i).step_by(N).sum())
    }

    /// Runs to the scenario's end on `threads` threads and merges the LPs
    /// into one world for the report. `progress` is called with the
    /// simulated time about every `every` events (at window ends); the
    /// run stops as interrupted when it returns false. The event cap is
    /// checked at window ends, so a capped run stops at the end of the
    /// window that reaches it.
    pub fn run(
        self,
        threads: Threads,
        every: u64,
        progress: &mut dyn FnMut(SimTime) -> bool,
    ) -> (World, StopReason, WindowStats) {
        self.run_ranked(threads, every, progress)
            .expect("one process runs LP 0")
    }

    /// [`Lps::run`] on each rank of a run across processes: the merged
    /// world at rank 0, `None` at the others (which hand their rows to
    /// rank 0). `progress` runs on every rank; a rank whose call returns
    /// false stops every rank, at the next window's end.
    pub fn run_ranked(
        self,
        threads: Threads,
        every: u64,
        progress: &mut dyn FnMut(SimTime) -> bool,
    ) -> Option<(World, StopReason, WindowStats)> {
        let dealt = self.deal(threads.0.clamp(1, self.slots.len()));
        self.run_inner(dealt, every, progress)
    }

    /// [`Lps::run`] with the LPs dealt as given: thread `k` steps the LPs
    /// `dealt[k]`, in that order, every window. Every LP must be dealt
    /// once; which thread runs an LP, and in what order, changes no
    /// result (the property tests deal them at random).
    pub fn run_dealt(
        self,
        dealt: Vec<Vec<usize>>,
        every: u64,
        progress: &mut dyn FnMut(SimTime) -> bool,
    ) -> (World, StopReason, WindowStats) {
        self.run_inner(dealt, every, progress)
            .expect("one process runs LP 0")
    }

    fn run_inner(
        self,
        dealt: Vec<Vec<usize>>,
        every: u64,
        progress: &mut dyn FnMut(SimTime) -> bool,
    ) -> Option<(World, StopReason, WindowStats)> {
        let mut all: Vec<usize> = dealt.concat();
        all.sort_unstable();
        assert!(
            all.iter().copied().eq(0..self.slots.len()),
            "every LP dealt once: {dealt:?}"
        );
        let threads = dealt.len().max(1);
        let crew = Crew {
            window_end: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            barrier: Barrier::new(threads),
        };
        let share = |k: usize, clock: &mut Clock| {
            let t0 = Instant::now();
            let end = crew.end();
            for &lp in &dealt[k] {
                lock(&self.slots[lp]).step(end);
            }
            clock.work += t0.elapsed();
        };
        let (reason, clocks, lead) = std::thread::scope(|s| {
            let workers: Vec<_> = (1..threads)
                .map(|k| {
                    let (crew, share) = (&crew, &share);
                    s.spawn(move || crew.member(k, share))
                })
                .collect();
            let mut clock = Clock::default();
            let mut lead = Leader::new(&self, every);
            let reason = loop {
                let end = match lead.next_window(&self) {
                    Ok(end) => end,
                    Err(reason) => break reason,
                };
                crew.window(end, lead.solo(), threads, &share, &mut clock);
                let t0 = Instant::now();
                let done = lead.after_window(&self, end, progress);
                lead.serial += t0.elapsed();
                if let Some(reason) = done {
                    break reason;
                }
            };
            crew.dismiss();
            let ending = lead.finish(&self, reason);
            let mut clocks = vec![clock];
            clocks.extend(workers.into_iter().map(|w| w.join().expect("a worker ran")));
            (ending, clocks, lead)
        });
        let stats = WindowStats::new(&self, &clocks, &lead);
        let (world, reason) = self.merge(reason)?;
        Some((world, reason, stats))
    }

    /// Deals the LPs to `threads` threads, heaviest first to the least
    /// loaded (the same every window, so an LP stays in one core's
    /// caches). Which thread runs an LP changes no result.
    fn deal(&self, threads: usize) -> Vec<Vec<usize>> {
        let mut order: Vec<usize> = (0..self.slots.len()).collect();
        order.sort_by_key(|&lp| std::cmp::Reverse(self.weights[lp]));
        let mut dealt = vec![Vec::new(); threads];
        let mut load = vec![0usize; threads];
        for lp in order {
            let k = (0..threads).min_by_key(|&k| load[k]).expect("a thread");
            load[k] += self.weights[lp];
            dealt[k].push(lp);
        }
        dealt
    }
}

/// A window after one of fewer events than this runs on one thread. Two
/// barrier waits cost 10-30 us on the 2-core VM of docs/performance.md
/// (a shipped 2-switch dumbbell scenario, 664,276 windows of 1-20 events,
/// spent 16 s in the kernel on two threads, against 6.9 s of work), about the
/// work of 200 events; 2,048 leaves the waits under a tenth of a window.
pub(crate) const SOLO_BELOW: u64 = 2048;

/// The copies of the LPs `lps`, built `threads` at a time by `build`, in
/// LP order.
fn build_in_threads(
    lps: std::ops::Range<u32>,
    threads: Threads,
    build: &(dyn Fn(usize) -> Result<World, BuildError> + Sync),
) -> Vec<Option<Result<World, BuildError>>> {
    let (first, own) = (lps.start as usize, lps.len());
    let mut built: Vec<Option<Result<World, BuildError>>> = (0..own).map(|_| None).collect();
    let workers = threads.0.clamp(1, own);
    let size = own.div_ceil(workers);
    std::thread::scope(|s| {
        for (k, chunk) in built.chunks_mut(size).enumerate() {
            s.spawn(move || {
                for (i, out) in chunk.iter_mut().enumerate() {
                    *out = Some(build(first + k * size + i));
                }
            });
        }
    });
    built
}

/// The LPs this rank runs, and each LP's rank: consecutive LPs a rank
/// (`Partition::lps_of_rank`); every LP alone.
fn ranks_of_lps(
    partition: &Partition,
    peers: Option<&dyn Peers>,
) -> Result<(std::ops::Range<u32>, Vec<usize>), BuildError> {
    let n = partition.lps;
    let (rank, ranks) = peers.map_or((0, 1), |p| (p.rank(), p.size()));
    let range_of = |r: usize| partition.lps_of_rank(r as u32, ranks as u32);
    let Some(mine) = range_of(rank) else {
        return Err(BuildError::Ranks(format!(
            "{ranks} MPI ranks for a run cut into {n} LPs: a rank holds at least one LP \
             (whole pods), so start at most {n} (simulation.lps sets how many LPs a fabric \
             is cut into)"
        )));
    };
    let mut rank_of = vec![0; n as usize];
    for r in 0..ranks {
        for lp in range_of(r).expect("every rank holds LPs") {
            rank_of[lp as usize] = r;
        }
    }
    Ok((mine, rank_of))
}

/// Refuses a scenario that samples a series across MPI ranks, by its key:
/// a sample reads every LP between windows (`due.rs`), which is not
/// gathered across processes yet.
fn no_series_across_ranks(world: &World) -> Result<(), BuildError> {
    match world.first_series() {
        None => Ok(()),
        Some(series) => Err(BuildError::Ranks(format!(
            "{} samples a series, which reads every LP between windows; across MPI ranks \
             that is not gathered yet: run it in one process (--threads spreads it over the \
             cores of one machine)",
            series.key()
        ))),
    }
}

/// What keeps a scenario in one LP even where its fabric can be cut: a
/// part of it that reads the whole run at once.
fn uncuttable(sc: &Scenario, planned: &[Planned]) -> Option<&'static str> {
    let out = &sc.output;
    if planned.iter().any(|p| p.plan.closed_loop) {
        Some("closed-loop incast rounds start each round when every flow of the last has finished")
    } else if planned.iter().any(|p| p.plan.instant_triggers) {
        Some(
            "instant triggers (an htsim-matrix's triggers = \"instant\") start a flow at one host \
             the instant another host sees a flow finish",
        )
    } else if out.pcap.is_some() || out.events.is_some() {
        Some("captures and the event log (output.pcap, output.events) record one process's order")
    } else {
        None
    }
}

/// `simulation.partition = "auto"` cuts fabrics of at least this many
/// hosts (a k = 16 fat-tree has 1,024). A smaller one runs as one LP: its
/// windows hold few events, and a window costs a pass over every LP and
/// its mail (a shipped 2-switch dumbbell, 664,276 windows, ran 11% slower
/// cut on one thread; perm-k8, 128 hosts, 15%). It also keeps the
/// shipped paper reproductions (at most 320 hosts) on their undivided
/// bytes: in insertion order a cut reorders same-picosecond events across
/// LPs, which moved a one-seed verdict of a 144-host reproduction across
/// its threshold (0.267 against at most 0.250) when 64 hosts was the
/// bound (ordered by the model, a cut changes no result).
pub const AUTO_MIN_HOSTS: usize = 512;

/// The cut a run uses (`simulation.partition`): by pods where the
/// scenario allows it (`auto`, `pods`), else one LP (`auto`, `none`). An
/// `Err` says why `pods` cannot be honoured.
pub fn partition_for(sc: &Scenario, planned: &[Planned]) -> Result<Partition, String> {
    use crate::scenario::Cut;
    let graph = sc.topology.spec.shape.build();
    let whole = || Ok(Partition::whole(&graph));
    let lps = sc.simulation.lps;
    match sc.simulation.partition {
        Cut::None => whole(),
        Cut::Auto if graph.host_count() < AUTO_MIN_HOSTS => whole(),
        Cut::Auto => match (uncuttable(sc, planned), Partition::by_pods(&graph, lps)) {
            (None, Ok(p)) => Ok(p),
            _ => whole(),
        },
        Cut::Pods => {
            if let Some(why) = uncuttable(sc, planned) {
                return Err(format!(
                    "simulation.partition = \"pods\" cannot cut this scenario: {why} \
                     (use \"auto\" or \"none\")"
                ));
            }
            let p = Partition::by_pods(&graph, lps)
                .map_err(|e| format!("simulation.partition = \"pods\": {e}"))?;
            if p.lps < 2 {
                return Err(format!(
                    "simulation.partition = \"pods\" cannot cut this topology: it has one pod \
                     (a star, or every switch in one tier with its hosts), so it would run as \
                     one LP{}; use \"auto\" or \"none\"",
                    if lps < 2 {
                        " (and simulation.lps is 1)"
                    } else {
                        ""
                    }
                ));
            }
            Ok(p)
        }
    }
}
