//! DCQCN's reaction point (RP): the sender's rate (Zhu et al., "Congestion
//! Control for Large-Scale RDMA Deployments", SIGCOMM 2015), in the three
//! forms the references disagree on (Zhu et al., SIGCOMM 2015; the DCQCN
//! authors' ns-3 code, bobzhuyb/ns3-rdma; the HPCC fork; htsim's `dcqcn.cpp`).
//!
//! - [`Variant::Paper`]: the paper's equations as htsim implements them. On
//!   a CNP, R_T = R_C, R_C = R_C (1 - alpha/2), alpha = (1-g) alpha + g, and
//!   both increase counters restart; alpha decays by (1-g) every K without a
//!   CNP; every T (timer) and every B bytes (byte counter) an increase event
//!   runs fast recovery (R_C = (R_T + R_C)/2) while max(T, BC) <= F,
//!   hyper increase (R_T += (min(T, BC) - F) R_HAI) once min(T, BC) > F, and
//!   additive increase (R_T += R_AI) between. R_T is clamped to the line rate.
//! - [`Variant::Mellanox`]: the HPCC ns-3 fork's `CC_MODE 1`. Alpha is set
//!   to 1 at the first CNP and updated per `alpha_interval` slot from
//!   whether a CNP arrived in it; the rate is cut at most once per
//!   `decrease_interval`; the increase is timer-only, by a stage counter.
//! - [`Variant::Ns3Rdma`]: the DCQCN authors' ns-3 code (QCN-derived; what
//!   RCC's DCQCN baseline ran). Alpha is updated before the cut; fast
//!   recovery runs F - 1 steps per counter; hyper increase adds
//!   (min(BC, T) - F + 1) R_HAI and halves the timer period and byte count;
//!   at the first stage R_T /= 8 if R_T > 10 R_C; R_T is not clamped.
//!
//! Before its first CNP a flow sends at line rate and the RP is idle (no
//! timers): the QCN heritage, where a flow is rate-limited only once
//! congestion was signalled. Rates are f64 bits per second (IEEE arithmetic
//! only: deterministic).

use sim_core::time::earliest;
use sim_core::{SimDuration, SimTime};

/// Which reference's reaction point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The SIGCOMM 2015 equations (htsim's `DCQCNSrc`).
    Paper,
    /// The HPCC ns-3 fork's Mellanox model (`CC_MODE 1`).
    Mellanox,
    /// The DCQCN authors' ns-3 code (`bobzhuyb/ns3-rdma`).
    Ns3Rdma,
}

/// When a cut sets R_T = R_C first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clamp {
    /// On every cut (the paper's eq. 1; `CLAMP_TARGET_RATE 1`).
    Always,
    /// Only once an increase has run since the last cut (Mellanox with
    /// `CLAMP_TARGET_RATE 0`: not while the time stage is 0; ns3-rdma with
    /// `CLAMP_TARGET_RATE_AFTER_TIMER`: once either stage is non-zero).
    AfterIncrease,
    /// ns3-rdma with neither clamp flag: only once the byte stage is non-zero.
    AfterByteIncrease,
}

/// DCQCN's RP parameters (`[transport.NAME.cc]` of the RoCE family). Each
/// variant's defaults are its source's ([`DcqcnConfig::defaults`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcqcnConfig {
    /// The reference whose rules apply.
    pub variant: Variant,
    /// Alpha's EWMA gain g.
    pub g: f64,
    /// Alpha before the first CNP.
    pub alpha_initial: f64,
    /// K: alpha's update period.
    pub alpha_interval: SimDuration,
    /// T: the rate-increase timer's period.
    pub rate_timer: SimDuration,
    /// B: bytes sent per byte-counter increase event (`None`: no byte counter).
    pub byte_counter: Option<u64>,
    /// F: fast-recovery steps.
    pub fast_recovery_steps: u32,
    /// R_AI: the additive step, bits per second.
    pub r_ai_bps: f64,
    /// R_HAI: the hyper-increase step, bits per second.
    pub r_hai_bps: f64,
    /// The floor on R_C, bits per second (0: none).
    pub min_rate_bps: f64,
    /// When a cut first sets R_T = R_C.
    pub clamp: Clamp,
    /// Mellanox: at most one cut per this period (`RATE_DECREASE_INTERVAL`).
    pub decrease_interval: SimDuration,
    /// Mellanox: the fraction of R_C kept at the first CNP (`RateOnFirstCnp`).
    pub rate_on_first_cnp: f64,
}

