//! RCC (RCC paper): receiver-driven RDMA congestion control that tells
//! last-hop congestion from in-network congestion.
//!
//! Per data packet (Algorithm 1), the receiver measures the one-way delay
//! from the packet's send timestamp, counts the messages in progress at
//! its NIC (N, from the First/Last opcodes, III-D) and the bytes received
//! by all of them over the last round (B_R, III-C), and assigns a window:
//! - the fair share C x RTT_base / N (Explicit Window Assignment, III-D)
//!   while the last hop is saturated (B_R >= C x RTT_base x eta) or no
//!   in-network congestion is seen;
//! - once n consecutive delays exceed base x (1 + delta) with the last hop
//!   not saturated (in-network congestion, III-C), a PID loop on the delay
//!   (III-E): U(t) = U(t-1) + Kp E(t) + Kd (E(t) - E(t-1)), E = delay -
//!   base x (1 + delta/2), W(t) = W(t-1) (1 - tanh U(t)), capped by the
//!   fair share. A flow in PID stays there (III-B).
//!
//! The window rides on every ACK; the sender keeps at most that many bytes
//! in flight and paces at window / RTT_base.
//!
//! Choices where the paper is open (docs/scenarios.md documents each key), each a key:
//! - A1: delays are one-way, against a per-flow base that is the smallest
//!   delay seen (so R_ref = 1.1 x base); the round of B_R and the fair
//!   share's RTT_base are the round trip of the flow's path on empty
//!   queues (the HPCC fork's per-pair base RTT), the round the smallest
//!   over the host's flows.
//! - A2: E in seconds with Kp = 1e4, Kd = 1e5 (section V-A); `error_unit =
//!   "us"` with section IV-D's gains (Kp 1-16, Kd 1e3-7e3) is the other set.
//! - A3: the fair share in bytes is C x RTT_base / N, without eta (eta is
//!   the detection threshold; with it the link would run at 95% of 95%).
//!   A share below one packet is honoured by pacing (III-D: the window is
//!   enforced "by per-ACK window adjustment and packet pacing"): the sender
//!   keeps one packet in flight at most and paces at window / RTT_base, so
//!   the sum of the windows, not the number of messages, bounds the rate
//!   (a one-packet floor left 1,001 messages x 1 packet standing in Fig.
//!   8's queue). `ewa_share = "eta"` is the other reading: eta x C x
//!   RTT_base / N, so that the shares sum below line rate.
//! - A4: N counts a message on its First packet and uncounts it on its
//!   Last, each when accepted in order (a retransmitted Last is counted
//!   once; an Only packet is +1 then -1).
//! - A5: one PID step per RTT_base, with the latest delay (the fluid
//!   model's cadence and Table I's `update_timer`; `pid_step = "packet"`
//!   steps on every packet); the detector samples at the same cadence, so
//!   n samples span n base RTTs (per packet, an incast's queue passed
//!   for in-network congestion within its first round, while B_R was still
//!   empty, and every flow entered PID for good: 36 Gb/s for a 16-to-1
//!   incast at 100 Gb/s); entering PID starts from the current window with
//!   U = E(t-1) = 0; the n-sample counter is per flow and reset by any
//!   sample at or below the threshold.
//! - The PID's window is at least one packet; EWA's share has no floor
//!   (A3): at least a byte, so the pacer has a rate.

use libm::{exp, tanh};
use net::{Feedback, Packet};
use sim_core::{Bandwidth, SimDuration, SimTime};

/// Which RCC (RCC paper section V-D's ablations and III-G's deployment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RccVariant {
    /// The full algorithm at the receiver.
    Rcc,
    /// RCC-EWA: Explicit Window Assignment alone (no PID).
    Ewa,
    /// RCC-PID: the PID loop alone, from the first packet (no EWA; the
    /// window is capped by the line rate's BDP instead of the fair share).
    Pid,
    /// RCC-sender (III-G): delays are round trips measured at the sender,
    /// which also runs the detection and the PID; the receiver feeds back
    /// N and whether the last hop is saturated.
    Sender,
}

/// The unit of the PID's error E (the paper leaves it unstated; only seconds make
/// section V-A's Kp = 1e4, Kd = 1e5 workable).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorUnit {
    /// Seconds: section V-A's Kp = 1e4, Kd = 1e5 give a 1 us error a 1%
    /// proportional step.
    Seconds,
    /// Microseconds: for section IV-D's gains (Kp 1-16, Kd 1e3-7e3).
    Microseconds,
}

