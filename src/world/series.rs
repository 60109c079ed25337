//! The sampled series (`queues.csv`, `goodput.csv`, `rtt.csv`, `cc.csv`,
//! `links.csv`):
//! each is taken every interval while traffic remains, so sampling stops
//! with the traffic, not at the stop time (and a run to completion still
//! ends). One list of them, and one rule for when the next sample falls;
//! what each records is in its own module.

use super::{Event, World};
use sim_core::{SimDuration, SimTime};

/// A sampled series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Series {
    /// The traced flows' controllers (`cc.csv`).
    Cc,
    /// Goodput per interval (`goodput.csv`).
    Goodput,
    /// The RTT samples of each interval (`rtt.csv`).
    Rtt,
    /// Queue occupancy (`queues.csv`).
    Queues,
    /// Link utilisation per tier (`links.csv`).
    Links,
}

impl Series {
    /// Every series, in the order their first samples are scheduled, which
    /// is the order samples due at one time are taken in a partitioned run.
    pub const ALL: [Series; 5] = [
        Series::Cc,
        Series::Goodput,
        Series::Rtt,
        Series::Queues,
        Series::Links,
    ];

    /// The `[output]` key that asks for it.
    pub fn key(self) -> &'static str {
        match self {
            Series::Cc => "output.cc_trace",
            Series::Goodput => "output.goodput_interval",
            Series::Rtt => "output.rtt_interval",
            Series::Queues => "output.queue_interval",
            Series::Links => "output.link_interval",
        }
    }
}

impl World {
    /// The first series this world samples, if any.
    pub(super) fn first_series(&self) -> Option<Series> {
        Series::ALL
            .into_iter()
            .find(|&s| self.interval_of(s).is_some())
    }

    /// How often `s` is sampled, if the run takes it.
    pub(super) fn interval_of(&self, s: Series) -> Option<SimDuration> {
        match s {
            Series::Cc => self.cc_trace.as_ref().map(|t| t.interval),
            Series::Goodput => self.goodput.as_ref().map(|g| g.interval),
            Series::Rtt => self.metrics.interval(),
            Series::Queues => self.sample_interval,
            Series::Links => self.links.as_ref().map(|l| l.interval),
        }
    }

    /// When `s`'s first sample falls: at time zero for the queues (the
    /// empty fabric), after one interval for the others.
    pub(super) fn first_sample(&self, s: Series) -> Option<SimTime> {
        let i = self.interval_of(s)?;
        Some(match s {
            Series::Queues => SimTime::ZERO,
            _ => SimTime::ZERO + i,
        })
    }

    /// Takes one sample of `s` at `now` (its rows only); what a cut run's
    /// other LPs run (ports, flow halves) is read in their copies, `others`.
    pub(super) fn record(&mut self, s: Series, now: SimTime, others: &[&World]) {
        match s {
            Series::Cc => self.record_cc(now, others),
            Series::Goodput => self.record_goodput(now, others),
            Series::Rtt => self.record_rtt(now),
            Series::Queues => self.record_queues(now, others),
            Series::Links => self.record_links(now, others),
        }
    }

    /// A sample event of an undivided run: the sample, and the next one
    /// interval later while traffic remains and anything else is pending.
    pub(super) fn sample(&mut self, s: Series, now: SimTime) {
        self.record(s, now, &[]);
        if let Some(i) = self.interval_of(s)
            && self.traffic_pending()
            && !self.q.is_empty()
        {
            self.q.schedule(now + i, Event::Sample(s));
        }
    }
}
