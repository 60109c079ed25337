//! The RoCE family's keys (`[transport.NAME]` with `kind = "roce"`).

pub use super::control::RoceCc;
use super::dcqcn::{Clamp, DcqcnConfig, Variant};
use super::rcc::{ErrorUnit, EwaShare, PidStep, RccConfig, RccVariant, Scale};
use serde::Deserialize;
use sim_core::{Bandwidth, Bytes, SimDuration};

/// RoCE v2 headers of a data packet, IP bytes: IPv4 20 + UDP 8 + BTH 12 +
/// ICRC 4 (Ethernet's header and FCS are the wire framing's).
pub const DATA_HEADER_BYTES: u32 = 44;
/// An ACK/NAK: a data packet's headers + AETH 4.
pub const ACK_BYTES: u32 = 48;
/// A CNP: IPv4 20 + UDP 8 + BTH 12 + 16 reserved + ICRC 4.
pub const CNP_BYTES: u32 = 60;

/// How many bytes a sender may have in flight (DCQCN+window; the HPCC
/// fork's `VAR_WIN`, or a fixed BDP).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowMode {
    /// No window: the rate alone limits (plain DCQCN).
    None,
    /// One base BDP of the flow's path.
    Bdp,
    /// BDP x R_C / line rate, at least 1 B (the HPCC fork's `VAR_WIN 1`,
    /// its "DCQCN+window").
    BdpXRate,
}

/// How a RoCE flow recovers lost packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RecoveryMode {
    /// Go-back-N (IBTA RC; the HPCC fork): a NAK resends everything from
    /// the hole; a packet above the expected one is discarded.
    #[default]
    GoBackN,
    /// Selective repeat (IRN, SIGCOMM 2018, 3.1): the responder keeps
    /// what arrives out of order and NACKs it; only holes are resent
    /// ([`super::selective`]).
    Selective,
}

/// The RoCE reliable connection's configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoceConfig {
    /// Payload bytes per packet (the HPCC fork's `PACKET_PAYLOAD_SIZE`, 1000 B).
    pub mtu_bytes: u32,
    /// Data packets per ACK (1: every packet, as the references run).
    pub ack_interval: u32,
    /// At most one NAK per expected PSN per this long (HPCC fork: 500 us).
    pub nack_interval: SimDuration,
    /// The retransmission timeout; `None` (the references): none.
    pub rto: Option<SimDuration>,
    /// The in-flight cap.
    pub window: WindowMode,
    /// The congestion controller.
    pub cc: RoceCc,
    /// The notification point's CNP spacing per flow (DCQCN: 50 us).
    pub cnp_interval: SimDuration,
    /// Priority of ACKs, NAKs and CNPs (`None`: the flow's own).
    pub ack_priority: Option<u8>,
    /// How lost packets are recovered.
    pub recovery: RecoveryMode,
}

impl Default for RoceConfig {
    fn default() -> Self {
        RoceConfig {
            mtu_bytes: 1000,
            ack_interval: 1,
            nack_interval: SimDuration::from_us(500),
            rto: None,
            window: WindowMode::None,
            cc: RoceCc::Dcqcn(DcqcnConfig::defaults(Variant::Paper)),
            cnp_interval: SimDuration::from_us(50),
            ack_priority: None,
            recovery: RecoveryMode::GoBackN,
        }
    }
}

impl RoceConfig {
    /// IP bytes of a full data packet.
    pub fn packet_bytes(&self) -> u32 {
        self.mtu_bytes + DATA_HEADER_BYTES
    }

    /// IP bytes of the largest packet it sends: a full data packet and the
    /// telemetry its controller adds (HPCC's INT stack).
    pub fn largest_packet_bytes(&self) -> u32 {
        self.packet_bytes() + self.cc.rules().telemetry_bytes()
    }
}

