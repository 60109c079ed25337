//! PIE, "Proportional Integral Controller Enhanced" (RFC 8033).
//!
//! PIE drops arriving packets at random with a probability `drop_prob`
//! that a PI controller of the queueing delay sets every `t_update`:
//!
//! - Every `t_update` (section 4.2), with `qdelay` the current queueing
//!   delay and `qdelay_old` the one of the update before, in seconds:
//!   `p = alpha (qdelay - target) + beta (qdelay - qdelay_old)`, scaled
//!   down while `drop_prob` is small (the auto-tuning table: `p / 2048`
//!   below 0.000001, `/ 512` below 0.00001, `/ 128` below 0.0001, `/ 32`
//!   below 0.001, `/ 8` below 0.01, `/ 2` below 0.1), capped at 0.02 once
//!   `drop_prob` is at least 0.1 (section 5.5), added to `drop_prob`; a
//!   `drop_prob` whose two last delays were 0 decays by 0.98; the result is
//!   bounded to 0..1.
//! - The delay (`delay_estimate`, sections 4.3 and 5.2): `"timestamp"`, the
//!   sojourn time of the packet that last left the queue; or
//!   `"departure-rate"`, Little's law, the queue's bytes over the average
//!   departure rate, measured over cycles of `dq_threshold_bytes` departed
//!   while that many bytes are queued (averaged with weight 1/8, as Linux's
//!   `sch_pie` does). An empty queue has no delay.
//! - Burst allowance (section 4.4): from the start, and again whenever
//!   `drop_prob` is 0 and both delays are below half the target, nothing is
//!   dropped for `max_burst`; each update spends `t_update` of it.
//! - On arrival (section 4.1): a packet is accepted while the burst
//!   allowance lasts, while `qdelay_old` is below half the target with
//!   `drop_prob` below 0.2, or while the queue holds at most two
//!   `mean_pktsize_bytes`; otherwise it is dropped with `drop_prob`.
//! - `ecn = true` (section 5.1): an ECN-capable packet is marked CE instead
//!   while `drop_prob` is at most `mark_ecnth`, and dropped above it.
//!
//! The updates are the RFC's periodic timer, applied lazily when the queue
//! is next touched (the queue cannot change in between). Each class queue
//! of a port keeps its own controller. The RFC's defaults are
//! Internet-scale (15 ms target and update period, alpha 0.125 and beta
//! 1.25 per second); a datacenter scales the times to its RTTs and alpha
//! and beta up by the same factor.

use crate::PortContext;
use net::{Ecn, EgressAqm, Packet, QueueState, Verdict};
use serde::Deserialize;
use sim_core::{RngStream, SimDuration, SimTime};

/// How PIE estimates the queueing delay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DelayEstimate {
    /// The sojourn time of the last packet to leave (RFC 8033 4.3).
    #[default]
    Timestamp,
    /// Queue bytes over the measured departure rate (RFC 8033 5.2).
    DepartureRate,
}

/// `kind = "pie"`: the keys and their RFC 8033 defaults.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieConfig {
    /// QDELAY_REF: the delay PIE steers the queue to (4.2: 15 ms).
    #[serde(default = "default_15ms")]
    pub target: SimDuration,
    /// T_UPDATE: the period of the drop probability's update (4.2: 15 ms).
    #[serde(default = "default_15ms")]
    pub t_update: SimDuration,
    /// alpha, per second: the weight of the delay's distance from target (4.2: 0.125).
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// beta, per second: the weight of the delay's change since the last update (4.2: 1.25).
    #[serde(default = "default_beta")]
    pub beta: f64,
    /// MAX_BURST: how long a burst is let through unharmed (4.4: 150 ms).
    #[serde(default = "default_max_burst")]
    pub max_burst: SimDuration,
    /// `"timestamp"` (default) or `"departure-rate"`.
    #[serde(default)]
    pub delay_estimate: DelayEstimate,
    /// DQ_THRESHOLD: the bytes of one departure-rate measurement (5.2:
    /// 2^14); only with `delay_estimate = "departure-rate"`.
    pub dq_threshold_bytes: Option<u64>,
    /// MEAN_PKTSIZE: a queue of at most two of these is never dropped from (4.1).
    #[serde(default = "default_mean_pktsize")]
    pub mean_pktsize_bytes: u64,
    /// Mark ECN-capable packets instead of dropping them while the
    /// probability is at most `mark_ecnth` (5.1; default false).
    #[serde(default)]
    pub ecn: bool,
    /// The probability above which even ECN-capable packets are dropped
    /// (5.1: 10%); only with `ecn = true`.
    pub mark_ecnth: Option<f64>,
}

