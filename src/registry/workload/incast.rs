//! `kind = "incast"`: many senders answer one receiver at once (the
//! partition/aggregate pattern of R-AQM section VI-B and the incast studies
//! it cites), in one round or repeated rounds.
//!
//! Rounds are closed-loop by default, as a barrier-synchronised aggregator
//! issues them: round r + 1 starts `round_gap` after the receiver holds
//! every byte of every flow of round r (receiver completion, not the
//! senders' last ACK: the aggregator has its answers then). With
//! `interval`, round r starts at `start + r x interval` whatever happened
//! before (open loop). Every round opens new connections, one per sender,
//! and every flow of every round draws its own `start_jitter`.

use super::{FlowPlan, HostSet, Plan, PlanEnv, Workload, check_host, check_size, host_missing};
use super::{priority_zero, start_plus_jitter};
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};

/// The most rounds one incast may plan (its flows are planned before the run).
const MAX_ROUNDS: u32 = 1_000_000;

fn one() -> u32 {
    1
}

/// A checked `incast` workload.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Incast {
    receiver: u32,
    senders: HostSet,
    size: Bytes,
    #[serde(default)]
    start: SimDuration,
    #[serde(default)]
    start_jitter: SimDuration,
    #[serde(default = "one")]
    rounds: u32,
    /// Open loop: a round every `interval`.
    interval: Option<SimDuration>,
    /// Closed loop: the think time between a round's end and the next start.
    round_gap: Option<SimDuration>,
    #[serde(default = "priority_zero")]
    priority: u8,
}

impl Workload for Incast {
    fn kind(&self) -> &'static str {
        "incast"
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn flows_bound(&self, _hosts: u32) -> Option<u64> {
        Some((self.senders.iter().count() as u64).saturating_mul(self.rounds as u64))
    }
    fn check(&self, hosts: u32) -> Result<(), (String, String)> {
        check_host("receiver", self.receiver, hosts)?;
        match self.senders.max() {
            None => return Err(("senders".into(), "no senders".into())),
            Some(h) if h >= hosts => return Err(host_missing("senders", h, hosts)),
            Some(_) => {}
        }
        if self.senders.contains(self.receiver) {
            let msg = format!("host {} is both a sender and the receiver", self.receiver);
            return Err(("senders".into(), msg));
        }
        start_plus_jitter(self.start, self.start_jitter)?;
        check_size("size", self.size)?;
        if !(1..=MAX_ROUNDS).contains(&self.rounds) {
            let msg = format!("{} rounds: give 1 to {MAX_ROUNDS}", self.rounds);
            return Err(("rounds".into(), msg));
        }
        let senders = self.senders.iter().count() as u64;
        if senders * self.rounds as u64 > super::flows::MAX_FLOWS {
            let msg = format!(
                "{senders} senders x {} rounds is more than {} flows",
                self.rounds,
                super::flows::MAX_FLOWS
            );
            return Err(("rounds".into(), msg));
        }
        match (self.interval, self.round_gap) {
            (Some(_), Some(_)) => Err((
                "interval".into(),
                "give interval (a round every interval, open loop) or round_gap (the next \
                 round after the last completes, closed loop), not both"
                    .into(),
            )),
            (Some(i), None) if i == SimDuration::ZERO => {
                Err(("interval".into(), "interval must be positive".into()))
            }
            (Some(i), None) => {
                let last = (self.rounds as u128 - 1) * i.ps() as u128;
                let latest = start_plus_jitter(self.start, self.start_jitter)?;
                let at = u64::try_from(last + latest.ps() as u128).ok();
                super::check_planned("interval", "the last round's start", at)
            }
            _ => Ok(()),
        }
    }
    fn endless(&self) -> Option<&'static str> {
        None
    }
    fn plan(&self, _env: &PlanEnv<'_>) -> Plan {
        let mut flows = Vec::new();
        for round in 0..self.rounds {
            let start = match (round, self.interval) {
                (0, _) => self.start,
                (r, Some(i)) => self.start + SimDuration::from_ps(r as u64 * i.ps()),
                (_, None) => self.round_gap.unwrap_or(SimDuration::ZERO),
            };
            flows.extend(self.senders.iter().map(|h| FlowPlan {
                src: h,
                dst: self.receiver,
                size: Some(self.size.0),
                start,
                start_jitter: self.start_jitter,
                stop: None,
                round,
            }));
        }
        Plan {
            flows,
            sources: Vec::new(),
            rounds: self.rounds,
            closed_loop: self.interval.is_none() && self.rounds > 1,
            ..Plan::default()
        }
    }
}
