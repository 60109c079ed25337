//! The UEC transport's keys (`[transport]` with `kind = "uec"`): its
//! packets, its acknowledgments, how it sprays, and NSCC's parameters.

use super::sender_cc::SenderCc;
use crate::keys::KeyError;
pub use crate::spray::SprayMode;
use crate::spray::{REPS_BUFFER, REPS_FREEZE};
use serde::Deserialize;
use sim_core::{Bandwidth, Bytes, SimDuration};

/// NSCC's parameters (UE 1.0's network-signalled congestion control, as
/// htsim `uec.cpp` at 40ccb05 implements the specification's rules:
/// `initNsccParams`). The increase and decrease steps are given as the
/// specification writes them, in MSS and scaled by the network's BDP
/// against the reference network (100 Gb/s, 12 us).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NsccConfig {
    /// The queueing delay NSCC steers to; `None`: 0.75 x the network's
    /// base RTT when switches trim, 1 x without (htsim's default).
    pub target_qdelay: Option<SimDuration>,
    /// Quick adapt cuts the window only when the bytes delivered in the
    /// last period are below `max_cwnd >> qa_gate` (3).
    pub qa_gate: u8,
    /// Whether quick adapt runs at all.
    pub quick_adapt: bool,
    /// Multiplicative decrease: `cwnd *= max(1 - gamma (d - t)/d, 0.5)` (0.8).
    pub gamma: f64,
    /// The weight of a new delay sample in the average (0.0125).
    pub delay_ewma: f64,
    /// Proportional increase, MSS per target delay (4, scaled).
    pub alpha_mss: f64,
    /// Fair increase, MSS per acknowledged byte per window (5, scaled).
    pub fi_mss: f64,
    /// The additive step once per adjustment period, MSS (0.15, scaled).
    pub eta_mss: f64,
    /// Fast increase: the window grows by this x the scale per byte
    /// acknowledged while the delay stays under `fast_increase_delay` (0.25).
    pub fi_scale: f64,
    /// The delay below which fast increase runs (1 us).
    pub fast_increase_delay: SimDuration,
    /// The window's ceiling, and its start, in BDPs of the flow's path (1.5).
    pub max_cwnd_bdp: f64,
}

impl Default for NsccConfig {
    fn default() -> Self {
        NsccConfig {
            target_qdelay: None,
            qa_gate: 3,
            quick_adapt: true,
            gamma: 0.8,
            delay_ewma: 0.0125,
            alpha_mss: 4.0,
            fi_mss: 5.0,
            eta_mss: 0.15,
            fi_scale: 0.25,
            fast_increase_delay: SimDuration::from_us(1),
            max_cwnd_bdp: 1.5,
        }
    }
}

/// The network NSCC scales its steps by: its largest base RTT and its
/// hosts' line rate (htsim's `network_max_unloaded_rtt` and `linkspeed`),
/// and whether its switches trim.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Network {
    /// The largest base RTT of the run's UEC flows.
    pub rtt: SimDuration,
    /// The host line rate of that path.
    pub rate: Bandwidth,
    /// Whether switches trim packets instead of dropping them.
    pub trimming: bool,
}

/// The UEC transport's configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UecConfig {
    /// Payload bytes per data packet (4096: htsim's `_mss`).
    pub mss_bytes: u32,
    /// The receiver acknowledges once this many bytes arrived since its
    /// last ACK (16 KB: htsim's `_bytes_unacked_threshold`), and at once
    /// for a CE-marked, duplicate, first or ACK-requesting packet.
    pub ack_coalesce_bytes: u32,
    /// The retransmission timeout, from the oldest packet's send (100 us:
    /// htsim's `DEFAULT_UEC_RTO_MIN`).
    pub rto: SimDuration,
    /// How entropy values are chosen.
    pub spray: SprayMode,
    /// Distinct entropy values a flow uses (64: htsim's `-paths`); a power of two.
    pub entropies: u16,
    /// Entropy values REPS caches (8: htsim's `repsBufferSize`).
    pub reps_buffer: u16,
    /// How long REPS keeps its cache frozen after a timeout (10 ms:
    /// htsim's `exit_freeze_after`); zero: never frozen.
    pub reps_freeze: SimDuration,
    /// The sender's congestion controller (NSCC unless told).
    pub sender_cc: SenderCc,
    /// NSCC.
    pub nscc: NsccConfig,
    /// Receiver credit (UE 1.0's RCCC) beside NSCC: packets need credit
    /// the receiver paces out, beyond a first window sent on speculation.
    pub rccc: bool,
    /// Packets' worth of credit each of the receiver's credit packets
    /// grants (4: htsim's `_mtus_per_pull`); they are as far apart as
    /// that much data takes at the receiver's line rate.
    pub credit_packets: u32,
    /// The network NSCC scales by (set by [`crate::Family::prepare`] and
    /// [`crate::Family::settle`]).
    pub network: Network,
}

