//! `kind = "permutation"`: every chosen host sends to exactly one other and
//! receives from exactly one (a derangement drawn from the seed), the
//! classic fabric stress test (htsim's permutation, Hedera, CONGA).
//!
//! The derangement is uniform over all derangements of the hosts: a
//! Fisher-Yates shuffle from the workload's stream (`purpose::PERMUTATION`),
//! redrawn while any host maps to itself (about e = 2.72 draws on average).

use super::{FlowPlan, HostSet, Plan, PlanEnv, Workload, check_size, check_stop, distinct_hosts};
use super::{priority_zero, start_plus_jitter};
use serde::Deserialize;
use sim_core::{Bytes, RngStream, SimDuration};

/// A checked `permutation` workload.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permutation {
    hosts: HostSet,
    size: Option<Bytes>,
    #[serde(default)]
    start: SimDuration,
    #[serde(default)]
    start_jitter: SimDuration,
    stop: Option<SimDuration>,
    #[serde(default = "priority_zero")]
    priority: u8,
}

/// A uniformly drawn derangement of `0..n` (n >= 2): `d[i] != i` for all i.
pub fn derangement(rng: &mut RngStream, n: usize) -> Vec<usize> {
    assert!(n >= 2, "a derangement needs two elements");
    let mut d: Vec<usize> = (0..n).collect();
    loop {
        for i in (1..n).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            d.swap(i, j);
        }
        if d.iter().enumerate().all(|(i, &x)| i != x) {
            return d;
        }
        d.sort_unstable();
    }
}

impl Workload for Permutation {
    fn kind(&self) -> &'static str {
        "permutation"
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn flows_bound(&self, hosts: u32) -> Option<u64> {
        Some(distinct_hosts("hosts", &self.hosts, hosts, 2).ok()?.len() as u64)
    }
    fn check(&self, hosts: u32) -> Result<(), (String, String)> {
        distinct_hosts("hosts", &self.hosts, hosts, 2)?;
        if let Some(s) = self.size {
            check_size("size", s)?;
        }
        let latest = start_plus_jitter(self.start, self.start_jitter)?;
        check_stop(latest, self.stop)
    }
    fn endless(&self) -> Option<&'static str> {
        (self.stop.is_none() && self.size.is_none())
            .then_some("a permutation with neither stop nor size")
    }
    fn plan(&self, env: &PlanEnv<'_>) -> Plan {
        let hosts: Vec<u32> = self.hosts.iter().collect();
        let purpose = sim_core::rng::purpose::PERMUTATION;
        let mut rng = RngStream::new(env.seed, env.index as u64, purpose);
        let to = derangement(&mut rng, hosts.len());
        let flows = (0..hosts.len())
            .map(|i| FlowPlan {
                src: hosts[i],
                dst: hosts[to[i]],
                size: self.size.map(|b| b.0),
                start: self.start,
                start_jitter: self.start_jitter,
                stop: self.stop,
                round: 0,
            })
            .collect();
        Plan::of_flows(flows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derangements_have_no_fixed_point_and_cover_every_one() {
        // The 9 derangements of 4 elements each turn up, about equally often.
        let mut rng = RngStream::new(7, 0, 0);
        let mut seen = std::collections::BTreeMap::new();
        for _ in 0..9000 {
            let d = derangement(&mut rng, 4);
            assert!(d.iter().enumerate().all(|(i, &x)| i != x), "{d:?}");
            let mut sorted = d.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, vec![0, 1, 2, 3]);
            *seen.entry(d).or_insert(0u32) += 1;
        }
        println!("{seen:?}");
        assert_eq!(seen.len(), 9);
        assert!(seen.values().all(|&c| (850..1150).contains(&c)), "{seen:?}");
        assert_eq!(derangement(&mut rng, 2), vec![1, 0]);
    }
}