/// A controller's keys as written (`cc = { kind = NAME, ... }`), which
/// build its checked configuration: what the simulator's `cc` registry
/// reads each RoCE controller through.
pub trait ControllerKeys {
    /// The configuration it builds.
    type Config;
    /// The configuration, or the first invalid key (relative to the `cc`
    /// table) with why.
    fn build(&self) -> Result<Self::Config, KeyError>;
}

pub use crate::keys::KeyError;

fn err(key: &'static str, message: impl Into<String>) -> KeyError {
    KeyError::new(key, message)
}

/// `[transport.NAME]` of the RoCE family as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoceKeys {
    /// See [`RoceConfig::mtu_bytes`].
    pub mtu: Option<Bytes>,
    /// See [`RoceConfig::ack_interval`].
    pub ack_interval: Option<u32>,
    /// See [`RoceConfig::nack_interval`].
    pub nack_interval: Option<SimDuration>,
    /// See [`RoceConfig::rto`].
    pub rto: Option<SimDuration>,
    /// See [`RoceConfig::window`].
    pub window: Option<WindowMode>,
    /// See [`RoceConfig::cnp_interval`].
    pub cnp_interval: Option<SimDuration>,
    /// See [`RoceConfig::ack_priority`].
    pub ack_priority: Option<u8>,
    /// See [`RoceConfig::recovery`].
    pub recovery: Option<RecoveryMode>,
}

/// DCQCN's keys; each absent one takes its variant's default.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DcqcnKeys {
    /// `"paper"` (default), `"mellanox"` or `"ns3rdma"`.
    pub variant: Option<String>,
    /// Alpha's gain g.
    pub g: Option<f64>,
    /// Alpha before the first CNP.
    pub alpha_initial: Option<f64>,
    /// K.
    pub alpha_interval: Option<SimDuration>,
    /// T.
    pub rate_timer: Option<SimDuration>,
    /// B, or `"none"`.
    pub byte_counter: Option<ByteCounter>,
    /// F.
    pub fast_recovery_steps: Option<u32>,
    /// R_AI.
    pub r_ai: Option<Bandwidth>,
    /// R_HAI.
    pub r_hai: Option<Bandwidth>,
    /// The floor on R_C.
    pub min_rate: Option<Bandwidth>,
    /// `"always"`, `"after_increase"` or `"after_byte_increase"`.
    pub clamp: Option<String>,
    /// Mellanox: the decrease check's period.
    pub decrease_interval: Option<SimDuration>,
    /// Mellanox: the fraction of R_C kept at the first CNP.
    pub rate_on_first_cnp: Option<f64>,
}

/// A byte counter: a size, or `"none"`.
#[derive(Debug, Clone, Copy)]
pub struct ByteCounter(pub Option<u64>);

impl<'de> Deserialize<'de> for ByteCounter {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        if s == "none" {
            return Ok(ByteCounter(None));
        }
        Bytes::parse(&s)
            .map(|b| ByteCounter(Some(b.0)))
            .map_err(|e| serde::de::Error::custom(format!("{e}, or \"none\"")))
    }
}