impl DcqcnConfig {
    /// The defaults of `variant`'s source (docs/models.md, DCQCN, names each):
    ///
    /// - paper: g = 1/256, K = T = 55 us, B = 10 MB, F = 5, R_AI = 40 Mb/s
    ///   (the fluid-model script), R_HAI = 200 Mb/s (the paper's value was not
    ///   retrieved; the DCQCN authors' ns-3 sample), alpha from 1, and a
    ///   floor of 100 Mb/s (the paper's equations have none; without one a
    ///   flow cut every 50 us through a long incast decays towards zero, so
    ///   the floor of the DCQCN authors' own code);
    /// - mellanox: the HPCC fork's attribute defaults, g = 1/16, alpha
    ///   interval 55 us, decrease interval 4 us, rate timer 1500 us, F = 5,
    ///   R_AI = 5 Mb/s, R_HAI = 50 Mb/s, floor 100 Mb/s, no clamp, rate on
    ///   first CNP 1.0 (its `run.py --cc dcqcn` sets g = 1/256, 1 us, 300 us,
    ///   F = 1 and R_AI, R_HAI scaled with the NIC rate: set those keys);
    /// - ns3rdma: its sample config, g = 1/256, alpha from 0.5, K = 55 us,
    ///   T = 60 us, B = 300 MB, F = 5, R_AI = 40 Mb/s, R_HAI = 200 Mb/s,
    ///   floor 100 Mb/s, clamp always.
    pub fn defaults(variant: Variant) -> Self {
        let us = SimDuration::from_us;
        match variant {
            Variant::Paper => DcqcnConfig {
                variant,
                g: 1.0 / 256.0,
                alpha_initial: 1.0,
                alpha_interval: us(55),
                rate_timer: us(55),
                byte_counter: Some(10_000_000),
                fast_recovery_steps: 5,
                r_ai_bps: 40e6,
                r_hai_bps: 200e6,
                min_rate_bps: 100e6,
                clamp: Clamp::Always,
                decrease_interval: us(50),
                rate_on_first_cnp: 1.0,
            },
            Variant::Mellanox => DcqcnConfig {
                variant,
                g: 1.0 / 16.0,
                alpha_initial: 1.0,
                alpha_interval: us(55),
                rate_timer: us(1500),
                byte_counter: None,
                fast_recovery_steps: 5,
                r_ai_bps: 5e6,
                r_hai_bps: 50e6,
                min_rate_bps: 100e6,
                clamp: Clamp::AfterIncrease,
                decrease_interval: us(4),
                rate_on_first_cnp: 1.0,
            },
            Variant::Ns3Rdma => DcqcnConfig {
                variant,
                g: 1.0 / 256.0,
                alpha_initial: 0.5,
                alpha_interval: us(55),
                rate_timer: us(60),
                byte_counter: Some(300_000_000),
                fast_recovery_steps: 5,
                r_ai_bps: 40e6,
                r_hai_bps: 200e6,
                min_rate_bps: 100e6,
                clamp: Clamp::Always,
                decrease_interval: us(50),
                rate_on_first_cnp: 1.0,
            },
        }
    }
}

/// The ns3-rdma RP's stage (`m_rpStage`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Fast,
    Active,
    Hyper,
}

/// What an increase event did (for traces).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Fast recovery.
    FastRecovery,
    /// Additive increase.
    Additive,
    /// Hyper increase.
    Hyper,
    /// The first-stage rule R_T /= 8 (ns3-rdma).
    TargetCut,
}

