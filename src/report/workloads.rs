//! Per-workload results in `summary.json` (`workloads`): each workload's
//! flows, FCTs, fairness and delays, its rounds (incast) and probes (ping),
//! and Jain's index over the flows `output.jain_flows` chooses.

use crate::world::{FlowRow, LOST, RunRecord, summary_us};
use serde::Serialize;
use sim_core::SimTime;
use sim_core::stats::{Summary, jain_index};

/// One workload's results.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct WorkloadSummary {
    /// `[[workload]]` index.
    pub workload: u32,
    /// Its kind.
    pub kind: &'static str,
    /// Its TCP flows.
    pub flows: usize,
    /// Of which completed (data all acknowledged).
    pub completed: usize,
    /// FCTs of its completed flows, in microseconds.
    pub fct_us: Summary,
    /// Jain's index of its flows' goodput (bytes acknowledged / time
    /// active); `null` without an active flow.
    pub jain_index: Option<f64>,
    /// Round-trip times, in microseconds: TCP's timestamp samples (one per
    /// ACK of new data, and the handshake's) or ping echoes. HDR
    /// percentiles, within 0.1%.
    pub rtt_us: Summary,
    /// One-way delays of data packets (TCP segments with data, source
    /// packets, ping probes) from the sender's stack to the receiver's, in
    /// microseconds. HDR percentiles, within 0.1%.
    pub one_way_delay_us: Summary,
    /// Its rounds (incast); `null` for other kinds.
    pub rounds: Option<RoundsSummary>,
    /// Its probes (ping); `null` for other kinds.
    pub probes: Option<ProbesSummary>,
}

/// An incast's rounds.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RoundsSummary {
    /// Rounds planned.
    pub rounds: u32,
    /// Rounds whose every flow was received in full.
    pub completed: u32,
    /// Completed rounds' durations, from the round's first flow start to
    /// its last flow's full receipt, in microseconds.
    pub duration_us: Summary,
}

/// A ping's probes.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ProbesSummary {
    /// Probes sent.
    pub sent: u64,
    /// Echoes received.
    pub answered: u64,
    /// Probes or echoes lost (or still in flight at the end).
    pub lost: u64,
}

/// Jain's index over chosen flows (`output.jain_flows`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Fairness {
    /// The flows, by id.
    pub flows: Vec<u32>,
    /// Jain's index of their goodput; `null` without an active flow.
    pub jain_index: Option<f64>,
}

/// A flow's goodput for fairness: bytes acknowledged per picosecond from its
/// start to its completion or `end`; `None` if it was never active.
pub fn flow_rate(f: &FlowRow, end: SimTime) -> Option<f64> {
    let done = f.completed_at.unwrap_or(end);
    let active = done.saturating_since(f.start).ps();
    (active > 0).then(|| f.bytes_acked as f64 / active as f64)
}

/// What the reports add up over a set of flows (all of a run's, a
/// workload's, a transport's), in flow order.
pub(crate) struct FlowTally {
    /// Flows added.
    pub flows: usize,
    /// Data bytes they had acknowledged.
    pub bytes: u64,
    /// The earliest start and the latest completion (or the run's end).
    first: SimTime,
    last: SimTime,
    /// FCTs of the completed flows, in microseconds.
    pub fcts: Vec<f64>,
    /// Goodput of each flow ever active ([`flow_rate`]).
    pub rates: Vec<f64>,
    /// Their counters, summed.
    pub counters: transport::Counters,
}

impl FlowTally {
    /// An empty tally.
    pub fn new() -> Self {
        FlowTally {
            flows: 0,
            bytes: 0,
            first: SimTime::MAX,
            last: SimTime::ZERO,
            fcts: Vec::new(),
            rates: Vec::new(),
            counters: transport::Counters::default(),
        }
    }

    /// Adds flow `f` of a run that ended at `end`.
    pub fn add(&mut self, f: &FlowRow, end: SimTime) {
        let r = &f.record;
        self.flows += 1;
        self.bytes += r.bytes_acked;
        self.counters += r.counters;
        self.first = self.first.min(f.start);
        self.last = self.last.max(r.completed_at.unwrap_or(end));
        if let Some(c) = r.completed_at {
            self.fcts.push(c.since(f.start).ps() as f64 / 1e6);
        }
        self.rates.extend(flow_rate(f, end));
    }

