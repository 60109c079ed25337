//! Dependencies between transfers, as a workload plans them: a flow that
//! starts when others are done rather than at a time.
//!
//! A trigger lives at one host. Its inputs are flows whose completion that
//! host sees itself: a flow it receives (done when its last byte arrives
//! there) or a flow it sends (done when its last byte is acknowledged). Its
//! targets are flows that host sends. When `needs` of its inputs are done
//! it waits `delay` (compute) and starts its targets. A dependency thus
//! never couples two hosts at the same instant: what one host learns of
//! another crossed the network as data or acknowledgments, which is what
//! lets a partitioned run keep a trigger inside one logical process (see
//! docs/architecture.md, "Dependencies"). htsim's triggers (uet-htsim
//! `trigger.h`) are global objects that fire at zero delay; the
//! connection-matrix reader carries a barrier that spans hosts as
//! notification messages instead (`matrix.rs`).

use super::{FlowPlan, Plan};
use sim_core::SimDuration;

/// Which end of an input flow must be done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Done {
    /// Its receiver holds every byte (the trigger's host is its receiver).
    Received,
    /// Its sender has every byte acknowledged (the trigger's host is its
    /// sender).
    Sent,
}

/// One trigger of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerPlan {
    /// The host that sees its inputs and starts its targets.
    pub host: u32,
    /// Its inputs: indices into the plan's flows, and which end counts.
    pub inputs: Vec<(u32, Done)>,
    /// How many inputs must be done (`inputs.len()`: all of them; 1: the
    /// first; htsim's barrier count).
    pub needs: u32,
    /// Then this long passes (compute) before the targets start.
    pub delay: SimDuration,
    /// The flows it starts (indices into the plan's flows), each sent by
    /// `host`; a flow is the target of at most one trigger, and its own
    /// `start` is then ignored.
    pub targets: Vec<u32>,
}

impl TriggerPlan {
    /// A trigger at `host` that starts `targets` once every one of
    /// `inputs` is done, after `delay`.
    pub fn all(host: u32, inputs: Vec<(u32, Done)>, delay: SimDuration, targets: Vec<u32>) -> Self {
        TriggerPlan {
            host,
            needs: inputs.len() as u32,
            inputs,
            delay,
            targets,
        }
    }
}

/// Why a plan's triggers cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TriggerError {
    /// An index names no flow of the plan.
    #[error("trigger {trigger} names flow {flow}, but the plan has {flows} flows")]
    NoSuchFlow {
        /// The trigger.
        trigger: usize,
        /// The index given.
        flow: u32,
        /// The plan's flows.
        flows: usize,
    },
    /// An input or target is not at the trigger's host.
    #[error(
        "trigger {trigger} at host {host}: flow {flow} ({src}->{dst}) is not {what} that host, \
         and a dependency acts only where it is seen"
    )]
    NotLocal {
        /// The trigger.
        trigger: usize,
        /// Its host.
        host: u32,
        /// The flow.
        flow: u32,
        /// Its sender.
        src: u32,
        /// Its receiver.
        dst: u32,
        /// What it should have been.
        what: &'static str,
    },
    /// A flow is the target of two triggers.
    #[error("flow {flow} is started by two triggers ({first} and {second})")]
    TwoTriggers {
        /// The flow.
        flow: u32,
        /// The first trigger.
        first: usize,
        /// The second.
        second: usize,
    },
    /// `needs` is 0 or more than the inputs.
    #[error("trigger {trigger} needs {needs} of its {inputs} inputs")]
    Needs {
        /// The trigger.
        trigger: usize,
        /// Its `needs`.
        needs: u32,
        /// Its inputs.
        inputs: usize,
    },
    /// A target is unbounded: it would never be done.
    #[error("trigger {trigger} waits on flow {flow}, which has no size and is never done")]
    Unbounded {
        /// The trigger.
        trigger: usize,
        /// The flow.
        flow: u32,
    },
    /// The dependencies form a cycle: its flows never start.
    #[error("flows {0:?} wait on each other in a cycle, so none of them would start")]
    Cycle(Vec<u32>),
}

impl Plan {
    /// The index of the trigger that starts each flow, if any.
    pub fn trigger_of(&self) -> Vec<Option<u32>> {
        let mut of = vec![None; self.flows.len()];
        for (t, tr) in (0u32..).zip(&self.triggers) {
            for &f in &tr.targets {
                if let Some(slot) = of.get_mut(f as usize) {
                    *slot = Some(t);
                }
            }
        }
        of
    }

    /// Checks the plan's triggers: every index names a flow, each input
    /// (unless the triggers are instant) and target is at the trigger's
    /// host, no flow has two triggers, `needs`
    /// is within the inputs, every input can be done, and nothing waits on
    /// itself through a cycle.
    pub fn check_triggers(&self) -> Result<(), TriggerError> {
        let n = self.flows.len();
        let mut started_by: Vec<Option<usize>> = vec![None; n];
        for (t, tr) in self.triggers.iter().enumerate() {
            let flow = |f: u32| -> Result<&FlowPlan, TriggerError> {
                self.flows.get(f as usize).ok_or(TriggerError::NoSuchFlow {
                    trigger: t,
                    flow: f,
                    flows: n,
                })
            };
            let not_local = |f: u32, p: &FlowPlan, what| TriggerError::NotLocal {
                trigger: t,
                host: tr.host,
                flow: f,
                src: p.src,
                dst: p.dst,
                what,
            };
            if tr.needs == 0 || tr.needs as usize > tr.inputs.len() {
                return Err(TriggerError::Needs {
                    trigger: t,
                    needs: tr.needs,
                    inputs: tr.inputs.len(),
                });
            }
            for &(f, done) in &tr.inputs {
                let p = flow(f)?;
                let (at, what) = match done {
                    Done::Received => (p.dst, "received at"),
                    Done::Sent => (p.src, "sent from"),
                };
                if at != tr.host && !self.instant_triggers {
                    return Err(not_local(f, p, what));
                }
                if p.size.is_none() {
                    return Err(TriggerError::Unbounded {
                        trigger: t,
                        flow: f,
                    });
                }
            }
            for &f in &tr.targets {
                let p = flow(f)?;
                if p.src != tr.host {
                    return Err(not_local(f, p, "sent from"));
                }
                if let Some(first) = started_by[f as usize].replace(t) {
                    return Err(TriggerError::TwoTriggers {
                        flow: f,
                        first,
                        second: t,
                    });
                }
            }
        }
        self.check_acyclic()
    }