/// One flow's reaction point.
// State first, configuration last: the state shares the sender's hot cache
// lines (see `RoceSender`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct Dcqcn {
    /// R_C: the current (sending) rate.
    rc: f64,
    /// R_T: the target rate.
    rt: f64,
    alpha: f64,
    /// Bytes left before the next byte-counter event.
    bytes_left: i64,
    alpha_at: Option<SimTime>,
    rate_at: Option<SimTime>,
    decrease_at: Option<SimTime>,
    /// T: rate-timer events since the last cut (Mellanox: the stage counter).
    time_stage: u32,
    /// BC: byte-counter events since the last cut.
    byte_stage: u32,
    stage: Stage,
    /// A CNP arrived: the RP runs its timers.
    active: bool,
    /// Mellanox: a CNP arrived in the current alpha slot / decrease slot.
    cnp_for_alpha: bool,
    cnp_for_decrease: bool,
    /// The last increase event's kind (traces and tests).
    last_step: Option<Step>,
    line_bps: f64,
    cfg: DcqcnConfig,
}

impl Dcqcn {
    /// A flow starting at `line_bps`, the NIC's line rate.
    pub fn new(cfg: DcqcnConfig, line_bps: f64) -> Self {
        Dcqcn {
            cfg,
            line_bps,
            rc: line_bps,
            rt: line_bps,
            alpha: cfg.alpha_initial,
            active: false,
            time_stage: 0,
            byte_stage: 0,
            bytes_left: cfg.byte_counter.map_or(i64::MAX, |b| b as i64),
            stage: Stage::Fast,
            alpha_at: None,
            rate_at: None,
            decrease_at: None,
            cnp_for_alpha: false,
            cnp_for_decrease: false,
            last_step: None,
        }
    }

    /// R_C, the rate to pace at, bits per second.
    #[inline]
    pub fn rate_bps(&self) -> f64 {
        self.rc
    }

    /// R_T, bits per second.
    pub fn target_bps(&self) -> f64 {
        self.rt
    }

    /// Alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// What the last increase event did.
    pub fn last_step(&self) -> Option<Step> {
        self.last_step
    }

    /// The next timer, if the RP runs any.
    #[inline]
    pub fn deadline(&self) -> Option<SimTime> {
        earliest([self.alpha_at, self.decrease_at, self.rate_at])
    }

    /// A congestion notification packet arrived.
    pub fn on_cnp(&mut self, now: SimTime) {
        let first = !self.active;
        self.active = true;
        match self.cfg.variant {
            Variant::Paper => {
                if self.cfg.clamp == Clamp::Always || self.time_stage + self.byte_stage > 0 {
                    self.rt = self.rc;
                }
                self.rc = self.floor(self.rc * (1.0 - self.alpha / 2.0));
                self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g;
                self.restart_increase(now);
                self.alpha_at = Some(now + self.cfg.alpha_interval);
            }
            Variant::Mellanox => {
                self.cnp_for_alpha = true;
                self.cnp_for_decrease = true;
                if first {
                    self.alpha = 1.0;
                    self.cnp_for_alpha = false;
                    self.alpha_at = Some(now + self.cfg.alpha_interval);
                    // 1 ns after the alpha update, so that a slot's decrease follows it.
                    self.decrease_at =
                        Some(now + self.cfg.decrease_interval + SimDuration::from_ns(1));
                    self.rc *= self.cfg.rate_on_first_cnp;
                    self.rt = self.rc;
                }
            }
            Variant::Ns3Rdma => {
                let clamp = match self.cfg.clamp {
                    Clamp::Always => true,
                    Clamp::AfterIncrease => self.byte_stage != 0 || self.time_stage != 0,
                    Clamp::AfterByteIncrease => self.byte_stage != 0,
                };
                if clamp {
                    self.rt = self.rc;
                    self.bytes_left = self.byte_counter();
                }
                self.byte_stage = 0;
                self.time_stage = 0;
                self.alpha = (1.0 - self.cfg.g) * self.alpha + self.cfg.g;
                self.rc = self.floor(self.rc * (1.0 - self.alpha / 2.0));
                self.alpha_at = Some(now + self.cfg.alpha_interval);
                self.rate_at = Some(now + self.cfg.rate_timer);
                self.stage = Stage::Fast;
            }
        }
    }

    /// `bytes` left the NIC (the byte counter's input).
    #[inline]
    pub fn on_sent(&mut self, bytes: u64) {
        if !self.active || self.cfg.byte_counter.is_none() {
            return;
        }
        self.bytes_left -= bytes as i64;
        while self.bytes_left <= 0 {
            self.byte_event();
        }
    }