/// The window's scale function (section V-D-3's ablation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// S0 = 1 - tanh(U) (eq. 5).
    Tanh,
    /// S1 = 1 - sigmoid(U).
    Sigmoid,
    /// S2 = 2 - 2 sigmoid(U).
    Sigmoid2,
}

/// How often the PID steps (Alg. 1 runs per packet, eq. 6 per RTT).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PidStep {
    /// Once per RTT_base, with the latest delay.
    BaseRtt,
    /// On every data packet (Algorithm 1 read literally).
    Packet,
}

/// What Explicit Window Assignment hands each message (III-D:
/// W = C / N is a rate, and the paper does not say how it becomes bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EwaShare {
    /// C x RTT_base / N bytes: the shares sum to line rate, and Fig. 6's
    /// 95 Gb/s of goodput is the wire's header overhead (1000 B of payload
    /// per 1046 B). Below one packet if N is large: the sender still sends
    /// one packet, paced at window / RTT_base (III-D's "per-ACK window
    /// adjustment and packet pacing"), so the shares still sum to C.
    Line,
    /// eta x C x RTT_base / N bytes (paced the same way below a packet), so
    /// the shares sum to eta x C on the wire and a standing queue drains.
    /// Goodput is then 95% of the header-limited ceiling.
    Eta,
}

/// RCC's parameters, each with the paper's default.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RccConfig {
    /// Which RCC.
    pub variant: RccVariant,
    /// Consecutive delays above the threshold that signal congestion (III-F: 3).
    pub n: u32,
    /// Allowed queueing, as a fraction of the base delay (III-F: 0.2).
    pub delta: f64,
    /// Expected last-hop utilisation (III-F: 0.95).
    pub eta: f64,
    /// Proportional gain (V-A: 1e4).
    pub kp: f64,
    /// Derivative gain (V-A: 1e5).
    pub kd: f64,
    /// The unit of E.
    pub error_unit: ErrorUnit,
    /// The scale function.
    pub scale: Scale,
    /// The PID's cadence.
    pub pid_step: PidStep,
    /// EWA's share in bytes (section III-D; the bytes conversion is ours).
    pub ewa_share: EwaShare,
    /// RCC-async (V-D-1): each host's clock runs ahead of true time by an
    /// offset drawn uniformly from [0, this] (zero: synchronised clocks).
    pub clock_offset: SimDuration,
    /// RCC-async: each send timestamp is late by a uniform draw from [0, this].
    pub clock_jitter: SimDuration,
}

impl Default for RccConfig {
    fn default() -> Self {
        RccConfig {
            variant: RccVariant::Rcc,
            n: 3,
            delta: 0.2,
            eta: 0.95,
            kp: 1e4,
            kd: 1e5,
            error_unit: ErrorUnit::Seconds,
            scale: Scale::Tanh,
            pid_step: PidStep::BaseRtt,
            ewa_share: EwaShare::Line,
            clock_offset: SimDuration::ZERO,
            clock_jitter: SimDuration::ZERO,
        }
    }
}

/// EWA's fair share (III-D): C x RTT_base / N bytes, N at least 1.
/// `RccControl::on_sample` turns it into the window by `ewa_share`
/// (section III-D): floored at a packet, or scaled by eta.
pub fn fair_share(rate: Bandwidth, base_rtt: SimDuration, messages: u32) -> u64 {
    rate.bytes_in(base_rtt) / messages.max(1) as u64
}

/// One flow's RCC state: the delay detector and the PID (Table I's
/// receiver state; at the sender for RCC-sender).
#[derive(Clone, Debug)]
pub struct RccControl {
    cfg: RccConfig,
    /// RTT_base of the flow's path: the PID's step interval.
    base_rtt: SimDuration,
    /// The PID's window never falls below this (one packet), unless the
    /// fair share that caps it is smaller.
    min_window: u64,
    /// RCC-PID's cap: the line rate's BDP.
    max_window: u64,
    /// The smallest delay seen (the base of eq. 1 and 2).
    base_delay: Option<SimDuration>,
    /// Consecutive delay samples above base x (1 + delta).
    above: u32,
    /// When the detector last sampled.
    last_sample: Option<SimTime>,
    in_pid: bool,
    pid_since: Option<SimTime>,
    /// W, U and E(t-1) of eqs. 3-5.
    w: f64,
    u: f64,
    e_prev: f64,
    last_step: Option<SimTime>,
    /// The window last assigned.
    cwnd: u64,
}

