//! The controller trace of `cc.csv` (`[output] cc_trace`): every
//! `interval`, each chosen flow's congestion-control state, as its
//! endpoints report it by name (the window or rate applied, and the
//! controller's own variables, each named by its controller: docs/outputs.md
//! lists them). A flow has rows from its start until it completes.

use super::World;
use sim_core::{SimDuration, SimTime};
use transport::{ReceiverEnd, SenderEnd, Side};

/// One `cc.csv` row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcSample {
    /// When (ps).
    pub time_ps: u64,
    /// The flow.
    pub flow: u32,
    /// The variable's name, unit last (`cwnd_bytes`, `rate_gbps`, `alpha`).
    pub variable: &'static str,
    /// Its value.
    pub value: f64,
}

/// What the trace keeps between samples.
pub(super) struct CcTrace {
    pub interval: SimDuration,
    /// The traced flows, by id.
    pub flows: Vec<u32>,
    /// The rows so far (or their sink).
    pub rows: super::rows::Rows<CcSample>,
}

impl World {
    /// Records the traced flows' controller state (`series.rs` says
    /// when), each half read in the copy that runs it: this one or one of
    /// `others` (a cut run's other LPs).
    pub(super) fn record_cc(&mut self, now: SimTime, others: &[&World]) {
        let Some(mut t) = self.cc_trace.take() else {
            return;
        };
        for &id in &t.flows {
            let f = self.runner_of(others, id, Side::Sender);
            if f.start > now || f.sender.completed_at().is_some_and(|c| c < now) {
                continue;
            }
            let rx = self.runner_of(others, id, Side::Receiver);
            let rows = &mut t.rows;
            let mut push = |variable: &'static str, value: f64| {
                rows.push(CcSample {
                    time_ps: now.ps(),
                    flow: id,
                    variable,
                    value,
                });
            };
            f.sender.cc_state(&mut push);
            rx.receiver.cc_state(&mut push);
        }
        self.cc_trace = Some(t);
    }

    /// The controller trace kept so far (empty when it is off or streamed).
    pub fn cc_samples(&self) -> &[CcSample] {
        self.cc_trace.as_ref().map_or(&[], |t| t.rows.kept())
    }

    /// Whether `cc_trace` is on.
    pub fn cc_trace_on(&self) -> bool {
        self.cc_trace.is_some()
    }
}