    /// Runs every timer due at `now` (alpha, then decrease, then rate).
    pub fn on_timer(&mut self, now: SimTime) {
        if self.alpha_at.is_some_and(|t| t <= now) {
            self.alpha_event(now);
        }
        if self.decrease_at.is_some_and(|t| t <= now) {
            self.decrease_event(now);
        }
        if self.rate_at.is_some_and(|t| t <= now) {
            self.rate_event(now);
        }
    }

    fn byte_counter(&self) -> i64 {
        self.cfg.byte_counter.map_or(i64::MAX, |b| b as i64)
    }

    fn floor(&self, rate: f64) -> f64 {
        rate.max(self.cfg.min_rate_bps)
    }

    /// Paper: T = BC = 0 and both counters restart.
    fn restart_increase(&mut self, now: SimTime) {
        self.time_stage = 0;
        self.byte_stage = 0;
        self.bytes_left = self.byte_counter();
        self.rate_at = Some(now + self.cfg.rate_timer);
    }

    fn alpha_event(&mut self, now: SimTime) {
        let g = self.cfg.g;
        self.alpha = match self.cfg.variant {
            Variant::Mellanox if self.cnp_for_alpha => (1.0 - g) * self.alpha + g,
            _ => (1.0 - g) * self.alpha,
        };
        self.cnp_for_alpha = false;
        self.alpha_at = Some(now + self.cfg.alpha_interval);
    }

    /// Mellanox: the rate is cut once per slot in which a CNP arrived.
    fn decrease_event(&mut self, now: SimTime) {
        self.decrease_at = Some(now + self.cfg.decrease_interval);
        if !self.cnp_for_decrease {
            return;
        }
        let clamp = self.cfg.clamp == Clamp::Always || self.time_stage != 0;
        if clamp {
            self.rt = self.rc;
        }
        self.rc = self.floor(self.rc * (1.0 - self.alpha / 2.0));
        self.time_stage = 0;
        self.cnp_for_decrease = false;
        self.rate_at = Some(now + self.cfg.rate_timer);
    }

    fn rate_event(&mut self, now: SimTime) {
        let period = self.cfg.rate_timer;
        match self.cfg.variant {
            Variant::Paper => {
                self.rate_at = Some(now + period);
                self.time_stage = self.time_stage.saturating_add(1);
                self.paper_increase();
            }
            Variant::Mellanox => {
                self.rate_at = Some(now + period);
                let f = self.cfg.fast_recovery_steps;
                let step = match self.time_stage {
                    s if s < f => Step::FastRecovery,
                    s if s == f => Step::Additive,
                    _ => Step::Hyper,
                };
                match step {
                    Step::Additive => self.rt = (self.rt + self.cfg.r_ai_bps).min(self.line_bps),
                    Step::Hyper => self.rt = (self.rt + self.cfg.r_hai_bps).min(self.line_bps),
                    _ => {}
                }
                self.rc = self.rc / 2.0 + self.rt / 2.0;
                self.last_step = Some(step);
                self.time_stage = self.time_stage.saturating_add(1);
            }
            Variant::Ns3Rdma => {
                self.time_stage = self.time_stage.saturating_add(1);
                let f = self.cfg.fast_recovery_steps;
                match self.stage {
                    Stage::Fast => {
                        self.rate_at = Some(now + period);
                        if self.time_stage < f {
                            self.ns3_adjust(0.0, Step::FastRecovery);
                        } else {
                            self.ns3_active_select();
                        }
                    }
                    Stage::Active => {
                        self.rate_at = Some(now + period);
                        self.ns3_active_select();
                    }
                    Stage::Hyper => {
                        self.rate_at = Some(now + SimDuration::from_ps(period.ps() / 2));
                        self.ns3_hyper();
                    }
                }
            }
        }
    }

