//! Closed-loop rounds (`incast` with `rounds` and no `interval`): a round's
//! flows exist from the start of the run but open their connections only
//! once the receiver holds every byte of every flow of the round before,
//! each after its own delay (`round_gap` plus its start jitter).

use super::{Event, World};
use sim_core::{SimDuration, SimTime};
use std::collections::VecDeque;

/// A closed-loop workload's rounds still to come.
pub(super) struct RoundGate {
    /// Flows of the current round whose data has not all arrived.
    pub waiting: u32,
    /// The later rounds in order: each flow and its delay after the end
    /// of the round before.
    pub later: VecDeque<Vec<(u32, SimDuration)>>,
}

impl World {
    /// Flow `f` of gate `g` was received in full at `now`: the last of its
    /// round starts the next round.
    pub(super) fn round_flow_received(&mut self, now: SimTime, g: u32) {
        let gate = &mut self.gates[g as usize];
        gate.waiting -= 1;
        if gate.waiting > 0 {
            return;
        }
        let Some(next) = gate.later.pop_front() else {
            return;
        };
        gate.waiting = next.len() as u32;
        for (f, delay) in next {
            let at = now + delay;
            self.flows[f].start = at;
            self.q.schedule(at, Event::FlowStart(f));
        }
    }
}
