//! `kind = "long-flows"`: long-lived flows between given pairs, either all
//! on one start and stop (`pairs`), or each on its own (`schedule`: flows
//! joining and leaving in a set order, FairQ Fig. 2 and RCC Fig. 6).

use super::{FlowPlan, Plan, PlanEnv, Workload, check_host, check_size, check_stop};
use super::{priority_zero, start_plus_jitter};
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};

/// One flow of a `schedule`; its absent keys are the workload's.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    src: u32,
    dst: u32,
    start: Option<SimDuration>,
    stop: Option<SimDuration>,
    size: Option<Bytes>,
}

/// A checked `long-flows` workload.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LongFlows {
    pairs: Option<Vec<Vec<u32>>>,
    schedule: Option<Vec<Entry>>,
    #[serde(default)]
    start: SimDuration,
    #[serde(default)]
    start_jitter: SimDuration,
    stop: Option<SimDuration>,
    size: Option<Bytes>,
    #[serde(default = "priority_zero")]
    priority: u8,
}

/// One flow as planned, with the keys its values came from (for errors).
struct Resolved {
    /// `pairs[i]` or `schedule[i]`.
    key: String,
    hosts: Vec<u32>,
    start: SimDuration,
    stop: Option<SimDuration>,
    /// `stop` or `schedule[i].stop`.
    stop_key: String,
    size: Option<Bytes>,
    /// `size` or `schedule[i].size`.
    size_key: String,
}

impl LongFlows {
    /// Every flow, its absent keys filled from the workload's.
    fn resolved(&self) -> Vec<Resolved> {
        let own = |key: &str, entry: bool, name: &str| {
            if entry {
                format!("{key}.{name}")
            } else {
                name.to_string()
            }
        };
        match (&self.pairs, &self.schedule) {
            (Some(pairs), _) => (0..)
                .zip(pairs)
                .map(|(i, p)| Resolved {
                    key: format!("pairs[{i}]"),
                    hosts: p.clone(),
                    start: self.start,
                    stop: self.stop,
                    stop_key: "stop".into(),
                    size: self.size,
                    size_key: "size".into(),
                })
                .collect(),
            (None, Some(schedule)) => (0..)
                .zip(schedule)
                .map(|(i, e)| {
                    let key = format!("schedule[{i}]");
                    Resolved {
                        hosts: vec![e.src, e.dst],
                        start: e.start.unwrap_or(self.start),
                        stop: e.stop.or(self.stop),
                        stop_key: own(&key, e.stop.is_some(), "stop"),
                        size: e.size.or(self.size),
                        size_key: own(&key, e.size.is_some(), "size"),
                        key,
                    }
                })
                .collect(),
            (None, None) => Vec::new(),
        }
    }
}

impl Workload for LongFlows {
    fn kind(&self) -> &'static str {
        "long-flows"
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn check(&self, hosts: u32) -> Result<(), (String, String)> {
        match (&self.pairs, &self.schedule) {
            (Some(_), Some(_)) => {
                let msg = "give pairs (flows sharing start and stop) or schedule (each flow \
                           its own), not both";
                return Err(("schedule".into(), msg.into()));
            }
            (None, None) => {
                let msg = "give pairs = [[src, dst], ...] or schedule = [{ src, dst, start, \
                           stop }, ...]";
                return Err(("pairs".into(), msg.into()));
            }
            _ => {}
        }
        let flows = self.resolved();
        if flows.is_empty() {
            let key = if self.pairs.is_some() {
                "pairs"
            } else {
                "schedule"
            };
            return Err((key.into(), "no flows".into()));
        }
        for f in flows {
            let &[a, b] = f.hosts.as_slice() else {
                let msg = format!(
                    "{:?} has {} hosts: a pair is [src, dst]",
                    f.hosts,
                    f.hosts.len()
                );
                return Err((f.key, msg));
            };
            check_host(&f.key, a, hosts)?;
            check_host(&f.key, b, hosts)?;
            if a == b {
                return Err((f.key, format!("[{a}, {b}] sends from a host to itself")));
            }
            if let Some(s) = f.size {
                check_size(&f.size_key, s)?;
            }
            let latest = start_plus_jitter(f.start, self.start_jitter)?;
            check_stop(latest, f.stop).map_err(|(_, m)| (f.stop_key, m))?;
        }
        Ok(())
    }
    fn endless(&self) -> Option<&'static str> {
        self.resolved()
            .iter()
            .any(|f| f.stop.is_none() && f.size.is_none())
            .then_some("long flows with neither stop nor size")
    }
    fn plan(&self, _env: &PlanEnv<'_>) -> Plan {
        let flows = self
            .resolved()
            .into_iter()
            .map(|f| FlowPlan {
                src: f.hosts[0],
                dst: f.hosts[1],
                size: f.size.map(|b| b.0),
                start: f.start,
                start_jitter: self.start_jitter,
                stop: f.stop,
                round: 0,
            })
            .collect();
        Plan::of_flows(flows)
    }
}
