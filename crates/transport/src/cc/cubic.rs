//! CUBIC (RFC 9438), Linux's default, with HyStart++ (RFC 9406) as an
//! option (off by default).
//!
//! In congestion avoidance the window follows the cubic
//! `W_cubic(t) = C (t - K)^3 + W_max` (section 4.2, eq. (1)), in segments,
//! with `t` the time since the current epoch began (the first ACK of
//! congestion avoidance after a reduction) and
//! `K = cbrt((W_max - cwnd_epoch) / C)` (eq. (2)); each ACK moves cwnd by
//! `(target - cwnd) / cwnd` per segment acknowledged towards
//! `target = W_cubic(t + RTT)`, clamped to [cwnd, 1.5 cwnd] (4.4-4.5,
//! RTT the smoothed RTT). Beside it runs the Reno-friendly estimate
//! `W_est += alpha_cubic x acked / cwnd` with
//! `alpha_cubic = 3 (1 - beta) / (1 + beta)`, 1 once `W_est` reaches the
//! cwnd before the last reduction (4.3); where `W_cubic(t) < W_est`, cwnd
//! is `W_est`.
//!
//! A congestion event (loss, ECN-Echo, timeout) records
//! `W_max = cwnd`, or `cwnd (1 + beta) / 2` under fast convergence when
//! cwnd is below the previous `W_max` (4.7), and sets
//! `ssthresh = max(cwnd x beta, min_cwnd)` (4.6; Linux's
//! `bictcp_recalc_ssthresh`, on cwnd rather than flight size). ECN-Echo
//! also sets cwnd to it; a timeout sets cwnd to one segment (4.8). Slow
//! start is the sender's (RFC 5681 with ABC, L = 2), or HyStart++'s when
//! `hystart` is on.
//!
//! HyStart++ (RFC 9406 4.2): per round (a window of data), the smallest of
//! the round's first `hystart_rtt_samples` RTT samples is compared with the
//! last round's; a rise of `clamp(last / 8, hystart_min_rtt_thresh,
//! hystart_max_rtt_thresh)` enters Conservative Slow Start, where growth is
//! divided by `hystart_css_growth_divisor`; after `hystart_css_rounds`
//! rounds of CSS slow start ends (ssthresh = cwnd), and a round whose
//! minimum falls below the CSS baseline goes back to slow start. The RFC's
//! thresholds (4 ms, 16 ms) are for the Internet: at datacenter RTTs they
//! never fire unless lowered.

use super::{AckSample, CongestionControl, ControllerConfig, Signal, Window};
use sim_core::{SimDuration, SimTime};

/// CUBIC's keys (RFC 9438 section 5; RFC 9406 section 4.3).
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// beta_cubic, the multiplicative decrease factor (4.6: 0.7).
    pub beta: f64,
    /// C, the cubic's aggressiveness in segments per second cubed (5: 0.4).
    pub c: f64,
    /// Fast convergence (4.7: on).
    pub fast_convergence: bool,
    /// HyStart++ in slow start (RFC 9406; Linux runs HyStart, off here by
    /// default so that slow start is the sender's, as for the other
    /// controllers).
    pub hystart: bool,
    /// HyStart++'s MIN_RTT_THRESH (RFC 9406: 4 ms).
    pub hystart_min_rtt_thresh: SimDuration,
    /// HyStart++'s MAX_RTT_THRESH (RFC 9406: 16 ms).
    pub hystart_max_rtt_thresh: SimDuration,
    /// HyStart++'s N_RTT_SAMPLE (RFC 9406: 8).
    pub hystart_rtt_samples: u32,
    /// HyStart++'s CSS_GROWTH_DIVISOR (RFC 9406: 4).
    pub hystart_css_growth_divisor: u32,
    /// HyStart++'s CSS_ROUNDS (RFC 9406: 5).
    pub hystart_css_rounds: u32,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            beta: 0.7,
            c: 0.4,
            fast_convergence: true,
            hystart: false,
            hystart_min_rtt_thresh: SimDuration::from_ms(4),
            hystart_max_rtt_thresh: SimDuration::from_ms(16),
            hystart_rtt_samples: 8,
            hystart_css_growth_divisor: 4,
            hystart_css_rounds: 5,
        }
    }
}

