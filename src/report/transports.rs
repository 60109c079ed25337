//! Per-transport results in `summary.json` (`transports`): a run that mixes
//! transports (r-aqm.txt VI-D Fig. 11: DCTCP and NewReno flows through one
//! bottleneck) reports each one's flows, goodput and fairness.

use super::workloads::flow_rate;
use crate::world::World;
use serde::Serialize;
use sim_core::SimTime;
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
pub fn transports(world: &World) -> Vec<TransportSummary> {
    let end = world.end_time();
    world
        .transports
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mine = world.flows.iter().filter(|f| f.transport as usize == i);
            let (mut flows, mut bytes) = (0, 0u64);
            let (mut first, mut last) = (SimTime::MAX, SimTime::ZERO);
            let (mut rates, mut fcts) = (Vec::new(), Vec::new());
            for f in mine {
                flows += 1;
                bytes += f.sender.bytes_acked();
                first = first.min(f.start);
                last = last.max(f.sender.completed_at().unwrap_or(end));
                rates.extend(flow_rate(f, end));
                if let Some(c) = f.sender.completed_at() {
                    fcts.push(c.since(f.start).ps() as f64 / 1e6);
                }
            }
            let span = last.saturating_since(first).ps();
            TransportSummary {
                name: t.name.clone(),
                family: t.config.family(),
                cc: t.cc(),
                flows,
                completed: fcts.len(),
                bytes_acked: bytes,
                goodput_gbps: (span > 0).then(|| bytes as f64 * 8.0 / span as f64 * 1e3),
                jain_index: jain_index(&rates),
                fct_us: Summary::of(&mut fcts),
            }
        })
        .collect()
}
