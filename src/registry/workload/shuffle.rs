//! `kind = "shuffle"`: all-to-all among the chosen hosts, as in MapReduce's
//! shuffle (R-AQM section VI-C): every host sends every other host one
//! elephant (500 KB) and K mice (K = 50 of 5 KB), so each host sends and
//! receives (n - 1)(1 + K) flows.
//!
//! The paper runs it "at a load" without saying how flows are timed. Here,
//! without `load`, every flow starts at `start` (spread by `start_jitter`);
//! with `load`, each sender issues its flows in a random order (drawn from
//! the seed) as a Poisson process offering `load` of its host link, the
//! same convention as `kind = "flows"`: `lambda = load x C / (8 x mean)`,
//! `mean` the sender's mean flow size. The sender's stream is
//! `purpose::SHUFFLE`, component workload index x 2^32 + host.

use super::flows::MAX_FLOWS;
use super::{FlowPlan, HostSet, Load, Plan, PlanEnv, Workload, check_size, distinct_hosts};
use super::{priority_zero, start_plus_jitter};
use serde::Deserialize;
use sim_core::{Bytes, RngStream, SimDuration};

fn elephant_default() -> Bytes {
    Bytes(500_000) // R-AQM VI-C
}
fn mice_default() -> u32 {
    50 // R-AQM VI-C
}
fn mouse_default() -> Bytes {
    Bytes(5_000) // R-AQM VI-C
}

/// A checked `shuffle` workload.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shuffle {
    hosts: HostSet,
    #[serde(default = "elephant_default")]
    elephant_size: Bytes,
    #[serde(default = "mice_default")]
    mice: u32,
    #[serde(default = "mouse_default")]
    mouse_size: Bytes,
    load: Option<f64>,
    #[serde(default)]
    start: SimDuration,
    #[serde(default)]
    start_jitter: SimDuration,
    #[serde(default = "priority_zero")]
    priority: u8,
}

impl Shuffle {
    /// The flows one sender sends to one receiver: the elephant, then the mice.
    fn per_pair(&self) -> impl Iterator<Item = u64> + '_ {
        std::iter::once(self.elephant_size.0)
            .chain(std::iter::repeat_n(self.mouse_size.0, self.mice as usize))
    }
    /// A sender's mean flow size.
    fn mean_bytes(&self) -> f64 {
        let total = self.elephant_size.0 as f64 + self.mice as f64 * self.mouse_size.0 as f64;
        total / (1.0 + self.mice as f64)
    }
}

impl Workload for Shuffle {
    fn kind(&self) -> &'static str {
        "shuffle"
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn flows_bound(&self, hosts: u32) -> Option<u64> {
        let n = distinct_hosts("hosts", &self.hosts, hosts, 2).ok()?.len() as u64;
        Some(n * (n - 1) * (1 + self.mice as u64))
    }
    fn check(&self, hosts: u32) -> Result<(), (String, String)> {
        let n = distinct_hosts("hosts", &self.hosts, hosts, 2)?.len() as u64;
        check_size("elephant_size", self.elephant_size)?;
        if self.mice > 0 {
            check_size("mouse_size", self.mouse_size)?;
        }
        let flows = n * (n - 1) * (1 + self.mice as u64);
        if flows > MAX_FLOWS {
            let msg = format!(
                "{n} hosts x {} others x (1 + {} mice) = {flows} flows, more than {MAX_FLOWS}",
                n - 1,
                self.mice
            );
            return Err(("hosts".into(), msg));
        }
        start_plus_jitter(self.start, self.start_jitter)?;
        match self.load {
            Some(_) if self.start_jitter != SimDuration::ZERO => Err((
                "start_jitter".into(),
                "with load, flows arrive as a Poisson process: start_jitter has no meaning".into(),
            )),
            Some(l) if !(l > 0.0 && l <= 1.0) => Err((
                "load".into(),
                format!("load {l} is out of range: it must be above 0 and at most 1"),
            )),
            _ => Ok(()),
        }
    }
    fn endless(&self) -> Option<&'static str> {
        None
    }
    fn plan(&self, env: &PlanEnv<'_>) -> Plan {
        let hosts: Vec<u32> = self.hosts.iter().collect();
        let mut flows = Vec::new();
        let Some(load) = self.load else {
            for &src in &hosts {
                for &dst in hosts.iter().filter(|&&d| d != src) {
                    flows.extend(self.per_pair().map(|size| FlowPlan {
                        src,
                        dst,
                        size: Some(size),
                        start: self.start,
                        start_jitter: self.start_jitter,
                        stop: None,
                        round: 0,
                    }));
                }
            }
            return Plan::of_flows(flows);
        };
        let purpose = sim_core::rng::purpose::SHUFFLE;
        for &src in &hosts {
            let component = ((env.index as u64) << 32) | src as u64;
            let mut rng = RngStream::new(env.seed, component, purpose);
            let mut mine: Vec<(u32, u64)> = hosts
                .iter()
                .filter(|&&d| d != src)
                .flat_map(|&dst| self.per_pair().map(move |size| (dst, size)))
                .collect();
            for i in (1..mine.len()).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                mine.swap(i, j);
            }
            let bps = env.topology.host_rate(src).bps() as f64;
            let gap = SimDuration::from_ps_f64(8.0 * self.mean_bytes() * 1e12 / (load * bps));
            let mut t = self.start.ps();
            for (dst, size) in mine {
                t = t.saturating_add(rng.exp_duration(gap).ps());
                flows.push(FlowPlan {
                    src,
                    dst,
                    size: Some(size),
                    start: SimDuration::from_ps(t),
                    start_jitter: SimDuration::ZERO,
                    stop: None,
                    round: 0,
                });
            }
        }
        // Flows are numbered in start order (ties: sender position, then its order).
        flows.sort_by_key(|f| f.start);
        Plan::of_flows(flows)
    }
    fn load(&self, plan: &Plan, env: &PlanEnv<'_>) -> Option<Load> {
        let target = self.load?;
        let end = plan.flows.last().map_or(self.start.ps(), |f| f.start.ps());
        let hosts: Vec<u32> = self.hosts.iter().collect();
        let offered = super::flows::offered_load(plan, &hosts, self.start.ps(), end, env);
        Some(Load { target, offered })
    }
}
