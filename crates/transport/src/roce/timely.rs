//! TIMELY (Mittal et al., SIGCOMM 2015): rate control on the RTT gradient,
//! at the sender, one update per completion event.
//!
//! On each update with a new RTT sample (Algorithm 1 of the paper):
//! - rtt_diff = (1 - alpha) rtt_diff + alpha (new_rtt - prev_rtt), and
//!   the normalised gradient is rtt_diff / min_rtt;
//! - new_rtt < T_low: rate += delta;
//! - new_rtt > T_high: rate *= 1 - beta (1 - T_high / new_rtt);
//! - gradient <= 0: rate += N delta, N = `hai_factor` once the gradient
//!   has been negative for `hai_after` completions in a row (hyper-active
//!   increase), else 1;
//! - otherwise: rate *= 1 - beta x gradient.
//!
//! The rate stays within [`min_rate`, line rate] and starts at line rate.
//! A completion event is what the HPCC fork's TIMELY takes for one: the
//! first ACK past the highest PSN sent at the previous update, so the rate
//! moves once per round trip of data; the sample is that ACK's RTT, from
//! the send stamp the receiver echoes.

use super::config::{ControllerKeys, KeyError};
use serde::Deserialize;
use sim_core::{Bandwidth, SimDuration};

/// TIMELY's parameters, with the paper's defaults (section 5, Table 1's
/// 10 Gb/s settings; the HPCC fork uses the same alpha, beta, T_low,
/// T_high and min RTT).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TimelyConfig {
    /// EWMA weight of a new RTT difference (0.875).
    pub alpha: f64,
    /// Multiplicative decrease factor (0.8).
    pub beta: f64,
    /// Below this RTT, increase whatever the gradient (50 us).
    pub t_low: SimDuration,
    /// Above this RTT, decrease whatever the gradient (500 us).
    pub t_high: SimDuration,
    /// The gradient's normaliser (20 us).
    pub min_rtt: SimDuration,
    /// Additive step delta (10 Mb/s).
    pub delta: Bandwidth,
    /// Completions with a negative gradient in a row before HAI (5).
    pub hai_after: u32,
    /// HAI's multiple of delta (5).
    pub hai_factor: f64,
    /// The rate's floor (the HPCC fork's 100 Mb/s).
    pub min_rate: Bandwidth,
}

impl Default for TimelyConfig {
    fn default() -> Self {
        TimelyConfig {
            alpha: 0.875,
            beta: 0.8,
            t_low: SimDuration::from_us(50),
            t_high: SimDuration::from_us(500),
            min_rtt: SimDuration::from_us(20),
            delta: Bandwidth::from_bps(10_000_000),
            hai_after: 5,
            hai_factor: 5.0,
            min_rate: Bandwidth::from_bps(100_000_000),
        }
    }
}

impl ControllerKeys for TimelyConfig {
    type Config = TimelyConfig;
    /// The keys as written are the configuration; checked together here.
    fn build(&self) -> Result<TimelyConfig, KeyError> {
        let err = |key, message: &str| Err(KeyError::new(key, message));
        if !(self.alpha > 0.0 && self.alpha <= 1.0) {
            return err("alpha", "must be in (0, 1] (the paper: 0.875)");
        }
        if !(self.beta > 0.0 && self.beta <= 1.0) {
            return err("beta", "must be in (0, 1] (the paper: 0.8)");
        }
        if self.t_low >= self.t_high {
            return err("t_high", "must be above t_low (the paper: 50us and 500us)");
        }
        if self.min_rtt.ps() == 0 {
            return err("min_rtt", "must be positive (the paper: 20us)");
        }
        if !(self.hai_factor >= 1.0 && self.hai_factor.is_finite()) {
            return err("hai_factor", "must be at least 1 (the paper: 5)");
        }
        Ok(*self)
    }
}

