//! What an execution-trace job did (`chakra`): per iteration and rank,
//! its time split into compute, communication overlapped with compute,
//! exposed communication and idle time (`iterations.csv`); per job, its
//! iteration times and the mean split (`summary.json`'s `traces`).
//!
//! A rank's iteration runs from when it began the iteration (the job's
//! start, or the end of its iteration before) to when its every node of
//! the iteration was done. Compute is the union of its compute nodes'
//! intervals; communication the union of its communication nodes',
//! each from its issue to the rank's part being done (a collective or a
//! send holds the communication stream that long; a receive waits that
//! long). Overlapped is the time in both, exposed communication the time
//! in communication only: what the network adds to the iteration, the
//! number ASTRA-sim reports as exposed communication. Idle is the rest
//! (waiting on a peer's dependency with nothing to do).

use super::columns::{ITERATIONS, NODES};
use super::us;
use crate::world::{PartTimes, RunRecord};
use serde::Serialize;
use sim_core::SimTime;
use sim_core::stats::Summary;

/// One rank's iteration, split.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Split {
    /// The iteration's time, ps.
    pub time_ps: u64,
    /// Computing, ps.
    pub compute_ps: u64,
    /// Communicating, ps.
    pub comm_ps: u64,
    /// Both at once, ps.
    pub overlapped_ps: u64,
}

impl Split {
    /// Communication not hidden by compute, ps.
    pub fn exposed_ps(&self) -> u64 {
        self.comm_ps - self.overlapped_ps
    }
    /// Neither computing nor communicating, ps.
    pub fn idle_ps(&self) -> u64 {
        self.time_ps
            .saturating_sub(self.compute_ps + self.comm_ps - self.overlapped_ps)
    }
}

