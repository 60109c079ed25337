//! MQ-ECN (Bai et al., NSDI 2016, MQ-ECN paper section 3): per-queue ECN
//! thresholds for round-robin schedulers, from the measured round time.
//!
//! - Threshold of class queue i (eq. 5): `K_i = min(quantum_i / T_round, C) x
//!   RTT x lambda`, here written `K_i = K x min(quantum_i / (C x T_round), 1)`
//!   with the standard threshold `K = C x RTT x lambda` (eq. 1) given either
//!   directly (`k_standard`) or by `rtt` and `lambda`. Marking is per queue at
//!   enqueue: an ECT packet is marked when its class queue, counting it,
//!   exceeds K_i (DCTCP's rule); non-ECT packets are never dropped early.
//! - `T_round` (section 3.3.1): starts at 0, so K_i starts at the standard K.
//!   Each time a class ends an active turn (it was served in the round) the
//!   sample `now - T_pre[i]` enters `T_round = beta T_round + (1 - beta)
//!   sample` (eq. 6), and `T_pre[i] = now`; a turn that finds the class empty
//!   only resets `T_pre[i]`. While the port is idle, `T_round` decays to
//!   `beta x T_round` every `t_idle` (default: one packet time, a 1500 B packet on the wire).
//!   Idleness is counted from the moment the port's queues empty (the last
//!   packet then still takes one transmission time on the wire), and the
//!   decays are applied lazily, all at once, when the next packet arrives.
//! - Strict-priority classes keep the standard threshold (section 3.4).
//! - The probabilistic variant (section 3.4): with `k_min`, `k_max` and `p_max`
//!   instead of `k_standard`, each class marks between `K_min x s_i` and
//!   `K_max x s_i`, `s_i = min(quantum_i / (C x T_round), 1)`, linearly up to
//!   `p_max`.
//! - With quantum-based WRR the same rules apply (section 3.3.2: quantum_i is
//!   the WRR quantum).

use crate::PortContext;
use net::sched::INLINE_CLASSES;
use net::{EgressAqm, Packet, QueueState, Verdict};
use serde::Deserialize;
use sim_core::{QueueSize, RngStream, SimDuration, SimTime};
use smallvec::SmallVec;

/// `kind = "mq-ecn"`: keys and defaults.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MqEcnConfig {
    /// The standard threshold K (eq. 1), e.g. `"16pkt"`.
    pub k_standard: Option<QueueSize>,
    /// RTT for K = C x RTT x lambda, instead of `k_standard`.
    pub rtt: Option<SimDuration>,
    /// lambda for K = C x RTT x lambda (default 1).
    pub lambda: Option<f64>,
    /// EWMA factor beta of eq. (6) (default 0.75).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// Idle period after which T_round decays by beta (default: one packet
    /// time, a 1500 B packet on the port's wire).
    pub t_idle: Option<SimDuration>,
    /// Probabilistic variant (section 3.4): lower standard threshold.
    pub k_min: Option<QueueSize>,
    /// Probabilistic variant: upper standard threshold.
    pub k_max: Option<QueueSize>,
    /// Probabilistic variant: marking probability at the upper threshold.
    pub p_max: Option<f64>,
    /// What a non-ECT packet gets where an ECT one is marked (default:
    /// passes, as in the authors' ns-2 queue, which drops only on overflow).
    #[serde(default = "crate::NonEct::pass")]
    pub non_ect: crate::NonEct,
}

fn default_beta() -> f64 {
    0.75
}

