//! The max-min fair allocation of a run's flows over their exact paths:
//! what per-flow ECMP can deliver at best once its hash has placed every
//! flow (docs/models.md, "Many paths per flow"). Two flows hashed onto
//! one uplink share it however well their transport behaves, so a
//! permutation's ECMP throughput is bounded by this, not by line rate.
//!
//! Progressive filling (Bertsekas and Gallager, *Data Networks*, 6.5.2):
//! raise every unfrozen flow's rate together until a link fills, freeze
//! the flows through it, and repeat.

use crate::world::{RunRecord, World};
use serde::Serialize;

/// The max-min fair rates of flows whose paths are `paths` (link
/// indices) over links of `capacity` (any unit; the rates come out in
/// it). A flow with an empty path gets no rate.
pub fn max_min(paths: &[Vec<usize>], capacity: &[f64]) -> Vec<f64> {
    let mut rate = vec![0.0; paths.len()];
    let mut frozen: Vec<bool> = paths.iter().map(|p| p.is_empty()).collect();
    let mut left = capacity.to_vec();
    let mut users = vec![0usize; capacity.len()];
    for p in paths {
        for &l in p {
            users[l] += 1;
        }
    }
    while frozen.iter().any(|f| !f) {
        // The smallest fair share of any link with unfrozen flows.
        let share = (0..left.len())
            .filter(|&l| users[l] > 0)
            .map(|l| left[l] / users[l] as f64)
            .fold(f64::INFINITY, f64::min);
        for (f, p) in paths.iter().enumerate() {
            if frozen[f] {
                continue;
            }
            rate[f] += share;
            for &l in p {
                left[l] -= share;
            }
        }
        let full: Vec<bool> = (0..left.len())
            .map(|l| users[l] > 0 && left[l] <= capacity[l] * 1e-12)
            .collect();
        for (f, p) in paths.iter().enumerate() {
            if !frozen[f] && p.iter().any(|&l| full[l]) {
                frozen[f] = true;
                for &l in p {
                    users[l] -= 1;
                }
            }
        }
    }
    rate
}

/// `summary.json`'s `max_min`: the flows' max-min fair rates over the
/// paths routing gives their data (per-flow ECMP's, hashed as the
/// switches hash), in Gb/s.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct MaxMinSummary {
    /// The flows counted (every transport flow).
    pub flows: usize,
    /// The mean of their max-min rates.
    pub mean_gbps: f64,
    /// The smallest.
    pub min_gbps: f64,
    /// Their sum.
    pub total_gbps: f64,
}

/// The max-min allocation of the flows of `run` (a run of `world`) over
/// their ECMP paths, at the ports' rates at its end (`None` without
/// flows).
pub fn of_run(world: &World, run: &RunRecord) -> Option<MaxMinSummary> {
    let fabric = world.fabric();
    let capacity: Vec<f64> = (run.ports.iter())
        .map(|p| p.rate_bps as f64 / 1e9)
        .collect();
    let paths: Vec<Vec<usize>> = (run.flows.iter())
        .map(|f| {
            let transport = &run.transports[f.transport as usize].config;
            let (data, _) = crate::paths::paths(fabric, &f.addr(), transport);
            data.iter().map(|p| p.idx()).collect()
        })
        .collect();
    if paths.is_empty() {
        return None;
    }
    let rates = max_min(&paths, &capacity);
    let total: f64 = rates.iter().sum();
    Some(MaxMinSummary {
        flows: rates.len(),
        mean_gbps: total / rates.len() as f64,
        min_gbps: rates.iter().copied().fold(f64::INFINITY, f64::min),
        total_gbps: total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_flows_on_one_link_share_it_and_a_third_takes_the_rest() {
        // Flows a and b share link 0; b and c share link 1.
        let paths = vec![vec![0], vec![0, 1], vec![1]];
        let r = max_min(&paths, &[10.0, 10.0]);
        assert_eq!(r, vec![5.0, 5.0, 5.0]);
        // A bottleneck frees capacity elsewhere: link 1 is 20 wide.
        let r = max_min(&paths, &[10.0, 20.0]);
        assert_eq!(r, vec![5.0, 5.0, 15.0]);
    }

    #[test]
    fn a_collision_halves_both_flows_and_leaves_others_whole() {
        // The ECMP collision: two flows hashed onto uplink 2, a third alone on uplink 3.
        let paths = vec![vec![0, 2], vec![1, 2], vec![4, 3]];
        let r = max_min(&paths, &[100.0; 5]);
        assert_eq!(r, vec![50.0, 50.0, 100.0]);
    }

    #[test]
    fn a_pathless_flow_gets_nothing() {
        assert_eq!(max_min(&[vec![], vec![0]], &[1.0]), vec![0.0, 1.0]);
    }
}