    /// Kahn's algorithm over "input flow -> target flow": the flows left
    /// with waits they can never meet form a cycle.
    fn check_acyclic(&self) -> Result<(), TriggerError> {
        let n = self.flows.len();
        let mut waits = vec![0u32; n];
        let mut feeds: Vec<Vec<u32>> = vec![Vec::new(); n];
        for tr in &self.triggers {
            for &t in &tr.targets {
                waits[t as usize] += tr.inputs.len() as u32;
            }
            for &(f, _) in &tr.inputs {
                feeds[f as usize].extend(&tr.targets);
            }
        }
        let mut ready: Vec<u32> = (0..n as u32).filter(|&f| waits[f as usize] == 0).collect();
        let mut seen = 0;
        while let Some(f) = ready.pop() {
            seen += 1;
            for &t in &feeds[f as usize] {
                waits[t as usize] -= 1;
                if waits[t as usize] == 0 {
                    ready.push(t);
                }
            }
        }
        if seen == n {
            return Ok(());
        }
        let stuck: Vec<u32> = (0..n as u32)
            .filter(|&f| waits[f as usize] > 0)
            .take(8)
            .collect();
        Err(TriggerError::Cycle(stuck))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flow(src: u32, dst: u32) -> FlowPlan {
        FlowPlan {
            src,
            dst,
            size: Some(1000),
            start: SimDuration::ZERO,
            start_jitter: SimDuration::ZERO,
            stop: None,
            round: 0,
        }
    }

    fn plan(flows: Vec<FlowPlan>, triggers: Vec<TriggerPlan>) -> Plan {
        Plan {
            flows,
            triggers,
            ..Plan::default()
        }
    }

    #[test]
    fn a_chain_of_local_dependencies_is_accepted() {
        // 0->1, then 1->2 once host 1 has it, then 2->0.
        let p = plan(
            vec![flow(0, 1), flow(1, 2), flow(2, 0)],
            vec![
                TriggerPlan::all(1, vec![(0, Done::Received)], SimDuration::ZERO, vec![1]),
                TriggerPlan::all(2, vec![(1, Done::Received)], SimDuration::ZERO, vec![2]),
            ],
        );
        assert_eq!(p.check_triggers(), Ok(()));
        assert_eq!(p.trigger_of(), vec![None, Some(0), Some(1)]);
    }

    #[test]
    fn an_input_seen_at_another_host_is_refused() {
        // Host 2 cannot see that host 1 received flow 0.
        let p = plan(
            vec![flow(0, 1), flow(2, 0)],
            vec![TriggerPlan::all(
                2,
                vec![(0, Done::Received)],
                SimDuration::ZERO,
                vec![1],
            )],
        );
        let e = p.check_triggers().unwrap_err();
        assert!(matches!(e, TriggerError::NotLocal { flow: 0, .. }), "{e}");
        // Nor can host 0 start a flow that host 2 sends.
        let p = plan(
            vec![flow(0, 1), flow(2, 0)],
            vec![TriggerPlan::all(
                0,
                vec![(0, Done::Sent)],
                SimDuration::ZERO,
                vec![1],
            )],
        );
        assert!(matches!(
            p.check_triggers(),
            Err(TriggerError::NotLocal { flow: 1, .. })
        ));
    }

    #[test]
    fn cycles_double_starts_and_bad_counts_are_refused() {
        let cyc = plan(
            vec![flow(0, 1), flow(1, 0)],
            vec![
                TriggerPlan::all(1, vec![(0, Done::Received)], SimDuration::ZERO, vec![1]),
                TriggerPlan::all(0, vec![(1, Done::Received)], SimDuration::ZERO, vec![0]),
            ],
        );
        assert_eq!(cyc.check_triggers(), Err(TriggerError::Cycle(vec![0, 1])));
        let twice = plan(
            vec![flow(0, 1), flow(1, 0), flow(1, 2)],
            vec![
                TriggerPlan::all(1, vec![(0, Done::Received)], SimDuration::ZERO, vec![2]),
                TriggerPlan::all(1, vec![(1, Done::Sent)], SimDuration::ZERO, vec![2]),
            ],
        );
        assert!(matches!(
            twice.check_triggers(),
            Err(TriggerError::TwoTriggers { flow: 2, .. })
        ));
        let mut t = TriggerPlan::all(1, vec![(0, Done::Received)], SimDuration::ZERO, vec![1]);
        t.needs = 2;
        let over = plan(vec![flow(0, 1), flow(1, 0)], vec![t]);
        assert!(matches!(
            over.check_triggers(),
            Err(TriggerError::Needs { needs: 2, .. })
        ));
    }
}
