//! Per-workload delay metrics: every round-trip time (the samples a sender
//! hands over, `Sender::take_rtt_sample`; ping echoes) and every
//! one-way delay (data packets and source packets, from leaving the
//! sender's stack to arriving at the receiver's), kept in HDR histograms
//! so that a run of billions of packets reports exact counts and
//! percentiles within 0.1% in bounded memory. Optionally (`[output]
//! rtt_interval`) each interval's RTT samples are summarised per workload
//! for `rtt.csv`.

use super::World;
use hdrhistogram::Histogram;
use sim_core::stats::Summary;
use sim_core::{SimDuration, SimTime};

/// Histograms hold nanoseconds, up to an hour; larger values count as an hour.
const MAX_NS: u64 = 3_600_000_000_000;
/// Three significant digits: a percentile is within 0.1% of the true value.
const SIGFIG: u8 = 3;

pub(super) fn histogram() -> Histogram<u64> {
    Histogram::new_with_max(MAX_NS, SIGFIG).expect("the bounds are valid")
}

fn record(h: &mut Option<Histogram<u64>>, d: SimDuration) {
    h.get_or_insert_with(histogram)
        .saturating_record(d.ps() / 1000);
}

/// One workload's delay histograms (created at their first sample).
#[derive(Default)]
pub struct DelayHistograms {
    /// Round-trip times, in ns.
    pub rtt_ns: Option<Histogram<u64>>,
    /// One-way delays, in ns.
    pub one_way_ns: Option<Histogram<u64>>,
}

/// One `rtt.csv` row: a workload's RTT samples in one interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RttRow {
    /// The end of the interval (ps).
    pub time_ps: u64,
    /// The workload.
    pub workload: u32,
    /// Samples in the interval.
    pub samples: u64,
    /// Their mean, in ns.
    pub mean_ns: f64,
    /// Their median, in ns.
    pub p50_ns: u64,
    /// Their 99th percentile, in ns.
    pub p99_ns: u64,
    /// Their largest, in ns.
    pub max_ns: u64,
}

/// The delay metrics of a run.
#[derive(Default)]
pub struct Metrics {
    /// Per workload.
    pub per_workload: Vec<DelayHistograms>,
    /// The interval of the RTT series, if on.
    interval: Option<SimDuration>,
    /// This interval's RTT samples per workload.
    current: Vec<Option<Histogram<u64>>>,
    /// The series so far (or its sink).
    pub(super) rows: super::rows::Rows<RttRow>,
}

impl Metrics {
    /// Metrics for `workloads` workloads, with an RTT series every `interval`.
    pub fn new(workloads: usize, interval: Option<SimDuration>) -> Metrics {
        Metrics {
            per_workload: (0..workloads).map(|_| DelayHistograms::default()).collect(),
            interval,
            current: (0..workloads).map(|_| None).collect(),
            rows: super::rows::Rows::default(),
        }
    }

    /// The RTT series' interval, if it is taken.
    pub fn interval(&self) -> Option<SimDuration> {
        self.interval
    }

    /// Whether the RTT series is on (`output.rtt_interval`).
    pub fn rtt_series_on(&self) -> bool {
        self.interval.is_some()
    }

    /// Records a round-trip time of workload `w`.
    #[inline]
    pub fn rtt(&mut self, w: u32, d: SimDuration) {
        record(&mut self.per_workload[w as usize].rtt_ns, d);
        if self.interval.is_some() {
            record(&mut self.current[w as usize], d);
        }
    }

    /// Records a one-way delay of workload `w`.
    #[inline]
    pub fn one_way(&mut self, w: u32, d: SimDuration) {
        record(&mut self.per_workload[w as usize].one_way_ns, d);
    }
}

impl Metrics {
    /// Takes the histograms of every LP, merged (`finished.rs`), as this
    /// copy's.
    pub(super) fn set_delays(&mut self, merged: Vec<[Option<Histogram<u64>>; 2]>) {
        for (mine, [rtt_ns, one_way_ns]) in self.per_workload.iter_mut().zip(merged) {
            *mine = DelayHistograms { rtt_ns, one_way_ns };
        }
    }

    /// Moves another LP's RTT samples of the current interval into these
    /// (a partitioned run closes each interval in one copy).
    pub(super) fn gather_current(&mut self, other: &mut Metrics) {
        for (mine, its) in self.current.iter_mut().zip(other.current.iter_mut()) {
            if let Some(its) = its.as_mut().filter(|h| !h.is_empty()) {
                mine.get_or_insert_with(histogram)
                    .add(&*its)
                    .expect("histograms of one shape add");
                its.reset();
            }
        }
    }
}

/// A histogram of nanoseconds as a summary in microseconds; percentiles
/// are HDR's (the highest value equivalent to the true one within 0.1%).
pub fn summary_us(h: Option<&Histogram<u64>>) -> Summary {
    let Some(h) = h.filter(|h| !h.is_empty()) else {
        return Summary::default();
    };
    let us = |ns: u64| ns as f64 / 1e3;
    Summary {
        count: h.len() as usize,
        mean: Some(h.mean() / 1e3),
        std: Some(h.stdev() / 1e3),
        min: Some(us(h.min())),
        p50: Some(us(h.value_at_quantile(0.5))),
        p99: Some(us(h.value_at_quantile(0.99))),
        p999: Some(us(h.value_at_quantile(0.999))),
        max: Some(us(h.max())),
    }
}

impl World {
    /// Closes one interval of the RTT series (`series.rs` says when).
    pub(super) fn record_rtt(&mut self, now: SimTime) {
        let m = &mut self.metrics;
        if m.interval.is_none() {
            return;
        }
        for (w, h) in (0u32..).zip(m.current.iter_mut()) {
            let Some(h) = h.as_mut().filter(|h| !h.is_empty()) else {
                continue;
            };
            m.rows.push(RttRow {
                time_ps: now.ps(),
                workload: w,
                samples: h.len(),
                mean_ns: h.mean(),
                p50_ns: h.value_at_quantile(0.5),
                p99_ns: h.value_at_quantile(0.99),
                max_ns: h.max(),
            });
            h.reset();
        }
    }

    /// The RTT series kept so far (empty when it is off or streamed).
    pub fn rtt_rows(&self) -> &[RttRow] {
        self.metrics.rows.kept()
    }
}