impl ControllerKeys for DcqcnKeys {
    type Config = DcqcnConfig;
    fn build(&self) -> Result<DcqcnConfig, KeyError> {
        let variant = choose(
            "variant",
            self.variant.as_deref(),
            &[
                ("paper", Variant::Paper),
                ("mellanox", Variant::Mellanox),
                ("ns3rdma", Variant::Ns3Rdma),
            ],
            Variant::Paper,
        )?;
        self.check_variant_keys(variant)?;
        let mut c = DcqcnConfig::defaults(variant);
        if let Some(g) = self.g {
            if !(g > 0.0 && g <= 1.0) {
                return Err(err(
                    "g",
                    "must be in (0, 1] (the paper: 1/256 = 0.00390625)",
                ));
            }
            c.g = g;
        }
        if let Some(a) = self.alpha_initial {
            if !(0.0..=1.0).contains(&a) {
                return Err(err("alpha_initial", "must be in [0, 1]"));
            }
            c.alpha_initial = a;
        }
        self.set_timers(variant, &mut c)?;
        if let Some(f) = self.fast_recovery_steps {
            c.fast_recovery_steps = f;
        }
        if let Some(r) = self.r_ai {
            c.r_ai_bps = r.bps() as f64;
        }
        if let Some(r) = self.r_hai {
            c.r_hai_bps = r.bps() as f64;
        }
        if let Some(r) = self.min_rate {
            c.min_rate_bps = r.bps() as f64;
        }
        c.clamp = choose(
            "clamp",
            self.clamp.as_deref(),
            &[
                ("always", Clamp::Always),
                ("after_increase", Clamp::AfterIncrease),
                ("after_byte_increase", Clamp::AfterByteIncrease),
            ],
            c.clamp,
        )?;
        if let Some(r) = self.rate_on_first_cnp {
            if !(r > 0.0 && r <= 1.0) {
                return Err(err("rate_on_first_cnp", "must be in (0, 1]"));
            }
            c.rate_on_first_cnp = r;
        }
        Ok(c)
    }
}

impl DcqcnKeys {
    /// Sets the per-flow timers and the byte counter from the keys given.
    fn set_timers(&self, variant: Variant, c: &mut DcqcnConfig) -> Result<(), KeyError> {
        for (key, value, slot) in [
            ("alpha_interval", self.alpha_interval, &mut c.alpha_interval),
            ("rate_timer", self.rate_timer, &mut c.rate_timer),
            (
                "decrease_interval",
                self.decrease_interval,
                &mut c.decrease_interval,
            ),
        ] {
            if let Some(v) = value {
                // A per-flow timer: below a microsecond it fires faster
                // than packets leave a 100 Gb/s NIC and the run crawls.
                if v < MIN_TIMER {
                    return Err(err(
                        key,
                        "must be at least 1us (a timer per flow; the paper: 55us)",
                    ));
                }
                *slot = v;
            }
        }
        if let Some(b) = self.byte_counter {
            if variant == Variant::Mellanox && b.0.is_some() {
                return Err(err(
                    "byte_counter",
                    "the Mellanox variant has no byte counter",
                ));
            }
            if b.0 == Some(0) {
                return Err(err("byte_counter", "must be positive, or \"none\""));
            }
            c.byte_counter = b.0;
        }
        Ok(())
    }

