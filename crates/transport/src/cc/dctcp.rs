//! DCTCP (RFC 8257).
//!
//! alpha estimates the fraction of marked bytes: once per window of data
//! (when SND.UNA passes the sequence number recorded at the last update) it
//! becomes `(1 - g) alpha + g F` with F = marked / acked bytes over that window
//! (section 3.3). On ECN-Echo, at most once per window, `cwnd <- cwnd (1 - alpha/2)`
//! and ssthresh is set to the new cwnd, so a mark ends slow start (as Linux
//! does). cwnd never drops below `min_cwnd_mss` segments (Linux's floor is
//! 2, RFC 5681's ssthresh minimum; ns-3.48's is 1). Losses are handled as NewReno does (section 3.5).

use super::{
    AckSample, CeEcho, CongestionControl, ControllerConfig, Signal, Window, loss_reaction,
};

/// DCTCP's keys.
#[derive(Clone, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DctcpConfig {
    /// The EWMA gain g (RFC 8257 section 3.3: 1/16).
    pub g: f64,
    /// The initial alpha (Linux: 1, i.e. the first marks halve the window).
    pub alpha_initial: f64,
}

impl Default for DctcpConfig {
    fn default() -> Self {
        DctcpConfig {
            g: 1.0 / 16.0,
            alpha_initial: 1.0,
        }
    }
}

impl ControllerConfig for DctcpConfig {
    type Controller = Dctcp;
    const NAME: &'static str = "dctcp";
    fn build(&self) -> Dctcp {
        Dctcp::new(self.g, self.alpha_initial)
    }
    fn check(&self) -> Result<(), (&'static str, String)> {
        if !(self.g > 0.0 && self.g <= 1.0) {
            return Err(("g", "must be in (0, 1] (RFC 8257: 1/16)".into()));
        }
        if !(0.0..=1.0).contains(&self.alpha_initial) {
            return Err(("alpha_initial", "must be in [0, 1]".into()));
        }
        Ok(())
    }
}

/// DCTCP sender state.
#[derive(Clone, Debug)]
pub struct Dctcp {
    g: f64,
    alpha: f64,
    bytes_acked: u64,
    bytes_marked: u64,
    window_end: u64,
}

impl Dctcp {
    /// With gain `g` and initial alpha `alpha0` (Linux starts at 1).
    pub fn new(g: f64, alpha0: f64) -> Self {
        Dctcp {
            g,
            alpha: alpha0,
            bytes_acked: 0,
            bytes_marked: 0,
            window_end: 0,
        }
    }

    /// The current alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    fn ect_on_retransmit(&self) -> bool {
        true
    }

    fn ce_echo(&self) -> CeEcho {
        CeEcho::Exact
    }

    #[inline]
    fn on_ack(&mut self, w: &mut Window, s: &AckSample) {
        // RFC 8257 3.3 steps 2-4.
        self.bytes_acked += s.acked_bytes;
        if s.ece {
            self.bytes_marked += s.acked_bytes;
        }
        if s.snd_una > self.window_end {
            // Steps 5-8: once per window.
            if self.bytes_acked > 0 {
                let f = self.bytes_marked as f64 / self.bytes_acked as f64;
                self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
            }
            self.bytes_acked = 0;
            self.bytes_marked = 0;
            self.window_end = s.snd_max;
        }
        if s.may_grow() {
            w.reno_increase(s.acked_bytes);
        }
    }

    fn state(&self, out: &mut dyn FnMut(&'static str, f64)) {
        out("alpha", self.alpha);
    }

    fn on_congestion(&mut self, w: &mut Window, signal: Signal, flight: u64) {
        match signal {
            Signal::Ecn => {
                // RFC 8257 3.3 step 9 (cwnd x (1 - alpha/2)).
                let cut = (w.cwnd as f64 * (1.0 - self.alpha / 2.0)) as u64;
                w.cwnd = cut.max(w.min_cwnd);
                w.ssthresh = w.cwnd;
                w.ca_acked = 0;
            }
            Signal::Loss | Signal::Timeout => loss_reaction(w, signal, flight),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_core::SimTime;

    fn ack(acked: u64, ece: bool, una: u64, max: u64) -> AckSample {
        AckSample {
            now: SimTime::ZERO,
            acked_bytes: acked,
            ece,
            snd_una: una,
            snd_max: max,
            in_recovery: false,
            srtt: None,
            rtt_sample: None,
            cwnd_limited: true,
        }
    }

    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_per_window() {
        let mut d = Dctcp::new(1.0 / 16.0, 1.0);
        let mut w = Window::new(1000, 10, 2);
        // First ACK closes the (empty) initial window: F = 0 -> alpha = 15/16.
        d.on_ack(&mut w, &ack(1000, false, 1001, 10_001));
        assert!((d.alpha() - 15.0 / 16.0).abs() < 1e-12);
        // Next window: half of the bytes marked.
        d.on_ack(&mut w, &ack(4500, true, 5501, 10_001));
        d.on_ack(&mut w, &ack(4500, false, 10_001, 10_001));
        assert_eq!(d.alpha(), 15.0 / 16.0); // window not yet passed
        d.on_ack(&mut w, &ack(1000, false, 11_001, 20_001));
        let f = 4500.0 / 10_000.0;
        let want = (15.0 / 16.0) * (15.0 / 16.0) + f / 16.0;
        assert!((d.alpha() - want).abs() < 1e-12, "{} vs {want}", d.alpha());
    }

    #[test]
    fn ecn_cut_is_alpha_over_two_and_ends_slow_start() {
        let mut d = Dctcp::new(1.0 / 16.0, 0.5);
        let mut w = Window::new(1000, 40, 2);
        d.on_congestion(&mut w, Signal::Ecn, 40_000);
        assert_eq!(w.cwnd, 30_000);
        assert_eq!(w.ssthresh, 30_000);
        assert!(!w.in_slow_start());
        // alpha = 1 halves, floored at 2 MSS.
        let mut d = Dctcp::new(1.0 / 16.0, 1.0);
        let mut w = Window::new(1000, 3, 2);
        d.on_congestion(&mut w, Signal::Ecn, 3000);
        assert_eq!(w.cwnd, 2000);
        // ns-3.48's floor of one segment.
        let mut w = Window::new(1000, 3, 1);
        d.on_congestion(&mut w, Signal::Ecn, 3000);
        assert_eq!(w.cwnd, 1500);
        d.on_congestion(&mut w, Signal::Ecn, 1500);
        assert_eq!(w.cwnd, 1000);
    }
}
