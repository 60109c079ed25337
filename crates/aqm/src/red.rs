//! RED with ECN (Floyd and Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", ToN 1993; RFC 3168 for marking instead of dropping).
//!
//! - Thresholds `k_min`, `k_max` and `p_max`: below `k_min` nothing happens;
//!   from `k_min` to `k_max` a packet is marked with probability
//!   `p_b = p_max (avg - k_min) / (k_max - k_min)`, spread out by RED's count
//!   (`p_a = p_b / (1 - count p_b)`, so the gaps between marks are uniform);
//!   at or above `k_max` every packet is marked. With `spread = false` each
//!   packet is marked independently with `p_b` (no count): DCQCN's
//!   congestion point as the HPCC and DCQCN ns-3 codes and the DCQCN fluid
//!   model have it; the count roughly doubles the marks at a given queue
//!   (a mark every 1/(2 p_b) packets on average), which a DCQCN flow pair
//!   answers with a queue about half as far above `k_min`.
//!   ECT packets are marked CE;
//!   non-ECT packets (or all packets, with `ecn = false`) are dropped instead.
//!   With `k_min = k_max` this is step marking at K, but note that RED marks at
//!   `avg >= k_max` where `step-ecn` marks when the queue exceeds K.
//! - `average`: the instantaneous length (datacenter practice) or RED's EWMA
//!   with weight `weight` (RED's w_q = 0.002), decayed over idle time as
//!   `(1 - w)^m`, m = idle time / the port's packet time (a 1500 B packet on the wire).
//! - `mark_at`: at enqueue (default; the arriving packet counted) or at
//!   dequeue (the leaving packet, judged by the queue it leaves behind).
//!   Dequeue mode only marks: the packet is already on its way.
//! - `scope`: the packet's class queue (per-queue ECN), its port (per-port),
//!   or the switch's whole egress pool (per-service-pool), MQ-ECN section 2.2.
//! - Presets of MQ-ECN section 2.2: `"standard"`, K = C x RTT x lambda (eq. 1)
//!   on every queue; `"minimum"`, K_i = W_i / sum W x C x RTT x lambda (eq. 2),
//!   with the scheduler's quanta as the weights W (equal under strict
//!   priority). Both are per-queue step thresholds (`k_min = k_max = K_i`,
//!   `p_max = 1`). The standard K may also be given directly (`k_standard`).

use crate::PortContext;
use net::sched::INLINE_CLASSES;
use net::{EgressAqm, Packet, QueueState, Verdict};
use serde::Deserialize;
use sim_core::{QueueSize, RngStream, SimDuration, SimTime};
use smallvec::SmallVec;

/// RED's average.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Average {
    /// The instantaneous length.
    #[default]
    Instantaneous,
    /// RED's exponentially weighted moving average.
    Ewma,
}

/// Where packets are judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MarkAt {
    /// As a packet arrives.
    #[default]
    Enqueue,
    /// As a packet leaves.
    Dequeue,
}

/// Which occupancy the thresholds compare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The packet's class queue.
    #[default]
    Queue,
    /// All class queues of the port.
    Port,
    /// All egress queues of the switch.
    Pool,
}

/// MQ-ECN section 2.2's per-queue thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// K = C x RTT x lambda on every queue.
    Standard,
    /// K_i = W_i / sum W x C x RTT x lambda.
    Minimum,
}