impl Default for UecConfig {
    fn default() -> Self {
        UecConfig {
            mss_bytes: 4096,
            ack_coalesce_bytes: 16_384,
            rto: SimDuration::from_us(100),
            spray: SprayMode::Reps,
            entropies: 64,
            reps_buffer: REPS_BUFFER,
            reps_freeze: REPS_FREEZE,
            sender_cc: SenderCc::Nscc,
            nscc: NsccConfig::default(),
            rccc: false,
            credit_packets: 4,
            network: Network {
                rtt: SimDuration::from_us(12),
                rate: Bandwidth::from_gbps(100),
                trimming: false,
            },
        }
    }
}

impl UecConfig {
    /// IP bytes of a full data packet.
    pub fn packet_bytes(&self) -> u32 {
        self.mss_bytes + super::HEADER_BYTES
    }

    /// The target queueing delay in force.
    pub fn target_qdelay(&self) -> SimDuration {
        self.nscc.target_qdelay.unwrap_or_else(|| {
            let r = self.network.rtt.ps();
            SimDuration::from_ps(if self.network.trimming { r * 3 / 4 } else { r })
        })
    }
}

/// `[transport]` of the UEC family as written.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UecKeys {
    /// See [`UecConfig::mss_bytes`].
    pub mss: Option<Bytes>,
    /// See [`UecConfig::ack_coalesce_bytes`].
    pub ack_coalesce: Option<Bytes>,
    /// See [`UecConfig::rto`].
    pub rto: Option<SimDuration>,
    /// See [`UecConfig::spray`].
    pub spray: Option<String>,
    /// See [`UecConfig::entropies`].
    pub entropies: Option<u32>,
    /// See [`UecConfig::reps_buffer`].
    pub reps_buffer: Option<u32>,
    /// See [`UecConfig::reps_freeze`].
    pub reps_freeze: Option<SimDuration>,
    /// See [`UecConfig::sender_cc`].
    pub sender_cc: Option<String>,
    /// See [`NsccConfig::target_qdelay`].
    pub target_qdelay: Option<SimDuration>,
    /// See [`NsccConfig::qa_gate`].
    pub qa_gate: Option<u32>,
    /// See [`NsccConfig::quick_adapt`].
    pub quick_adapt: Option<bool>,
    /// See [`NsccConfig::gamma`].
    pub gamma: Option<f64>,
    /// See [`NsccConfig::delay_ewma`].
    pub delay_ewma: Option<f64>,
    /// See [`NsccConfig::alpha_mss`].
    pub alpha: Option<f64>,
    /// See [`NsccConfig::fi_mss`].
    pub fi: Option<f64>,
    /// See [`NsccConfig::eta_mss`].
    pub eta: Option<f64>,
    /// See [`NsccConfig::fi_scale`].
    pub fi_scale: Option<f64>,
    /// See [`NsccConfig::fast_increase_delay`].
    pub fast_increase_delay: Option<SimDuration>,
    /// See [`NsccConfig::max_cwnd_bdp`].
    pub max_cwnd: Option<f64>,
    /// See [`UecConfig::rccc`].
    pub rccc: Option<bool>,
    /// See [`UecConfig::credit_packets`].
    pub credit_packets: Option<u32>,
}

fn in_range(
    key: &'static str,
    v: Option<f64>,
    ok: fn(f64) -> bool,
    range: &str,
    into: &mut f64,
) -> Result<(), KeyError> {
    match v {
        Some(v) if !ok(v) => Err(KeyError::new(key, format!("must be in {range}"))),
        Some(v) => {
            *into = v;
            Ok(())
        }
        None => Ok(()),
    }
}