impl ControllerConfig for CubicConfig {
    type Controller = Cubic;
    const NAME: &'static str = "cubic";
    fn build(&self) -> Cubic {
        Cubic::new(self.clone())
    }
    fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.beta > 0.0 && self.beta < 1.0) {
            return Err(("beta", "must be in (0, 1) (RFC 9438: 0.7)".into()));
        }
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(("c", "must be a positive number (RFC 9438: 0.4)".into()));
        }
        if self.hystart_min_rtt_thresh > self.hystart_max_rtt_thresh {
            let msg = "must be at most hystart_max_rtt_thresh (RFC 9406: 4ms and 16ms)";
            return Err(("hystart_min_rtt_thresh", msg.into()));
        }
        if self.hystart_rtt_samples == 0 || self.hystart_css_rounds == 0 {
            let msg = "hystart_rtt_samples and hystart_css_rounds must be at least 1";
            return Err(("hystart_rtt_samples", msg.into()));
        }
        if self.hystart_css_growth_divisor < 2 {
            return Err((
                "hystart_css_growth_divisor",
                "must be at least 2 (RFC 9406: 4)".into(),
            ));
        }
        if !self.hystart
            && (self.hystart_min_rtt_thresh != CubicConfig::default().hystart_min_rtt_thresh
                || self.hystart_max_rtt_thresh != CubicConfig::default().hystart_max_rtt_thresh
                || self.hystart_rtt_samples != 8
                || self.hystart_css_growth_divisor != 4
                || self.hystart_css_rounds != 5)
        {
            let msg = "a HyStart++ key is set but hystart is off: set hystart = true";
            return Err(("hystart", msg.into()));
        }
        Ok(())
    }
}

/// HyStart++'s per-round state (RFC 9406 4.2).
#[derive(Clone, Debug, Default)]
struct HyStart {
    /// The round ends when SND.UNA passes this.
    window_end: u64,
    last_round_min_rtt: Option<SimDuration>,
    current_round_min_rtt: Option<SimDuration>,
    rtt_samples: u32,
    /// In Conservative Slow Start: the baseline minimum RTT and the rounds
    /// spent in CSS so far.
    css: Option<(SimDuration, u32)>,
}

/// A CUBIC sender's state.
#[derive(Clone, Debug)]
pub struct Cubic {
    cfg: CubicConfig,
    /// W_max, bytes (0 before the first congestion event).
    w_max: f64,
    /// K, seconds.
    k_s: f64,
    /// When the current congestion-avoidance epoch began.
    epoch_start: Option<SimTime>,
    /// W_est, bytes.
    w_est: f64,
    /// cwnd before the last reduction, bytes: W_est's alpha is 1 from it on.
    cwnd_prior: f64,
    hystart: HyStart,
}

impl Cubic {
    fn new(cfg: CubicConfig) -> Self {
        Cubic {
            cfg,
            w_max: 0.0,
            k_s: 0.0,
            epoch_start: None,
            w_est: 0.0,
            cwnd_prior: 0.0,
            hystart: HyStart::default(),
        }
    }

    /// W_cubic(t) in bytes for `mss`-byte segments (eq. (1)).
    fn w_cubic(&self, t_s: f64, mss: f64) -> f64 {
        let d = t_s - self.k_s;
        self.cfg.c * d * d * d * mss + self.w_max
    }

    /// Congestion avoidance on an ACK of `acked` bytes (4.2-4.5).
    fn avoid(&mut self, w: &mut Window, s: &AckSample) {
        let mss = w.mss as f64;
        let cwnd = w.cwnd as f64;
        let start = match self.epoch_start {
            Some(t) => t,
            None => {
                // A new epoch: eq. (2), and W_est from the current window.
                if self.w_max > cwnd {
                    self.k_s = libm::cbrt((self.w_max - cwnd) / (self.cfg.c * mss));
                } else {
                    self.k_s = 0.0;
                    self.w_max = cwnd;
                }
                self.w_est = cwnd;
                self.epoch_start = Some(s.now);
                s.now
            }
        };
        let t_s = s.now.since(start).as_secs_f64();
        let rtt_s = s.srtt.map_or(0.0, |r| r.as_secs_f64());
        let target = self.w_cubic(t_s + rtt_s, mss).clamp(cwnd, 1.5 * cwnd);
        let beta = self.cfg.beta;
        let alpha = if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            3.0 * (1.0 - beta) / (1.0 + beta)
        };
        let acked = s.acked_bytes as f64;
        self.w_est += alpha * acked / cwnd * mss;
        let next = if self.w_cubic(t_s, mss) < self.w_est {
            self.w_est.max(cwnd) // the Reno-friendly region (4.3)
        } else {
            cwnd + (target - cwnd) / cwnd * acked
        };
        w.cwnd = next as u64;
    }

    /// Slow start under HyStart++ (RFC 9406 4.2).
    fn hystart_slow_start(&mut self, w: &mut Window, s: &AckSample) {
        let cfg = &self.cfg;
        let h = &mut self.hystart;
        if s.snd_una > h.window_end {
            // A round ended.
            h.last_round_min_rtt = h.current_round_min_rtt.take();
            h.rtt_samples = 0;
            h.window_end = s.snd_max;
            if let Some((_, rounds)) = h.css.as_mut() {
                *rounds += 1;
                if *rounds >= cfg.hystart_css_rounds {
                    w.ssthresh = w.cwnd; // leave slow start for good
                    h.css = None;
                    return;
                }
            }
        }
        if let Some(rtt) = s.rtt_sample {
            h.current_round_min_rtt = Some(h.current_round_min_rtt.map_or(rtt, |m| m.min(rtt)));
            h.rtt_samples += 1;
        }
        if h.rtt_samples >= cfg.hystart_rtt_samples
            && let (Some(cur), Some(last)) = (h.current_round_min_rtt, h.last_round_min_rtt)
        {
            match h.css {
                None => {
                    let eighth = SimDuration::from_ps(last.ps() / 8);
                    let thresh =
                        eighth.clamp(cfg.hystart_min_rtt_thresh, cfg.hystart_max_rtt_thresh);
                    if cur >= last + thresh {
                        h.css = Some((cur, 0));
                    }
                }
                Some((baseline, _)) if cur < baseline => h.css = None,
                Some(_) => {}
            }
        }
        let grow = s.acked_bytes.min(2 * w.mss);
        w.cwnd += match h.css {
            Some(_) => grow / cfg.hystart_css_growth_divisor as u64,
            None => grow,
        };
    }
}

