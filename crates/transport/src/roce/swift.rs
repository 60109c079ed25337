//! Swift (Kumar et al., "Swift: Delay is Simple and Effective for
//! Congestion Control in the Datacenter", SIGCOMM 2020): AIMD on the
//! round-trip delay against a target, at the sender.
//!
//! On each ACK, with `delay` its round trip (now minus the echoed send
//! stamp) and `num_acked` the packets it newly acknowledges (Algorithm 1):
//! - below the target, additive increase: `cwnd += ai x num_acked / cwnd`
//!   (`cwnd += ai x num_acked` below one packet), `ai` packets per RTT;
//! - at or above it, at most once per RTT, multiplicative decrease:
//!   `cwnd *= max(1 - beta (delay - target) / delay, 1 - max_mdf)`;
//! - a NAK (go-back-N, the RoCE sender's loss signal) cuts by `max_mdf`,
//!   also at most once per RTT;
//! - cwnd stays within [`min_cwnd`, `max_cwnd`] packets. Below one packet
//!   the window is one packet and the pacer spaces packets at
//!   `RTT / cwnd` (3.4: "cwnd < 1 is enforced by pacing").
//!
//! The target (3.3, 3.5) is `base_target + hops x hop_scale + fs(cwnd)`:
//! topology scaling by the ACK's switch hops (its link hops less one, the
//! simulator's TTL), and flow scaling
//! `fs = clamp(alpha / sqrt(cwnd) + beta_fs, 0, fs_range)` with
//! `alpha = fs_range / (1/sqrt(fs_min_cwnd) - 1/sqrt(fs_max_cwnd))` and
//! `beta_fs = -alpha / sqrt(fs_max_cwnd)`, so that a flow with a small
//! window (many flows sharing) tolerates more queueing.
//!
//! A flow starts at line rate with the path's bandwidth-delay product, as
//! the other RoCE controllers here do (RCC III-B, the HPCC fork). The RoCE
//! RTO does not feed Swift's retransmit counter (it is off by default).

use super::config::{ControllerKeys, KeyError};
use super::control::{AckView, FlowCtx, RateControl, RoceControllerConfig};
use crate::StateOut;
use sim_core::{SimDuration, SimTime};

/// Swift's keys (windows in packets, as the paper gives them), as
/// `cc = { kind = "swift", ... }` writes them: each absent key takes its
/// default ([`SwiftConfig::default`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SwiftConfig {
    /// The base target delay (the fabric's part with no queueing).
    pub base_target: SimDuration,
    /// The target added per switch hop (topology scaling, 3.3).
    pub hop_scale: SimDuration,
    /// Flow scaling's largest addition to the target (3.5).
    pub fs_range: SimDuration,
    /// The window at which flow scaling adds all of `fs_range`, packets.
    pub fs_min_cwnd: f64,
    /// The window at which flow scaling adds nothing, packets.
    pub fs_max_cwnd: f64,
    /// Additive increase per RTT, packets.
    pub ai: f64,
    /// Multiplicative decrease's gain.
    pub beta: f64,
    /// The largest cut of one decrease.
    pub max_mdf: f64,
    /// The window's floor, packets (below one: paced).
    pub min_cwnd: f64,
    /// The window's ceiling, packets.
    pub max_cwnd: f64,
}

impl Default for SwiftConfig {
    fn default() -> Self {
        SwiftConfig {
            base_target: SimDuration::from_us(25),
            hop_scale: SimDuration::from_ns(3_800),
            fs_range: SimDuration::from_us(125),
            fs_min_cwnd: 0.1,
            fs_max_cwnd: 100.0,
            ai: 1.0,
            beta: 0.8,
            max_mdf: 0.5,
            min_cwnd: 0.01,
            max_cwnd: 1000.0,
        }
    }
}

impl SwiftConfig {
    /// Flow scaling's addition to the target at a window of `cwnd` packets, ps.
    pub fn flow_scaling_ps(&self, cwnd: f64) -> f64 {
        let range = self.fs_range.ps() as f64;
        let alpha =
            range / (1.0 / libm::sqrt(self.fs_min_cwnd) - 1.0 / libm::sqrt(self.fs_max_cwnd));
        let beta = -alpha / libm::sqrt(self.fs_max_cwnd);
        (alpha / libm::sqrt(cwnd.max(1e-9)) + beta).clamp(0.0, range)
    }

    /// The target delay of a flow at `cwnd` packets over `hops` switches, ps.
    pub fn target_ps(&self, cwnd: f64, hops: u32) -> f64 {
        self.base_target.ps() as f64
            + hops as f64 * self.hop_scale.ps() as f64
            + self.flow_scaling_ps(cwnd)
    }
}

