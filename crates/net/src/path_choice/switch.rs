//! One switch's path-choice state: its random stream, round-robin turns,
//! flowlet table and (under htsim's rule) its ports' cached queue levels.

use super::{AdaptiveRule, PathChoice, PathConfig, PortView, Signal};
use crate::ids::PortId;
use sim_core::{QueueSize, RngStream, SimDuration, SimTime};

/// One flowlet table entry: when the flow's last packet passed and the
/// port it took (its size is what the memory estimate counts).
#[derive(Clone, Copy, Debug)]
pub struct Flowlet {
    last: SimTime,
    port: PortId,
}

/// No port yet: an entry no flow has used.
const UNUSED: PortId = PortId(u32::MAX);

/// htsim's `BaseQueue::_update_period`: a port's queue level is
/// recomputed at most this often (queue.cpp, 40ccb05).
pub const LEVEL_PERIOD: SimDuration = SimDuration::from_ns(100);

/// htsim's `ADAPTIVE_ROUTING` hashes packets smaller than this
/// (fat_tree_switch.cpp: `pkt.size() < 100`).
pub const HTSIM_SMALL_BYTES: u32 = 100;

/// The path-choice state of one switch that does not use plain ECMP.
#[derive(Clone, Debug)]
pub struct SwitchPaths {
    choice: PathChoice,
    rule: AdaptiveRule,
    signal: Signal,
    rng: RngStream,
    /// The next turn per destination ToR (round robin).
    turn: Vec<u32>,
    flowlets: Vec<Flowlet>,
    gap: SimDuration,
    /// htsim's rule: each of the switch's ports' level and when it was
    /// last computed, by the port's place in `own_ports` (sorted).
    own_ports: Vec<PortId>,
    levels: Vec<(SimTime, u8)>,
}

impl SwitchPaths {
    /// The state of a switch choosing by `choice`, with its own random
    /// stream `rng`, for a fabric of `edges` ToRs; `own_ports` are the
    /// switch's egress ports (any order).
    pub fn new(
        choice: PathChoice,
        rng: RngStream,
        edges: usize,
        cfg: &PathConfig,
        own_ports: &[PortId],
    ) -> Self {
        let entries = if choice.uses_flowlets() {
            cfg.flowlet_entries as usize
        } else {
            0
        };
        let levelled = choice.is_adaptive() && cfg.rule == AdaptiveRule::Htsim;
        let mut own: Vec<PortId> = if levelled {
            own_ports.to_vec()
        } else {
            Vec::new()
        };
        own.sort_unstable();
        SwitchPaths {
            choice,
            rule: cfg.rule,
            signal: cfg.signal,
            rng,
            turn: if choice == PathChoice::RoundRobin {
                vec![0; edges]
            } else {
                Vec::new()
            },
            flowlets: vec![
                Flowlet {
                    last: SimTime::ZERO,
                    port: UNUSED,
                };
                entries
            ],
            gap: cfg.flowlet_gap,
            levels: vec![(SimTime::ZERO, 0); own.len()],
            own_ports: own,
        }
    }

    /// Picks one of `hops` (two or more) for a packet of `size_bytes` and
    /// flow hash `hash` bound for ToR `edge` at `now`; `view(p)` is what
    /// egress port `p` shows.
    pub fn pick(
        &mut self,
        hops: &[PortId],
        edge: usize,
        hash: u64,
        now: SimTime,
        size_bytes: u32,
        view: impl Fn(PortId) -> PortView,
    ) -> PortId {
        debug_assert!(hops.len() > 1);
        let hashed = hops[(hash % hops.len() as u64) as usize];
        let htsim = self.rule == AdaptiveRule::Htsim;
        match self.choice {
            PathChoice::Ecmp => hashed,
            PathChoice::Random => hops[self.rng.below(hops.len() as u64) as usize],
            PathChoice::RoundRobin => {
                let t = &mut self.turn[edge];
                let p = hops[*t as usize % hops.len()];
                *t = t.wrapping_add(1);
                p
            }
            PathChoice::Adaptive | PathChoice::AdaptiveFlowlet
                if htsim && size_bytes < HTSIM_SMALL_BYTES =>
            {
                hashed
            }
            PathChoice::Adaptive => self.least_loaded(hops, now, &view),
            PathChoice::EcmpAdaptive => self.repair(hashed, hops, now, &view),
            PathChoice::Flowlet | PathChoice::AdaptiveFlowlet => {
                self.flowlet(hops, hash, now, &view)
            }
        }
    }