/// Which rule the last update applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Region {
    /// RTT below T_low: additive increase.
    Low,
    /// RTT above T_high: multiplicative decrease.
    High,
    /// Gradient <= 0: additive (or hyper-active) increase.
    Increase,
    /// Gradient > 0: decrease in proportion to it.
    Decrease,
}

/// One flow's TIMELY state.
#[derive(Clone, Debug)]
pub struct Timely {
    cfg: TimelyConfig,
    line_bps: f64,
    rate_bps: f64,
    prev_rtt: Option<SimDuration>,
    rtt_diff_ps: f64,
    /// Completions in a row with a non-positive gradient.
    negative_run: u32,
    last: Option<Region>,
}

impl Timely {
    /// A flow on a NIC of `line_bps`, at line rate.
    pub fn new(cfg: TimelyConfig, line_bps: f64) -> Self {
        Timely {
            cfg,
            line_bps,
            rate_bps: line_bps,
            prev_rtt: None,
            rtt_diff_ps: 0.0,
            negative_run: 0,
            last: None,
        }
    }

    /// The sending rate, bits per second.
    pub fn rate_bps(&self) -> f64 {
        self.rate_bps
    }

    /// The rule the last update applied.
    pub fn last_region(&self) -> Option<Region> {
        self.last
    }

    /// The normalised gradient as it stands.
    pub fn gradient(&self) -> f64 {
        self.rtt_diff_ps / self.cfg.min_rtt.ps() as f64
    }

    /// A completion event with RTT `rtt`.
    pub fn on_rtt(&mut self, rtt: SimDuration) {
        let c = self.cfg;
        let prev = self.prev_rtt.unwrap_or(rtt);
        self.prev_rtt = Some(rtt);
        let new_diff = rtt.ps() as f64 - prev.ps() as f64;
        self.rtt_diff_ps = (1.0 - c.alpha) * self.rtt_diff_ps + c.alpha * new_diff;
        let gradient = self.gradient();
        let region = if rtt < c.t_low {
            Region::Low
        } else if rtt > c.t_high {
            Region::High
        } else if gradient <= 0.0 {
            Region::Increase
        } else {
            Region::Decrease
        };
        self.negative_run = if region == Region::Increase {
            self.negative_run.saturating_add(1)
        } else {
            0
        };
        self.rate_bps = match region {
            Region::Low => self.rate_bps + (c.delta.bps() as f64),
            Region::High => {
                let t_high = c.t_high.ps() as f64 / rtt.ps() as f64;
                self.rate_bps * (1.0 - c.beta * (1.0 - t_high))
            }
            Region::Increase => {
                let n = if self.negative_run >= c.hai_after {
                    c.hai_factor
                } else {
                    1.0
                };
                self.rate_bps + n * (c.delta.bps() as f64)
            }
            Region::Decrease => self.rate_bps * (1.0 - c.beta * gradient).max(0.0),
        };
        self.rate_bps = self
            .rate_bps
            .clamp((c.min_rate.bps() as f64).min(self.line_bps), self.line_bps);
        self.last = Some(region);
    }
}

/// TIMELY at a sender: the controller, and the PSN an ACK must pass to be
/// the next completion event (the first ACK past what was in flight at the
/// last one: once per round trip, as the HPCC fork).
#[derive(Clone, Debug)]
pub struct TimelySend {
    timely: Timely,
    next_event: u64,
}

impl super::control::RoceControllerConfig for TimelyConfig {
    type Controller = TimelySend;
    const NAME: &'static str = "timely";
    fn build(&self, f: &super::control::FlowCtx<'_>) -> TimelySend {
        TimelySend {
            timely: Timely::new(*self, f.line_bps),
            next_event: 0,
        }
    }
}

impl super::control::ControllerRules for TimelyConfig {
    fn min_rate_bps(&self) -> Option<f64> {
        Some(self.min_rate.bps() as f64)
    }
}

