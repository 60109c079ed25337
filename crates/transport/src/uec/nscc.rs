//! NSCC, UE 1.0's network-signalled congestion control: a sender window
//! steered by two signals at once, the queueing delay of each ACK's
//! packet (its RTT above the base RTT) against a target, and the ECN mark
//! its ACK echoes. The four cases (htsim `uec.cpp` at 40ccb05,
//! `updateCwndOnAck_NSCC`, which follows the specification):
//!
//! | ECN | delay vs target | action |
//! |---|---|---|
//! | no | below | proportional increase (and fast increase near zero delay) |
//! | no | at or above | fair increase (the delay is not the network's) |
//! | yes | at or above | multiplicative decrease, at most once per base RTT |
//! | yes | below | nothing (the sender's entropy choice moves the packet) |
//!
//! Increases accumulate in `inc_bytes` and are applied once `adjust_bytes`
//! were delivered or a base RTT passed (`fulfill_adjustment`), as
//! `inc_bytes / cwnd` plus `eta` once per period. Quick adapt cuts the
//! window to what was delivered in the last period (base RTT + target)
//! after a loss, a NACK or a delay above 4 x target, if that was under
//! `max_cwnd >> qa_gate`, then ignores the feedback of the packets
//! already in flight. A NACK (a trimmed packet) takes its bytes off the
//! window.

use super::config::UecConfig;
use sim_core::{SimDuration, SimTime};

/// The reference network the specification's steps are written for.
const REFERENCE_RTT_PS: f64 = 12e6;
/// 100 Gb/s x 12 us, bytes.
const REFERENCE_BDP_BYTES: f64 = 150_000.0;

/// One sender's NSCC state.
#[derive(Clone, Debug)]
pub struct Nscc {
    /// The window, bytes of whole packets (headers included).
    cwnd: f64,
    min_cwnd: f64,
    max_cwnd: f64,
    max_cwnd_bdp: f64,
    line_bytes_per_ps: f64,
    /// The smallest RTT seen (starts at the network's base RTT).
    base_rtt: SimDuration,
    target: SimDuration,
    qa_threshold: SimDuration,
    qa_gate: u8,
    quick_adapt: bool,
    /// The average queueing delay, ps.
    avg_delay_ps: f64,
    delay_ewma: f64,
    gamma: f64,
    /// Proportional increase, bytes per byte acknowledged per ps under target.
    alpha: f64,
    /// Fair increase, bytes per byte acknowledged.
    fi: f64,
    eta: f64,
    fi_scale: f64,
    fast_increase_delay: SimDuration,
    network_rtt: SimDuration,
    adjust_bytes: f64,
    // Running state.
    inc_bytes: f64,
    received_bytes: f64,
    achieved_bytes: f64,
    bytes_to_ignore: f64,
    bytes_ignored: f64,
    trigger_qa: bool,
    qa_end: Option<SimTime>,
    last_adjust: SimTime,
    last_decrease: SimTime,
    fi_count: f64,
    increasing: bool,
}

/// What one ACK tells NSCC.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AckSignal {
    /// Its packet's queueing delay (RTT - base RTT), or the average when
    /// the ACK gave no valid sample.
    pub delay: SimDuration,
    /// Whether its packet arrived CE-marked.
    pub ecn: bool,
    /// Bytes it newly acknowledged.
    pub acked_bytes: u64,
}