fn default_15ms() -> SimDuration {
    SimDuration::from_ms(15)
}
fn default_alpha() -> f64 {
    0.125
}
fn default_beta() -> f64 {
    1.25
}
fn default_max_burst() -> SimDuration {
    SimDuration::from_ms(150)
}
fn default_dq_threshold() -> u64 {
    1 << 14
}
fn default_mean_pktsize() -> u64 {
    1500
}
fn default_mark_ecnth() -> f64 {
    0.1
}

impl PieConfig {
    /// The cross-key rules: positive periods, finite non-negative weights.
    pub fn check(&self) -> Result<(), crate::Invalid> {
        if self.target.ps() == 0 {
            return Err(("target", "must be positive (RFC 8033: 15ms)".into()));
        }
        // A floor a real switch could run, as DCQCN's timers have one:
        // each update is work, and a period of picoseconds is no switch's.
        if self.t_update < MIN_T_UPDATE {
            return Err((
                "t_update",
                format!("must be at least {MIN_T_UPDATE} (RFC 8033: 15ms)"),
            ));
        }
        for (key, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !v.is_finite() || v < 0.0 {
                return Err((key, format!("must be a finite number >= 0, got {v}")));
            }
        }
        // Keys only a mode reads are refused by name without it.
        if let Some(p) = self.mark_ecnth {
            if !self.ecn {
                let msg = "is where ECN marking gives way to drops, and ecn = false marks \
                           nothing: leave it out, or set ecn = true";
                return Err(("mark_ecnth", msg.into()));
            }
            if !(0.0..=1.0).contains(&p) {
                return Err((
                    "mark_ecnth",
                    format!("must be a probability, 0 to 1, got {p}"),
                ));
            }
        }
        if let Some(b) = self.dq_threshold_bytes {
            if self.delay_estimate != DelayEstimate::DepartureRate {
                let msg = "sizes a departure-rate measurement, and delay_estimate = \
                           \"timestamp\" makes none: leave it out, or set delay_estimate = \
                           \"departure-rate\"";
                return Err(("dq_threshold_bytes", msg.into()));
            }
            if b == 0 {
                return Err((
                    "dq_threshold_bytes",
                    "must be positive (RFC 8033: 16384)".into(),
                ));
            }
        }
        Ok(())
    }

    /// The plugin of one port: a controller per class queue.
    pub fn build(&self, ctx: &PortContext) -> Pie {
        let state = PieState {
            burst_allowance_ps: self.max_burst.ps(),
            next_update_ps: self.t_update.ps(),
            ..Default::default()
        };
        Pie {
            cfg: *self,
            rng: RngStream::new(ctx.seed, ctx.port as u64, sim_core::rng::purpose::PIE),
            queues: vec![state; ctx.weights.len().max(1)],
        }
    }
}

impl crate::EgressPlugin for PieConfig {
    fn check(&self, _ctx: &crate::LoadContext) -> Result<(), crate::Invalid> {
        PieConfig::check(self)
    }
    fn build(&self, ctx: &PortContext) -> Box<dyn EgressAqm> {
        Box::new(PieConfig::build(self, ctx))
    }
    /// PIE drops, also with ECN once its probability passes `mark_ecnth`.
    fn drops_early(&self) -> bool {
        true
    }
}

/// The shortest `t_update` allowed.
pub const MIN_T_UPDATE: SimDuration = SimDuration::from_us(1);

/// Updates one catch-up runs one by one before it takes the rest in
/// closed form ([`Pie`]'s `catch_up`).
const STEPPED_UPDATES: u64 = 1024;