    /// The port of flow hash `hash`'s flowlet: kept while the flow is
    /// busy; after an idle gap, a fresh draw (`flowlet`) or a least-loaded
    /// port (`adaptive-flowlet`, by the rule).
    fn flowlet(
        &mut self,
        hops: &[PortId],
        hash: u64,
        now: SimTime,
        view: &impl Fn(PortId) -> PortView,
    ) -> PortId {
        let slot = (hash as usize) & (self.flowlets.len() - 1);
        let f = self.flowlets[slot];
        let known = f.port != UNUSED && hops.contains(&f.port);
        let port = match (self.choice, self.rule) {
            (PathChoice::AdaptiveFlowlet, AdaptiveRule::Htsim) => {
                if !known {
                    self.least_loaded(hops, now, view)
                } else if now.since(f.last) > self.gap && self.rng.below(2) == 0 {
                    let better = self.least_loaded(hops, now, view);
                    if self.load(better, now, view) < self.load(f.port, now, view) {
                        better
                    } else {
                        f.port
                    }
                } else {
                    f.port
                }
            }
            _ if known && now.since(f.last) < self.gap => f.port,
            (PathChoice::Flowlet, _) => hops[self.rng.below(hops.len() as u64) as usize],
            _ => self.least_loaded(hops, now, view),
        };
        self.flowlets[slot] = Flowlet { last: now, port };
        port
    }

    /// htsim's `replace_worst_choice`, taken for half the packets: the
    /// hashed port unless it is as loaded as the most loaded of `hops`,
    /// then a least-loaded one. With every queue alike, the hashed port is
    /// the most loaded: half the packets then spread at random.
    fn repair(
        &mut self,
        hashed: PortId,
        hops: &[PortId],
        now: SimTime,
        view: &impl Fn(PortId) -> PortView,
    ) -> PortId {
        if self.rng.below(100) >= 50 {
            return hashed;
        }
        let mut worst = 0;
        for &p in hops {
            worst = worst.max(self.load(p, now, view));
        }
        if self.load(hashed, now, view) == worst {
            self.least_loaded(hops, now, view)
        } else {
            hashed
        }
    }

    /// Port `p`'s load under the rule: its signal, or its cached level.
    fn load(&mut self, p: PortId, now: SimTime, view: &impl Fn(PortId) -> PortView) -> u64 {
        let v = view(p);
        if self.rule == AdaptiveRule::LeastQueued {
            return self.signal.load(v.bytes, v.bps, v.paused);
        }
        if v.paused {
            return u64::MAX;
        }
        let i = (self.own_ports.binary_search(&p)).expect("an equal-cost port is the switch's own");
        let (at, level) = &mut self.levels[i];
        if now.since(*at) > LEVEL_PERIOD {
            *at = now;
            *level = queue_level(v.bytes, v.packets, v.buffer);
        }
        *level as u64
    }

    /// The port of `hops` with the least load; among equals, one drawn
    /// uniformly (reservoir sampling: the k-th tie replaces the pick with
    /// probability 1/k). A random starting point and a scan would favour
    /// the port after a longer queue.
    fn least_loaded(
        &mut self,
        hops: &[PortId],
        now: SimTime,
        view: &impl Fn(PortId) -> PortView,
    ) -> PortId {
        let mut best = hops[0];
        let mut best_load = self.load(best, now, view);
        let mut ties = 1u64;
        for &p in &hops[1..] {
            let l = self.load(p, now, view);
            if l < best_load {
                (best, best_load, ties) = (p, l, 1);
            } else if l == best_load {
                ties += 1;
                if self.rng.below(ties) == 0 {
                    best = p;
                }
            }
        }
        best
    }
}

/// htsim's `quantized_queuesize`: 0 below 5% of the buffer, 1 below 10%,
/// 2 below 20%, else 3, in the buffer's own unit.
pub fn queue_level(bytes: u64, packets: u64, buffer: QueueSize) -> u8 {
    let (q, max) = match buffer {
        QueueSize::Bytes(b) => (bytes, b),
        QueueSize::Packets(n) => (packets, n),
    };
    let (q, max) = (q as u128 * 100, max as u128);
    if q < max * 5 {
        0
    } else if q < max * 10 {
        1
    } else if q < max * 20 {
        2
    } else {
        3
    }
}