impl RccControl {
    /// A flow with base RTT `base_rtt`, packets of `packet_bytes`, and the
    /// line rate's BDP `line_bdp` (its first window).
    pub fn new(cfg: RccConfig, base_rtt: SimDuration, packet_bytes: u64, line_bdp: u64) -> Self {
        RccControl {
            cfg,
            base_rtt,
            min_window: packet_bytes,
            max_window: line_bdp.max(packet_bytes),
            base_delay: None,
            above: 0,
            last_sample: None,
            in_pid: false,
            pid_since: None,
            w: line_bdp as f64,
            u: 0.0,
            e_prev: 0.0,
            last_step: None,
            cwnd: line_bdp.max(packet_bytes),
        }
    }

    /// One delay sample at `now` (Algorithm 1): `fair_share` is EWA's
    /// window, `last_hop` whether the last hop is saturated. Returns the
    /// window to assign.
    pub fn on_sample(
        &mut self,
        now: SimTime,
        delay: SimDuration,
        fair_share: u64,
        last_hop: bool,
    ) -> u64 {
        let base = self.base_delay.map_or(delay, |b| b.min(delay));
        self.base_delay = Some(base);
        // The detector samples at the PID's cadence (Table I's
        // update_timer): with per-RTT steps, n samples span n base RTTs,
        // so an incast's first round (B_R still empty) cannot pass for
        // in-network congestion.
        let sample = match self.cfg.pid_step {
            PidStep::Packet => true,
            PidStep::BaseRtt => self.last_sample.is_none_or(|t| now >= t + self.base_rtt),
        };
        if sample {
            self.last_sample = Some(now);
            let threshold = base.ps() as f64 * (1.0 + self.cfg.delta);
            self.above = if delay.ps() as f64 > threshold {
                self.above.saturating_add(1)
            } else {
                0
            };
        }
        // At least a byte: the sender's pacer needs a rate.
        let fair_share = match self.cfg.ewa_share {
            EwaShare::Line => fair_share,
            EwaShare::Eta => (fair_share as f64 * self.cfg.eta) as u64,
        }
        .max(1);
        self.cwnd = match self.cfg.variant {
            RccVariant::Ewa => fair_share,
            RccVariant::Pid => {
                if !self.in_pid {
                    self.enter_pid(now, self.max_window);
                }
                self.pid(now, delay, base, self.max_window)
            }
            RccVariant::Rcc | RccVariant::Sender => {
                if self.in_pid {
                    self.pid(now, delay, base, fair_share)
                } else if last_hop {
                    fair_share
                } else if self.above >= self.cfg.n {
                    self.enter_pid(now, self.cwnd);
                    self.pid(now, delay, base, fair_share)
                } else {
                    fair_share
                }
            }
        };
        self.cwnd
    }

    fn enter_pid(&mut self, now: SimTime, w: u64) {
        self.in_pid = true;
        self.pid_since = Some(now);
        self.w = w as f64;
        self.u = 0.0;
        self.e_prev = 0.0;
        self.last_step = None;
    }

    /// A PID step if one is due (eqs. 3-5), then the window capped by `cap`.
    fn pid(&mut self, now: SimTime, delay: SimDuration, base: SimDuration, cap: u64) -> u64 {
        let due = match self.cfg.pid_step {
            PidStep::Packet => true,
            PidStep::BaseRtt => self.last_step.is_none_or(|t| now >= t + self.base_rtt),
        };
        if due {
            self.last_step = Some(now);
            let target_ps = base.ps() as f64 * (1.0 + self.cfg.delta / 2.0);
            let unit = match self.cfg.error_unit {
                ErrorUnit::Seconds => 1e-12,
                ErrorUnit::Microseconds => 1e-6,
            };
            let e = (delay.ps() as f64 - target_ps) * unit;
            self.u += self.cfg.kp * e + self.cfg.kd * (e - self.e_prev);
            self.e_prev = e;
            self.w *= scale(self.cfg.scale, self.u);
        }
        // The window carried to the next step is the one applied: capped
        // by the fair share (III-B), so it cannot wind up above it, and at
        // least a packet unless the share itself is smaller (A3).
        let cap = cap.max(1);
        self.w = self.w.clamp(self.min_window.min(cap) as f64, cap as f64);
        self.w as u64
    }

