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
///
/// Beyond flows, a trigger may count other triggers at its host (`fires`
/// of theirs), start at a planned time, and hold a stream: the form an
/// execution trace's nodes take (`chakra`), where a compute node is a
/// trigger that holds its GPU's compute stream for its delay, and a
/// collective's part at one rank holds the rank's communication stream
/// from its issue to its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TriggerPlan {
    /// The host that sees its inputs and starts its targets.
    pub host: u32,
    /// Its inputs: indices into the plan's flows, and which end counts.
    pub inputs: Vec<(u32, Done)>,
    /// How many activations it needs: of its inputs, plus one from each
    /// trigger that names it in `fires`, plus one at `start` (`inputs.len()`
    /// and the rest: all of them; 1: the first; htsim's barrier count).
    pub needs: u32,
    /// Then this long passes (compute) before the targets start.
    pub delay: SimDuration,
    /// The flows it starts (indices into the plan's flows), each sent by
    /// `host`; a flow is the target of at most one trigger, and its own
    /// `start` is then ignored.
    pub targets: Vec<u32>,
    /// Triggers at the same host that it activates once its delay has
    /// passed (indices into the plan's triggers).
    pub fires: Vec<u32>,
    /// It is activated once at this time (a trace's first nodes).
    pub start: Option<SimDuration>,
    /// A stream it must hold before its delay begins: it waits while
    /// another holds it, the waiting ones taking it in `order`.
    pub acquire: Option<Hold>,
    /// A stream it lets go of when its delay has passed (the one it
    /// acquired, or one another trigger of its host acquired).
    pub release: Option<u32>,
}