impl ControllerKeys for SwiftConfig {
    type Config = SwiftConfig;
    /// The keys as written are the configuration; checked together here.
    fn build(&self) -> Result<SwiftConfig, KeyError> {
        let err = |key, message: &str| KeyError::new(key, message);
        let c = *self;
        let second = SimDuration::from_secs(1);
        for (key, v) in [
            ("base_target", c.base_target),
            ("hop_scale", c.hop_scale),
            ("fs_range", c.fs_range),
        ] {
            if v > second {
                return Err(err(key, "must be at most 1s"));
            }
        }
        if c.base_target.ps() == 0 {
            return Err(err(
                "base_target",
                "must be positive (the paper's order: 25us)",
            ));
        }
        let positive = |v: f64| v > 0.0 && v.is_finite();
        if !(positive(c.fs_min_cwnd) && c.fs_min_cwnd < c.fs_max_cwnd && c.fs_max_cwnd.is_finite())
        {
            return Err(err(
                "fs_min_cwnd",
                "needs 0 < fs_min_cwnd < fs_max_cwnd (defaults 0.1 and 100)",
            ));
        }
        if !positive(c.ai) {
            return Err(err("ai", "must be a positive number of packets per RTT"));
        }
        if !(c.beta > 0.0 && c.beta <= 1.0) {
            return Err(err("beta", "must be in (0, 1] (default 0.8)"));
        }
        if !(c.max_mdf > 0.0 && c.max_mdf < 1.0) {
            return Err(err("max_mdf", "must be in (0, 1) (default 0.5)"));
        }
        if !(positive(c.min_cwnd) && c.min_cwnd <= c.max_cwnd && c.max_cwnd.is_finite()) {
            return Err(err("min_cwnd", "needs 0 < min_cwnd <= max_cwnd (packets)"));
        }
        Ok(c)
    }
}

/// A Swift sender's state.
#[derive(Clone, Debug)]
pub struct Swift {
    cfg: SwiftConfig,
    /// The window, packets (fractional).
    cwnd: f64,
    mtu_bytes: f64,
    /// The smoothed RTT (7/8 EWMA), ps; the path's base RTT before a sample.
    srtt_ps: f64,
    last_decrease: Option<SimTime>,
    /// The target at the last ACK, ps (reported).
    target_ps: f64,
}

impl Swift {
    /// Whether a decrease may happen at `now` (at most once per RTT).
    fn can_decrease(&self, now: SimTime) -> bool {
        self.last_decrease
            .is_none_or(|t| now.since(t).ps() as f64 >= self.srtt_ps)
    }

    /// Algorithm 1 on one ACK of `num_acked` packets with round trip
    /// `delay` over `hops` switches; `nak` for a go-back-N.
    pub fn on_delay(
        &mut self,
        now: SimTime,
        delay: SimDuration,
        num_acked: u64,
        hops: u32,
        nak: bool,
    ) {
        let before = self.cwnd;
        let c = self.cfg;
        let delay_ps = delay.ps() as f64;
        self.target_ps = c.target_ps(self.cwnd, hops);
        if nak {
            if self.can_decrease(now) {
                self.cwnd *= 1.0 - c.max_mdf;
            }
        } else if delay_ps < self.target_ps {
            let n = num_acked as f64;
            if self.cwnd >= 1.0 {
                self.cwnd += c.ai * n / self.cwnd;
            } else {
                self.cwnd += c.ai * n;
            }
        } else if self.can_decrease(now) {
            let cut = 1.0 - c.beta * (delay_ps - self.target_ps) / delay_ps;
            self.cwnd *= cut.max(1.0 - c.max_mdf);
        }
        self.cwnd = self.cwnd.clamp(c.min_cwnd, c.max_cwnd);
        if self.cwnd < before {
            self.last_decrease = Some(now);
        }
        if delay_ps > 0.0 {
            self.srtt_ps = 0.875 * self.srtt_ps + 0.125 * delay_ps;
        }
    }
}

impl RoceControllerConfig for SwiftConfig {
    type Controller = Swift;
    const NAME: &'static str = "swift";
    fn build(&self, f: &FlowCtx<'_>) -> Swift {
        let mtu = f.mtu_bytes.max(1) as f64;
        let bdp = f.path.bdp_bytes.max(f.mtu_bytes) as f64 / mtu;
        Swift {
            cfg: *self,
            cwnd: bdp.clamp(self.min_cwnd, self.max_cwnd),
            mtu_bytes: mtu,
            srtt_ps: f.path.base_rtt.ps() as f64,
            last_decrease: None,
            target_ps: self.target_ps(bdp, 0),
        }
    }
}

impl super::control::ControllerRules for SwiftConfig {
    fn needs_bdp(&self) -> bool {
        true
    }
}