impl MqEcnConfig {
    /// Checks the keys together: `(key, message)` for the first problem.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        let e = |k, m: &str| Err((k, m.to_string()));
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return e("beta", "must be in (0, 1)");
        }
        let step = self.k_standard.is_some() || self.rtt.is_some();
        let prob = self.k_min.is_some() || self.k_max.is_some() || self.p_max.is_some();
        match (step, prob) {
            (true, true) => {
                return e(
                    "k_min",
                    "give k_standard (or rtt) for step marking, or k_min/k_max/p_max, not both",
                );
            }
            (false, false) => {
                return e(
                    "k_standard",
                    "give k_standard, or rtt (with lambda), or k_min/k_max/p_max",
                );
            }
            (true, false) if self.k_standard.is_some() && self.rtt.is_some() => {
                return e("rtt", "give either k_standard or rtt, not both");
            }
            (false, true) => {
                let (Some(lo), Some(hi), Some(p)) = (self.k_min, self.k_max, self.p_max) else {
                    return e(
                        "k_min",
                        "the probabilistic variant needs k_min, k_max and p_max",
                    );
                };
                crate::check_threshold_pair(lo, hi)?;
                if !(p > 0.0 && p <= 1.0) {
                    return e("p_max", "must be in (0, 1]");
                }
            }
            _ => {}
        }
        if self.lambda.is_some_and(|l| l.is_nan() || l <= 0.0) {
            return e("lambda", "must be positive");
        }
        if self.t_idle.is_some_and(|t| t.ps() == 0) {
            return e("t_idle", "must be positive");
        }
        Ok(())
    }

    /// Builds the plugin for one port.
    pub fn build(&self, ctx: &PortContext) -> MqEcn {
        let classes = ctx.weights.len().max(1);
        let (k_lo, k_hi, p_max, bytes_unit) =
            match crate::standard_threshold(self.k_standard, self.rtt, self.lambda, ctx.rate) {
                Some((k, bytes)) => (k, k, 1.0, bytes),
                None => {
                    let (lo, hi) = (
                        self.k_min.expect("validated"),
                        self.k_max.expect("validated"),
                    );
                    (
                        lo.amount() as f64,
                        hi.amount() as f64,
                        self.p_max.unwrap_or(1.0),
                        lo.is_bytes(),
                    )
                }
            };
        MqEcn {
            k_lo,
            k_hi,
            p_max,
            bytes_unit,
            beta: self.beta,
            t_idle_ps: self.t_idle.unwrap_or(ctx.packet_time).ps().max(1),
            rate_bytes_per_ps: ctx.rate.bps() as f64 / 8.0 / 1e12,
            quantum: (0..classes)
                .map(|c| ctx.weights.get(c).copied().unwrap_or(0))
                .collect(),
            strict: ctx.strict_classes.min(classes),
            t_round_ps: 0.0,
            t_pre: smallvec::smallvec![SimTime::ZERO; classes],
            idle_since: Some(SimTime::ZERO),
            rng: RngStream::new(ctx.seed, ctx.port as u64, sim_core::rng::purpose::MQ_ECN),
            non_ect: self.non_ect,
        }
    }
}

/// MQ-ECN state of one port.
#[derive(Clone, Debug)]
pub struct MqEcn {
    k_lo: f64,
    k_hi: f64,
    p_max: f64,
    bytes_unit: bool,
    beta: f64,
    t_idle_ps: u64,
    rate_bytes_per_ps: f64,
    /// Per class: its scheduler quantum, bytes.
    quantum: SmallVec<[u64; INLINE_CLASSES]>,
    strict: usize,
    t_round_ps: f64,
    /// Per class: when its last active round ended (MQ-ECN 3.3.1's T_pre).
    t_pre: SmallVec<[SimTime; INLINE_CLASSES]>,
    idle_since: Option<SimTime>,
    rng: RngStream,
    non_ect: crate::NonEct,
}

impl MqEcn {
    /// The smoothed round time, in picoseconds.
    pub fn t_round_ps(&self) -> f64 {
        self.t_round_ps
    }

    /// The scale `min(quantum_i / (C x T_round), 1)` of class `c`'s thresholds.
    pub fn scale(&self, c: usize) -> f64 {
        if c < self.strict || self.t_round_ps <= 0.0 {
            return 1.0;
        }
        (self.quantum[c] as f64 / (self.rate_bytes_per_ps * self.t_round_ps)).min(1.0)
    }