/// `kind = "red"`: the keys and their defaults.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedConfig {
    /// Lower threshold.
    pub k_min: Option<QueueSize>,
    /// Upper threshold (same unit as `k_min`).
    pub k_max: Option<QueueSize>,
    /// Marking probability at `k_max` (default 0.1, RED's max_p).
    #[serde(default = "default_p_max")]
    pub p_max: f64,
    /// `"instantaneous"` (default) or `"ewma"`.
    #[serde(default)]
    pub average: Average,
    /// EWMA weight w_q (default 0.002, RED's recommendation); only with
    /// `average = "ewma"`.
    pub weight: Option<f64>,
    /// `"enqueue"` (default) or `"dequeue"`.
    #[serde(default)]
    pub mark_at: MarkAt,
    /// `"queue"` (default), `"port"` or `"pool"`.
    #[serde(default)]
    pub scope: Scope,
    /// What a non-ECT packet gets where an ECT one is marked (default:
    /// dropped, RFC 3168 7). Only with `ecn = true`: without ECN every
    /// packet is dropped there.
    pub non_ect: Option<crate::NonEct>,
    /// Mark ECT packets (default true); false: drop instead.
    #[serde(default = "default_true")]
    pub ecn: bool,
    /// The link rate `k_min` and `k_max` are given for: each port's
    /// thresholds scale by its rate over this (R-AQM VII-A and RCC V-A
    /// scale DCQCN's thresholds with the link bandwidth). Absent: as given.
    pub reference_rate: Option<sim_core::Bandwidth>,
    /// Spread marks by RED's count (default true, Floyd and Jacobson);
    /// false: each packet independently with p_b (DCQCN's CP).
    #[serde(default = "default_true")]
    pub spread: bool,
    /// `"standard"` or `"minimum"` (MQ-ECN 2.2), instead of `k_min`/`k_max`.
    pub preset: Option<Preset>,
    /// The standard threshold K, for a preset.
    pub k_standard: Option<QueueSize>,
    /// The RTT of K = C x RTT x lambda, for a preset without `k_standard`.
    pub rtt: Option<SimDuration>,
    /// The lambda of K = C x RTT x lambda (default 1).
    pub lambda: Option<f64>,
}

fn default_p_max() -> f64 {
    0.1
}
fn default_weight() -> f64 {
    0.002
}
fn default_true() -> bool {
    true
}

impl RedConfig {
    /// Checks the keys together: `(key, message)` for the first problem.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let e = |k, m: &str| Err((k, m.to_string()));
        if !self.ecn && self.non_ect.is_some() {
            return e(
                "non_ect",
                "with ecn = false every packet is dropped where it would be marked: non_ect \
                 (what a non-ECT packet gets beside marked ECT ones) applies only with ecn = true",
            );
        }
        if self.mark_at == MarkAt::Dequeue && self.non_ect == Some(crate::NonEct::Drop) {
            return e(
                "non_ect",
                "mark_at = \"dequeue\" only marks (the packet is already leaving): a non-ECT \
                 packet passes there; give non_ect = \"pass\", or mark_at = \"enqueue\" to drop it",
            );
        }
        if !(self.p_max > 0.0 && self.p_max <= 1.0) {
            return e("p_max", "must be in (0, 1]");
        }
        if let Some(w) = self.weight {
            if self.average != Average::Ewma {
                return e(
                    "weight",
                    "is the EWMA's weight, and average = \"instantaneous\" keeps none: leave it \
                     out, or set average = \"ewma\"",
                );
            }
            if !(w > 0.0 && w <= 1.0) {
                return e("weight", "must be in (0, 1]");
            }
        }
        match (self.preset, self.k_min, self.k_max) {
            (None, Some(lo), Some(hi)) => crate::check_threshold_pair(lo, hi)?,
            (None, _, _) => {
                return e(
                    "k_min",
                    "give k_min and k_max, or a preset (\"standard\" or \"minimum\")",
                );
            }
            (Some(_), None, None) => match (self.k_standard, self.rtt) {
                (Some(_), None) | (None, Some(_)) => {}
                _ => {
                    return e(
                        "k_standard",
                        "a preset needs either k_standard or rtt (with lambda)",
                    );
                }
            },
            (Some(_), _, _) => {
                return e(
                    "preset",
                    "a preset sets the thresholds: drop k_min and k_max",
                );
            }
        }
        if self.lambda.is_some_and(|l| l.is_nan() || l <= 0.0) {
            return e("lambda", "must be positive");
        }
        if self.preset.is_some() && self.reference_rate.is_some() {
            return e(
                "reference_rate",
                "a preset computes its thresholds from each port's rate already",
            );
        }
        Ok(())
    }

    /// Builds the plugin for one port.
    pub fn build(&self, ctx: &PortContext) -> Red {
        let classes = ctx.weights.len().max(1);
        let mut p_max = self.p_max;
        let bytes_unit;
        // Each class's thresholds, in the configured unit.
        let queue = |k_min, k_max| RedQueue {
            k_min,
            k_max,
            count: 0,
        };
        let queues: SmallVec<[RedQueue; INLINE_CLASSES]> = match self.preset {
            None => {
                let (lo, hi) = (
                    self.k_min.expect("validated"),
                    self.k_max.expect("validated"),
                );
                bytes_unit = lo.is_bytes();
                // Scaled in u128 so that 400G over 10G cannot overflow.
                let scale = |k: u64| match self.reference_rate {
                    None => k,
                    Some(r) => (k as u128 * ctx.rate.bps() as u128 / r.bps() as u128) as u64,
                };
                (0..classes)
                    .map(|_| queue(scale(lo.amount()), scale(hi.amount())))
                    .collect()
            }
            Some(preset) => {
                // MQ-ECN eq. (1): the standard threshold K.
                let (k, unit_bytes) =
                    crate::standard_threshold(self.k_standard, self.rtt, self.lambda, ctx.rate)
                        .expect("validated: a preset has k_standard or rtt");
                bytes_unit = unit_bytes;
                p_max = 1.0;
                let total: u64 = ctx.weights.iter().sum::<u64>().max(1);
                (0..classes)
                    .map(|c| {
                        // MQ-ECN eq. (2) for "minimum": share by weight.
                        let share = match preset {
                            Preset::Standard => 1.0,
                            Preset::Minimum => {
                                ctx.weights.get(c).copied().unwrap_or(0) as f64 / total as f64
                            }
                        };
                        let kc = libm::round(k * share) as u64;
                        queue(kc, kc)
                    })
                    .collect()
            }
        };
        Red {
            mark_at: self.mark_at,
            scope: self.scope,
            average: self.average,
            bytes_unit,
            ecn: self.ecn,
            non_ect: self.non_ect.unwrap_or(crate::NonEct::Drop),
            spread: self.spread,
            p_max,
            queues,
            weight: self.weight.unwrap_or_else(default_weight),
            small_packet_ps: ctx.packet_time.ps().max(1) as f64,
            avg: smallvec::smallvec![0.0; classes],
            idle_since: smallvec::smallvec![None; classes],
            rng: RngStream::new(ctx.seed, ctx.port as u64, sim_core::rng::purpose::RED),
        }
    }
}

