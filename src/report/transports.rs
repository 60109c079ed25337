//! Per-transport results in `summary.json` (`transports`): a run that mixes
//! transports (R-AQM paper VI-D Fig. 11: DCTCP and NewReno flows through one
//! bottleneck) reports each one's flows, goodput and fairness.

use super::workloads::FlowTally;
use crate::world::RunRecord;
use serde::Serialize;
use sim_core::stats::{Summary, jain_index};

/// One transport's results.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct TransportSummary {
    /// Its name (`default` for an unnamed `[transport]`).
    pub name: String,
    /// Its family (`tcp`).
    pub family: &'static str,
    /// Its congestion controller.
    pub cc: &'static str,
    /// Its flows.
    pub flows: usize,
    /// Of which completed.
    pub completed: usize,
    /// Data bytes its flows had acknowledged.
    pub bytes_acked: u64,
    /// Their acknowledged bits over the time from their first start to
    /// their last completion (or the end), in Gb/s; `null` without flows.
    pub goodput_gbps: Option<f64>,
    /// Jain's index of its flows' goodput (bytes acknowledged / time active).
    pub jain_index: Option<f64>,
    /// FCTs of its completed flows, in microseconds.
    pub fct_us: Summary,
}

/// Every transport's summary, in the scenario's order.
pub fn transports(run: &RunRecord) -> Vec<TransportSummary> {
    let end = run.end;
    let mut tallies: Vec<FlowTally> = run.transports.iter().map(|_| FlowTally::new()).collect();
    for f in &run.flows {
        tallies[f.transport as usize].add(f, end);
    }
    run.transports
        .iter()
        .zip(tallies)
        .map(|(t, mut tally)| TransportSummary {
            name: t.name.clone(),
            family: t.config.family(),
            cc: t.cc(),
            flows: tally.flows,
            completed: tally.fcts.len(),
            bytes_acked: tally.bytes,
            goodput_gbps: tally.goodput_gbps(),
            jain_index: jain_index(&tally.rates),
            fct_us: Summary::of(&mut tally.fcts),
        })
        .collect()
}