    /// Class `c`'s (lower, upper) thresholds now, in the configured unit.
    pub fn thresholds(&self, c: usize) -> (f64, f64) {
        let s = self.scale(c);
        (self.k_lo * s, self.k_hi * s)
    }

    /// Applies the idle decays owed since the port emptied.
    fn catch_up_idle(&mut self, now: SimTime) {
        if let Some(t) = self.idle_since.take() {
            let n = now.saturating_since(t).ps() / self.t_idle_ps;
            if n > 0 {
                self.t_round_ps *= libm::pow(self.beta, n as f64);
            }
        }
    }
}

impl EgressAqm for MqEcn {
    fn on_enqueue(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        self.catch_up_idle(now);
        let c = q.class as usize;
        let len = if self.bytes_unit {
            q.bytes + pkt.size_bytes as u64
        } else {
            q.packets + 1
        } as f64;
        let (lo, hi) = self.thresholds(c);
        let mark = if len <= lo {
            false
        } else if len > hi || hi <= lo {
            true
        } else {
            self.rng.uniform_open01() < self.p_max * (len - lo) / (hi - lo)
        };
        self.non_ect.verdict(mark, pkt)
    }

    fn on_dequeue(&mut self, now: SimTime, q: QueueState, _pkt: &Packet) -> Verdict {
        if q.port_packets == 0 {
            self.idle_since = Some(now);
        }
        Verdict::Accept
    }

    fn on_round(&mut self, now: SimTime, class: usize, active: bool) {
        if active {
            // MQ-ECN eq. (6).
            let sample = now.saturating_since(self.t_pre[class]).ps() as f64;
            self.t_round_ps = self.beta * self.t_round_ps + (1.0 - self.beta) * sample;
        }
        self.t_pre[class] = now;
    }
}