/// RED's thresholds of one class queue, and the count of its state slot.
#[derive(Clone, Copy, Debug)]
struct RedQueue {
    /// Lower threshold, in the configured unit.
    k_min: u64,
    /// Upper threshold.
    k_max: u64,
    /// Packets since the last mark while between the thresholds (RED's
    /// `count`), per state slot: the class under `"queue"` scope, slot 0
    /// under `"port"` and `"pool"`.
    count: u32,
}

/// The RED plugin of one port (state per class queue, or one for port/pool scope).
///
/// `repr(C)` from a cache-line boundary: what every packet reads (the mode,
/// `p_max`, class 0's thresholds and count) fills the first line, so a
/// one-class port's RED costs a hop one line; the EWMA state and the random
/// stream, used less often, follow.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Red {
    mark_at: MarkAt,
    scope: Scope,
    average: Average,
    bytes_unit: bool,
    ecn: bool,
    non_ect: crate::NonEct,
    spread: bool,
    p_max: f64,
    /// Per class (one slot under `"port"` and `"pool"` scope, class 0's).
    queues: SmallVec<[RedQueue; INLINE_CLASSES]>,
    weight: f64,
    small_packet_ps: f64,
    avg: SmallVec<[f64; INLINE_CLASSES]>,
    idle_since: SmallVec<[Option<SimTime>; INLINE_CLASSES]>,
    rng: RngStream,
}

impl Red {
    /// The thresholds of class `c`, in the configured unit.
    pub fn thresholds(&self, c: usize) -> (u64, u64) {
        (self.queues[c].k_min, self.queues[c].k_max)
    }