/// One queue's PIE variables (RFC 8033's table), times in ps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PieState {
    /// drop_prob_.
    pub drop_prob: f64,
    /// burst_allowance_.
    pub burst_allowance_ps: u64,
    /// qdelay_old_: the delay at the last update.
    pub qdelay_old_ps: u64,
    /// When the next update is due.
    pub next_update_ps: u64,
    /// The queue's bytes after the last packet that touched it.
    pub bytes: u64,
    /// The sojourn time of the last packet to leave.
    pub last_sojourn_ps: u64,
    /// A departure-rate measurement is under way.
    pub in_measurement: bool,
    /// dq_count_: bytes departed in the measurement.
    pub dq_count: u64,
    /// dq_tstamp_: when the measurement began.
    pub dq_tstamp_ps: u64,
    /// avg_dq_rate_, bytes per ps (0 before the first measurement).
    pub avg_dq_rate: f64,
}

/// PIE on every class queue of one port.
#[derive(Clone, Debug)]
pub struct Pie {
    cfg: PieConfig,
    rng: RngStream,
    queues: Vec<PieState>,
}

/// The auto-tuning of RFC 8033 4.2: how much of `p` a small `drop_prob` takes.
fn tuned(p: f64, drop_prob: f64) -> f64 {
    const SCALE: [(f64, f64); 6] = [
        (0.000001, 2048.0),
        (0.00001, 512.0),
        (0.0001, 128.0),
        (0.001, 32.0),
        (0.01, 8.0),
        (0.1, 2.0),
    ];
    match SCALE.iter().find(|(below, _)| drop_prob < *below) {
        Some((_, div)) => p / div,
        None => p,
    }
}

impl Pie {
    /// The state of class queue `class` (for tests and traces).
    pub fn state(&self, class: usize) -> &PieState {
        &self.queues[class]
    }

    /// The queueing delay now, by the configured estimate.
    fn qdelay_ps(&self, st: &PieState) -> u64 {
        if st.bytes == 0 {
            return 0;
        }
        match self.cfg.delay_estimate {
            DelayEstimate::Timestamp => st.last_sojourn_ps,
            DelayEstimate::DepartureRate if st.avg_dq_rate > 0.0 => {
                (st.bytes as f64 / st.avg_dq_rate) as u64
            }
            DelayEstimate::DepartureRate => 0,
        }
    }