impl UecKeys {
    /// The checked configuration, or the first invalid key.
    pub fn build(&self) -> Result<UecConfig, KeyError> {
        let mut c = UecConfig::default();
        if let Some(m) = self.mss {
            if !(256..=65_000).contains(&m.0) {
                return Err(KeyError::new("mss", "must be 256 B to 65000 B"));
            }
            c.mss_bytes = m.0 as u32;
        }
        if let Some(b) = self.ack_coalesce {
            if !(1..=16_000_000).contains(&b.0) {
                return Err(KeyError::new("ack_coalesce", "must be 1 B to 16 MB"));
            }
            c.ack_coalesce_bytes = b.0 as u32;
        }
        if let Some(t) = self.rto {
            if t < SimDuration::from_us(1) {
                return Err(KeyError::new("rto", "must be at least 1us"));
            }
            c.rto = t;
        }
        self.build_spray(&mut c)?;
        if let Some(r) = self.rccc {
            c.rccc = r;
        }
        self.build_sender_cc(&mut c)?;
        self.build_nscc(&mut c.nscc)?;
        if let Some(n) = self.credit_packets {
            if !(1..=1024).contains(&n) {
                return Err(KeyError::new("credit_packets", "must be 1 to 1024 packets"));
            }
            if !c.rccc {
                return Err(KeyError::new(
                    "credit_packets",
                    "sizes the receiver's credits: set rccc = true, or leave it out",
                ));
            }
            c.credit_packets = n;
        }
        Ok(c)
    }

    /// `spray`, `entropies` and REPS's keys.
    fn build_spray(&self, c: &mut UecConfig) -> Result<(), KeyError> {
        if let Some(name) = &self.spray {
            c.spray = SprayMode::ALL
                .iter()
                .find(|r| r.1 == name)
                .map(|r| r.0)
                .ok_or_else(|| {
                    let names: Vec<String> = SprayMode::ALL
                        .iter()
                        .map(|r| format!("\"{}\"", r.1))
                        .collect();
                    KeyError::new(
                        "spray",
                        format!("'{name}' is not a spray mode: choose {}", names.join(", ")),
                    )
                })?;
        }
        // Keys only a spray mode reads are refused by name without it,
        // as credit_packets is without rccc.
        if self.entropies.is_some() && c.spray == SprayMode::None {
            return Err(KeyError::new(
                "entropies",
                "is the number of values a sprayed flow spreads over, and spray = \"none\" \
                 sprays none: leave it out, or choose a spray mode",
            ));
        }
        for (key, given) in [
            ("reps_buffer", self.reps_buffer.is_some()),
            ("reps_freeze", self.reps_freeze.is_some()),
        ] {
            if given && c.spray != SprayMode::Reps {
                return Err(KeyError::new(
                    key,
                    "tunes REPS's cache of entropy values, which only spray = \"reps\" keeps: \
                     leave it out, or set spray = \"reps\"",
                ));
            }
        }
        if let Some(n) = self.entropies {
            if !(1..=32_768).contains(&n) || !n.is_power_of_two() {
                return Err(KeyError::new(
                    "entropies",
                    "must be a power of two from 1 to 32768",
                ));
            }
            c.entropies = n as u16;
        }
        if let Some(n) = self.reps_buffer {
            if !(1..=4096).contains(&n) {
                return Err(KeyError::new(
                    "reps_buffer",
                    "must be 1 to 4096 entropy values",
                ));
            }
            c.reps_buffer = n as u16;
        }
        if let Some(t) = self.reps_freeze {
            c.reps_freeze = t;
        }
        Ok(())
    }

    /// `sender_cc`: a name from [`SenderCc::ALL`]; `none` needs receiver
    /// credit, and NSCC's own keys need NSCC.
    fn build_sender_cc(&self, c: &mut UecConfig) -> Result<(), KeyError> {
        if let Some(name) = &self.sender_cc {
            c.sender_cc = SenderCc::ALL
                .iter()
                .find(|r| r.1 == name)
                .map(|r| r.0)
                .ok_or_else(|| {
                    let names: Vec<String> = SenderCc::ALL
                        .iter()
                        .map(|r| format!("\"{}\"", r.1))
                        .collect();
                    KeyError::new(
                        "sender_cc",
                        format!(
                            "'{name}' is not a sender congestion control: choose {}",
                            names.join(", ")
                        ),
                    )
                })?;
        }
        if c.sender_cc == SenderCc::None && !c.rccc {
            return Err(KeyError::new(
                "sender_cc",
                "\"none\" leaves receiver credit as the only brake, and rccc is off: \
                 set rccc = true, or choose a sender congestion control",
            ));
        }
        if let Some(key) = self.nscc_keys_given().first()
            && c.sender_cc != SenderCc::Nscc
        {
            return Err(KeyError::new(
                key,
                format!(
                    "tunes NSCC, and sender_cc = \"{}\": leave it out, or set \
                     sender_cc = \"nscc\"",
                    c.sender_cc.name()
                ),
            ));
        }
        Ok(())
    }

