//! What a collective job did: per collective, its completion time (CCT)
//! against its bound, its algorithm and bus bandwidth as nccl-tests
//! defines them, and its slowest rank and step (`collectives.csv`); per
//! job, its iteration times (`summary.json`'s `jobs`); per transfer, its
//! step and times (`transfers.csv`, what the timeline figure draws).
//!
//! A collective starts when its first transfer starts and ends when its
//! last byte arrives at its last rank. Iteration i of a job ends with its
//! collective; its time runs from the end of iteration i - 1 (the job's
//! start for the first), so it holds the compute and the slowest rank's
//! lag. The bound is what the empty fabric allows: the longer of the
//! critical path (each transfer taking its ideal delivery time alone,
//! after the transfers it waits on) and the busiest link's bytes (a
//! rank's, or a GPU's NIC or NVLink) after one crossing; for a ring all-reduce of S bytes over N
//! ranks at rate B that is 2(N-1) x (S/N on the wire / B + one step's
//! latency), each step's latency that of its own path.

use super::columns::{COLLECTIVES, TRANSFERS};
use super::us;
use crate::world::{CollectiveRecord, JobCollective, RunRecord};
use serde::Serialize;
use sim_core::SimTime;
use sim_core::stats::Summary;
use std::collections::BTreeMap;

/// One collective's results.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveRow {
    /// Its job's `[[workload]]`.
    pub workload: u32,
    /// The job's iteration.
    pub iteration: u32,
    /// When its first transfer started.
    pub start: Option<SimTime>,
    /// When its last byte arrived (`None`: not all did).
    pub end: Option<SimTime>,
    /// Its bound, picoseconds.
    pub bound_ps: u64,
    /// The rank whose last receipt came last, and when.
    pub slowest_rank: Option<u32>,
    /// The step that took longest (first start to last receipt).
    pub slowest_step: Option<(u32, u64)>,
}

/// One job's results in `summary.json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JobSummary {
    /// Its `[[workload]]`.
    pub workload: u32,
    /// Its ranks.
    pub ranks: usize,
    /// Iterations planned.
    pub iterations: u32,
    /// Iterations whose every collective completed.
    pub completed: u32,
    /// Iteration times, microseconds (each from the end of the one before;
    /// the first from the job's start).
    pub iteration_us: Summary,
    /// Each collective of an iteration, in order.
    pub collectives: Vec<OpSummary>,
}

/// One collective of a job's iterations, over its iterations.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct OpSummary {
    /// Its operation and algorithm, `all-reduce/ring`.
    pub collective: String,
    /// Its size, bytes.
    pub size_bytes: u64,
    /// Its completion times, microseconds.
    pub cct_us: Summary,
    /// Its bound, microseconds.
    pub bound_us: f64,
    /// Its bus bandwidth (nccl-tests), Gb/s.
    pub busbw_gbps: Summary,
    /// The bus bandwidth its bound allows (the empty fabric's ceiling at
    /// this size: near the link rate for large sizes, lower where each
    /// step's latency counts), Gb/s.
    pub busbw_bound_gbps: f64,
}

/// Every collective of the run, in order.
pub fn collective_rows(run: &RunRecord) -> Vec<CollectiveRow> {
    run.collectives.iter().map(|c| row(run, c)).collect()
}