    /// Acknowledged bits over the time from the first start to the last
    /// completion, in Gb/s; `None` without flows or time.
    pub fn goodput_gbps(&self) -> Option<f64> {
        let span_ps = self.last.saturating_since(self.first).ps();
        (span_ps > 0).then(|| self.bytes as f64 * 8.0 / span_ps as f64 * 1e3)
    }
}

/// One round's (start, end of receipt if complete).
type Round = (SimTime, Option<SimTime>);

/// Every workload's summary.
pub fn workloads(run: &RunRecord) -> Vec<WorkloadSummary> {
    let (end, rows) = (run.end, &run.flows);
    let n = run.workloads.len();
    let mut tallies: Vec<FlowTally> = (0..n).map(|_| FlowTally::new()).collect();
    let mut durations: Vec<Vec<f64>> = vec![Vec::new(); n];
    for (w, _, start, end) in round_rows(run) {
        if let Some((s, e)) = start.zip(end) {
            durations[w as usize].push(e.since(s).ps() as f64 / 1e6);
        }
    }
    for f in rows {
        tallies[f.workload as usize].add(f, end);
    }
    (0u32..)
        .zip(run.workloads)
        .map(|(i, info)| {
            let w = i as usize;
            let h = &run.delays[w];
            let probes = (info.kind == "ping").then(|| {
                let mine = run.sources.iter().filter(|s| s.workload == i);
                let (mut sent, mut answered) = (0, 0);
                for s in mine {
                    sent += s.sent;
                    answered += s.rtt_ps.iter().filter(|&&r| r != LOST).count() as u64;
                }
                ProbesSummary {
                    sent,
                    answered,
                    lost: sent - answered,
                }
            });
            let t = &mut tallies[w];
            WorkloadSummary {
                workload: i,
                kind: info.kind,
                flows: t.flows,
                completed: t.fcts.len(),
                fct_us: Summary::of(&mut t.fcts),
                jain_index: jain_index(&t.rates),
                rtt_us: summary_us(h.rtt_ns.as_ref()),
                one_way_delay_us: summary_us(h.one_way_ns.as_ref()),
                rounds: (info.rounds > 0).then(|| RoundsSummary {
                    rounds: info.rounds,
                    completed: durations[w].len() as u32,
                    duration_us: Summary::of(&mut durations[w]),
                }),
                probes,
            }
        })
        .collect()
}

/// Jain's index over `chosen` flows.
pub fn fairness(run: &RunRecord, chosen: &[u32]) -> Fairness {
    let (end, rows) = (run.end, &run.flows);
    let rates: Vec<f64> = chosen
        .iter()
        .filter_map(|&f| flow_rate(&rows[f as usize], end))
        .collect();
    Fairness {
        flows: chosen.to_vec(),
        jain_index: jain_index(&rates),
    }
}

/// Each round of each workload with rounds, for `rounds.csv`: (workload,
/// round, start, end of receipt if complete).
pub fn round_rows(run: &RunRecord) -> Vec<(u32, u32, Option<SimTime>, Option<SimTime>)> {
    let (mut rows, flows) = (Vec::new(), &run.flows);
    for (i, info) in (0u32..).zip(run.workloads).filter(|w| w.1.rounds > 0) {
        let mut r: Vec<Round> = vec![(SimTime::MAX, Some(SimTime::ZERO)); info.rounds as usize];
        for f in flows.iter().filter(|f| f.workload == i) {
            let x = &mut r[f.round as usize];
            x.0 = x.0.min(f.start);
            x.1 = x.1.zip(f.received_at).map(|(a, b)| a.max(b));
        }
        for (k, (start, end)) in (0u32..).zip(r) {
            let start = (start != SimTime::MAX).then_some(start);
            rows.push((i, k, start, end.filter(|_| start.is_some())));
        }
    }
    rows
}
