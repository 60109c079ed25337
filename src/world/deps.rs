//! Flows that start when others are done (the triggers a workload plans,
//! `registry::workload::trigger`). A trigger counts down as its inputs
//! finish at its host: a flow received there in full (its last byte
//! arrived) or sent from there in full (its last byte acknowledged). At
//! zero it starts its targets, all sent by that same host, after its
//! delay. Everything a trigger reads and writes is at one host, so in a
//! partitioned run it lives in that host's logical process, like the
//! flow halves there; what one host learns of another has crossed the
//! network as packets, which is the lookahead the windows rely on.

use super::{Event, World};
use crate::registry::workload::{CollectivePlan, Done, TriggerPlan};
use net::HostId;
use sim_core::{SimDuration, SimTime};

/// Every trigger of a run, and which flows feed which.
#[derive(Default)]
pub(super) struct Deps {
    triggers: Vec<Trigger>,
    /// By flow id: the triggers its full receipt counts toward (empty
    /// when the run has no triggers).
    received: Vec<Vec<u32>>,
    /// By flow id: the triggers its full acknowledgment counts toward.
    sent: Vec<Vec<u32>>,
}

/// One trigger.
struct Trigger {
    host: HostId,
    /// Inputs still to finish before it fires (0: fired).
    remaining: u32,
    delay: SimDuration,
    /// The flows it starts (world flow ids).
    targets: Vec<u32>,
}

/// One collective a job carried out, with its flows as world flow ids.
#[derive(Debug, Clone)]
pub struct JobCollective {
    /// The `[[workload]]` of its job.
    pub workload: u32,
    /// What it was.
    pub plan: CollectivePlan,
}

impl World {
    /// Adds the triggers of a workload whose first flow has id `first`.
    pub(super) fn add_triggers(&mut self, first: u32, triggers: &[TriggerPlan]) {
        let n = self.flows.len();
        self.deps.received.resize(n, Vec::new());
        self.deps.sent.resize(n, Vec::new());
        for tr in triggers {
            let id = self.deps.triggers.len() as u32;
            for &(f, done) in &tr.inputs {
                let list = match done {
                    Done::Received => &mut self.deps.received,
                    Done::Sent => &mut self.deps.sent,
                };
                list[(first + f) as usize].push(id);
            }
            self.deps.triggers.push(Trigger {
                host: HostId(tr.host),
                remaining: tr.needs,
                delay: tr.delay,
                targets: tr.targets.iter().map(|&t| first + t).collect(),
            });
        }
    }

    /// Flow `f` was received in full at `now`: its closed-loop round
    /// `gate` and the triggers it feeds count it.
    pub(super) fn flow_received(&mut self, now: SimTime, f: u32, gate: Option<u32>) {
        if let Some(g) = gate {
            self.round_flow_received(now, g);
        }
        self.flow_done(now, f, Done::Received);
    }

    /// Flow `f`'s data was all acknowledged at `now`.
    pub(super) fn flow_sent(&mut self, now: SimTime, f: u32) {
        self.flow_done(now, f, Done::Sent);
    }

    /// End `done` of flow `f` finished: each trigger it feeds counts it.
    fn flow_done(&mut self, now: SimTime, f: u32, done: Done) {
        for i in 0..self.deps.fed(f, done).len() {
            let t = self.deps.fed(f, done)[i];
            self.activate(now, t);
        }
    }

    /// One input of trigger `t` finished: at the last one needed, its
    /// targets start after its delay.
    fn activate(&mut self, now: SimTime, t: u32) {
        let host = self.deps.triggers[t as usize].host;
        debug_assert!(self.owns_host(host), "a trigger acts in its host's LP");
        let tr = &mut self.deps.triggers[t as usize];
        if tr.remaining == 0 {
            return; // fired on fewer inputs than it has
        }
        tr.remaining -= 1;
        if tr.remaining > 0 {
            return;
        }
        let at = now + tr.delay;
        for i in 0..tr.targets.len() {
            let f = self.deps.triggers[t as usize].targets[i];
            self.flows[f].start = at;
            self.q.schedule(at, Event::FlowStart(f));
        }
    }
}

impl Deps {
    /// The triggers end `done` of flow `f` counts toward.
    fn fed(&self, f: u32, done: Done) -> &[u32] {
        let by_flow = match done {
            Done::Received => &self.received,
            Done::Sent => &self.sent,
        };
        by_flow.get(f as usize).map_or(&[], Vec::as_slice)
    }

    /// Takes over the state of the triggers at `hosts` (an LP copy's own)
    /// from that copy.
    pub(super) fn absorb(&mut self, other: &Deps, hosts: &[bool]) {
        for (mine, its) in self.triggers.iter_mut().zip(&other.triggers) {
            if hosts[its.host.idx()] {
                mine.remaining = its.remaining;
            }
        }
    }
}