    /// The NSCC-only keys written, in the struct's order.
    fn nscc_keys_given(&self) -> Vec<&'static str> {
        [
            ("target_qdelay", self.target_qdelay.is_some()),
            ("qa_gate", self.qa_gate.is_some()),
            ("quick_adapt", self.quick_adapt.is_some()),
            ("gamma", self.gamma.is_some()),
            ("delay_ewma", self.delay_ewma.is_some()),
            ("alpha", self.alpha.is_some()),
            ("fi", self.fi.is_some()),
            ("eta", self.eta.is_some()),
            ("fi_scale", self.fi_scale.is_some()),
            ("fast_increase_delay", self.fast_increase_delay.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, given)| given.then_some(k))
        .collect()
    }

    fn build_nscc(&self, n: &mut NsccConfig) -> Result<(), KeyError> {
        if let Some(t) = self.target_qdelay {
            if t < SimDuration::from_ns(100) {
                return Err(KeyError::new("target_qdelay", "must be at least 100ns"));
            }
            n.target_qdelay = Some(t);
        }
        if let Some(g) = self.qa_gate {
            if g > 16 {
                return Err(KeyError::new(
                    "qa_gate",
                    "must be 0 to 16 (a shift of max_cwnd)",
                ));
            }
            n.qa_gate = g as u8;
        }
        if let Some(q) = self.quick_adapt {
            n.quick_adapt = q;
        }
        let unit = |v: f64| v > 0.0 && v <= 1.0;
        let positive = |v: f64| v > 0.0 && v.is_finite();
        let non_negative = |v: f64| v >= 0.0 && v.is_finite();
        in_range("gamma", self.gamma, unit, "(0, 1]", &mut n.gamma)?;
        in_range(
            "delay_ewma",
            self.delay_ewma,
            unit,
            "(0, 1]",
            &mut n.delay_ewma,
        )?;
        in_range("alpha", self.alpha, positive, "(0, inf)", &mut n.alpha_mss)?;
        in_range("fi", self.fi, non_negative, "[0, inf)", &mut n.fi_mss)?;
        in_range("eta", self.eta, non_negative, "[0, inf)", &mut n.eta_mss)?;
        in_range(
            "fi_scale",
            self.fi_scale,
            non_negative,
            "[0, inf)",
            &mut n.fi_scale,
        )?;
        let window = |v: f64| (0.1..=64.0).contains(&v);
        in_range(
            "max_cwnd",
            self.max_cwnd,
            window,
            "[0.1, 64] BDPs",
            &mut n.max_cwnd_bdp,
        )?;
        if let Some(d) = self.fast_increase_delay {
            n.fast_increase_delay = d;
        }
        Ok(())
    }
}

impl crate::family::Family for UecConfig {
    fn name(&self) -> &'static str {
        "uec"
    }
    /// The sender's controller, or `rccc` when receiver credit alone
    /// paces it.
    fn cc_name(&self) -> &'static str {
        match self.sender_cc {
            SenderCc::None => "rccc",
            cc => cc.name(),
        }
    }
    fn protocol(&self) -> net::Protocol {
        net::Protocol::Uec
    }
    /// NSCC's window starts at, and is capped by, the path's BDP.
    fn needs_bdp(&self) -> bool {
        true
    }
    fn mss(&self) -> u64 {
        self.mss_bytes as u64
    }
    fn data_header_bytes(&self) -> u32 {
        super::HEADER_BYTES
    }
    fn ack_bytes(&self) -> u32 {
        super::HEADER_BYTES
    }
    fn sprays(&self) -> bool {
        self.spray != SprayMode::None
    }
    fn settle(&mut self, v: &crate::family::ScenarioView) {
        self.network.trimming = v.trims;
    }
    /// An `rto` below the run's unloaded round trip times out every
    /// packet before its ACK can return.
    fn warnings(
        &self,
        _v: &crate::family::ScenarioView,
        base_rtt: &mut dyn FnMut() -> SimDuration,
    ) -> Vec<crate::family::FamilyError> {
        let rtt = base_rtt();
        if self.rto >= rtt {
            return Vec::new();
        }
        vec![crate::family::FamilyError {
            key: "rto",
            msg: format!(
                "{} is below the run's longest unloaded round trip ({rtt}): packets on that \
                 path time out and are resent before their ACKs can return",
                self.rto
            ),
        }]
    }
    /// NSCC's steps scale by the network's largest base RTT (htsim's
    /// `network_max_unloaded_rtt`).
    fn prepare(
        &mut self,
        flows: &[crate::PlannedFlow],
        path: &dyn Fn(&crate::PlannedFlow) -> crate::PathInfo,
    ) {
        if let Some(p) = flows.iter().map(path).max_by_key(|p| p.base_rtt) {
            self.network.rtt = p.base_rtt;
            self.network.rate = p.line_rate;
        }
    }
}