impl super::control::RateControl for TimelySend {
    #[inline]
    fn rate_bps(&self, _line_bps: f64) -> f64 {
        self.timely.rate_bps()
    }
    fn on_ack(&mut self, a: &super::control::AckView<'_>) -> bool {
        if a.ack <= self.next_event {
            return false;
        }
        self.timely.on_rtt(a.now.saturating_since(a.pkt.ts_ecr));
        self.next_event = a.snd_nxt.max(a.ack);
        true
    }
    fn state(&self, out: &mut crate::StateOut<'_>) {
        out("rtt_diff_us", self.timely.rtt_diff_ps / 1e6);
        out(
            "gradient",
            self.timely.rtt_diff_ps / self.timely.cfg.min_rtt.ps() as f64,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> SimDuration {
        SimDuration::from_us(n)
    }

    #[test]
    fn each_region_applies_its_rule() {
        let mut t = Timely::new(TimelyConfig::default(), 10e9);
        // Below T_low: + delta, but never above line rate.
        t.on_rtt(us(30));
        assert_eq!((t.last_region(), t.rate_bps()), (Some(Region::Low), 10e9));
        // Above T_high: x (1 - 0.8 (1 - 500/600)) = x 0.8667. The first
        // difference is 600 - 30 = 570 us, EWMA 0.875 x 570 = 498.75 us.
        t.on_rtt(us(600));
        let expected = 10e9 * (1.0 - 0.8 * (1.0 - 500.0 / 600.0));
        assert_eq!(t.last_region(), Some(Region::High));
        assert!((t.rate_bps() - expected).abs() < 1.0, "{}", t.rate_bps());
        // In between with a rising RTT: x (1 - beta x gradient).
        let before = t.rate_bps();
        t.on_rtt(us(400));
        // diff = 0.125 x 498.75 + 0.875 x (-200) = -112.66 us: a negative
        // gradient, so an increase.
        assert_eq!(t.last_region(), Some(Region::Increase));
        assert!((t.rate_bps() - (before + 10e6)).abs() < 1e-3);
        let before = t.rate_bps();
        t.on_rtt(us(450));
        // diff = 0.125 x -112.656 + 0.875 x 50 = 29.668 us; gradient 1.4834.
        let g = (0.125 * (0.125 * 498.75e6 + 0.875 * -200e6) + 0.875 * 50e6) / 20e6;
        assert_eq!(t.last_region(), Some(Region::Decrease));
        assert!((t.gradient() - g).abs() < 1e-9, "gradient {}", t.gradient());
        let expected = (before * (1.0 - 0.8 * g)).max(100e6);
        assert!((t.rate_bps() - expected).abs() < 1.0);
        println!("TIMELY: gradient {g:.4}, rate {:.0} b/s", t.rate_bps());
    }

    #[test]
    fn five_negative_gradients_in_a_row_switch_to_hyper_increase() {
        let mut t = Timely::new(TimelyConfig::default(), 10e9);
        t.on_rtt(us(600)); // High: cut
        t.on_rtt(us(600)); // High again (RTT above T_high): cut
        let mut rates = vec![t.rate_bps()];
        for rtt in [400, 390, 380, 370, 360, 350, 340] {
            t.on_rtt(us(rtt));
            assert_eq!(t.last_region(), Some(Region::Increase));
            rates.push(t.rate_bps());
        }
        let steps: Vec<f64> = rates
            .windows(2)
            .map(|w| ((w[1] - w[0]) / 1e6).round())
            .collect();
        assert_eq!(steps, [10.0, 10.0, 10.0, 10.0, 50.0, 50.0, 50.0]);
    }

    #[test]
    fn the_rate_never_falls_below_its_floor() {
        let mut t = Timely::new(TimelyConfig::default(), 10e9);
        t.on_rtt(us(100));
        for _ in 0..20 {
            t.on_rtt(us(5000));
        }
        assert_eq!(t.rate_bps(), 100e6);
    }
}