fn row(run: &RunRecord, rec: &CollectiveRecord) -> CollectiveRow {
    let c = rec.job;
    let tags = &c.plan.transfers;
    let flow = |f: u32| &run.flows[f as usize];
    let start = tags
        .iter()
        .map(|t| flow(t.flow).start)
        .filter(|&s| s != SimTime::MAX)
        .min();
    let done: Option<Vec<SimTime>> = tags.iter().map(|t| flow(t.flow).received_at).collect();
    let end = done.as_ref().and_then(|d| d.iter().copied().max());
    // The rank that received the last byte (the highest rank on a tie).
    let slowest_rank = (tags.iter())
        .filter_map(|t| flow(t.flow).received_at.map(|r| (r, t.dst)))
        .max()
        .map(|(_, rank)| rank);
    let steps = tags.iter().map(|t| t.step).max().map_or(0, |s| s + 1);
    let mut span: Vec<(SimTime, Option<SimTime>)> =
        vec![(SimTime::MAX, Some(SimTime::ZERO)); steps as usize];
    for t in tags {
        let f = flow(t.flow);
        let s = &mut span[t.step as usize];
        s.0 = s.0.min(f.start);
        s.1 = s.1.zip(f.received_at).map(|(a, b)| a.max(b));
    }
    let slowest_step = (0u32..)
        .zip(&span)
        .filter_map(|(i, &(a, b))| {
            b.filter(|_| a != SimTime::MAX)
                .map(|b| (b.since(a).ps(), i))
        })
        .max_by_key(|&(d, i)| (d, std::cmp::Reverse(i)))
        .map(|(d, i)| (i, d));
    CollectiveRow {
        workload: c.workload,
        iteration: c.plan.iteration,
        start,
        end,
        bound_ps: bound_ps(rec),
        slowest_rank,
        slowest_step,
    }
}

/// The collective's bound on the empty fabric (see the module's comment).
fn bound_ps(rec: &CollectiveRecord) -> u64 {
    let (c, parts) = (rec.job, &rec.ideal);
    let tags = &c.plan.transfers;
    // Critical path: each transfer's ideal delivery after the latest of
    // those it waits on (transfers are planned after their inputs).
    let at: std::collections::BTreeMap<u32, usize> =
        tags.iter().enumerate().map(|(i, t)| (t.flow, i)).collect();
    let mut finish = vec![0u64; tags.len()];
    for (i, &(fixed, stream)) in parts.iter().enumerate() {
        let ready = c.plan.after[i]
            .iter()
            .filter_map(|f| at.get(f).map(|&j| finish[j]))
            .max()
            .unwrap_or(0);
        finish[i] = ready.saturating_add(fixed).saturating_add(stream);
    }
    let critical = finish.iter().copied().max().unwrap_or(0);
    // The busiest link: all a rank's bytes through one of its links (a
    // GPU's NIC, its NVLink) after one crossing.
    let mut busy = vec![(0u64, 0u64); 2 * c.plan.ranks.len()];
    for ((t, &(fixed, stream)), link) in tags.iter().zip(parts).zip(&rec.links) {
        let b = &mut busy[2 * t.src as usize + link.idx()];
        b.0 = b.0.max(fixed);
        b.1 = b.1.saturating_add(stream);
    }
    let link = busy
        .iter()
        .map(|&(a, b)| a.saturating_add(b))
        .max()
        .unwrap_or(0);
    critical.max(link)
}

/// Microseconds of a picosecond count.
fn us_f(ps: u64) -> f64 {
    ps as f64 / 1e6
}

/// When each job's iterations ended (the last byte of their last
/// collective; `None` for one not complete), by (workload, iteration).
fn iteration_ends(
    run: &RunRecord,
    coll: &[CollectiveRow],
) -> BTreeMap<(u32, u32), Option<SimTime>> {
    let mut ends: BTreeMap<(u32, u32), Option<SimTime>> = BTreeMap::new();
    for (c, r) in jobs_of(run)
        .zip(coll)
        .filter(|(c, _)| !traced(run, c.workload))
    {
        let e = ends
            .entry((c.workload, c.plan.iteration))
            .or_insert(Some(SimTime::ZERO));
        *e = e.zip(r.end).map(|(a, b)| a.max(b));
    }
    ends
}

/// Each job iteration's time: from the end of the one before (the job's
/// start for the first) to its own end, if both came.
fn iteration_times(run: &RunRecord, coll: &[CollectiveRow]) -> BTreeMap<(u32, u32), Option<u64>> {
    let ends = iteration_ends(run, coll);
    (ends.iter())
        .map(|(&(w, it), &end)| {
            let before = match it {
                0 => Some(job_start(run, w)),
                _ => ends.get(&(w, it - 1)).copied().flatten(),
            };
            ((w, it), before.zip(end).map(|(a, b)| b.since(a).ps()))
        })
        .collect()
}