impl RateControl for Swift {
    /// Line rate with a window of a packet or more; below it, one packet
    /// per `RTT / cwnd`.
    #[inline]
    fn rate_bps(&self, line_bps: f64) -> f64 {
        if self.cwnd >= 1.0 || self.srtt_ps <= 0.0 {
            return line_bps;
        }
        (self.cwnd * self.mtu_bytes * 8.0 / (self.srtt_ps * 1e-12)).min(line_bps)
    }
    #[inline]
    fn window_bytes(&self) -> Option<u64> {
        Some(((self.cwnd.max(1.0) * self.mtu_bytes) as u64).max(1))
    }
    fn on_ack(&mut self, a: &AckView<'_>) -> bool {
        let delay = a.now.saturating_since(a.pkt.ts_ecr);
        let num_acked = a.ack.saturating_sub(a.snd_una);
        let hops = u32::from(a.pkt.hops.saturating_sub(1));
        let nak = a.pkt.roce.has(net::RoceBits::NAK);
        self.on_delay(a.now, delay, num_acked, hops, nak);
        true
    }
    fn state(&self, out: &mut StateOut<'_>) {
        out("cwnd_packets", self.cwnd);
        out("target_delay_us", self.target_ps / 1e6);
        out("srtt_us", self.srtt_ps / 1e6);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn swift(cwnd: f64) -> Swift {
        Swift {
            cfg: SwiftConfig::default(),
            cwnd,
            mtu_bytes: 1000.0,
            srtt_ps: 10e6,
            last_decrease: None,
            target_ps: 0.0,
        }
    }

    fn at_us(us: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_us(us)
    }

    #[test]
    fn the_target_scales_with_hops_and_falls_with_the_window() {
        let c = SwiftConfig::default();
        // At fs_min_cwnd the flow-scaling term is all of fs_range, at
        // fs_max_cwnd none of it, and it falls as 1/sqrt(cwnd) between.
        assert!((c.flow_scaling_ps(0.1) - 125e6).abs() < 1.0);
        assert!(c.flow_scaling_ps(100.0).abs() < 1.0);
        assert!(c.flow_scaling_ps(1.0) > c.flow_scaling_ps(4.0));
        let alpha = 125e6 / (1.0 / libm::sqrt(0.1) - 0.1);
        let want = alpha / 2.0 - alpha / 10.0; // cwnd = 4
        assert!((c.flow_scaling_ps(4.0) - want).abs() < 1.0);
        // Three switches add three hop_scales.
        let d = c.target_ps(100.0, 3) - c.target_ps(100.0, 0);
        assert!((d - 3.0 * 3.8e6).abs() < 1.0);
    }

    #[test]
    fn below_the_target_the_window_grows_by_ai_per_window() {
        let mut s = swift(10.0);
        // Ten ACKs of one packet each at a delay far below the target.
        for i in 0..10 {
            s.on_delay(at_us(i), SimDuration::from_us(5), 1, 1, false);
        }
        assert!((s.cwnd - 11.0).abs() < 0.05, "cwnd {}", s.cwnd);
        // Below one packet the increase is ai per packet acknowledged.
        let mut s = swift(0.2);
        s.on_delay(at_us(0), SimDuration::from_us(5), 1, 1, false);
        assert!((s.cwnd - 1.2).abs() < 1e-9);
    }

    #[test]
    fn above_the_target_one_decrease_per_rtt_capped_by_max_mdf() {
        let mut s = swift(50.0);
        let target = s.cfg.target_ps(50.0, 1);
        // A delay 50% above the target: cut by beta x (d - t) / d.
        let d = SimDuration::from_ps((target * 1.5) as u64);
        s.on_delay(at_us(100), d, 1, 1, false);
        let want = 50.0 * (1.0 - 0.8 * (d.ps() as f64 - target) / d.ps() as f64);
        assert!((s.cwnd - want).abs() < 1e-6, "{} vs {want}", s.cwnd);
        // Within the same RTT no further cut.
        let after = s.cwnd;
        s.on_delay(at_us(101), d, 1, 1, false);
        assert_eq!(s.cwnd, after);
        // A huge delay a round trip later: the cut is capped at max_mdf.
        s.on_delay(at_us(200), SimDuration::from_ms(10), 1, 1, false);
        assert!(
            (s.cwnd - after * 0.5).abs() < 1e-9,
            "{} vs {}",
            s.cwnd,
            after * 0.5
        );
    }

    #[test]
    fn a_window_below_one_packet_is_paced_over_the_rtt() {
        let mut s = swift(0.05);
        s.srtt_ps = 20e6; // 20 us
        // 0.05 packets of 1000 B per 20 us: 20 Mb/s.
        assert!((s.rate_bps(100e9) - 20e6).abs() < 1.0);
        assert_eq!(s.window_bytes(), Some(1000));
        s.cwnd = 0.001;
        s.on_delay(at_us(0), SimDuration::from_ms(1), 0, 1, false);
        assert_eq!(s.cwnd, s.cfg.min_cwnd, "floored at min_cwnd");
    }
}