    /// One periodic update of RFC 8033 4.2 and 4.4.
    fn update(&self, st: &mut PieState) {
        let (target, old) = (self.cfg.target.ps(), st.qdelay_old_ps);
        let cur = self.qdelay_ps(st);
        let secs = |a: u64, b: u64| (a as f64 - b as f64) * 1e-12;
        let p = self.cfg.alpha * secs(cur, target) + self.cfg.beta * secs(cur, old);
        let mut p = tuned(p, st.drop_prob);
        if st.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02; // 5.5: no sharp rise once dropping heavily
        }
        st.drop_prob += p;
        if cur == 0 && old == 0 {
            st.drop_prob *= 0.98;
        }
        st.drop_prob = st.drop_prob.clamp(0.0, 1.0);
        st.burst_allowance_ps = st.burst_allowance_ps.saturating_sub(self.cfg.t_update.ps());
        if st.drop_prob == 0.0 && cur < target / 2 && old < target / 2 {
            st.burst_allowance_ps = self.cfg.max_burst.ps();
        }
        st.qdelay_old_ps = cur;
    }

    /// Runs the updates due by `now` on class `class`'s controller. A
    /// controller at rest (nothing queued, nothing to drop, its allowance
    /// whole) stays so, and skips its idle updates at once; so does one
    /// whose update changes nothing (a fixed point: every later update
    /// reads the same state). Past [`STEPPED_UPDATES`] updates due at
    /// once (a link so slow, or a pause so long, that no packet moves for
    /// thousands of periods) the rest run in closed form
    /// ([`Pie::steady_updates`]), so that the work per event is bounded
    /// whatever `t_update` and the gap (issue 56: 1 ps looped for minutes).
    fn catch_up(&mut self, class: usize, now: u64) {
        let mut st = self.queues[class];
        let period = self.cfg.t_update.ps();
        let mut stepped = 0u64;
        while st.next_update_ps <= now {
            let at_rest = st.drop_prob == 0.0
                && st.qdelay_old_ps == 0
                && self.qdelay_ps(&st) == 0
                && st.burst_allowance_ps == self.cfg.max_burst.ps();
            let skip_rest = |st: &mut PieState| {
                st.next_update_ps += (now - st.next_update_ps) / period * period + period;
            };
            if at_rest {
                skip_rest(&mut st);
                break;
            }
            let due = (now - st.next_update_ps) / period + 1;
            let cur = self.qdelay_ps(&st);
            if stepped >= STEPPED_UPDATES && cur == st.qdelay_old_ps && cur != 0 {
                let k = self.steady_updates(&mut st, cur, due);
                st.next_update_ps += k * period;
                continue;
            }
            let before = st;
            self.update(&mut st);
            stepped += 1;
            st.next_update_ps += period;
            let unchanged = PieState {
                next_update_ps: st.next_update_ps,
                ..before
            };
            if st.next_update_ps <= now && st == unchanged {
                skip_rest(&mut st);
                break;
            }
        }
        debug_assert!(
            (0.0..=1.0).contains(&st.drop_prob),
            "drop_prob {}",
            st.drop_prob
        );
        self.queues[class] = st;
    }

    /// Runs up to `due` updates at once on a controller whose delay `cur`
    /// (not 0) is what it was at the last update: each then adds the same
    /// step to `drop_prob` until the probability crosses an edge of the
    /// auto-tuning table or a clamp, so this takes the steps to the next
    /// edge in one multiplication. Returns how many updates it ran (at
    /// least 1). Not bit-identical to stepping (k x d against k
    /// additions); it runs only past [`STEPPED_UPDATES`] updates in one
    /// catch-up, which no shipped scenario reaches.
    fn steady_updates(&self, st: &mut PieState, cur: u64, due: u64) -> u64 {
        const EDGES: [f64; 8] = [0.0, 0.000001, 0.00001, 0.0001, 0.001, 0.01, 0.1, 1.0];
        let target = self.cfg.target.ps();
        let p = self.cfg.alpha * (cur as f64 - target as f64) * 1e-12;
        let mut d = tuned(p, st.drop_prob);
        if st.drop_prob >= 0.1 && d > 0.02 {
            d = 0.02;
        }
        let dp = st.drop_prob;
        let to_edge = if d > 0.0 {
            EDGES.iter().find(|&&e| e > dp).map(|&e| e - dp)
        } else if d < 0.0 {
            EDGES.iter().rev().find(|&&e| e < dp).map(|&e| dp - e)
        } else {
            None
        };
        let k = match to_edge {
            Some(gap) => ((gap / d.abs()).ceil() as u64).clamp(1, due),
            None => due, // nothing moves: a fixed point
        };
        st.drop_prob = (dp + k as f64 * d).clamp(0.0, 1.0);
        let period = self.cfg.t_update.ps();
        st.burst_allowance_ps = st
            .burst_allowance_ps
            .saturating_sub(period.saturating_mul(k));
        if st.drop_prob == 0.0 && cur < target / 2 {
            st.burst_allowance_ps = self.cfg.max_burst.ps();
        }
        k
    }

    /// RFC 8033 5.2: a departure of `size` bytes leaving `left` bytes queued.
    fn measure_departure(st: &mut PieState, threshold: u64, now: u64, size: u64, left: u64) {
        if !st.in_measurement && left >= threshold {
            st.in_measurement = true;
            st.dq_tstamp_ps = now;
            st.dq_count = 0;
        }
        if !st.in_measurement {
            return;
        }
        st.dq_count += size;
        if st.dq_count < threshold {
            return;
        }
        let interval = now - st.dq_tstamp_ps;
        if interval > 0 {
            let rate = st.dq_count as f64 / interval as f64;
            st.avg_dq_rate = if st.avg_dq_rate == 0.0 {
                rate
            } else {
                0.875 * st.avg_dq_rate + 0.125 * rate
            };
        }
        if left < threshold {
            st.in_measurement = false;
        } else {
            st.dq_count = 0;
            st.dq_tstamp_ps = now;
        }
    }
}