    /// The current average of state slot `c`.
    pub fn average(&self, c: usize) -> f64 {
        self.avg[c]
    }

    /// The length the thresholds compare, in their unit.
    fn length(&self, bytes: u64, packets: u64) -> u64 {
        if self.bytes_unit { bytes } else { packets }
    }

    fn judge(
        &mut self,
        now: SimTime,
        slot: usize,
        class: usize,
        len: u64,
        pkt: &Packet,
    ) -> Verdict {
        let avg = match self.average {
            Average::Instantaneous => len as f64,
            Average::Ewma => {
                if let Some(t) = self.idle_since[slot].take() {
                    // RED: after an idle period, decay as if m small packets left.
                    let m = now.saturating_since(t).ps() as f64 / self.small_packet_ps;
                    self.avg[slot] *= libm::pow(1.0 - self.weight, m);
                }
                self.avg[slot] = (1.0 - self.weight) * self.avg[slot] + self.weight * len as f64;
                if len == 0 {
                    self.idle_since[slot] = Some(now);
                }
                self.avg[slot]
            }
        };
        let q = &self.queues[class];
        let (lo, hi) = (q.k_min as f64, q.k_max as f64);
        let congested = if avg < lo {
            self.queues[slot].count = 0;
            false
        } else if avg >= hi {
            self.queues[slot].count = 0;
            true
        } else {
            let p_b = self.p_max * (avg - lo) / (hi - lo);
            if !self.spread {
                let hit = self.rng.uniform_open01() < p_b;
                return self.verdict(hit, pkt);
            }
            self.queues[slot].count += 1;
            let denom = 1.0 - self.queues[slot].count as f64 * p_b;
            let p_a = if denom <= 0.0 {
                1.0
            } else {
                (p_b / denom).min(1.0)
            };
            let hit = self.rng.uniform_open01() < p_a;
            if hit {
                self.queues[slot].count = 0;
            }
            hit
        };
        self.verdict(congested, pkt)
    }

    fn verdict(&self, congested: bool, pkt: &Packet) -> Verdict {
        if self.ecn {
            self.non_ect.verdict(congested, pkt)
        } else if congested {
            Verdict::Drop
        } else {
            Verdict::Accept
        }
    }

    fn slot(&self, class: usize) -> usize {
        if self.scope == Scope::Queue { class } else { 0 }
    }
}

impl EgressAqm for Red {
    fn on_enqueue(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        if self.mark_at != MarkAt::Enqueue {
            return Verdict::Accept;
        }
        let size = pkt.size_bytes as u64;
        let len = match self.scope {
            Scope::Queue => self.length(q.bytes + size, q.packets + 1),
            Scope::Port => self.length(q.port_bytes + size, q.port_packets + 1),
            Scope::Pool => self.length(q.pool_bytes + size, q.pool_packets + 1),
        };
        let class = q.class as usize;
        self.judge(now, self.slot(class), class, len, pkt)
    }

    fn on_dequeue(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        if self.mark_at != MarkAt::Dequeue {
            return Verdict::Accept;
        }
        let len = match self.scope {
            Scope::Queue => self.length(q.bytes, q.packets),
            Scope::Port => self.length(q.port_bytes, q.port_packets),
            Scope::Pool => self.length(q.pool_bytes, q.pool_packets),
        };
        let class = q.class as usize;
        match self.judge(now, self.slot(class), class, len, pkt) {
            Verdict::Drop => Verdict::Accept, // dequeue mode only marks
            v => v,
        }
    }
}