/// A stream a trigger waits for and holds (an index into the plan's
/// `streams`), and its place among those waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hold {
    /// The stream.
    pub stream: u32,
    /// Waiting triggers take the stream lowest `order` first (a trace's
    /// node id: ASTRA-sim issues ready nodes in id order).
    pub order: u64,
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
            fires: Vec::new(),
            start: None,
            acquire: None,
            release: None,
        }
    }

    /// Activations it needs beyond its inputs: one from each trigger
    /// whose `fires` names it (`fired_by`), one at its `start`.
    fn other_activations(&self, fired_by: u32) -> u32 {
        fired_by + u32::from(self.start.is_some())
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
    /// `needs` is 0 or more than the activations it can get.
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
    /// Triggers wait on each other in a cycle that holds no flow.
    #[error("triggers {0:?} wait on each other in a cycle, so none of them would fire")]
    TriggerCycle(Vec<u32>),
    /// `fires` names no trigger of the plan.
    #[error("trigger {trigger} fires trigger {named}, but the plan has {triggers} triggers")]
    NoSuchTrigger {
        /// The trigger.
        trigger: usize,
        /// The index given.
        named: u32,
        /// The plan's triggers.
        triggers: usize,
    },
    /// `fires` names a trigger at another host.
    #[error(
        "trigger {trigger} at host {host} fires trigger {other} at host {other_host}: a trigger \
         acts only at its own host"
    )]
    FiresElsewhere {
        /// The trigger.
        trigger: usize,
        /// Its host.
        host: u32,
        /// The trigger it fires.
        other: u32,
        /// That one's host.
        other_host: u32,
    },
    /// A stream it holds or lets go of is not one of its host's.
    #[error("trigger {trigger} at host {host} uses stream {stream}, which is {}", match at {
        Some(h) => format!("host {h}'s"),
        None => "not one of the plan's".to_string(),
    })]
    Stream {
        /// The trigger.
        trigger: usize,
        /// Its host.
        host: u32,
        /// The stream.
        stream: u32,
        /// The stream's host, if it exists.
        at: Option<u32>,
    },
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

    /// Checks the plan's triggers: every index names a flow, trigger or
    /// stream, each input (unless the triggers are instant), target, fired
    /// trigger and stream is at the trigger's host, no flow has two
    /// triggers, `needs` is within the activations it can get, every input
    /// can be done, and nothing waits on itself through a cycle.
    pub fn check_triggers(&self) -> Result<(), TriggerError> {
        let n = self.flows.len();
        let mut started_by: Vec<Option<usize>> = vec![None; n];
        let fired_by = self.check_links()?;
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
            let can_get = tr.inputs.len() as u64 + tr.other_activations(fired_by[t]) as u64;
            if tr.needs == 0 || tr.needs as u64 > can_get {
                return Err(TriggerError::Needs {
                    trigger: t,
                    needs: tr.needs,
                    inputs: can_get as usize,
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

    /// Checks what triggers name beyond flows (the triggers they fire, the
    /// streams they hold) and counts, per trigger, the triggers that
    /// fire it.
    fn check_links(&self) -> Result<Vec<u32>, TriggerError> {
        let mut fired_by = vec![0u32; self.triggers.len()];
        for (t, tr) in self.triggers.iter().enumerate() {
            for &g in &tr.fires {
                let other = self
                    .triggers
                    .get(g as usize)
                    .ok_or(TriggerError::NoSuchTrigger {
                        trigger: t,
                        named: g,
                        triggers: self.triggers.len(),
                    })?;
                if other.host != tr.host {
                    return Err(TriggerError::FiresElsewhere {
                        trigger: t,
                        host: tr.host,
                        other: g,
                        other_host: other.host,
                    });
                }
                fired_by[g as usize] += 1;
            }
            for s in tr.acquire.map(|h| h.stream).into_iter().chain(tr.release) {
                match self.streams.get(s as usize) {
                    Some(&h) if h == tr.host => {}
                    found => {
                        return Err(TriggerError::Stream {
                            trigger: t,
                            host: tr.host,
                            stream: s,
                            at: found.copied(),
                        });
                    }
                }
            }
        }
        Ok(fired_by)
    }

    /// Kahn's algorithm over the graph of flows and triggers ("input flow
    /// -> trigger -> target flow", "trigger -> the triggers it fires"):
    /// the flows and triggers left with waits they can never meet form a
    /// cycle (reported by its flows, or by its triggers where it has
    /// none).
    fn check_acyclic(&self) -> Result<(), TriggerError> {
        let n = self.flows.len();
        // Nodes: flows 0..n, then triggers n...
        let total = n + self.triggers.len();
        let mut waits = vec![0u32; total];
        let mut feeds: Vec<Vec<u32>> = vec![Vec::new(); total];
        for (t, tr) in self.triggers.iter().enumerate() {
            let me = (n + t) as u32;
            waits[me as usize] += tr.inputs.len() as u32;
            for &(f, _) in &tr.inputs {
                feeds[f as usize].push(me);
            }
            for &f in &tr.targets {
                waits[f as usize] += 1;
                feeds[me as usize].push(f);
            }
            for &g in &tr.fires {
                waits[n + g as usize] += 1;
                feeds[me as usize].push((n + g as usize) as u32);
            }
        }
        let mut ready: Vec<u32> = (0..total as u32)
            .filter(|&f| waits[f as usize] == 0)
            .collect();
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
        if seen == total {
            return Ok(());
        }
        let stuck = |range: std::ops::Range<usize>| -> Vec<u32> {
            range
                .filter(|&f| waits[f] > 0)
                .map(|f| f as u32)
                .take(8)
                .collect()
        };
        let flows = stuck(0..n);
        if !flows.is_empty() {
            return Err(TriggerError::Cycle(flows));
        }
        let triggers = stuck(n..total).iter().map(|&t| t - n as u32).collect();
        Err(TriggerError::TriggerCycle(triggers))
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

    /// Triggers may fire triggers and hold streams of their own host only;
    /// a loop of triggers with no flow in it is a cycle too.
    #[test]
    fn fires_and_streams_stay_at_their_host() {
        let blank = |host| {
            let mut t = TriggerPlan::all(host, Vec::new(), SimDuration::ZERO, Vec::new());
            t.needs = 1;
            t
        };
        let mut a = blank(0);
        a.start = Some(SimDuration::ZERO);
        a.fires = vec![1];
        let p = Plan {
            triggers: vec![a.clone(), blank(1)],
            ..Plan::default()
        };
        assert!(matches!(
            p.check_triggers(),
            Err(TriggerError::FiresElsewhere {
                other: 1,
                other_host: 1,
                ..
            })
        ));
        let mut held = a.clone();
        held.fires.clear();
        held.acquire = Some(Hold {
            stream: 0,
            order: 0,
        });
        let p = Plan {
            triggers: vec![held.clone()],
            streams: vec![1],
            ..Plan::default()
        };
        let e = p.check_triggers().unwrap_err();
        assert_eq!(
            e.to_string(),
            "trigger 0 at host 0 uses stream 0, which is host 1's"
        );
        let p = Plan {
            triggers: vec![held],
            streams: vec![0],
            ..Plan::default()
        };
        assert_eq!(p.check_triggers(), Ok(()));
        // 0 fires 1 fires 0: neither ever gets its activation.
        let (mut x, mut y) = (blank(0), blank(0));
        x.fires = vec![1];
        y.fires = vec![0];
        let p = Plan {
            triggers: vec![x, y],
            ..Plan::default()
        };
        assert_eq!(
            p.check_triggers(),
            Err(TriggerError::TriggerCycle(vec![0, 1]))
        );
        // A trigger with nothing to activate it.
        let p = Plan {
            triggers: vec![blank(0)],
            ..Plan::default()
        };
        assert!(matches!(
            p.check_triggers(),
            Err(TriggerError::Needs {
                needs: 1,
                inputs: 0,
                ..
            })
        ));
    }
}