/// The sorted, disjoint union of `spans`.
fn union(spans: &[(SimTime, SimTime)]) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = spans.iter().map(|&(a, b)| (a.ps(), b.ps())).collect();
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
    for (a, b) in v {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

fn length(spans: &[(u64, u64)]) -> u64 {
    spans.iter().map(|&(a, b)| b - a).sum()
}

/// The time two sorted, disjoint unions share.
fn shared(x: &[(u64, u64)], y: &[(u64, u64)]) -> u64 {
    let (mut i, mut j, mut total) = (0, 0, 0);
    while i < x.len() && j < y.len() {
        let (a, b) = (x[i].0.max(y[j].0), x[i].1.min(y[j].1));
        total += b.saturating_sub(a);
        if x[i].1 < y[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    total
}

/// The split of a rank's part that ended (`None`: it did not).
pub fn split(p: &PartTimes) -> Option<Split> {
    let (start, end) = (p.start?, p.end?);
    let compute = union(&p.compute);
    let comm = union(&p.comm);
    Some(Split {
        time_ps: end.since(start).ps(),
        compute_ps: length(&compute),
        comm_ps: length(&comm),
        overlapped_ps: shared(&compute, &comm),
    })
}

/// One trace job's results in `summary.json`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TraceJobSummary {
    /// Its `[[workload]]`.
    pub workload: u32,
    /// Its ranks.
    pub ranks: usize,
    /// Iterations planned.
    pub iterations: u32,
    /// Iterations every rank completed.
    pub completed: u32,
    /// Iteration times, microseconds: each from the first rank's start to
    /// the last rank's end.
    pub iteration_us: Summary,
    /// Over ranks and completed iterations: mean compute, microseconds.
    pub compute_us: Option<f64>,
    /// Mean communication overlapped with compute, microseconds.
    pub overlapped_us: Option<f64>,
    /// Mean exposed communication, microseconds.
    pub exposed_us: Option<f64>,
    /// Mean idle time, microseconds.
    pub idle_us: Option<f64>,
}

/// Each trace job's summary.
pub fn trace_jobs(run: &RunRecord) -> Vec<TraceJobSummary> {
    run.traces
        .iter()
        .map(|job| {
            let mut times = Vec::new();
            let mut splits = Vec::new();
            for it in 0..job.iterations {
                let parts = job.parts.iter().filter(|p| p.iteration == it);
                let s: Option<Vec<Split>> = parts.clone().map(split).collect();
                let start = parts.clone().filter_map(|p| p.start).min();
                let end = parts.filter_map(|p| p.end).max();
                if let (Some(s), Some(a), Some(b)) = (s, start, end) {
                    times.push(b.since(a).ps() as f64 / 1e6);
                    splits.extend(s);
                }
            }
            let mean = |f: fn(&Split) -> u64| {
                (!splits.is_empty()).then(|| {
                    splits.iter().map(|s| f(s) as f64).sum::<f64>() / splits.len() as f64 / 1e6
                })
            };
            TraceJobSummary {
                workload: job.workload,
                ranks: job.ranks.len(),
                iterations: job.iterations,
                completed: times.len() as u32,
                iteration_us: Summary::of(&mut times),
                compute_us: mean(|s| s.compute_ps),
                overlapped_us: mean(|s| s.overlapped_ps),
                exposed_us: mean(Split::exposed_ps),
                idle_us: mean(Split::idle_ps),
            }
        })
        .collect()
}

/// `iterations.csv`: every rank's every iteration.
pub fn iterations_csv(run: &RunRecord) -> String {
    let mut s = ITERATIONS.header();
    for job in &run.traces {
        for p in &job.parts {
            let sp = split(p);
            let opt = |f: fn(&Split) -> u64| sp.as_ref().map_or(String::new(), |x| us(f(x)));
            let time = |t: Option<SimTime>| t.map_or(String::new(), |t| us(t.ps()));
            ITERATIONS
                .row(&mut s)
                .cell("workload", job.workload)
                .cell("iteration", p.iteration)
                .cell("rank", p.rank)
                .cell("host", job.ranks[p.rank as usize])
                .cell("start_us", time(p.start))
                .cell("end_us", time(p.end))
                .cell("time_us", opt(|x| x.time_ps))
                .cell("compute_us", opt(|x| x.compute_ps))
                .cell("comm_us", opt(|x| x.comm_ps))
                .cell("overlapped_us", opt(|x| x.overlapped_ps))
                .cell("exposed_us", opt(Split::exposed_ps))
                .cell("idle_us", opt(Split::idle_ps))
                .end();
        }
    }
    s
}

/// `nodes.csv`: every node every rank ran, with its span.
pub fn nodes_csv(run: &RunRecord) -> String {
    let mut s = NODES.header();
    for job in &run.traces {
        for p in &job.parts {
            let nodes = &job.nodes[p.rank as usize];
            for (n, span) in nodes.iter().zip(&p.spans) {
                if n.kind == crate::registry::workload::chakra::NodeKind::Pass {
                    continue;
                }
                let t = |f: fn(&(SimTime, SimTime)) -> SimTime| {
                    span.as_ref().map_or(String::new(), |x| us(f(x).ps()))
                };
                NODES
                    .row(&mut s)
                    .cell("workload", job.workload)
                    .cell("iteration", p.iteration)
                    .cell("rank", p.rank)
                    .cell("host", job.ranks[p.rank as usize])
                    .cell("node", n.id)
                    .cell("name", csv_text(&n.name))
                    .cell("kind", n.kind.name())
                    .cell("start_us", t(|x| x.0))
                    .cell("end_us", t(|x| x.1))
                    .end();
            }
        }
    }
    s
}

/// A trace's text made safe for a CSV cell: its commas, quotes and line
/// breaks become spaces (a node's name is free text).
fn csv_text(s: &str) -> String {
    s.chars()
        .map(|c| {
            if matches!(c, ',' | '"' | '\n' | '\r') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// The human summary's lines for trace jobs.
pub fn human_lines(jobs: &[TraceJobSummary]) -> String {
    use super::time_or_na as time;
    use std::fmt::Write as _;
    let mut s = String::new();
    for j in jobs {
        let _ = writeln!(
            s,
            "  trace job {:<7} {} ranks, {}/{} iterations: iteration mean {} (max {})",
            j.workload,
            j.ranks,
            j.completed,
            j.iterations,
            time(j.iteration_us.mean),
            time(j.iteration_us.max),
        );
        let _ = writeln!(
            s,
            "{:20}per rank: compute {}, overlapped comm. {}, exposed comm. {}, idle {}",
            "",
            time(j.compute_us),
            time(j.overlapped_us),
            time(j.exposed_us),
            time(j.idle_us),
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(us: u64) -> SimTime {
        SimTime(us * 1_000_000)
    }

    /// Compute 0-10 and 20-30, communication 5-25: 10 overlapped, 10
    /// exposed, nothing idle over 30.
    #[test]
    fn a_split_counts_overlap_once() {
        let p = PartTimes {
            iteration: 0,
            rank: 0,
            start: Some(t(0)),
            end: Some(t(30)),
            compute: vec![(t(20), t(30)), (t(0), t(10))],
            comm: vec![(t(5), t(15)), (t(12), t(25))],
            spans: Vec::new(),
        };
        let s = split(&p).expect("ended");
        assert_eq!(s.time_ps, 30_000_000);
        assert_eq!(s.compute_ps, 20_000_000);
        assert_eq!(s.comm_ps, 20_000_000);
        assert_eq!(s.overlapped_ps, 10_000_000);
        assert_eq!(s.exposed_ps(), 10_000_000);
        assert_eq!(s.idle_ps(), 0);
        let waiting = PartTimes {
            end: Some(t(40)),
            ..p
        };
        assert_eq!(split(&waiting).expect("ended").idle_ps(), 10_000_000);
        assert_eq!(split(&PartTimes::default()), None);
    }
}