/// Each job's iteration times, and each of its collectives' CCTs and bus
/// bandwidths.
pub fn jobs(run: &RunRecord, coll: &[CollectiveRow]) -> Vec<JobSummary> {
    let times = iteration_times(run, coll);
    let mut out: Vec<JobSummary> = Vec::new();
    // Per job and collective index: CCTs and bus bandwidths.
    let mut per_op: BTreeMap<(u32, u32), (Vec<f64>, Vec<f64>)> = BTreeMap::new();
    for (c, r) in jobs_of(run)
        .zip(coll)
        .filter(|(c, _)| !traced(run, c.workload))
    {
        let p = &c.plan;
        if out.last().is_none_or(|j| j.workload != c.workload) {
            let job = times.range((c.workload, 0)..=(c.workload, u32::MAX));
            let iterations = job.clone().count() as u32;
            let mut t: Vec<f64> = job.map_while(|(_, t)| t.map(us_f)).collect();
            out.push(JobSummary {
                workload: c.workload,
                ranks: p.ranks.len(),
                iterations,
                completed: t.len() as u32,
                iteration_us: Summary::of(&mut t),
                collectives: Vec::new(),
            });
        }
        let j = out.last_mut().expect("pushed");
        if p.iteration == 0 {
            j.collectives.push(OpSummary {
                collective: format!("{}/{}", p.op.name(), p.algorithm.name()),
                size_bytes: p.size,
                cct_us: Summary::default(),
                bound_us: us_f(r.bound_ps),
                busbw_gbps: Summary::default(),
                busbw_bound_gbps: busbw_gbps(c, r.bound_ps.max(1)),
            });
        }
        if let (Some(s), Some(e)) = (r.start, r.end) {
            let cct = e.since(s).ps();
            let v = per_op.entry((c.workload, p.index)).or_default();
            v.0.push(us_f(cct));
            v.1.push(busbw_gbps(c, cct));
        }
    }
    for j in &mut out {
        for (k, op) in (0u32..).zip(j.collectives.iter_mut()) {
            if let Some((ccts, bus)) = per_op.get_mut(&(j.workload, k)) {
                op.cct_us = Summary::of(ccts);
                op.busbw_gbps = Summary::of(bus);
            }
        }
    }
    out
}

/// When a job started (its `start`, before its first compute).
fn job_start(run: &RunRecord, workload: u32) -> SimTime {
    (jobs_of(run).find(|c| c.workload == workload))
        .map_or(SimTime::ZERO, |c| SimTime::ZERO + c.plan.job_start)
}

/// The run's collectives as planned, in order.
fn jobs_of<'a>(run: &'a RunRecord) -> impl Iterator<Item = &'a JobCollective> + Clone {
    run.collectives.iter().map(|c| c.job)
}

/// Whether workload `w` is an execution trace, whose iterations hold
/// compute and several collectives that `traces.rs` reports: its
/// collectives have rows here, but no iteration times or job summary.
fn traced(run: &RunRecord, w: u32) -> bool {
    run.traces.iter().any(|t| t.workload == w)
}

/// nccl-tests' bus bandwidth of a collective that took `cct_ps`, Gb/s.
fn busbw_gbps(c: &JobCollective, cct_ps: u64) -> f64 {
    let alg = c.plan.size as f64 * 8.0 / (cct_ps as f64 / 1e12) / 1e9;
    alg * c.plan.op.bus_factor(c.plan.ranks.len() as u32)
}