    /// Its state by name: the window it assigned, whether the PID runs,
    /// and the PID's U(t) and window (RCC paper eqs. 3-5).
    pub fn state(&self, out: &mut crate::StateOut<'_>) {
        out("assigned_window_bytes", self.cwnd as f64);
        out("in_pid", if self.in_pid { 1.0 } else { 0.0 });
        out("pid_u", self.u);
        out("pid_window_bytes", self.w);
    }

    /// Whether the flow is in PID-based control.
    pub fn in_pid(&self) -> bool {
        self.in_pid
    }

    /// When the flow entered PID-based control.
    pub fn pid_since(&self) -> Option<SimTime> {
        self.pid_since
    }

    /// The window last assigned, bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }

    /// The control factor U.
    pub fn u(&self) -> f64 {
        self.u
    }

    /// The smallest delay seen.
    pub fn base_delay(&self) -> Option<SimDuration> {
        self.base_delay
    }
}

/// The window's multiplier for control factor `u`.
pub fn scale(s: Scale, u: f64) -> f64 {
    let sigmoid = |x: f64| 1.0 / (1.0 + exp(-x));
    match s {
        Scale::Tanh => 1.0 - tanh(u),
        Scale::Sigmoid => 1.0 - sigmoid(u),
        Scale::Sigmoid2 => 2.0 - 2.0 * sigmoid(u),
    }
}

/// RCC at a sender: the window in force and the pacer's rate from it; for
/// RCC-sender, the detector and PID too; and the send stamps' clock.
#[derive(Clone, Debug)]
pub struct RccSend {
    variant: RccVariant,
    /// The window in force, bytes: the line rate's BDP until the first
    /// assignment arrives (III-B: flows start at line rate).
    cwnd: u64,
    base_rtt: SimDuration,
    /// The receiver's NIC rate: RCC-sender's fair share is C x RTT_base / N.
    rx_rate: Bandwidth,
    /// RCC-sender's detector and PID.
    control: Option<RccControl>,
    /// This host's clock offset, and the timestamps' jitter with its stream.
    clock_offset: SimDuration,
    jitter: Option<(SimDuration, sim_core::rng::RngStream)>,
}

impl super::control::RoceControllerConfig for RccConfig {
    type Controller = RccSend;
    const NAME: &'static str = "rcc";
    fn build(&self, f: &super::control::FlowCtx<'_>) -> RccSend {
        let path = f.path;
        let line_bdp = path.bdp_bytes.max(f.mtu_bytes);
        RccSend {
            variant: self.variant,
            cwnd: line_bdp,
            base_rtt: path.base_rtt,
            rx_rate: path.rx_line_rate,
            control: (self.variant == RccVariant::Sender)
                .then(|| RccControl::new(*self, path.base_rtt, f.mtu_bytes, line_bdp)),
            clock_offset: path.src_clock_offset,
            jitter: (self.clock_jitter.ps() > 0).then(|| {
                let stream = sim_core::rng::RngStream::from_seed_u64(path.stream_seed);
                (self.clock_jitter, stream)
            }),
        }
    }
    fn report_name(&self) -> &'static str {
        match self.variant {
            RccVariant::Rcc => "rcc",
            RccVariant::Ewa => "rcc-ewa",
            RccVariant::Pid => "rcc-pid",
            RccVariant::Sender => "rcc-sender",
        }
    }
}

/// RCC's receiver half, per flow: it registers the flow's base RTT and
/// line rate with the host's counters, and every reply carries N, whether
/// the last hop is saturated, and (unless RCC-sender, whose sender runs
/// them) the window that Algorithm 1's detector and PID assign.
#[derive(Clone, Debug)]
pub struct RccReceiver(Box<RccRecvState>);

/// [`RccReceiver`]'s state (boxed: a flow's reply path reads only the
/// pointer until a data packet arrives).
#[derive(Clone, Debug)]
struct RccRecvState {
    variant: RccVariant,
    eta: f64,
    /// The detector and PID (unused by RCC-sender).
    control: RccControl,
    base_rtt: SimDuration,
    rx_rate: Bandwidth,
    /// This host's clock offset (RCC-async).
    clock_offset: SimDuration,
    registered: bool,
}

impl RccReceiver {
    /// The flow's controller at the receiver (not RCC-sender's, which is
    /// at the sender).
    pub fn control(&self) -> Option<&RccControl> {
        (self.0.variant != RccVariant::Sender).then_some(&self.0.control)
    }
}