    /// Refuses keys that `variant` does not read (a key given and then
    /// ignored would silently mean nothing).
    fn check_variant_keys(&self, variant: Variant) -> Result<(), KeyError> {
        let mellanox_only = [
            ("decrease_interval", self.decrease_interval.is_some()),
            ("rate_on_first_cnp", self.rate_on_first_cnp.is_some()),
        ];
        let not_mellanox = [("alpha_initial", self.alpha_initial.is_some())];
        let (keys, readers): (&[(&'static str, bool)], &str) = match variant {
            Variant::Mellanox => (
                &not_mellanox,
                "only the paper and ns3rdma variants read this key: drop it, or choose one \
                 of them",
            ),
            _ => (
                &mellanox_only,
                "only the mellanox variant reads this key: drop it, or choose that variant",
            ),
        };
        if let Some((key, _)) = keys.iter().find(|k| k.1) {
            return Err(err(key, readers));
        }
        if variant != Variant::Ns3Rdma && self.clamp.as_deref() == Some("after_byte_increase") {
            return Err(err(
                "clamp",
                "\"after_byte_increase\" is ns3rdma's rule: the paper and mellanox variants \
                 read \"always\" or \"after_increase\"",
            ));
        }
        Ok(())
    }
}

/// The shortest per-flow timer (DCQCN's K, T and decrease slot, the CNP
/// interval): 1 us, below every source's value (Mellanox's 4 us slot).
pub const MIN_TIMER: SimDuration = SimDuration::from_us(1);
/// The shortest RoCE retransmission timeout: 10 us, a few base RTTs of the
/// papers' fabrics; below it every packet would time out before its ACK.
pub const MIN_RTO: SimDuration = SimDuration::from_us(10);
/// The longest RCC-async clock offset or jitter.
pub const MAX_CLOCK_SKEW: SimDuration = SimDuration::from_secs(1);

/// RCC's keys (RCC paper III-F, V-A, V-D); each absent one takes the paper's default.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RccKeys {
    /// `"rcc"` (default), `"rcc-ewa"`, `"rcc-pid"` or `"rcc-sender"`.
    pub variant: Option<String>,
    /// Consecutive delays above the threshold that signal congestion.
    pub n: Option<u32>,
    /// Allowed queueing as a fraction of the base delay.
    pub delta: Option<f64>,
    /// Expected last-hop utilisation.
    pub eta: Option<f64>,
    /// Proportional gain.
    pub kp: Option<f64>,
    /// Derivative gain.
    pub kd: Option<f64>,
    /// `"s"` (default) or `"us"`: the unit of the PID's error.
    pub error_unit: Option<String>,
    /// `"tanh"` (default), `"sigmoid"` or `"sigmoid2"`.
    pub scale: Option<String>,
    /// `"rtt"` (default) or `"packet"`.
    pub pid_step: Option<String>,
    /// `"line"` (default) or `"eta"`: EWA's share in bytes.
    pub ewa_share: Option<String>,
    /// RCC-async: the largest per-host clock offset.
    pub clock_offset: Option<SimDuration>,
    /// RCC-async: the largest delay added to a send timestamp.
    pub clock_jitter: Option<SimDuration>,
}

/// The value a word key names among `choices`, or `default` when absent;
/// an unknown word is an error listing the valid ones.
fn choose<T: Copy>(
    key: &'static str,
    value: Option<&str>,
    choices: &[(&str, T)],
    default: T,
) -> Result<T, KeyError> {
    let Some(v) = value else {
        return Ok(default);
    };
    choices
        .iter()
        .find(|(name, _)| *name == v)
        .map(|c| c.1)
        .ok_or_else(|| {
            let names: Vec<String> = choices.iter().map(|(n, _)| format!("\"{n}\"")).collect();
            err(
                key,
                format!("unknown value '{v}': valid values are {}", names.join(", ")),
            )
        })
}

impl ControllerKeys for RccKeys {
    type Config = RccConfig;
    fn build(&self) -> Result<RccConfig, KeyError> {
        let d = RccConfig::default();
        let variant = choose(
            "variant",
            self.variant.as_deref(),
            &[
                ("rcc", RccVariant::Rcc),
                ("rcc-ewa", RccVariant::Ewa),
                ("rcc-pid", RccVariant::Pid),
                ("rcc-sender", RccVariant::Sender),
            ],
            d.variant,
        )?;
        self.check_variant_keys(variant)?;
        for (key, v) in [
            ("clock_offset", self.clock_offset),
            ("clock_jitter", self.clock_jitter),
        ] {
            if v.is_some_and(|v| v > MAX_CLOCK_SKEW) {
                return Err(err(key, "must be at most 1s"));
            }
        }
        let n = self.n.unwrap_or(d.n);
        if n == 0 {
            return Err(err("n", "must be at least 1 (the paper: 3)"));
        }
        let delta = self.delta.unwrap_or(d.delta);
        if !(delta > 0.0 && delta < 1.0) {
            return Err(err("delta", "must be in (0, 1) (the paper: 0.2)"));
        }
        let eta = self.eta.unwrap_or(d.eta);
        if !(eta > 0.0 && eta < 1.0) {
            return Err(err("eta", "must be in (0, 1) (the paper: 0.95)"));
        }
        let kp = self.kp.unwrap_or(d.kp);
        let kd = self.kd.unwrap_or(d.kd);
        for (key, v) in [("kp", kp), ("kd", kd)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(err(key, "must be a finite number >= 0"));
            }
        }
        let (error_unit, scale, pid_step, ewa_share) = self.choices(&d)?;
        Ok(RccConfig {
            variant,
            n,
            delta,
            eta,
            kp,
            kd,
            error_unit,
            scale,
            pid_step,
            ewa_share,
            clock_offset: self.clock_offset.unwrap_or(d.clock_offset),
            clock_jitter: self.clock_jitter.unwrap_or(d.clock_jitter),
        })
    }
}