    fn byte_event(&mut self) {
        let b = self.byte_counter();
        match self.cfg.variant {
            Variant::Paper => {
                self.bytes_left += b;
                self.byte_stage = self.byte_stage.saturating_add(1);
                self.paper_increase();
            }
            Variant::Mellanox => unreachable!("the Mellanox RP has no byte counter"),
            Variant::Ns3Rdma => {
                self.byte_stage = self.byte_stage.saturating_add(1);
                match self.stage {
                    Stage::Fast => {
                        self.bytes_left = b;
                        if self.byte_stage < self.cfg.fast_recovery_steps {
                            self.ns3_adjust(0.0, Step::FastRecovery);
                        } else {
                            self.ns3_active_select();
                        }
                    }
                    Stage::Active => {
                        self.bytes_left = b;
                        self.ns3_adjust(self.cfg.r_ai_bps, Step::Additive);
                        self.stage = Stage::Active;
                    }
                    Stage::Hyper => {
                        self.bytes_left = b / 2;
                        self.ns3_hyper();
                    }
                }
            }
        }
    }

    /// The paper's increase event (fast recovery, additive or hyper).
    fn paper_increase(&mut self) {
        let f = self.cfg.fast_recovery_steps;
        let (t, bc) = (self.time_stage, self.byte_stage);
        let step = if t.max(bc) <= f {
            Step::FastRecovery
        } else if t.min(bc) > f {
            self.rt += (t.min(bc) - f) as f64 * self.cfg.r_hai_bps;
            Step::Hyper
        } else {
            self.rt += self.cfg.r_ai_bps;
            Step::Additive
        };
        self.rt = self.rt.min(self.line_bps);
        self.rc = ((self.rt + self.rc) / 2.0).min(self.line_bps);
        self.last_step = Some(step);
    }

    fn ns3_active_select(&mut self) {
        let f = self.cfg.fast_recovery_steps;
        if self.byte_stage < f || self.time_stage < f {
            self.ns3_adjust(self.cfg.r_ai_bps, Step::Additive);
            self.stage = Stage::Active;
        } else {
            self.ns3_hyper();
        }
    }

    fn ns3_hyper(&mut self) {
        let f = self.cfg.fast_recovery_steps;
        let i = (self.byte_stage.min(self.time_stage) + 1).saturating_sub(f);
        self.ns3_adjust(self.cfg.r_hai_bps * i as f64, Step::Hyper);
        self.stage = Stage::Hyper;
    }

    /// ns3-rdma's `AdjustRates`: R_T += increase (or, at the first stage
    /// with R_T > 10 R_C, R_T /= 8), then R_C = R_C/2 + R_T/2 up to line rate.
    fn ns3_adjust(&mut self, increase: f64, step: Step) {
        let first_stage = self.byte_stage == 1 || self.time_stage == 1;
        if first_stage && self.rt > 10.0 * self.rc {
            self.rt /= 8.0;
            self.last_step = Some(Step::TargetCut);
        } else {
            self.rt += increase;
            self.last_step = Some(step);
        }
        self.rc = (self.rc / 2.0 + self.rt / 2.0).min(self.line_bps);
    }
}

impl super::control::RoceControllerConfig for DcqcnConfig {
    type Controller = Dcqcn;
    const NAME: &'static str = "dcqcn";
    fn build(&self, f: &super::control::FlowCtx<'_>) -> Dcqcn {
        Dcqcn::new(*self, f.line_bps)
    }
}

impl super::control::ControllerRules for DcqcnConfig {
    fn min_rate_bps(&self) -> Option<f64> {
        Some(self.min_rate_bps)
    }
    fn cnp_interval_rule(&self, interval: SimDuration) -> Result<(), &'static str> {
        if self.variant == Variant::Mellanox {
            Err("the mellanox variant flags ACKs instead of pacing CNPs: drop this key")
        } else if interval < super::config::MIN_TIMER {
            Err("must be at least 1us (the paper: 50us)")
        } else {
            Ok(())
        }
    }
}

