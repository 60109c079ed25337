//! HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM
//! 2019): the sender sets its window from the in-band telemetry (INT) of
//! every switch on its path, echoed on each ACK.
//!
//! Per ACK (the paper's Algorithm 1, `MeasureInflight` and `ComputeWind`,
//! in the rate form the HPCC ns-3 fork runs, R = W / T):
//! - for each hop i, from this ACK's record and the previous one:
//!   u_i = txRate_i / B_i + min(qlen_i, qlen_i') / (B_i T), with
//!   txRate_i = (txBytes_i - txBytes_i') / (ts_i - ts_i');
//! - U = max_i u_i, and tau the record interval of that hop (at most T);
//!   the normalised inflight moves as u = (1 - tau/T) u + (tau/T) U;
//! - if u >= eta or incStage >= maxStage: R = R_c / (u / eta) + R_AI and
//!   incStage = 0, else R = R_c + R_AI and incStage + 1;
//! - R_c (the paper's W_c) and incStage take the new values only on the
//!   first ACK past the PSN sent at the last such update (once per round
//!   trip); the ACKs in between react at once from R_c without storing it
//!   (the fork's `FAST_REACT 1`).
//!
//! The window is BDP x R / line rate (the fork's `VAR_WIN`), and the NIC
//! paces at R. The first ACK only records the hops.
//!
//! Choices where the sources leave room (documented in docs/scenarios.md;
//! the keys are [`HpccConfig`]'s):
//! - T is the flow's own base RTT (the fork's `GLOBAL_T 1` takes the
//!   largest in the topology);
//! - a hop whose two records have the same time is skipped (the fork would
//!   divide by zero; two packets never leave one port at one instant, so
//!   this happens only if a path changed);
//! - R_AI defaults to the fork's `run.py` for `hp`, 10 x bw / 25 Mb/s (line
//!   rate / 2500: 40 Mb/s at 100 Gb/s), maxStage to the paper's 5 (the
//!   fork's script passes 0), the rate floor to the script's 1 Gb/s.

use super::config::{ControllerKeys, KeyError};
use net::IntStack;
use serde::Deserialize;
use sim_core::{Bandwidth, SimDuration};

/// HPCC's parameters (paper section 3.3 and 5.1; the fork's `run.py`).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HpccConfig {
    /// Target utilisation eta (0.95).
    pub eta: f64,
    /// Additive steps before a multiplicative update is forced (5).
    pub max_stage: u32,
    /// R_AI = W_AI / T; `None`: line rate / 2500.
    pub rate_ai: Option<Bandwidth>,
    /// The rate's floor (1 Gb/s).
    pub min_rate: Bandwidth,
    /// React on every ACK, not only once per round trip (true).
    pub fast_react: bool,
}

impl Default for HpccConfig {
    fn default() -> Self {
        HpccConfig {
            eta: 0.95,
            max_stage: 5,
            rate_ai: None,
            min_rate: Bandwidth::from_bps(1_000_000_000),
            fast_react: true,
        }
    }
}

impl ControllerKeys for HpccConfig {
    type Config = HpccConfig;
    /// The keys as written are the configuration; checked here.
    fn build(&self) -> Result<HpccConfig, KeyError> {
        if !(self.eta > 0.0 && self.eta <= 1.0) {
            return Err(KeyError::new("eta", "must be in (0, 1] (the paper: 0.95)"));
        }
        Ok(*self)
    }
}

/// Which rule an update applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HpccStep {
    /// R = R_c / (u / eta) + R_AI.
    Multiplicative,
    /// R = R_c + R_AI.
    Additive,
}

/// One flow's HPCC state.
#[derive(Clone, Debug)]
pub struct Hpcc {
    cfg: HpccConfig,
    line_bps: f64,
    rate_ai_bps: f64,
    /// T, picoseconds.
    base_rtt_ps: u64,
    /// R_c: the reference rate, updated once per round trip.
    ref_bps: f64,
    /// The rate in force.
    rate_bps: f64,
    inc_stage: u32,
    /// The PSN an ACK must pass to be a full update (`None`: no ACK yet).
    last_update: Option<u64>,
    /// u, the normalised inflight.
    u: f64,
    /// The records of the last ACK.
    prev: IntStack,
    last_step: Option<HpccStep>,
}