impl crate::EgressPlugin for RedConfig {
    fn check(&self, _ctx: &crate::LoadContext) -> Result<(), crate::Invalid> {
        self.validate()
    }
    fn build(&self, ctx: &PortContext) -> Box<dyn EgressAqm> {
        Box::new(RedConfig::build(self, ctx))
    }
    /// RED without ECN drops where it would mark.
    fn drops_early(&self) -> bool {
        !self.ecn
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::Ecn;
    use sim_core::Bandwidth;

    /// Pins what the `Red` doc promises: a one-class port's RED reads one line.
    #[test]
    fn class_0_fits_in_the_first_cache_line() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<Red>(), 64);
        let red = cfg(20, 40, 0.1).build(&ctx());
        // Where class 0's thresholds sit inside the (inline) small vector.
        let q0 = std::ptr::from_ref(&red.queues[0]) as usize - std::ptr::from_ref(&red) as usize;
        assert!(q0 + size_of::<RedQueue>() <= 64, "class 0 at {q0}");
        assert!(offset_of!(Red, p_max) + 8 <= 64 && offset_of!(Red, ecn) < 64);
    }

    fn context_for_tests(rate: Bandwidth, weights: Vec<u64>) -> PortContext {
        PortContext {
            seed: 1,
            port: 0,
            rate,
            weights,
            strict_classes: 0,
            buffer: QueueSize::Packets(100),
            packet_time: net::WireFormat::ETHERNET.packet_time(rate),
        }
    }

    fn cfg(lo: u64, hi: u64, p: f64) -> RedConfig {
        RedConfig {
            k_min: Some(QueueSize::Packets(lo)),
            k_max: Some(QueueSize::Packets(hi)),
            p_max: p,
            average: Average::Instantaneous,
            weight: None,
            mark_at: MarkAt::Enqueue,
            scope: Scope::Queue,
            ecn: true,
            non_ect: None,
            spread: true,
            reference_rate: None,
            preset: None,
            k_standard: None,
            rtt: None,
            lambda: None,
        }
    }

    fn q(n: u64) -> QueueState {
        QueueState {
            bytes: n * 1500,
            packets: n,
            port_bytes: n * 1500,
            port_packets: n,
            ..Default::default()
        }
    }

    fn ect() -> Packet {
        Packet {
            size_bytes: 1500,
            ecn: Ecn::Ect0,
            ..Default::default()
        }
    }

    fn ctx() -> PortContext {
        context_for_tests(Bandwidth::from_gbps(10), vec![1])
    }

    #[test]
    fn never_below_k_min_always_at_k_max() {
        let mut r = cfg(20, 40, 0.5).build(&ctx());
        for _ in 0..1000 {
            assert_eq!(r.on_enqueue(SimTime::ZERO, q(18), &ect()), Verdict::Accept); // 19 with the packet
            assert_eq!(r.on_enqueue(SimTime::ZERO, q(39), &ect()), Verdict::Mark); // 40
        }
        // Not ECN-capable: dropped where ECT would be marked (the default),
        // or let through with non_ect = "pass"; without ECN all are dropped.
        assert_eq!(
            r.on_enqueue(SimTime::ZERO, q(39), &Packet::default()),
            Verdict::Drop
        );
        let mut pass = RedConfig {
            non_ect: Some(crate::NonEct::Pass),
            ..cfg(20, 40, 0.5)
        }
        .build(&ctx());
        assert_eq!(
            pass.on_enqueue(SimTime::ZERO, q(39), &Packet::default()),
            Verdict::Accept
        );
        assert_eq!(pass.on_enqueue(SimTime::ZERO, q(39), &ect()), Verdict::Mark);
        let no_ecn = RedConfig {
            ecn: false,
            ..cfg(20, 40, 0.5)
        };
        let mut built = no_ecn.build(&ctx());
        assert_eq!(
            built.on_enqueue(SimTime::ZERO, q(39), &ect()),
            Verdict::Drop
        );
        let ignored = RedConfig {
            non_ect: Some(crate::NonEct::Pass),
            ..no_ecn
        };
        assert_eq!(
            ignored.validate().map_err(|e| e.0),
            Err("non_ect"),
            "a key that would be ignored is refused"
        );
        // Marking at dequeue never drops: asking it to drop non-ECT packets
        // is refused; letting them pass is what it does.
        let dequeue = |non_ect| RedConfig {
            mark_at: MarkAt::Dequeue,
            non_ect,
            ..cfg(20, 40, 0.5)
        };
        let refused = dequeue(Some(crate::NonEct::Drop)).validate();
        assert_eq!(refused.map_err(|e| e.0), Err("non_ect"));
        let mut passes = dequeue(Some(crate::NonEct::Pass)).build(&ctx());
        assert_eq!(
            passes.on_dequeue(SimTime::ZERO, q(39), &Packet::default()),
            Verdict::Accept
        );
    }

    #[test]
    fn between_thresholds_the_gaps_are_uniform() {
        // p_b = 0.5 x (30 - 20) / 20 = 0.25. Floyd and Jacobson's Figure 2
        // increments count before p_a = p_b / (1 - count p_b), so after a mark
        // the next packets are marked with probability 1/3, 1/2, 1: gaps are
        // uniform on {1, 2, 3} and the mark fraction is 2 p_b = 0.5.
        let mut r = cfg(20, 40, 0.5).build(&ctx());
        let n = 100_000;
        let marks = (0..n)
            .filter(|_| r.on_enqueue(SimTime::ZERO, q(29), &ect()) == Verdict::Mark)
            .count();
        let f = marks as f64 / n as f64;
        assert!((f - 0.5).abs() < 0.01, "mark fraction {f}");
        // And never two gaps longer than 3.
        let mut r = cfg(20, 40, 0.5).build(&ctx());
        let mut gap = 0;
        for _ in 0..10_000 {
            gap += 1;
            if r.on_enqueue(SimTime::ZERO, q(29), &ect()) == Verdict::Mark {
                assert!(gap <= 3, "gap {gap}");
                gap = 0;
            }
        }
    }

    #[test]
    fn thresholds_scale_with_the_port_rate_from_a_reference_rate() {
        // DCQCN's 5 KB / 200 KB given at 10 Gb/s become 20 KB / 800 KB on a 40G port.
        let mut c = cfg(20, 40, 0.5);
        c.k_min = Some(QueueSize::Bytes(5_000));
        c.k_max = Some(QueueSize::Bytes(200_000));
        c.reference_rate = Some(Bandwidth::from_gbps(10));
        let r = c.build(&context_for_tests(Bandwidth::from_gbps(40), vec![1]));
        assert_eq!(r.thresholds(0), (20_000, 800_000));
        let r = c.build(&context_for_tests(Bandwidth::from_gbps(10), vec![1]));
        assert_eq!(r.thresholds(0), (5_000, 200_000));
    }

    #[test]
    fn without_spreading_each_packet_is_marked_with_p_b() {
        // DCQCN's CP: p_b = 0.25 for every packet, independently: a mark
        // fraction of 0.25 (half the count method's), gaps geometric.
        let mut c = cfg(20, 40, 0.5);
        c.spread = false;
        let mut r = c.build(&ctx());
        let n = 100_000;
        let (mut marks, mut longest, mut gap) = (0, 0, 0);
        for _ in 0..n {
            gap += 1;
            if r.on_enqueue(SimTime::ZERO, q(29), &ect()) == Verdict::Mark {
                marks += 1;
                longest = longest.max(gap);
                gap = 0;
            }
        }
        let f = marks as f64 / n as f64;
        assert!((f - 0.25).abs() < 0.01, "mark fraction {f}");
        assert!(longest > 10, "geometric gaps run long: {longest}");
    }

    #[test]
    fn ewma_follows_slowly_and_decays_when_idle() {
        let mut c = cfg(20, 40, 1.0);
        c.average = Average::Ewma;
        c.weight = Some(0.5);
        let mut r = c.build(&ctx());
        r.on_enqueue(SimTime::ZERO, q(99), &ect()); // len 100
        assert_eq!(r.average(0), 50.0);
        r.on_enqueue(SimTime::ZERO, q(99), &ect());
        assert_eq!(r.average(0), 75.0);
        // Enqueue into an empty queue starts an idle clock only for len 0; a
        // dequeue-time view is not involved here. Idle decay: m = 2 packets.
        let mut c = cfg(20, 40, 1.0);
        c.average = Average::Ewma;
        c.weight = Some(0.5);
        c.mark_at = MarkAt::Dequeue;
        let mut r = c.build(&ctx());
        r.on_dequeue(SimTime::ZERO, q(100), &ect());
        assert_eq!(r.average(0), 50.0);
        r.on_dequeue(SimTime::ZERO, q(0), &ect()); // 25, queue now idle
        let two_packets = SimTime(2 * Bandwidth::from_gbps(10).tx_time(1538).ps());
        r.on_dequeue(two_packets, q(0), &ect());
        // 25 x 0.5^2 = 6.25, then the EWMA step with len 0: 3.125.
        assert!((r.average(0) - 3.125).abs() < 1e-9, "{}", r.average(0));
    }

    #[test]
    fn dequeue_marking_judges_the_queue_left_behind_and_never_drops() {
        let mut c = cfg(10, 10, 1.0);
        c.mark_at = MarkAt::Dequeue;
        let mut r = c.build(&ctx());
        assert_eq!(r.on_enqueue(SimTime::ZERO, q(50), &ect()), Verdict::Accept);
        assert_eq!(r.on_dequeue(SimTime::ZERO, q(10), &ect()), Verdict::Mark);
        assert_eq!(r.on_dequeue(SimTime::ZERO, q(9), &ect()), Verdict::Accept);
        assert_eq!(
            r.on_dequeue(SimTime::ZERO, q(10), &Packet::default()),
            Verdict::Accept
        );
    }

    #[test]
    fn port_scope_counts_the_other_queues() {
        let two = context_for_tests(Bandwidth::from_gbps(10), vec![1, 1]);
        let mut c = cfg(16, 16, 1.0);
        c.scope = Scope::Port;
        let mut r = c.build(&two);
        let s = QueueState {
            bytes: 0,
            packets: 0,
            port_bytes: 15 * 1500,
            port_packets: 15,
            class: 1,
            ..Default::default()
        };
        assert_eq!(r.on_enqueue(SimTime::ZERO, s, &ect()), Verdict::Mark);
        let mut c = cfg(16, 16, 1.0);
        c.scope = Scope::Queue;
        assert_eq!(
            c.build(&two).on_enqueue(SimTime::ZERO, s, &ect()),
            Verdict::Accept
        );
    }

    #[test]
    fn presets_follow_mq_ecn_equations_1_and_2() {
        // 1 Gb/s x 250 us x lambda 1 = 31,250 B standard; minimum with
        // weights 1:3 gives 7,812.5 -> 7,813 B and 23,438 B.
        let mut c = cfg(0, 0, 1.0);
        c.k_min = None;
        c.k_max = None;
        c.preset = Some(Preset::Minimum);
        c.rtt = Some(SimDuration::from_us(250));
        c.validate().unwrap();
        let r = c.build(&context_for_tests(
            Bandwidth::from_gbps(1),
            vec![1500, 4500],
        ));
        assert_eq!(r.thresholds(0), (7_813, 7_813));
        assert_eq!(r.thresholds(1), (23_438, 23_438));
        c.preset = Some(Preset::Standard);
        let r = c.build(&context_for_tests(
            Bandwidth::from_gbps(1),
            vec![1500, 4500],
        ));
        assert_eq!(r.thresholds(1), (31_250, 31_250));
        // k_standard in packets, minimum over 4 equal queues: 16 pkt -> 4 pkt.
        c.rtt = None;
        c.preset = Some(Preset::Minimum);
        c.k_standard = Some(QueueSize::Packets(16));
        let r = c.build(&context_for_tests(
            Bandwidth::from_gbps(1),
            vec![1, 1, 1, 1],
        ));
        assert_eq!(r.thresholds(3), (4, 4));
    }

    #[test]
    fn validation_names_the_key() {
        let mut c = cfg(40, 20, 0.1);
        assert_eq!(c.validate().unwrap_err().0, "k_max");
        c = cfg(20, 40, 1.5);
        assert_eq!(c.validate().unwrap_err().0, "p_max");
        c = cfg(20, 40, 0.1);
        c.k_max = Some(QueueSize::Bytes(60_000));
        assert_eq!(c.validate().unwrap_err().0, "k_max");
        c = cfg(20, 40, 0.1);
        c.k_min = None;
        assert_eq!(c.validate().unwrap_err().0, "k_min");
    }
}