impl Nscc {
    /// NSCC for a flow whose NIC sends at `line_bytes_per_ps`, under `cfg`
    /// (its network prepared), with packets of `mtu` bytes.
    pub fn new(cfg: &UecConfig, line_bytes_per_ps: f64, mtu: u32) -> Self {
        let n = &cfg.nscc;
        let net_rtt = cfg.network.rtt;
        let net_bdp = net_rtt.ps() as f64 * cfg.network.rate.bps() as f64 / 8e12;
        let target = cfg.target_qdelay();
        let a = net_bdp / REFERENCE_BDP_BYTES;
        let b = target.ps() as f64 / REFERENCE_RTT_PS;
        let mss = cfg.mss_bytes as f64;
        let mut s = Nscc {
            cwnd: 0.0,
            min_cwnd: mtu as f64,
            max_cwnd: 0.0,
            max_cwnd_bdp: n.max_cwnd_bdp,
            line_bytes_per_ps,
            base_rtt: net_rtt,
            target,
            qa_threshold: target.saturating_mul(4),
            qa_gate: n.qa_gate,
            quick_adapt: n.quick_adapt,
            avg_delay_ps: 0.0,
            delay_ewma: n.delay_ewma,
            gamma: n.gamma,
            alpha: n.alpha_mss * mss * a * b / target.ps().max(1) as f64,
            fi: n.fi_mss * mss * a,
            eta: n.eta_mss * mss * a,
            fi_scale: n.fi_scale * a,
            fast_increase_delay: n.fast_increase_delay,
            network_rtt: net_rtt,
            adjust_bytes: 8.0 * mtu as f64,
            inc_bytes: 0.0,
            received_bytes: 0.0,
            achieved_bytes: 0.0,
            bytes_to_ignore: 0.0,
            bytes_ignored: 0.0,
            trigger_qa: false,
            qa_end: None,
            last_adjust: SimTime::ZERO,
            last_decrease: SimTime::ZERO,
            fi_count: 0.0,
            increasing: false,
        };
        s.set_max_from_base();
        s.cwnd = s.max_cwnd;
        s
    }

    fn set_max_from_base(&mut self) {
        let bdp = self.base_rtt.ps() as f64 * self.line_bytes_per_ps;
        self.max_cwnd = (self.max_cwnd_bdp * bdp).max(self.min_cwnd);
    }