impl RccKeys {
    /// The keys that choose a rule of the paper's open questions.
    fn choices(&self, d: &RccConfig) -> Result<(ErrorUnit, Scale, PidStep, EwaShare), KeyError> {
        Ok((
            choose(
                "error_unit",
                self.error_unit.as_deref(),
                &[("s", ErrorUnit::Seconds), ("us", ErrorUnit::Microseconds)],
                d.error_unit,
            )?,
            choose(
                "scale",
                self.scale.as_deref(),
                &[
                    ("tanh", Scale::Tanh),
                    ("sigmoid", Scale::Sigmoid),
                    ("sigmoid2", Scale::Sigmoid2),
                ],
                d.scale,
            )?,
            choose(
                "pid_step",
                self.pid_step.as_deref(),
                &[("rtt", PidStep::BaseRtt), ("packet", PidStep::Packet)],
                d.pid_step,
            )?,
            choose(
                "ewa_share",
                self.ewa_share.as_deref(),
                &[("line", EwaShare::Line), ("eta", EwaShare::Eta)],
                d.ewa_share,
            )?,
        ))
    }

    /// Refuses keys that `variant` does not read: RCC-EWA has no PID, no
    /// congestion detector and no last-hop check (it reads `eta` only to
    /// scale the share, with `ewa_share = "eta"`), RCC-PID no fair share
    /// (RCC paper V-D).
    fn check_variant_keys(&self, variant: RccVariant) -> Result<(), KeyError> {
        let pid_keys = [
            ("n", self.n.is_some()),
            ("delta", self.delta.is_some()),
            ("kp", self.kp.is_some()),
            ("kd", self.kd.is_some()),
            ("error_unit", self.error_unit.is_some()),
            ("scale", self.scale.is_some()),
            ("pid_step", self.pid_step.is_some()),
        ];
        let share_keys = [
            ("n", self.n.is_some()),
            ("ewa_share", self.ewa_share.is_some()),
            ("eta", self.eta.is_some()),
        ];
        let (keys, why): (&[(&'static str, bool)], &str) = match variant {
            RccVariant::Ewa => (&pid_keys, "rcc-ewa has no PID and no congestion detector"),
            RccVariant::Pid => (
                &share_keys,
                "rcc-pid runs the PID alone, without a fair share",
            ),
            RccVariant::Rcc | RccVariant::Sender => (&[], ""),
        };
        if let Some((key, _)) = keys.iter().find(|k| k.1) {
            return Err(err(key, format!("not read by this variant: {why}")));
        }
        if self.eta.is_some()
            && variant == RccVariant::Ewa
            && self.ewa_share.as_deref() != Some("eta")
        {
            return Err(err(
                "eta",
                "rcc-ewa reads eta only with ewa_share = \"eta\" (it has no last-hop check)",
            ));
        }
        Ok(())
    }
}

impl RoceKeys {
    /// The configuration with controller `cc` (read through the `cc`
    /// registry), or the first invalid key with why.
    pub fn build(&self, cc: RoceCc) -> Result<RoceConfig, KeyError> {
        let d = RoceConfig::default();
        let mtu = self.mtu.map_or(d.mtu_bytes as u64, |b| b.0);
        if !(64..=9000).contains(&mtu) {
            return Err(err(
                "mtu",
                "payload bytes per packet: 64B to 9000B (HPCC fork: 1000B)",
            ));
        }
        let ack_interval = self.ack_interval.unwrap_or(1);
        if ack_interval == 0 {
            return Err(err("ack_interval", "must be at least 1 (packets per ACK)"));
        }
        if self.rto.is_some_and(|r| r < MIN_RTO) {
            return Err(err(
                "rto",
                "must be at least 10us: below a round trip every packet times out before its ACK \
                 (leave it out for no timeout)",
            ));
        }
        if self.ack_priority.is_some_and(|p| p > 7) {
            return Err(err("ack_priority", "priorities are 0 to 7"));
        }
        let rules = cc.rules();
        if let Some(i) = self.cnp_interval {
            rules
                .cnp_interval_rule(i)
                .map_err(|why| err("cnp_interval", why))?;
        }
        if rules.assigns_window() && self.window.is_some() {
            let why = format!(
                "{} assigns its own window: leave `window` out with cc = \"{}\"",
                cc.name().to_uppercase(),
                cc.name()
            );
            return Err(err("window", why));
        }
        Ok(RoceConfig {
            mtu_bytes: mtu as u32,
            ack_interval,
            nack_interval: self.nack_interval.unwrap_or(d.nack_interval),
            rto: self.rto,
            window: self
                .window
                .or_else(|| rules.default_window())
                .unwrap_or(d.window),
            cc,
            cnp_interval: self.cnp_interval.unwrap_or(d.cnp_interval),
            ack_priority: self.ack_priority,
            recovery: self.recovery.unwrap_or_default(),
        })
    }
}

impl crate::family::Family for RoceConfig {
    fn name(&self) -> &'static str {
        "roce"
    }
    fn cc_name(&self) -> &'static str {
        self.cc.report_name()
    }
    fn protocol(&self) -> net::Protocol {
        net::Protocol::Roce
    }
    fn needs_bdp(&self) -> bool {
        self.window != WindowMode::None || self.cc.rules().needs_bdp()
    }
    fn clock_offset_max(&self) -> SimDuration {
        self.cc.rules().clock_offset_max()
    }
    fn mss(&self) -> u64 {
        self.mtu_bytes as u64
    }
    fn data_header_bytes(&self) -> u32 {
        DATA_HEADER_BYTES
    }
    fn ack_bytes(&self) -> u32 {
        ACK_BYTES
    }
    fn check(&self, v: &crate::family::ScenarioView) -> Result<(), crate::family::FamilyError> {
        use crate::family::FamilyError;
        // A VIQ that drops held ACKs (R-AQM, ABQ), even of a PFC priority
        // (the ingress stage is the papers' model: it drops, PFC does not
        // pause for it), in front of RoCE without a retransmission timeout:
        // a lost tail ACK is never repaired and the flow waits forever
        // while its timers fire. Refused, not run into a livelock.
        if v.ingress_drops && self.rto.is_none() {
            let msg = "switch.ingress holds ACKs in a VIQ that drops them when full or \
                       old, and this RoCE transport has no retransmission timeout \
                       (rto = off, the default): a lost last ACK would never be \
                       repaired and its flow would wait forever; set rto (e.g. \
                       \"10ms\", as scenarios/r-aqm/roce-incast-sweep.toml does)";
            return Err(FamilyError {
                key: "rto",
                msg: msg.into(),
            });
        }
        let packet = self.largest_packet_bytes();
        if let Some(mtu) = v.pfc_mtu_bytes
            && packet > mtu
        {
            let msg = format!(
                "its packets are up to {packet} B with headers, above switch.pfc.mtu ({mtu} B), \
                 which PFC's headroom is sized for: lossless queues would drop; raise \
                 switch.pfc.mtu or lower this"
            );
            return Err(FamilyError { key: "mtu", msg });
        }
        Ok(())
    }
}