impl super::control::RateControl for Dcqcn {
    #[inline]
    fn rate_bps(&self, _line_bps: f64) -> f64 {
        Dcqcn::rate_bps(self)
    }
    #[inline]
    fn on_sent(&mut self, bytes: u64) {
        Dcqcn::on_sent(self, bytes)
    }
    #[inline]
    fn on_cnp(&mut self, now: SimTime) -> bool {
        Dcqcn::on_cnp(self, now);
        true
    }
    #[inline]
    fn deadline(&self) -> Option<SimTime> {
        Dcqcn::deadline(self)
    }
    #[inline]
    fn on_timer(&mut self, t: SimTime) {
        Dcqcn::on_timer(self, t)
    }
    /// The timers run ahead on a copy until the pacer opens before the
    /// next of them (a raised rate may open it sooner).
    fn wake_with_timers(&self, first: SimTime, opens_at: &dyn Fn(f64) -> SimTime) -> SimTime {
        let mut ahead = self.clone();
        let mut t = first;
        loop {
            Dcqcn::on_timer(&mut ahead, t);
            let opens = opens_at(Dcqcn::rate_bps(&ahead));
            if opens <= t {
                return t;
            }
            match Dcqcn::deadline(&ahead) {
                Some(next) if next < opens => t = next,
                _ => return opens,
            }
        }
    }
    fn state(&self, out: &mut crate::StateOut<'_>) {
        out("alpha", self.alpha());
        out("target_gbps", self.target_bps() / 1e9);
    }
}

/// DCQCN's notification point (NP), per flow at the receiver: when a
/// CE-marked packet asks for a CNP, in the variant's way (docs/models.md,
/// DCQCN):
/// - paper (htsim's `DCQCNSink`): a CNP at once if none went out in the
///   last `cnp_interval`, else one when that interval ends; at most one
///   per interval per flow;
/// - ns3rdma: slotted, `cnp_interval` slots from the flow's first packet
///   (which is checked at once); a CNP at the end of each slot in which a
///   CE-marked packet arrived;
/// - mellanox (the HPCC fork): no CNP packets; the next ACK or NAK after a
///   CE-marked packet carries the CNP bit (the reaction point limits its
///   cuts to one per decrease interval).
#[derive(Clone, Debug)]
pub struct NotificationPoint {
    variant: Variant,
    cnp_interval: SimDuration,
    /// When the last CNP went out.
    last_cnp: Option<SimTime>,
    /// A CE-marked packet arrived since the last CNP.
    marked: bool,
    /// The deferred CNP's time.
    cnp_at: Option<SimTime>,
    /// The flow's first packet's arrival (ns3rdma's slots start there).
    slot_origin: Option<SimTime>,
}

impl super::control::ReceiverHalf<DcqcnConfig> for NotificationPoint {
    fn build(cfg: &DcqcnConfig, f: &super::control::FlowCtx<'_>) -> Self {
        NotificationPoint {
            variant: cfg.variant,
            cnp_interval: f.cnp_interval,
            last_cnp: None,
            marked: false,
            cnp_at: None,
            slot_origin: None,
        }
    }
}

impl super::control::ReceiverControl for NotificationPoint {
    fn on_data(
        &mut self,
        now: SimTime,
        pkt: &net::Packet,
        _host: &mut super::host::HostRx,
    ) -> super::control::Notify {
        use super::control::Notify;
        let first = self.slot_origin.is_none();
        let origin = *self.slot_origin.get_or_insert(now);
        if pkt.ecn != net::Ecn::Ce {
            return Notify::Nothing;
        }
        match self.variant {
            Variant::Paper => match self.last_cnp {
                Some(t) if now < t + self.cnp_interval => {
                    self.marked = true;
                    self.cnp_at = Some(t + self.cnp_interval);
                    Notify::Nothing
                }
                _ => Notify::CnpNow,
            },
            Variant::Ns3Rdma if first => Notify::CnpNow,
            Variant::Ns3Rdma => {
                // The end of the slot this packet falls in.
                let slot = self.cnp_interval.ps();
                let k = now.since(origin).ps() / slot + 1;
                self.marked = true;
                self.cnp_at = Some(origin + SimDuration::from_ps(k * slot));
                Notify::Nothing
            }
            Variant::Mellanox => Notify::FlagNextAck,
        }
    }
    fn on_cnp_sent(&mut self, now: SimTime) {
        self.last_cnp = Some(now);
        self.marked = false;
        self.cnp_at = None;
    }
    fn deadline(&self) -> Option<SimTime> {
        self.cnp_at
    }
    fn on_timer(&mut self, now: SimTime) -> bool {
        self.cnp_at.is_some_and(|t| t <= now) && self.marked
    }
}

#[cfg(test)]
#[path = "dcqcn_tests.rs"]
mod tests;
