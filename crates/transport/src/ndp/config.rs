//! NDP's keys (`[transport]` with `kind = "ndp"`).

use crate::keys::KeyError;
use crate::spray::SprayMode;
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};

/// NDP's configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NdpConfig {
    /// Payload bytes per data packet (8,936: htsim's 9,000 B packets).
    pub mss_bytes: u32,
    /// Packets sent before the first PULL; `None`: one BDP of the flow's
    /// path, rounded up (NDP 3.2: the first RTT at line rate; pulls then
    /// keep that many in flight).
    pub initial_window: Option<u32>,
    /// A packet unacknowledged this long after it was sent goes again.
    pub rto: SimDuration,
    /// How packets choose their paths: oblivious (NDP's per-packet
    /// spraying) or none (one path per flow).
    pub spray: SprayMode,
    /// Entropy values a flow sprays over (a power of two).
    pub entropies: u16,
    /// The pacer's slots are a full packet's time at this fraction of the
    /// line rate apart (1: htsim's pull_rate_modifier).
    pub pull_rate: f64,
}

impl Default for NdpConfig {
    fn default() -> Self {
        NdpConfig {
            mss_bytes: 8_936,
            initial_window: None,
            rto: SimDuration::from_ms(1),
            spray: SprayMode::Oblivious,
            entropies: 64,
            pull_rate: 1.0,
        }
    }
}

impl NdpConfig {
    /// IP bytes of a full data packet.
    pub fn packet_bytes(&self) -> u32 {
        self.mss_bytes + super::HEADER_BYTES
    }
}

/// `[transport]` of the NDP family as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NdpKeys {
    /// See [`NdpConfig::mss_bytes`].
    pub mss: Option<Bytes>,
    /// See [`NdpConfig::initial_window`].
    pub initial_window: Option<u32>,
    /// See [`NdpConfig::rto`].
    pub rto: Option<SimDuration>,
    /// See [`NdpConfig::spray`].
    pub spray: Option<String>,
    /// See [`NdpConfig::entropies`].
    pub entropies: Option<u32>,
    /// See [`NdpConfig::pull_rate`].
    pub pull_rate: Option<f64>,
}

/// The smallest `pull_rate`: pulls at a thousandth of the line rate.
pub const MIN_PULL_RATE: f64 = 0.001;

impl NdpKeys {
    /// The checked configuration, or the first invalid key.
    pub fn build(&self) -> Result<NdpConfig, KeyError> {
        let mut c = NdpConfig::default();
        if let Some(m) = self.mss {
            if !(256..=65_000).contains(&m.0) {
                return Err(KeyError::new("mss", "must be 256 B to 65000 B"));
            }
            c.mss_bytes = m.0 as u32;
        }
        if let Some(w) = self.initial_window {
            if !(1..=100_000).contains(&w) {
                return Err(KeyError::new(
                    "initial_window",
                    "must be 1 to 100000 packets",
                ));
            }
            c.initial_window = Some(w);
        }
        if let Some(t) = self.rto {
            if t < SimDuration::from_us(1) {
                return Err(KeyError::new("rto", "must be at least 1us"));
            }
            c.rto = t;
        }
        if let Some(name) = &self.spray {
            c.spray = match name.as_str() {
                "oblivious" => SprayMode::Oblivious,
                "none" => SprayMode::None,
                _ => {
                    let msg = format!(
                        "'{name}' is not a spray mode of NDP: choose \"oblivious\" or \"none\""
                    );
                    return Err(KeyError::new("spray", msg));
                }
            };
        }
        if let Some(n) = self.entropies {
            if c.spray == SprayMode::None {
                return Err(KeyError::new(
                    "entropies",
                    "are the values a sprayed flow spreads over, and spray = \"none\" sprays \
                     none: leave it out, or set spray = \"oblivious\"",
                ));
            }
            if !(1..=32_768).contains(&n) || !n.is_power_of_two() {
                return Err(KeyError::new(
                    "entropies",
                    "must be a power of two from 1 to 32768",
                ));
            }
            c.entropies = n as u16;
        }
        if let Some(r) = self.pull_rate {
            // A floor: below a thousandth of the line rate a pull slot is
            // longer than any run (1e-300 overflowed simulated time).
            if !(MIN_PULL_RATE..=2.0).contains(&r) {
                return Err(KeyError::new(
                    "pull_rate",
                    format!("must be {MIN_PULL_RATE} to 2 (a fraction of the line rate)"),
                ));
            }
            c.pull_rate = r;
        }
        Ok(c)
    }
}

impl crate::family::Family for NdpConfig {
    fn name(&self) -> &'static str {
        "ndp"
    }
    fn cc_name(&self) -> &'static str {
        "ndp-pull"
    }
    fn protocol(&self) -> net::Protocol {
        net::Protocol::Ndp
    }
    /// The first window is a BDP of the path, unless set.
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
    /// NDP is built on trimming (Handley et al., 3.1): without it a full
    /// queue drops, and a dropped packet comes back only after `rto`.
    fn warnings(
        &self,
        v: &crate::family::ScenarioView,
        _base_rtt: &mut dyn FnMut() -> SimDuration,
    ) -> Vec<crate::family::FamilyError> {
        if v.trims {
            return Vec::new();
        }
        vec![crate::family::FamilyError {
            key: "kind",
            msg: format!(
                "NDP without [switch.trim]: a full queue drops its packets instead of trimming \
                 them, and a dropped packet is resent only after rto ({}); NDP's switches trim",
                self.rto
            ),
        }]
    }
}