impl CongestionControl for Cubic {
    #[inline]
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        if !s.may_grow() {
            return;
        }
        if w.in_slow_start() {
            if self.cfg.hystart {
                self.hystart_slow_start(w, s);
            } else {
                w.reno_increase(s.acked_bytes);
            }
        } else {
            self.avoid(w, s);
        }
    }

    fn on_congestion(&mut self, w: &mut Window, signal: Signal, _flight: u64) {
        let cwnd = w.cwnd as f64;
        self.cwnd_prior = cwnd;
        // 4.7: fast convergence releases bandwidth to newer flows.
        self.w_max = if self.cfg.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + self.cfg.beta) / 2.0
        } else {
            cwnd
        };
        self.epoch_start = None;
        w.ssthresh = ((cwnd * self.cfg.beta) as u64).max(w.min_cwnd);
        w.ca_acked = 0;
        match signal {
            Signal::Ecn => w.cwnd = w.ssthresh,
            Signal::Timeout => {
                w.cwnd = w.mss; // 4.8, as RFC 5681's loss window
                self.hystart = HyStart::default();
            }
            Signal::Loss => {} // the sender's recovery takes cwnd to ssthresh
        }
    }

    fn state(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("w_max_bytes", self.w_max);
        out("k_s", self.k_s);
        out("w_est_bytes", self.w_est);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn ack(now_s: f64, acked: u64, una: u64, max: u64, rtt: Option<f64>) -> AckSample {
        let rtt = rtt.map(|r| SimDuration::from_ps((r * 1e12) as u64));
        AckSample {
            now: SimTime((now_s * 1e12) as u64),
            acked_bytes: acked,
            ece: false,
            snd_una: una,
            snd_max: max,
            in_recovery: false,
            srtt: rtt,
            rtt_sample: rtt,
            cwnd_limited: true,
        }
    }

    /// A controller after a loss at 100 segments, cwnd cut to ssthresh as
    /// the sender's recovery leaves it.
    fn after_loss_at_100() -> (Cubic, Window) {
        let mut c = CubicConfig::default().build();
        let mut w = Window::new(MSS, 100, 2);
        let flight = w.cwnd;
        c.on_congestion(&mut w, Signal::Loss, flight);
        w.cwnd = w.ssthresh;
        (c, w)
    }

    #[test]
    fn a_loss_records_w_max_and_cuts_to_beta() {
        let (c, w) = after_loss_at_100();
        assert_eq!(c.w_max, 100_000.0);
        assert_eq!(w.ssthresh, 70_000);
        assert!(!w.in_slow_start());
    }

    /// ACKs of one segment each, paced at cwnd per RTT, from the epoch's
    /// start to `until_s`; the window at each of `at_s`.
    fn run_paced(c: &mut Cubic, w: &mut Window, rtt_s: f64, at_s: &[f64]) -> Vec<f64> {
        let (mut t, mut una) = (0.0, 1u64);
        let mut out = Vec::new();
        for &stop in at_s {
            while t < stop {
                una += MSS;
                c.on_ack(w, &ack(t, MSS, una, una + w.cwnd, Some(rtt_s)));
                t += rtt_s / (w.cwnd / MSS) as f64;
            }
            out.push(w.cwnd as f64 / MSS as f64);
        }
        out
    }

    #[test]
    fn the_window_follows_w_cubic_through_its_plateau() {
        let (mut c, mut w) = after_loss_at_100();
        let rtt = 0.1;
        // Until 5.5 s the cubic is above W_est (70 + 0.53 per RTT).
        let times = [1.0, 2.0, 3.0, 4.2, 5.5];
        let got = run_paced(&mut c, &mut w, rtt, &times);
        // K = cbrt((100 - 70) / 0.4) = cbrt(75) s.
        let k = libm::cbrt(75.0);
        assert!((c.k_s - k).abs() < 1e-9, "K = {}", c.k_s);
        for (t, g) in times.iter().zip(&got) {
            let want = 0.4 * (t - k) * (t - k) * (t - k) + 100.0;
            assert!(
                (g - want).abs() / want < 0.03,
                "t = {t}: cwnd {g:.2} vs W_cubic {want:.2}"
            );
        }
    }

    #[test]
    fn a_short_rtt_is_reno_friendly() {
        // At 1 ms the cubic barely moves in a second; W_est grows by
        // alpha_cubic = 3 x 0.3 / 1.7 segments per RTT and wins.
        let (mut c, mut w) = after_loss_at_100();
        let got = run_paced(&mut c, &mut w, 0.001, &[0.1]);
        let alpha = 3.0 * 0.3 / 1.7;
        // alpha_cubic per RTT up to the cwnd before the loss (100), then 1.
        let rtts_to_prior = 30.0 / alpha;
        let want = 100.0 + (100.0 - rtts_to_prior);
        assert!(
            (got[0] - want).abs() < 2.0,
            "cwnd {:.2} vs Reno-friendly {want:.2}",
            got[0]
        );
        assert!(c.w_cubic(0.1, MSS as f64) / (MSS as f64) < want);
    }

    #[test]
    fn fast_convergence_lowers_w_max_below_the_last_one() {
        let (mut c, mut w) = after_loss_at_100();
        w.cwnd = 80_000;
        let flight = w.cwnd;
        c.on_congestion(&mut w, Signal::Loss, flight);
        assert_eq!(c.w_max, 80_000.0 * 1.7 / 2.0);
        let mut slow = CubicConfig {
            fast_convergence: false,
            ..CubicConfig::default()
        }
        .build();
        let mut w = Window::new(MSS, 100, 2);
        let flight = w.cwnd;
        slow.on_congestion(&mut w, Signal::Loss, flight);
        w.cwnd = 80_000;
        let flight = w.cwnd;
        slow.on_congestion(&mut w, Signal::Loss, flight);
        assert_eq!(slow.w_max, 80_000.0);
    }

    #[test]
    fn ecn_cuts_at_once_and_a_timeout_to_one_segment() {
        let mut c = CubicConfig::default().build();
        let mut w = Window::new(MSS, 50, 2);
        let flight = w.cwnd;
        c.on_congestion(&mut w, Signal::Ecn, flight);
        assert_eq!((w.cwnd, w.ssthresh), (35_000, 35_000));
        c.on_congestion(&mut w, Signal::Timeout, flight);
        assert_eq!((w.cwnd, w.ssthresh), (MSS, 24_500));
    }

    #[test]
    fn hystart_leaves_slow_start_when_the_rtt_rises() {
        let cfg = CubicConfig {
            hystart: true,
            hystart_min_rtt_thresh: SimDuration::from_us(10),
            hystart_max_rtt_thresh: SimDuration::from_us(100),
            ..CubicConfig::default()
        };
        assert!(cfg.check().is_ok());
        let mut c = cfg.build();
        let mut w = Window::new(MSS, 10, 2);
        let mut una = 1;
        let mut rtt = 100e-6;
        let mut rounds = 0;
        while w.in_slow_start() && rounds < 40 {
            // One round: a window of one-segment ACKs; from round 4 on the
            // queue builds and each round's RTT is 50 us longer.
            let end = una + w.cwnd;
            if rounds >= 4 {
                rtt += 50e-6;
            }
            while una < end {
                una += MSS;
                c.on_ack(&mut w, &ack(rounds as f64 * 1e-3, MSS, una, end, Some(rtt)));
            }
            rounds += 1;
        }
        assert!(!w.in_slow_start(), "HyStart++ ended slow start");
        // Four doubling rounds from 10 segments, then CSS's five slower rounds.
        assert!(rounds <= 4 + 1 + 5 + 1, "{rounds} rounds");
        assert!(
            w.cwnd < (10 * MSS) << 6,
            "cwnd {} grew as in plain slow start",
            w.cwnd
        );
    }

    #[test]
    fn hystart_keys_need_hystart_on() {
        let cfg = CubicConfig {
            hystart_rtt_samples: 4,
            ..CubicConfig::default()
        };
        assert_eq!(cfg.check().map_err(|e| e.0), Err("hystart"));
    }
}