impl crate::EgressPlugin for MqEcnConfig {
    fn check(&self, _ctx: &crate::LoadContext) -> Result<(), crate::Invalid> {
        self.validate()
    }
    fn build(&self, ctx: &PortContext) -> Box<dyn EgressAqm> {
        Box::new(MqEcnConfig::build(self, ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::Ecn;
    use sim_core::Bandwidth;

    fn cfg() -> MqEcnConfig {
        MqEcnConfig {
            k_standard: Some(QueueSize::Packets(16)),
            rtt: None,
            lambda: None,
            beta: 0.75,
            t_idle: None,
            k_min: None,
            k_max: None,
            p_max: None,
            non_ect: crate::NonEct::Pass,
        }
    }

    fn ctx(weights: Vec<u64>, strict: usize) -> PortContext {
        PortContext {
            seed: 1,
            port: 0,
            rate: Bandwidth::from_gbps(1),
            weights,
            strict_classes: strict,
            buffer: QueueSize::Packets(100),
            packet_time: net::WireFormat::ETHERNET.packet_time(Bandwidth::from_gbps(1)),
        }
    }

    fn us(n: u64) -> SimTime {
        SimTime(n * 1_000_000)
    }

    #[test]
    fn t_round_is_an_ewma_of_active_turns_and_sets_k_i() {
        let mut m = cfg().build(&ctx(vec![1500, 1500], 0));
        assert_eq!(m.thresholds(0), (16.0, 16.0)); // T_round = 0: the standard K
        // Two queues alternate one 1500 B packet per turn on 1 Gb/s: each turn
        // takes 12 us, so a queue finishes a turn every 24 us.
        for k in 1..=40u64 {
            m.on_round(us(24 * k - 12), 0, true);
            m.on_round(us(24 * k), 1, true);
        }
        // The first samples are 12 and 24 us, then 24 us each: T_round -> 24 us.
        assert!(
            (m.t_round_ps() - 24e6).abs() < 1e3,
            "T_round {} ps",
            m.t_round_ps()
        );
        // K_i = K x min(1500 / (1 Gb/s x 24 us), 1) = 16 x 1500/3000 = 8 packets.
        let (lo, _) = m.thresholds(0);
        assert!((lo - 8.0).abs() < 1e-3, "K_0 {lo}");
    }

    #[test]
    fn first_samples_follow_equation_6() {
        let mut m = cfg().build(&ctx(vec![1500, 1500], 0));
        m.on_round(us(10), 0, true); // sample 10 us: 0.25 x 10 = 2.5 us
        assert!((m.t_round_ps() - 2.5e6).abs() < 1e-3);
        m.on_round(us(20), 1, false); // empty turn: resets T_pre only
        assert!((m.t_round_ps() - 2.5e6).abs() < 1e-3);
        m.on_round(us(30), 1, true); // sample 10 us (from the reset at 20)
        assert!((m.t_round_ps() - (0.75 * 2.5e6 + 0.25 * 10e6)).abs() < 1e-3);
    }

    #[test]
    fn idle_port_decays_t_round_every_t_idle() {
        let mut c = cfg();
        c.t_idle = Some(SimDuration::from_us(10));
        let mut m = c.build(&ctx(vec![1500, 1500], 0));
        m.on_round(us(100), 0, true); // 0.25 x 100 us = 25 us
        let empty = QueueState::default();
        m.on_dequeue(us(100), empty, &Packet::default()); // the port empties
        let ect = Packet {
            size_bytes: 1500,
            ecn: Ecn::Ect0,
            ..Default::default()
        };
        m.on_enqueue(us(135), empty, &ect); // 3 whole idle periods
        assert!(
            (m.t_round_ps() - 25e6 * 0.75 * 0.75 * 0.75).abs() < 1e-3,
            "{}",
            m.t_round_ps()
        );
    }

    #[test]
    fn strict_classes_keep_the_standard_threshold() {
        let mut m = cfg().build(&ctx(vec![1500, 1500, 1500], 1));
        for k in 1..=20u64 {
            m.on_round(us(36 * k), 1, true);
        }
        assert_eq!(m.thresholds(0), (16.0, 16.0));
        assert!(m.thresholds(1).0 < 16.0);
    }

    #[test]
    fn marks_above_k_i_only_and_never_drops() {
        let mut m = cfg().build(&ctx(vec![1500, 1500], 0));
        let ect = Packet {
            size_bytes: 1500,
            ecn: Ecn::Ect0,
            ..Default::default()
        };
        let q = |n| QueueState {
            bytes: n * 1500,
            packets: n,
            port_packets: n,
            ..Default::default()
        };
        assert_eq!(m.on_enqueue(SimTime::ZERO, q(15), &ect), Verdict::Accept); // 16 = K: not above
        assert_eq!(m.on_enqueue(SimTime::ZERO, q(16), &ect), Verdict::Mark);
        assert_eq!(
            m.on_enqueue(SimTime::ZERO, q(100), &Packet::default()),
            Verdict::Accept
        );
        // With non_ect = "drop", a non-ECT packet is dropped where ECT is marked.
        let mut d = MqEcnConfig {
            non_ect: crate::NonEct::Drop,
            ..cfg()
        }
        .build(&ctx(vec![1500], 0));
        assert_eq!(
            d.on_enqueue(SimTime::ZERO, q(100), &Packet::default()),
            Verdict::Drop
        );
        assert_eq!(
            d.on_enqueue(SimTime::ZERO, q(15), &Packet::default()),
            Verdict::Accept
        );
    }

    #[test]
    fn rtt_and_lambda_give_the_standard_threshold() {
        let mut c = cfg();
        c.k_standard = None;
        c.rtt = Some(SimDuration::from_us(250));
        c.lambda = Some(0.5);
        c.validate().unwrap();
        let m = c.build(&ctx(vec![1500], 0));
        // 1 Gb/s x 250 us x 0.5 = 15,625 B.
        assert_eq!(m.thresholds(0), (15_625.0, 15_625.0));
    }

    #[test]
    fn validation_names_keys() {
        let mut c = cfg();
        c.k_min = Some(QueueSize::Packets(1));
        assert_eq!(c.validate().unwrap_err().0, "k_min");
        let mut c = cfg();
        c.beta = 1.0;
        assert_eq!(c.validate().unwrap_err().0, "beta");
    }
}