impl super::control::ReceiverHalf<RccConfig> for RccReceiver {
    fn build(cfg: &RccConfig, f: &super::control::FlowCtx<'_>) -> Self {
        let path = f.path;
        let line_bdp = path.bdp_bytes.max(f.mtu_bytes);
        RccReceiver(Box::new(RccRecvState {
            variant: cfg.variant,
            eta: cfg.eta,
            control: RccControl::new(*cfg, path.base_rtt, f.mtu_bytes, line_bdp),
            base_rtt: path.base_rtt,
            rx_rate: path.rx_line_rate,
            clock_offset: path.dst_clock_offset,
            registered: false,
        }))
    }
}

impl super::control::ReceiverControl for RccReceiver {
    fn on_data(
        &mut self,
        _now: SimTime,
        _pkt: &Packet,
        host: &mut super::host::HostRx,
    ) -> super::control::Notify {
        let r = &mut *self.0;
        if !r.registered {
            r.registered = true;
            host.register(r.rx_rate, r.base_rtt);
        }
        super::control::Notify::Nothing
    }
    /// Algorithm 1 on data packet `pkt` (after N was updated for it).
    fn feedback(&mut self, now: SimTime, pkt: &Packet, host: &super::host::HostRx) -> Feedback {
        let r = &mut *self.0;
        let flows = host.active_messages.min(u16::MAX as u32) as u16;
        let last_hop = host.saturated(r.eta);
        if r.variant == RccVariant::Sender {
            return Feedback {
                window_bytes: 0,
                count: flows,
                flag: last_hop,
                ..Feedback::default()
            };
        }
        // The one-way delay, read on this host's clock (RCC paper III-C).
        let delay = (now + r.clock_offset).saturating_since(pkt.ts_val);
        let fair_share = host.fair_share(r.base_rtt);
        let w = r.control.on_sample(now, delay, fair_share, last_hop);
        Feedback {
            window_bytes: w.min(u32::MAX as u64) as u32,
            count: flows,
            flag: last_hop,
            ..Feedback::default()
        }
    }
    fn state(&self, out: &mut crate::StateOut<'_>) {
        if let Some(c) = self.control() {
            c.state(out);
        }
    }
}

impl super::control::ControllerRules for RccConfig {
    fn needs_bdp(&self) -> bool {
        true
    }
    fn clock_offset_max(&self) -> SimDuration {
        self.clock_offset
    }
    fn assigns_window(&self) -> bool {
        true
    }
}

impl super::control::RateControl for RccSend {
    /// window / base RTT (the paper leaves the pacing rate unstated), at most line rate.
    #[inline]
    fn rate_bps(&self, line_bps: f64) -> f64 {
        let rtt_s = self.base_rtt.ps() as f64 * 1e-12;
        if rtt_s > 0.0 {
            (self.cwnd as f64 * 8.0 / rtt_s).min(line_bps)
        } else {
            line_bps
        }
    }
    #[inline]
    fn window_bytes(&self) -> Option<u64> {
        Some(self.cwnd)
    }
    /// The send timestamp at true time `now`, as this host's clock reads it.
    fn stamp(&mut self, now: SimTime) -> SimTime {
        let jitter = match self.jitter.as_mut() {
            Some((max, rng)) => rng.below(max.ps() + 1),
            None => 0,
        };
        now + self.clock_offset + SimDuration::from_ps(jitter)
    }
    fn on_ack(&mut self, a: &super::control::AckView<'_>) -> bool {
        let fb = &a.pkt.feedback;
        match self.control.as_mut() {
            // RCC-sender (III-G): the round trip from the echoed stamp,
            // both ends of it read on this host's clock.
            Some(c) => {
                let rtt = (a.now + self.clock_offset).saturating_since(a.pkt.ts_ecr);
                let share = fair_share(self.rx_rate, self.base_rtt, fb.count as u32);
                self.cwnd = c.on_sample(a.now, rtt, share, fb.flag);
            }
            None if fb.window_bytes > 0 => self.cwnd = fb.window_bytes as u64,
            None => {}
        }
        debug_assert!(self.variant == RccVariant::Sender || self.control.is_none());
        true
    }
    fn state(&self, out: &mut crate::StateOut<'_>) {
        if let Some(c) = &self.control {
            c.state(out);
        }
    }
}