    /// The window, bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd as u64
    }

    /// The window's ceiling, bytes.
    pub fn max_cwnd(&self) -> u64 {
        self.max_cwnd as u64
    }

    /// The base RTT now.
    pub fn base_rtt(&self) -> SimDuration {
        self.base_rtt
    }

    /// The average queueing delay.
    pub fn avg_delay(&self) -> SimDuration {
        SimDuration::from_ps_f64(self.avg_delay_ps)
    }

    /// The target queueing delay.
    pub fn target(&self) -> SimDuration {
        self.target
    }

    fn bound(&mut self) {
        self.cwnd = self.cwnd.clamp(self.min_cwnd, self.max_cwnd);
    }

    /// An RTT sample of an acknowledged packet: lowers the base RTT (and
    /// with it the window's ceiling) and feeds the average delay; returns
    /// the sample's queueing delay.
    pub fn on_rtt(&mut self, rtt: SimDuration, ecn: bool) -> SimDuration {
        if rtt < self.base_rtt {
            self.base_rtt = rtt;
            self.set_max_from_base();
        }
        let delay = SimDuration::from_ps(rtt.ps() - self.base_rtt.ps());
        self.average(delay, ecn);
        delay
    }

    /// htsim's `update_delay`: an unmarked sample above target counts as
    /// a quarter of the base RTT (the delay was not the network's).
    fn average(&mut self, delay: SimDuration, ecn: bool) {
        let w = self.delay_ewma;
        let sample = if !ecn && delay > self.target {
            self.base_rtt.ps() as f64 * 0.25
        } else {
            delay.ps() as f64
        };
        self.avg_delay_ps = w * sample + (1.0 - w) * self.avg_delay_ps;
    }

    /// An ACK (htsim's `processAck` and `updateCwndOnAck_NSCC`); `in_flight`
    /// is the sender's bytes in flight after it.
    pub fn on_ack(&mut self, now: SimTime, s: AckSignal, in_flight: u64) {
        let bytes = s.acked_bytes as f64;
        self.achieved_bytes += bytes;
        self.received_bytes += bytes;
        self.bytes_ignored += bytes;
        if self.run_quick_adapt(now, false, s.ecn, s.delay, in_flight) {
            return;
        }
        match (s.ecn, s.delay >= self.target) {
            (false, true) => self.inc_bytes += self.fi * bytes,
            (false, false) => self.proportional_increase(bytes, s.delay),
            (true, true) => self.multiplicative_decrease(now),
            (true, false) => {}
        }
        self.bound();
        if self.received_bytes > self.adjust_bytes || now.since(self.last_adjust) > self.network_rtt
        {
            self.fulfill(now);
        }
        self.bound();
    }

    fn proportional_increase(&mut self, bytes: f64, delay: SimDuration) {
        if delay < self.fast_increase_delay {
            self.fi_count += bytes;
            if self.fi_count > self.cwnd || self.increasing {
                self.cwnd += bytes * self.fi_scale;
                self.increasing = true;
                return;
            }
        } else {
            self.fi_count = 0.0;
        }
        self.increasing = false;
        self.inc_bytes += self.alpha * bytes * (self.target.ps() - delay.ps()) as f64;
    }

    fn multiplicative_decrease(&mut self, now: SimTime) {
        self.increasing = false;
        self.fi_count = 0.0;
        let avg = self.avg_delay_ps;
        let target = self.target.ps() as f64;
        if avg > target && now.since(self.last_decrease) > self.base_rtt {
            self.cwnd *= (1.0 - self.gamma * (avg - target) / avg).max(0.5);
            self.cwnd = self.cwnd.max(self.min_cwnd);
            self.last_decrease = now;
        }
    }

    fn fulfill(&mut self, now: SimTime) {
        self.cwnd += self.inc_bytes / self.cwnd;
        if now.since(self.last_adjust) >= self.network_rtt {
            self.cwnd += self.eta;
            self.last_adjust = now;
        }
        self.inc_bytes = 0.0;
        self.received_bytes = 0.0;
    }

    /// Quick adapt (htsim's `quick_adapt`): returns whether it ran or the
    /// feedback is to be ignored, in which case nothing else moves the window.
    fn run_quick_adapt(
        &mut self,
        now: SimTime,
        loss: bool,
        ecn: bool,
        delay: SimDuration,
        in_flight: u64,
    ) -> bool {
        if !self.quick_adapt {
            return false;
        }
        let mut done = false;
        if self.bytes_ignored < self.bytes_to_ignore && ecn {
            done = true;
        } else if self.qa_end.is_none_or(|e| now > e) {
            let gate = (self.max_cwnd as u64 >> self.qa_gate) as f64;
            if self.qa_end.is_some()
                && (self.trigger_qa || loss || delay > self.qa_threshold)
                && self.achieved_bytes < gate
            {
                self.cwnd = self.achieved_bytes.max(self.min_cwnd);
                self.bytes_to_ignore = in_flight as f64;
                self.bytes_ignored = 0.0;
                self.trigger_qa = false;
                done = true;
            }
            self.achieved_bytes = 0.0;
            self.qa_end = Some(now + self.base_rtt + self.target);
        }
        if done {
            self.inc_bytes = 0.0;
            self.received_bytes = 0.0;
        }
        done
    }

    /// A NACK of `bytes` (a trimmed packet; htsim's
    /// `updateCwndOnNack_NSCC`): the average delay moves as if the packet
    /// had waited a network RTT, quick adapt is due, and unless it runs
    /// the window loses the packet's bytes.
    pub fn on_nack(&mut self, now: SimTime, bytes: u64, in_flight: u64) {
        self.bytes_ignored += bytes as f64;
        let delay = self.network_rtt;
        self.average(delay, true);
        self.trigger_qa = true;
        if !self.run_quick_adapt(now, true, true, SimDuration::ZERO, in_flight) {
            self.cwnd -= bytes as f64;
            self.bound();
        }
    }

    /// A retransmission timeout of a packet of `bytes` (htsim's
    /// `mark_packet_for_retransmission`).
    pub fn on_timeout(&mut self, bytes: u64) {
        self.cwnd = (self.cwnd - bytes as f64).max(self.min_cwnd);
    }

    /// Its state for `[output] cc_trace`.
    pub fn cc_state(&self, out: &mut crate::StateOut<'_>) {
        out("cwnd_bytes", self.cwnd);
        out("avg_delay_us", self.avg_delay_ps / 1e6);
        out("base_rtt_us", self.base_rtt.ps() as f64 / 1e6);
    }
}
