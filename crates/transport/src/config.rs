//! TCP configuration: one serde struct with documented defaults, which builds
//! the endpoints and their congestion controllers.

use crate::cc::{Controller, Dctcp, EcnStar, NewReno};
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};

/// Which congestion controller senders run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CcKind {
    /// RFC 5681 + RFC 6582; does not negotiate ECN.
    #[default]
    Newreno,
    /// NewReno that negotiates ECN and halves once per window on ECE (RFC 3168).
    Ecn,
    /// DCTCP (RFC 8257).
    Dctcp,
}

impl CcKind {
    /// Whether endpoints negotiate ECN (RFC 3168 section 6.1.1).
    pub fn uses_ecn(self) -> bool {
        !matches!(self, CcKind::Newreno)
    }
}

/// The `[transport]` table for the TCP family. Every field has a default.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Congestion controller: `newreno`, `ecn` (ECN*), or `dctcp`.
    pub cc: CcKind,
    /// Maximum segment size (payload bytes). Default 1460 B: a 1500 B IP MTU
    /// minus 40 B of IP and TCP headers.
    pub mss: Bytes,
    /// Initial congestion window in segments (RFC 6928: 10).
    pub initial_window_mss: u32,
    /// Initial RTO before any RTT sample (RFC 6298 (2.1): 1 s).
    pub rto_initial: SimDuration,
    /// Lower bound of the RTO (RFC 6298 (2.4) says 1 s; Linux uses 200 ms).
    pub rto_min: SimDuration,
    /// Upper bound of the RTO and of its backoff (RFC 6298 (2.5): at least 60 s).
    pub rto_max: SimDuration,
    /// Acknowledge every second full segment, or when the delayed-ACK timer fires
    /// (RFC 9293 3.8.6.3). Off: one ACK per data segment.
    pub delayed_ack: bool,
    /// Delayed-ACK timer (Linux's minimum: 40 ms).
    pub delayed_ack_timeout: SimDuration,
    /// Receive buffer: the window a receiver advertises (Linux tcp_rmem max: 6 MB).
    pub receive_window: Bytes,
    /// Negotiate window scaling (RFC 7323). Off: windows cap at 65,535 B.
    pub window_scaling: bool,
    /// FairQ's host shim (fairq.txt section V-A): every segment after the
    /// handshake carries in the TCP reserved bits the window-scale exponent
    /// its sender applies to the window field it advertises, so that switches
    /// can rewrite rwnd without per-flow state. `None` (the default): on
    /// exactly when the scenario's switches rewrite rwnd (FairQ, the HSCC
    /// clamp, R-AQM's rwnd compensation).
    pub window_scale_shim: Option<bool>,
    /// DCTCP's EWMA gain g (RFC 8257 section 3.3: 1/16).
    pub dctcp_g: f64,
    /// DCTCP's initial alpha (Linux: 1, i.e. the first marks halve the window).
    pub dctcp_alpha_initial: f64,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: CcKind::Newreno,
            mss: Bytes(1460),
            initial_window_mss: 10,
            rto_initial: SimDuration::from_secs(1),
            rto_min: SimDuration::from_ms(200),
            rto_max: SimDuration::from_secs(60),
            delayed_ack: false,
            delayed_ack_timeout: SimDuration::from_ms(40),
            receive_window: Bytes(6_000_000),
            window_scaling: true,
            window_scale_shim: None,
            dctcp_g: 1.0 / 16.0,
            dctcp_alpha_initial: 1.0,
        }
    }
}

/// The smallest `rto_min` and delayed-ACK timeout accepted.
pub const RTO_MIN_FLOOR: SimDuration = SimDuration::from_us(1);

/// A configuration value out of its valid range.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// The key.
    pub key: &'static str,
    /// What is wrong, with the valid range.
    pub message: String,
}

impl TcpConfig {
    /// Checks ranges the types cannot express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let err = |key, message: &str| {
            Err(ConfigError {
                key,
                message: message.into(),
            })
        };
        if self.mss.0 == 0 || self.mss.0 > 65_495 {
            return err("mss", "must be between 1B and 65495B");
        }
        if self.initial_window_mss == 0 {
            return err("initial_window_mss", "must be at least 1");
        }
        // A floor, so that backoff from a degenerate RTO cannot flood the
        // event queue: 1 us is below any datacenter RTT the papers use.
        if self.rto_min < RTO_MIN_FLOOR || self.rto_min > self.rto_max {
            return err("rto_min", "must be at least 1us and at most rto_max");
        }
        if self.rto_initial < self.rto_min || self.rto_initial > self.rto_max {
            return err("rto_initial", "must lie between rto_min and rto_max");
        }
        if self.receive_window.0 < self.mss.0 {
            return err("receive_window", "must be at least one mss");
        }
        if !self.window_scaling && self.receive_window.0 > u16::MAX as u64 {
            return err(
                "receive_window",
                "must be at most 65535B without window_scaling",
            );
        }
        if self.receive_window.0 > (u16::MAX as u64) << 14 {
            return err(
                "receive_window",
                "must be at most 65535 x 2^14 bytes (RFC 7323)",
            );
        }
        if !(self.dctcp_g > 0.0 && self.dctcp_g <= 1.0) {
            return err("dctcp_g", "must be in (0, 1]");
        }
        if !(0.0..=1.0).contains(&self.dctcp_alpha_initial) {
            return err("dctcp_alpha_initial", "must be in [0, 1]");
        }
        if self.delayed_ack && self.delayed_ack_timeout < RTO_MIN_FLOOR {
            return err("delayed_ack_timeout", "must be at least 1us");
        }
        Ok(())
    }

    /// A fresh controller of the configured kind.
    pub fn controller(&self) -> Controller {
        match self.cc {
            CcKind::Newreno => Controller::NewReno(NewReno),
            CcKind::Ecn => Controller::EcnStar(EcnStar),
            CcKind::Dctcp => Controller::Dctcp(Dctcp::new(self.dctcp_g, self.dctcp_alpha_initial)),
        }
    }
}
