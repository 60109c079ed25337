//! TCP configuration: one serde struct with documented defaults (Linux's,
//! unless a key says otherwise), which builds the endpoints and their
//! congestion controllers.

use crate::cc::{CcConfig, Controller};
use net::packet::{TCP_IP_HEADER_BYTES, TCP_TIMESTAMPS_OPTION_BYTES};
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};

/// The `[transport]` table of the TCP family. Every field has a default.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// The congestion controller, read through the simulator's `cc`
    /// registry (a name, or a table with `kind` and the controller's keys).
    #[serde(skip)]
    pub cc: CcConfig,
    /// Maximum segment size (payload bytes). Default 1448 B: a 1500 B IP MTU
    /// less 40 B of IP and TCP headers and the 12 B timestamps option, what
    /// Linux and ns-3 send.
    pub mss: Bytes,
    /// Initial congestion window in segments (RFC 6928: 10).
    pub initial_window_mss: u32,
    /// The floor of a window reduction, in segments: ssthresh after a loss
    /// and cwnd after an ECN cut never go below it. Linux: 2 (tcp_reno_ssthresh,
    /// dctcp_ssthresh); 1 reproduces ns-3.48's DCTCP.
    pub min_cwnd_mss: u32,
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
    /// The timestamps option (RFC 7323) on every segment: 12 bytes of each
    /// header (Linux: on). Off, the RTT is still measured on every ACK.
    pub timestamps: bool,
    /// Selective acknowledgments (RFC 2018) and RFC 6675's loss recovery
    /// (Linux: on). Off: NewReno recovery on duplicate ACKs (RFC 6582).
    pub sack: bool,
    /// Proportional rate reduction (RFC 6937) in loss recovery and in ECN
    /// window reductions (Linux: on). Off: cwnd drops to ssthresh at once.
    pub prr: bool,
    /// Limited transmit (RFC 3042): one new segment on each of the first two
    /// duplicate ACKs (Linux: on).
    pub limited_transmit: bool,
    /// cwnd grows only while the sender is limited by it (RFC 7661's
    /// principle as Linux's `tcp_is_cwnd_limited` applies it: a window
    /// that was full, or slow start below twice the largest flight).
    /// Linux: on. Off: every ACK outside recovery grows cwnd, even when
    /// the NIC or the path paces the sender below it (ns-2, ns-3.18).
    pub cwnd_validation: bool,
    /// RACK-TLP (RFC 8985; Linux's default since 4.18): time-based loss
    /// detection beside the three-SACK rule, and a tail-loss probe after
    /// two SRTTs without an ACK, so that the loss of a window's tail is
    /// repaired by fast recovery instead of the RTO. `None` (the default):
    /// on exactly when `sack` is (RACK works on SACK information).
    pub rack_tlp: Option<bool>,
    /// RFC 6675's three-SACK rule (IsLost) and three duplicate ACKs start
    /// a recovery beside RACK (Linux's default). Off (Linux's
    /// `tcp_recovery` bit RACK_NO_DUPTHRESH), with `rack_tlp`, RACK alone
    /// judges losses, by time: what a sprayed fabric's reordering needs,
    /// where three later segments overtaking one is no sign of its loss.
    pub dupthresh: bool,
    /// RFC 8985's RACK.reo_wnd_mult, held fixed: the reordering window
    /// is min(reo_wnd_mult x min_RTT / 4, SRTT) (6.2 step 4). RFC 8985
    /// raises it by one per round trip that sees a DSACK; dcnsim's
    /// receivers send no DSACKs, so it is set here (default 1, the RFC's
    /// initial value).
    pub reo_wnd_mult: u32,
    /// Added to the probe timeout's 2 SRTT (RFC 8985 7.2 gives 2 SRTT
    /// alone; Linux adds TCP_TIMEOUT_MIN, 2 ms, so that a probe does not
    /// fire before a datacenter ACK that is merely queued).
    pub tlp_extra: SimDuration,
    /// FairQ's host shim (FairQ paper section V-A): every segment after the
    /// handshake carries in the TCP reserved bits the window-scale exponent
    /// its sender applies to the window field it advertises, so that switches
    /// can rewrite rwnd without per-flow state. `None` (the default): on
    /// exactly when the scenario's switches rewrite rwnd (FairQ, the HSCC
    /// clamp, R-AQM's rwnd compensation).
    pub window_scale_shim: Option<bool>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: CcConfig::default(),
            mss: Bytes(1448),
            initial_window_mss: 10,
            min_cwnd_mss: 2,
            rto_initial: SimDuration::from_secs(1),
            rto_min: SimDuration::from_ms(200),
            rto_max: SimDuration::from_secs(60),
            delayed_ack: false,
            delayed_ack_timeout: SimDuration::from_ms(40),
            receive_window: Bytes(6_000_000),
            window_scaling: true,
            timestamps: true,
            sack: true,
            prr: true,
            limited_transmit: true,
            cwnd_validation: true,
            rack_tlp: None,
            dupthresh: true,
            reo_wnd_mult: 1,
            tlp_extra: SimDuration::from_ms(2),
            window_scale_shim: None,
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
        if self.min_cwnd_mss == 0 || self.min_cwnd_mss > self.initial_window_mss.max(2) {
            return err(
                "min_cwnd_mss",
                "must be at least 1 and at most max(initial_window_mss, 2)",
            );
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
        if self.rack_tlp == Some(true) && !self.sack {
            return err(
                "rack_tlp",
                "needs sack = true (RACK works on SACK information)",
            );
        }
        if !self.dupthresh && !self.rack_tlp() {
            return err(
                "dupthresh",
                "off leaves no fast loss detection: it needs rack_tlp (and sack)",
            );
        }
        if !(1..=255).contains(&self.reo_wnd_mult) {
            return err("reo_wnd_mult", "must be 1 to 255 (RFC 8985 6.2)");
        }
        if self.delayed_ack && self.delayed_ack_timeout < RTO_MIN_FLOOR {
            return err("delayed_ack_timeout", "must be at least 1us");
        }
        Ok(())
    }

    /// Whether RACK-TLP runs.
    pub fn rack_tlp(&self) -> bool {
        self.rack_tlp.unwrap_or(self.sack)
    }

    /// A fresh controller of the configured kind.
    pub fn controller(&self) -> Controller {
        self.cc.build()
    }

    /// IP and TCP header bytes of a segment after the handshake, options
    /// included (SACK blocks come on top).
    pub fn data_header_bytes(&self) -> u32 {
        TCP_IP_HEADER_BYTES
            + if self.timestamps {
                TCP_TIMESTAMPS_OPTION_BYTES
            } else {
                0
            }
    }

    /// IP and TCP header bytes of a SYN or SYN-ACK: MSS (4), window scale
    /// with its NOP (4), and SACK-permitted packed with the timestamps
    /// option (12) or with two NOPs (4), as Linux lays them out.
    pub fn syn_header_bytes(&self) -> u32 {
        let ws = if self.window_scaling { 4 } else { 0 };
        let ts_sack = match (self.timestamps, self.sack) {
            (true, _) => TCP_TIMESTAMPS_OPTION_BYTES,
            (false, true) => 4,
            (false, false) => 0,
        };
        TCP_IP_HEADER_BYTES + 4 + ws + ts_sack
    }
}

impl crate::family::Family for TcpConfig {
    fn name(&self) -> &'static str {
        "tcp"
    }
    fn cc_name(&self) -> &'static str {
        self.cc.name()
    }
    fn protocol(&self) -> net::Protocol {
        net::Protocol::Tcp
    }
    fn mss(&self) -> u64 {
        self.mss.0
    }
    fn data_header_bytes(&self) -> u32 {
        TcpConfig::data_header_bytes(self)
    }
    fn ack_bytes(&self) -> u32 {
        TcpConfig::data_header_bytes(self)
    }
    fn handshake_header_bytes(&self) -> Option<u32> {
        Some(self.syn_header_bytes())
    }
    /// The host shim is on exactly when switches rewrite rwnd, unless set.
    fn settle(&mut self, v: &crate::family::ScenarioView) {
        self.window_scale_shim = Some(self.window_scale_shim.unwrap_or(v.rewrites_rwnd));
    }
}