/// `collectives.csv`.
pub fn collectives_csv(run: &RunRecord, coll: &[CollectiveRow]) -> String {
    let mut s = COLLECTIVES.header();
    let times = iteration_times(run, coll);
    for (c, r) in jobs_of(run).zip(coll) {
        let p = &c.plan;
        let cct = r.start.zip(r.end).map(|(a, b)| b.since(a).ps());
        let iteration = times
            .get(&(c.workload, p.iteration))
            .copied()
            .flatten()
            .map(us);
        let opt = |v: Option<String>| v.unwrap_or_default();
        COLLECTIVES
            .row(&mut s)
            .cell("workload", c.workload)
            .cell("iteration", p.iteration)
            .cell("collective", p.index)
            .cell("op", p.op.name())
            .cell("algorithm", p.algorithm.name())
            .cell("ranks", p.ranks.len())
            .cell("size_bytes", p.size)
            .cell("start_us", opt(r.start.map(|t| us(t.ps()))))
            .cell("end_us", opt(r.end.map(|t| us(t.ps()))))
            .cell("cct_us", opt(cct.map(us)))
            .cell("bound_us", us(r.bound_ps))
            .cell("iteration_us", opt(iteration))
            .cell(
                "algbw_gbps",
                opt(cct.map(|c| format!("{:.3}", p.size as f64 * 8.0 / (c as f64 / 1e3)))),
            )
            .cell(
                "busbw_gbps",
                opt(cct.map(|x| format!("{:.3}", busbw_gbps(c, x)))),
            )
            .cell("slowest_rank", opt(r.slowest_rank.map(|x| x.to_string())))
            .cell(
                "slowest_host",
                opt(r.slowest_rank.map(|x| p.ranks[x as usize].to_string())),
            )
            .cell("slowest_step", opt(r.slowest_step.map(|x| x.0.to_string())))
            .cell("slowest_step_us", opt(r.slowest_step.map(|x| us(x.1))))
            .end();
    }
    s
}

/// `transfers.csv`: every transfer of every collective.
pub fn transfers_csv(run: &RunRecord) -> String {
    let mut s = TRANSFERS.header();
    for c in jobs_of(run) {
        for t in &c.plan.transfers {
            let f = &run.flows[t.flow as usize];
            let time = |x: Option<SimTime>| {
                x.filter(|&x| x != SimTime::MAX)
                    .map_or(String::new(), |x| us(x.ps()))
            };
            TRANSFERS
                .row(&mut s)
                .cell("workload", c.workload)
                .cell("iteration", c.plan.iteration)
                .cell("flow", t.flow)
                .cell("channel", t.channel)
                .cell("step", t.step)
                .cell("piece", t.piece)
                .cell("src_rank", t.src)
                .cell("dst_rank", t.dst)
                .cell("src", f.src.0)
                .cell("dst", f.dst.0)
                .cell("size_bytes", f.size.unwrap_or(0))
                .cell("start_us", time(Some(f.start)))
                .cell("received_us", time(f.received_at))
                .cell("acked_us", time(f.completed_at))
                .end();
        }
    }
    s
}

/// The collective a run's headline quotes: the first collective of the
/// first job that completed it at least once (job 0's, as a rule). A
/// collective run is judged by its completion time, not by the mean FCT
/// of its transfers.
pub fn headline(jobs: &[JobSummary]) -> Option<&OpSummary> {
    jobs.iter()
        .flat_map(|j| j.collectives.first())
        .find(|c| c.cct_us.mean.is_some())
}

impl OpSummary {
    /// Its mean completion time over its bound (1 is the bound reached).
    pub fn cct_over_bound(&self) -> Option<f64> {
        let mean = self.cct_us.mean?;
        (self.bound_us > 0.0).then(|| mean / self.bound_us)
    }
}

/// The terminal's lines for the jobs: each collective's mean and p99
/// completion time, its ratio to the bound, the iterations done and its
/// bus bandwidth.
pub fn human_lines(jobs: &[JobSummary]) -> String {
    use super::{or_na, time_or_na as time};
    use std::fmt::Write as _;
    let mut s = String::new();
    for j in jobs {
        for c in &j.collectives {
            let size = crate::report::units::bytes(c.size_bytes as f64);
            let _ = writeln!(
                s,
                "  job {:<13} {}, {} {}, {} ranks: CCT mean {} (p99 {}) = {} x bound {}",
                j.workload,
                c.collective,
                size.of(c.size_bytes as f64),
                size.unit,
                j.ranks,
                time(c.cct_us.mean),
                time(c.cct_us.p99),
                or_na(c.cct_over_bound(), 3),
                time(Some(c.bound_us)),
            );
            let _ = writeln!(
                s,
                "{:20}{}/{} iterations, bus bandwidth {} Gb/s",
                "",
                j.completed,
                j.iterations,
                or_na(c.busbw_gbps.mean, 2),
            );
        }
    }
    s
}