impl Hpcc {
    /// A flow starting at `line_bps` on a path of base RTT `base_rtt`.
    pub fn new(cfg: HpccConfig, line_bps: f64, base_rtt: SimDuration) -> Self {
        Hpcc {
            cfg,
            line_bps,
            rate_ai_bps: cfg.rate_ai.map_or(line_bps / 2500.0, |r| r.bps() as f64),
            base_rtt_ps: base_rtt.ps().max(1),
            ref_bps: line_bps,
            rate_bps: line_bps,
            inc_stage: 0,
            last_update: None,
            u: 0.0,
            prev: IntStack::EMPTY,
            last_step: None,
        }
    }

    /// The rate to pace at, bits per second.
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// R_c, bits per second.
    pub fn reference_bps(&self) -> f64 {
        self.ref_bps
    }

    /// The normalised inflight u.
    pub fn utilisation(&self) -> f64 {
        self.u
    }

    /// incStage.
    pub fn inc_stage(&self) -> u32 {
        self.inc_stage
    }

    /// The rule the last update applied (`None` before the first).
    pub fn last_step(&self) -> Option<HpccStep> {
        self.last_step
    }

    /// An ACK of every PSN below `ack` carrying `int`, while `snd_nxt` is
    /// the next PSN to send.
    pub fn on_ack(&mut self, int: &IntStack, ack: u64, snd_nxt: u64) {
        let Some(last) = self.last_update else {
            self.prev = *int;
            self.last_update = Some(snd_nxt);
            return;
        };
        let full = ack > last;
        if !full && !self.cfg.fast_react {
            return;
        }
        let t = self.base_rtt_ps;
        let t_s = t as f64 * 1e-12;
        let (mut u_max, mut tau_max, mut any) = (0.0f64, 0u64, false);
        for (hop, prev) in int.hops().iter().zip(self.prev.hops()) {
            let tau = hop.ts.saturating_since(prev.ts).ps();
            if tau == 0 || hop.rate_bps == 0 {
                continue;
            }
            any = true;
            let b = hop.rate_bps as f64;
            let sent = hop.tx_bytes.saturating_sub(prev.tx_bytes) as f64 * 8.0;
            let tx_rate = sent / (tau as f64 * 1e-12);
            let queued = hop.qlen_bytes.min(prev.qlen_bytes) as f64 * 8.0;
            let u = tx_rate / b + queued / (b * t_s);
            if u > u_max {
                u_max = u;
                tau_max = tau;
            }
        }
        self.prev = *int;
        if any {
            let tau = tau_max.min(t) as f64;
            self.u = (self.u * (t as f64 - tau) + u_max * tau) / t as f64;
            let c = self.u / self.cfg.eta;
            let (rate, stage, step) = if c >= 1.0 || self.inc_stage >= self.cfg.max_stage {
                // No load at all measured: nothing to scale by, line rate.
                let scaled = if c > 0.0 {
                    self.ref_bps / c
                } else {
                    self.line_bps
                };
                (scaled + self.rate_ai_bps, 0, HpccStep::Multiplicative)
            } else {
                (
                    self.ref_bps + self.rate_ai_bps,
                    self.inc_stage + 1,
                    HpccStep::Additive,
                )
            };
            let rate = rate.clamp(
                (self.cfg.min_rate.bps() as f64).min(self.line_bps),
                self.line_bps,
            );
            self.rate_bps = rate;
            self.last_step = Some(step);
            if full {
                self.ref_bps = rate;
                self.inc_stage = stage;
            }
        }
        if full {
            self.last_update = Some(last.max(snd_nxt));
        }
    }
}

impl super::control::RoceControllerConfig for HpccConfig {
    type Controller = Hpcc;
    const NAME: &'static str = "hpcc";
    fn build(&self, f: &super::control::FlowCtx<'_>) -> Hpcc {
        Hpcc::new(*self, f.line_bps, f.path.base_rtt)
    }
}

impl super::control::ControllerRules for HpccConfig {
    fn min_rate_bps(&self) -> Option<f64> {
        Some(self.min_rate.bps() as f64)
    }
    fn telemetry_bytes(&self) -> u32 {
        net::INT_HEADER_BYTES
    }
    /// BDP x R / line rate (the fork's `VAR_WIN 1`).
    fn default_window(&self) -> Option<super::config::WindowMode> {
        Some(super::config::WindowMode::BdpXRate)
    }
}

