//! The goodput time series of `goodput.csv` (`[output] goodput_interval`):
//! every interval, the data bytes acknowledged in it, over all flows, per
//! workload (with two workloads with flows or more: a collective job's
//! goodput beside another's) and per chosen flow (`goodput_flows`, default
//! all), as Gb/s. A flow has a row for each interval from its start until
//! it finishes, so an idle interval of an open flow reads 0, and a
//! finished flow stops adding rows.

use super::World;
use sim_core::{SimDuration, SimTime};
use transport::{SenderEnd, Side};

/// What one `goodput.csv` row counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoodputOf {
    /// Every flow.
    All,
    /// The flows of one `[[workload]]`.
    Workload(u32),
    /// One flow.
    Flow(u32),
}

/// One `goodput.csv` row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GoodputSample {
    /// The end of the interval (ps).
    pub time_ps: u64,
    /// What it counts.
    pub of: GoodputOf,
    /// Data bytes first acknowledged in the interval.
    pub bytes: u64,
}

/// What the series keeps between samples.
pub(super) struct GoodputSeries {
    pub interval: SimDuration,
    /// The flows with their own rows (`None`: all).
    pub chosen: Option<Vec<u32>>,
    /// Each flow's bytes acknowledged at the last sample.
    pub last: Vec<u64>,
    /// The aggregate at the last sample.
    pub last_total: u64,
    /// Each workload's bytes acknowledged at the last sample, and this
    /// sample's (kept to reuse).
    last_by_workload: Vec<u64>,
    by_workload: Vec<(u64, u32)>,
    /// The rows so far (or their sink).
    pub rows: super::rows::Rows<GoodputSample>,
    /// Jain's index over the flows open in each interval, as the rows are
    /// taken (the rows may be streamed away).
    pub fairness: IntervalFairness,
    /// This interval's per-flow bytes.
    scratch: Vec<f64>,
}

/// Jain's index of the per-flow goodput of the intervals with at least two
/// flows open: how many, their sum and the smallest.
#[derive(Clone, Copy, Debug, Default)]
pub struct IntervalFairness {
    /// Intervals with at least two flows open.
    pub intervals: u64,
    /// The sum of their indices.
    pub sum: f64,
    /// The smallest (infinite before any).
    pub min: f64,
}

impl GoodputSeries {
    /// A series every `interval`, with rows for the flows `chosen` (`None`: all).
    pub fn new(interval: SimDuration, chosen: Option<Vec<u32>>) -> GoodputSeries {
        GoodputSeries {
            interval,
            chosen,
            last: Vec::new(),
            last_total: 0,
            last_by_workload: Vec::new(),
            by_workload: Vec::new(),
            rows: super::rows::Rows::default(),
            fairness: IntervalFairness {
                min: f64::INFINITY,
                ..IntervalFairness::default()
            },
            scratch: Vec::new(),
        }
    }
}

impl World {
    /// Records one interval's goodput (`series.rs` says when), each
    /// flow's from the copy that runs its sender: this one or one of
    /// `others` (a cut run's other LPs).
    pub(super) fn record_goodput(&mut self, now: SimTime, others: &[&World]) {
        let Some(mut g) = self.goodput.take() else {
            return;
        };
        self.goodput_into(&mut g, now, others);
        self.goodput = Some(g);
    }

    fn goodput_into(&self, g: &mut GoodputSeries, now: SimTime, others: &[&World]) {
        g.last.resize(self.flows.len(), 0);
        let from = SimTime::ZERO + SimDuration::from_ps(now.ps().saturating_sub(g.interval.ps()));
        let mut total = 0;
        g.by_workload.clear();
        g.by_workload.resize(self.workloads.len(), (0, 0));
        g.last_by_workload.resize(self.workloads.len(), 0);
        // Integer sums over each copy's senders: the same in any order.
        for c in std::iter::once(self).chain(others.iter().copied()) {
            let senders = c
                .flows
                .iter()
                .filter(|(_, f)| c.owns_host(f.sender.addr().src));
            for (_, f) in senders {
                let acked = f.sender.bytes_acked();
                total += acked;
                let w = &mut g.by_workload[f.workload as usize];
                *w = (w.0 + acked, w.1 + 1);
            }
        }
        g.rows.push(GoodputSample {
            time_ps: now.ps(),
            of: GoodputOf::All,
            bytes: total - g.last_total,
        });
        g.last_total = total;
        let with_flows = g.by_workload.iter().filter(|w| w.1 > 0).count();
        for (w, &(acked, flows)) in g.by_workload.iter().enumerate() {
            if with_flows >= 2 && flows > 0 {
                g.rows.push(GoodputSample {
                    time_ps: now.ps(),
                    of: GoodputOf::Workload(w as u32),
                    bytes: acked - g.last_by_workload[w],
                });
            }
            g.last_by_workload[w] = acked;
        }
        g.scratch.clear();
        let count = g.chosen.as_ref().map_or(self.flows.len(), Vec::len);
        for i in 0..count {
            let id = g.chosen.as_ref().map_or(i as u32, |list| list[i]);
            let f = self.runner_of(others, id, Side::Sender);
            let acked = f.sender.bytes_acked();
            let open_in_window = f.start < now && f.sender.completed_at().is_none_or(|c| c > from);
            if open_in_window {
                let bytes = acked - g.last[id as usize];
                g.rows.push(GoodputSample {
                    time_ps: now.ps(),
                    of: GoodputOf::Flow(id),
                    bytes,
                });
                g.scratch.push(bytes as f64);
            }
            g.last[id as usize] = acked;
        }
        if g.scratch.len() >= 2
            && let Some(j) = sim_core::stats::jain_index(&g.scratch)
        {
            g.fairness.intervals += 1;
            g.fairness.sum += j;
            g.fairness.min = g.fairness.min.min(j);
        }
    }

    /// The goodput rows kept so far (empty when the series is off or streamed).
    pub fn goodput_samples(&self) -> &[GoodputSample] {
        self.goodput.as_ref().map_or(&[], |g| g.rows.kept())
    }

    /// Jain's index over each interval's open flows so far (`None` when
    /// the series is off).
    pub fn goodput_fairness(&self) -> Option<IntervalFairness> {
        self.goodput.as_ref().map(|g| g.fairness)
    }

    /// The series' interval, if it is on.
    pub fn goodput_interval(&self) -> Option<SimDuration> {
        self.goodput.as_ref().map(|g| g.interval)
    }
}