impl EgressAqm for Pie {
    fn on_enqueue(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        let class = (q.class as usize).min(self.queues.len() - 1);
        self.catch_up(class, now.ps());
        let st = self.queues[class];
        let cfg = &self.cfg;
        let spared = st.burst_allowance_ps > 0
            || (st.qdelay_old_ps < cfg.target.ps() / 2 && st.drop_prob < 0.2)
            || q.bytes <= 2 * cfg.mean_pktsize_bytes
            || st.drop_prob == 0.0;
        let verdict = if spared || self.rng.uniform_open01() >= st.drop_prob {
            Verdict::Accept
        } else if cfg.ecn
            && pkt.ecn != Ecn::NotEct
            && st.drop_prob <= cfg.mark_ecnth.unwrap_or_else(default_mark_ecnth)
        {
            Verdict::Mark
        } else {
            Verdict::Drop
        };
        let kept = if verdict == Verdict::Drop {
            0
        } else {
            pkt.size_bytes as u64
        };
        self.queues[class].bytes = q.bytes + kept;
        verdict
    }

    fn on_dequeue(&mut self, now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        let class = (q.class as usize).min(self.queues.len() - 1);
        self.catch_up(class, now.ps());
        let threshold = self
            .cfg
            .dq_threshold_bytes
            .unwrap_or_else(default_dq_threshold);
        let st = &mut self.queues[class];
        st.bytes = q.bytes;
        st.last_sojourn_ps = now.since(pkt.enqueued_at).ps();
        if self.cfg.delay_estimate == DelayEstimate::DepartureRate {
            let size = pkt.size_bytes as u64;
            Pie::measure_departure(st, threshold, now.ps(), size, q.bytes);
        }
        Verdict::Accept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::ctx;
    use sim_core::QueueSize;

    const MS: u64 = 1_000_000_000;

    fn config() -> PieConfig {
        PieConfig {
            target: default_15ms(),
            t_update: default_15ms(),
            alpha: default_alpha(),
            beta: default_beta(),
            max_burst: default_max_burst(),
            delay_estimate: DelayEstimate::Timestamp,
            dq_threshold_bytes: None,
            mean_pktsize_bytes: default_mean_pktsize(),
            ecn: false,
            mark_ecnth: None,
        }
    }

    fn pie(cfg: PieConfig) -> Pie {
        cfg.build(&ctx(10, QueueSize::Packets(10_000)))
    }

    fn at_ms(ms: u64) -> SimTime {
        SimTime(ms * MS)
    }

    fn queue(bytes: u64) -> QueueState {
        QueueState {
            bytes,
            packets: bytes / 1500,
            ..Default::default()
        }
    }

    /// A packet that sojourned `sojourn_ms` leaves at `now_ms` with `left` bytes behind.
    fn depart(p: &mut Pie, now_ms: u64, sojourn_ms: u64, left: u64) {
        let pkt = Packet {
            size_bytes: 1500,
            enqueued_at: at_ms(now_ms - sojourn_ms),
            ..Default::default()
        };
        p.on_dequeue(at_ms(now_ms), queue(left), &pkt);
    }

    #[test]
    fn the_update_is_the_rfc_pi_law_with_its_auto_tuning() {
        let p = pie(config());
        let mut st = PieState {
            bytes: 100_000,
            last_sojourn_ps: 25 * MS,
            qdelay_old_ps: 20 * MS,
            ..Default::default()
        };
        // p = 0.125 x (0.025 - 0.015) + 1.25 x (0.025 - 0.020) = 0.0075;
        // drop_prob 0 < 0.000001: p / 2048.
        p.update(&mut st);
        assert!((st.drop_prob - 0.0075 / 2048.0).abs() < 1e-15);
        assert_eq!(st.qdelay_old_ps, 25 * MS);
        for (prob, div) in [
            (0.000005, 512.0),
            (0.00005, 128.0),
            (0.0005, 32.0),
            (0.005, 8.0),
            (0.05, 2.0),
            (0.09, 2.0),
        ] {
            assert_eq!(tuned(0.01, prob), 0.01 / div, "{prob}");
        }
        assert_eq!(tuned(0.01, 0.5), 0.01);
        // 5.5: at drop_prob >= 0.1 a step is at most 0.02.
        let mut high = PieState {
            drop_prob: 0.3,
            bytes: 1_000_000,
            last_sojourn_ps: 200 * MS,
            ..Default::default()
        };
        p.update(&mut high);
        assert!((high.drop_prob - 0.32).abs() < 1e-12);
    }

    #[test]
    fn an_idle_queue_decays_the_probability_and_restores_the_burst_allowance() {
        let p = pie(config());
        let mut st = PieState {
            drop_prob: 0.5,
            ..Default::default()
        };
        // Both delays 0: p = -0.125 x 0.015 = -0.001875, then x 0.98.
        p.update(&mut st);
        assert!((st.drop_prob - (0.5 - 0.001875) * 0.98).abs() < 1e-12);
        assert_eq!(st.burst_allowance_ps, 0, "not restored while dropping");
        let mut calm = PieState::default();
        p.update(&mut calm);
        assert_eq!(calm.drop_prob, 0.0);
        assert_eq!(calm.burst_allowance_ps, 150 * MS);
    }

    #[test]
    fn nothing_is_dropped_during_the_burst_allowance_then_drop_prob_of_arrivals_are() {
        let mut p = pie(config());
        let ect = Packet {
            size_bytes: 1500,
            ..Default::default()
        };
        // A delay growing to 300 ms from the start: the allowance (150 ms,
        // 15 ms a period) lasts ten updates, during which the probability grows.
        let mut first_drop = None;
        let mut drops = 0;
        let mut arrivals = 0;
        for t in 1..3000u64 {
            depart(&mut p, t, t.min(300), 1_000_000);
            let v = p.on_enqueue(at_ms(t), queue(1_000_000), &ect);
            assert_ne!(v, Verdict::Mark, "without ecn PIE drops");
            if v == Verdict::Drop {
                first_drop.get_or_insert(t);
                if t >= 2000 {
                    drops += 1;
                }
            }
            if t >= 2000 {
                arrivals += 1;
            }
        }
        assert!(first_drop.unwrap() >= 150, "{first_drop:?}");
        // Far above target, drop_prob climbs to 1 and arrivals are dropped with it.
        let prob = p.state(0).drop_prob;
        assert!(prob > 0.9, "{prob}");
        assert!(drops as f64 > 0.8 * arrivals as f64);
    }

    #[test]
    fn a_queue_of_two_mean_packets_is_never_dropped_from() {
        let mut p = pie(config());
        p.queues[0].drop_prob = 1.0;
        p.queues[0].burst_allowance_ps = 0;
        p.queues[0].qdelay_old_ps = 100 * MS;
        p.queues[0].next_update_ps = u64::MAX;
        let pkt = Packet {
            size_bytes: 1500,
            ..Default::default()
        };
        assert_eq!(p.on_enqueue(at_ms(1), queue(3000), &pkt), Verdict::Accept);
        assert_eq!(p.on_enqueue(at_ms(1), queue(3001), &pkt), Verdict::Drop);
    }

    #[test]
    fn ecn_marks_up_to_mark_ecnth_and_drops_above_it() {
        let mut p = pie(PieConfig {
            ecn: true,
            ..config()
        });
        let (ect, plain) = (
            Packet {
                size_bytes: 1500,
                ecn: Ecn::Ect0,
                ..Default::default()
            },
            Packet {
                size_bytes: 1500,
                ..Default::default()
            },
        );
        let st = &mut p.queues[0];
        st.burst_allowance_ps = 0;
        st.qdelay_old_ps = 100 * MS;
        st.next_update_ps = u64::MAX;
        st.drop_prob = 0.1;
        let verdicts: Vec<Verdict> = (0..200)
            .map(|_| p.on_enqueue(at_ms(1), queue(1_000_000), &ect))
            .collect();
        assert!(verdicts.contains(&Verdict::Mark) && !verdicts.contains(&Verdict::Drop));
        let plain_v: Vec<Verdict> = (0..200)
            .map(|_| p.on_enqueue(at_ms(1), queue(1_000_000), &plain))
            .collect();
        assert!(plain_v.contains(&Verdict::Drop) && !plain_v.contains(&Verdict::Mark));
        p.queues[0].drop_prob = 0.11;
        let above: Vec<Verdict> = (0..200)
            .map(|_| p.on_enqueue(at_ms(1), queue(1_000_000), &ect))
            .collect();
        assert!(above.contains(&Verdict::Drop) && !above.contains(&Verdict::Mark));
    }

    #[test]
    fn the_departure_rate_estimate_is_littles_law() {
        let mut p = pie(PieConfig {
            delay_estimate: DelayEstimate::DepartureRate,
            ..config()
        });
        // 1500 B every 1.2 us = 10 Gb/s, with 150 KB queued throughout.
        let pkt = Packet {
            size_bytes: 1500,
            ..Default::default()
        };
        for i in 1..=1000u64 {
            p.on_dequeue(SimTime(i * 1_200_000), queue(150_000), &pkt);
        }
        // The RFC counts the departure that starts the first measurement
        // too (11 packets over 10 gaps); the average forgets it by 7/8 a cycle.
        let st = *p.state(0);
        let rate = 1500.0 / 1_200_000.0;
        assert!(
            (st.avg_dq_rate / rate - 1.0).abs() < 1e-5,
            "{}",
            st.avg_dq_rate
        );
        // 150 KB at 1.25 GB/s: 120 us.
        let qdelay = p.qdelay_ps(&st) as f64;
        assert!((qdelay / 120e6 - 1.0).abs() < 1e-5, "{qdelay}");
    }

    #[test]
    fn a_rested_controller_skips_its_idle_updates() {
        let mut p = pie(config());
        let pkt = Packet {
            size_bytes: 1500,
            ..Default::default()
        };
        p.on_enqueue(at_ms(3_600_000), queue(0), &pkt);
        assert_eq!(p.state(0).next_update_ps, (3_600_000 + 15) * MS);
        assert_eq!(p.state(0).drop_prob, 0.0);
    }

    /// Issue 56: a standing queue whose next packet comes an hour later
    /// (a link of a few bits per second) under a 1 us `t_update` has 3.6
    /// x 10^9 updates due at once. They take closed-form steps past the
    /// first 1,024, so the catch-up is bounded, and land where stepping
    /// them one by one would: the probability climbs to 1 above target,
    /// and falls back to 0 (its allowance restored) below half of it.
    #[test]
    fn a_long_gap_of_updates_is_caught_up_in_bounded_steps() {
        let cfg = PieConfig {
            t_update: SimDuration::from_us(1),
            ..config()
        };
        let mut p = pie(cfg);
        depart(&mut p, 1, 1, 100_000); // a sojourn of 1 ms: above 0, below target
        let t0 = std::time::Instant::now();
        p.catch_up(0, 3_600_000 * MS);
        let st = *p.state(0);
        assert!(t0.elapsed().as_secs() < 5, "{:?}", t0.elapsed());
        assert_eq!(st.drop_prob, 0.0);
        assert_eq!(st.burst_allowance_ps, 150 * MS);
        assert_eq!(st.next_update_ps, 3_600_000 * MS + 1_000_000);
        let mut high = pie(cfg);
        depart(&mut high, 1, 1, 1_000_000);
        high.queues[0].last_sojourn_ps = 100 * MS;
        high.catch_up(0, 3_600_000 * MS);
        assert_eq!(high.state(0).drop_prob, 1.0);
        assert_eq!(high.state(0).burst_allowance_ps, 0);
        // Closed form against stepping over 200,000 updates: the same
        // probability to within the rounding of k additions.
        let mut stepped = pie(cfg);
        let mut jumped = pie(cfg);
        for p in [&mut stepped, &mut jumped] {
            depart(p, 1, 1, 1_000_000);
            p.queues[0].last_sojourn_ps = 15 * MS + 20_000; // 20 ns above target
        }
        let end = MS + 200_000 * 1_000_000;
        let mut t = MS;
        while t < end {
            t += 1_000_000;
            stepped.catch_up(0, t.min(end)); // one update a call: never closed form
        }
        jumped.catch_up(0, end);
        let (a, b) = (stepped.state(0).drop_prob, jumped.state(0).drop_prob);
        assert!(a > 0.0 && ((a - b) / a).abs() < 1e-6, "{a} vs {b}");
    }

    #[test]
    fn config_checks_name_the_key() {
        assert!(config().check().is_ok());
        let bad = |c: PieConfig| c.check().unwrap_err().0;
        assert_eq!(
            bad(PieConfig {
                target: SimDuration::ZERO,
                ..config()
            }),
            "target"
        );
        assert_eq!(
            bad(PieConfig {
                t_update: SimDuration::ZERO,
                ..config()
            }),
            "t_update"
        );
        assert_eq!(
            bad(PieConfig {
                t_update: SimDuration::from_ps(1),
                ..config()
            }),
            "t_update",
            "a floor a switch could run"
        );
        assert_eq!(
            bad(PieConfig {
                alpha: -1.0,
                ..config()
            }),
            "alpha"
        );
        assert_eq!(
            bad(PieConfig {
                beta: f64::NAN,
                ..config()
            }),
            "beta"
        );
        assert_eq!(
            bad(PieConfig {
                mark_ecnth: Some(1.5),
                ecn: true,
                ..config()
            }),
            "mark_ecnth"
        );
        assert_eq!(
            bad(PieConfig {
                dq_threshold_bytes: Some(0),
                delay_estimate: DelayEstimate::DepartureRate,
                ..config()
            }),
            "dq_threshold_bytes"
        );
        // Keys only a mode reads are refused without it (issue 56).
        assert_eq!(
            bad(PieConfig {
                dq_threshold_bytes: Some(16384),
                ..config()
            }),
            "dq_threshold_bytes"
        );
        assert_eq!(
            bad(PieConfig {
                mark_ecnth: Some(0.1),
                ..config()
            }),
            "mark_ecnth"
        );
    }

    proptest::proptest! {
        /// Over any sequence of arrivals and departures: the probability
        /// stays in [0, 1], and nothing is dropped from a queue of at most
        /// two mean packets or while the burst allowance lasts.
        #[test]
        fn the_probability_is_bounded_and_the_safeguards_hold(
            steps in proptest::collection::vec((0u64..20_000_000, 0u64..400_000, proptest::bool::ANY), 1..600),
        ) {
            let mut p = pie(PieConfig {
                target: SimDuration::from_us(50),
                t_update: SimDuration::from_us(50),
                max_burst: SimDuration::from_us(100),
                alpha: 37.5,
                beta: 375.0,
                ..config()
            });
            let pkt = Packet { size_bytes: 1500, ..Default::default() };
            let mut now = 0u64;
            for (gap, bytes, arrive) in steps {
                // Mostly large queues, some of at most two packets.
                let bytes = if bytes % 8 == 0 { bytes % 3001 } else { bytes };
                now += gap;
                let before = *p.state(0);
                if arrive {
                    let v = p.on_enqueue(SimTime(now), queue(bytes), &pkt);
                    let st = *p.state(0);
                    let spared = bytes <= 3000 || st.burst_allowance_ps > 0;
                    proptest::prop_assert!(!(spared && v == Verdict::Drop), "{v:?} {st:?}");
                    proptest::prop_assert!(v != Verdict::Mark, "no ECN: no mark");
                } else {
                    let leaving = Packet { enqueued_at: SimTime(now.saturating_sub(bytes * 800)), ..pkt };
                    proptest::prop_assert_eq!(p.on_dequeue(SimTime(now), queue(bytes), &leaving), Verdict::Accept);
                }
                let st = *p.state(0);
                proptest::prop_assert!((0.0..=1.0).contains(&st.drop_prob), "{before:?} -> {st:?}");
            }
        }
    }
}