impl super::control::RateControl for Hpcc {
    #[inline]
    fn rate_bps(&self, _line_bps: f64) -> f64 {
        Hpcc::rate_bps(self)
    }
    fn wants_int(&self) -> bool {
        true
    }
    /// After the ACK's bookkeeping, as the fork's ReceiveAck.
    fn after_ack(&mut self, a: &super::control::AckView<'_>) -> bool {
        if !a.pkt.roce.has(net::RoceBits::INT) {
            return false;
        }
        Hpcc::on_ack(self, a.int, a.pkt.ack, a.snd_nxt);
        true
    }
    fn state(&self, out: &mut crate::StateOut<'_>) {
        out("reference_gbps", self.reference_bps() / 1e9);
        out("utilisation", self.utilisation());
        out("inc_stage", self.inc_stage() as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::IntHop;
    use sim_core::SimTime;

    const GBPS: f64 = 1e9;

    /// One hop at 100 Gb/s: the record at `t_ns` after `tx` wire bytes with
    /// `q` bytes queued.
    fn stack(t_ns: u64, tx: u64, q: u64) -> IntStack {
        let mut s = IntStack::EMPTY;
        s.push(IntHop {
            ts: SimTime(t_ns * 1000),
            tx_bytes: tx,
            qlen_bytes: q,
            rate_bps: 100_000_000_000,
        });
        s
    }

    fn hpcc() -> Hpcc {
        // T = 10 us: BDP 125 kB at 100 Gb/s; R_AI 40 Mb/s.
        Hpcc::new(
            HpccConfig::default(),
            100.0 * GBPS,
            SimDuration::from_us(10),
        )
    }

    #[test]
    fn the_first_ack_only_records_the_hops() {
        let mut h = hpcc();
        h.on_ack(&stack(0, 0, 50_000), 1, 10);
        assert_eq!(h.rate_bps(), 100.0 * GBPS);
        assert_eq!(h.last_step(), None);
    }

    #[test]
    fn an_overloaded_hop_cuts_the_rate_by_u_over_eta_and_a_full_update_keeps_it() {
        let mut h = hpcc();
        h.on_ack(&stack(0, 0, 50_000), 1, 10);
        // 10 us later: the link sent at line rate (125,000 B) and 50 kB stay
        // queued: u_hop = 1 + 50e3 * 8 / (100e9 * 10e-6) = 1.4; tau = T, so
        // u = 1.4 and the rate is 100 / (1.4 / 0.95) + 0.04 Gb/s.
        h.on_ack(&stack(10_000, 125_000, 50_000), 11, 20);
        let want = 100.0 * GBPS / (1.4 / 0.95) + 0.04 * GBPS;
        assert!((h.utilisation() - 1.4).abs() < 1e-12);
        assert!((h.rate_bps() - want).abs() < 1.0, "{}", h.rate_bps());
        assert_eq!(h.last_step(), Some(HpccStep::Multiplicative));
        assert_eq!(h.reference_bps(), h.rate_bps(), "a full update stores R_c");
        assert_eq!(h.inc_stage(), 0);
    }

    #[test]
    fn a_fast_reaction_moves_the_rate_but_not_the_reference() {
        let mut h = hpcc();
        h.on_ack(&stack(0, 0, 50_000), 1, 10);
        h.on_ack(&stack(10_000, 125_000, 50_000), 11, 20); // full: u = 1.4, R_c cut
        let r_c = h.reference_bps();
        // An ACK below PSN 20: half a round trip at half the line rate and
        // an empty queue. tau = T/2: u = (1.4 + 0.5) / 2 = 0.95 = eta, so the
        // update scales R_c by 1 (multiplicative or additive alike: R_c + R_AI).
        h.on_ack(&stack(15_000, 156_250, 0), 12, 21);
        assert!((h.utilisation() - 0.95).abs() < 1e-12);
        assert!((h.rate_bps() - (r_c + 0.04 * GBPS)).abs() < 1.0);
        assert_eq!(h.reference_bps(), r_c, "fast reaction keeps R_c");
    }

    #[test]
    fn light_load_adds_r_ai_for_max_stage_rounds_then_scales_up() {
        let mut h = hpcc();
        let mut t = 0;
        let mut tx = 0;
        h.on_ack(&stack(t, tx, 0), 1, 1);
        // Every round trip the link runs at half its rate: u = 0.5.
        let mut steps = Vec::new();
        for round in 0..7u64 {
            t += 10_000;
            tx += 62_500;
            h.on_ack(&stack(t, tx, 0), round + 2, round + 2);
            steps.push(h.last_step().unwrap());
        }
        use HpccStep::*;
        assert_eq!(
            steps,
            [
                Additive,
                Additive,
                Additive,
                Additive,
                Additive,
                Multiplicative,
                Additive
            ]
        );
        // The sixth scales R_c (still the line rate, the additive steps
        // capped there) by 0.95 / 0.5, capped at line rate again.
        assert!((h.utilisation() - 0.5).abs() < 1e-12);
        assert_eq!(h.rate_bps(), 100.0 * GBPS);
    }
}
