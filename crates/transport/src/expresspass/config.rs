//! ExpressPass's keys (`[transport]` with `kind = "expresspass"`).

use crate::keys::KeyError;
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};

/// ExpressPass's configuration: the paper's feedback-control parameters
/// (section 3.2) at the values of the authors' ns-2 scripts, and the
/// switches' credit queue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ExpressPassConfig {
    /// Payload bytes per data packet (1538 B frame - 78 B of headers).
    pub mss_bytes: u32,
    /// The first credit rate, as a fraction of the maximum (alpha: 0.5).
    pub alpha: f64,
    /// The first aggressiveness w (1/16).
    pub w_init: f64,
    /// w's floor (0.01).
    pub w_min: f64,
    /// w's ceiling (0.5).
    pub w_max: f64,
    /// The credit loss tolerated before a decrease (0.125).
    pub target_loss: f64,
    /// The spacing of credits varies uniformly by this fraction (0.1).
    pub jitter: f64,
    /// Credits a port's credit queue holds (8).
    pub credit_queue: u32,
    /// Credits a port may send back to back (2).
    pub credit_burst: u32,
    /// Silence before a sender asks again or a stopped receiver resumes (100 us).
    pub retransmit_timeout: SimDuration,
}

impl Default for ExpressPassConfig {
    fn default() -> Self {
        ExpressPassConfig {
            mss_bytes: 1460,
            alpha: 0.5,
            w_init: 0.0625,
            w_min: 0.01,
            w_max: 0.5,
            target_loss: 0.125,
            jitter: 0.1,
            credit_queue: 8,
            credit_burst: 2,
            retransmit_timeout: SimDuration::from_us(100),
        }
    }
}

impl ExpressPassConfig {
    /// IP bytes of a full data packet.
    pub fn packet_bytes(&self) -> u32 {
        self.mss_bytes + super::DATA_HEADER_BYTES
    }

    /// The credit queues this transport needs on every port, for framing `wire`.
    pub fn credit_queues(&self, wire: net::WireFormat) -> net::credit::CreditConfig {
        net::credit::CreditConfig {
            credit_wire_bytes: wire.wire_bytes(super::CREDIT_BYTES) as u32,
            data_wire_bytes: wire.wire_bytes(self.packet_bytes()) as u32,
            queue_credits: self.credit_queue,
            burst_credits: self.credit_burst,
        }
    }
}

/// `[transport]` of the ExpressPass family as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpressPassKeys {
    /// See [`ExpressPassConfig::mss_bytes`].
    pub mss: Option<Bytes>,
    /// See [`ExpressPassConfig::alpha`].
    pub alpha: Option<f64>,
    /// See [`ExpressPassConfig::w_init`].
    pub w_init: Option<f64>,
    /// See [`ExpressPassConfig::w_min`].
    pub w_min: Option<f64>,
    /// See [`ExpressPassConfig::w_max`].
    pub w_max: Option<f64>,
    /// See [`ExpressPassConfig::target_loss`].
    pub target_loss: Option<f64>,
    /// See [`ExpressPassConfig::jitter`].
    pub jitter: Option<f64>,
    /// See [`ExpressPassConfig::credit_queue`].
    pub credit_queue: Option<u32>,
    /// See [`ExpressPassConfig::credit_burst`].
    pub credit_burst: Option<u32>,
    /// See [`ExpressPassConfig::retransmit_timeout`].
    pub retransmit_timeout: Option<SimDuration>,
}

fn fraction(
    key: &'static str,
    v: Option<f64>,
    low_open: bool,
    into: &mut f64,
) -> Result<(), KeyError> {
    let Some(v) = v else { return Ok(()) };
    let ok = if low_open {
        v > 0.0 && v <= 1.0
    } else {
        (0.0..1.0).contains(&v)
    };
    if !ok {
        let range = if low_open { "(0, 1]" } else { "[0, 1)" };
        return Err(KeyError {
            key,
            message: format!("must be in {range}"),
        });
    }
    *into = v;
    Ok(())
}

impl ExpressPassKeys {
    /// The checked configuration, or the first invalid key.
    pub fn build(&self) -> Result<ExpressPassConfig, KeyError> {
        let mut c = ExpressPassConfig::default();
        if let Some(m) = self.mss {
            if !(1..=65_000).contains(&m.0) {
                return Err(KeyError {
                    key: "mss",
                    message: "must be 1 B to 65000 B".into(),
                });
            }
            c.mss_bytes = m.0 as u32;
        }
        fraction("alpha", self.alpha, true, &mut c.alpha)?;
        fraction("w_init", self.w_init, true, &mut c.w_init)?;
        fraction("w_min", self.w_min, true, &mut c.w_min)?;
        fraction("w_max", self.w_max, true, &mut c.w_max)?;
        fraction("target_loss", self.target_loss, false, &mut c.target_loss)?;
        fraction("jitter", self.jitter, false, &mut c.jitter)?;
        if !(c.w_min <= c.w_init && c.w_init <= c.w_max) {
            return Err(KeyError {
                key: "w_init",
                message: format!(
                    "must lie between w_min ({}) and w_max ({})",
                    c.w_min, c.w_max
                ),
            });
        }
        for (key, v, into) in [
            ("credit_queue", self.credit_queue, &mut c.credit_queue),
            ("credit_burst", self.credit_burst, &mut c.credit_burst),
        ] {
            if let Some(v) = v {
                if v == 0 {
                    return Err(KeyError {
                        key,
                        message: "must be at least 1 credit".into(),
                    });
                }
                *into = v;
            }
        }
        if let Some(t) = self.retransmit_timeout {
            if t < SimDuration::from_us(1) {
                return Err(KeyError {
                    key: "retransmit_timeout",
                    message: "must be at least 1us".into(),
                });
            }
            c.retransmit_timeout = t;
        }
        Ok(c)
    }
}

impl crate::family::Family for ExpressPassConfig {
    fn name(&self) -> &'static str {
        "expresspass"
    }
    fn protocol(&self) -> net::Protocol {
        net::Protocol::ExpressPass
    }
    /// The feedback period is the base RTT.
    fn needs_bdp(&self) -> bool {
        true
    }
    fn mss(&self) -> u64 {
        self.mss_bytes as u64
    }
    fn data_header_bytes(&self) -> u32 {
        super::DATA_HEADER_BYTES
    }
    fn ack_bytes(&self) -> u32 {
        super::CONTROL_BYTES
    }
    fn credit_queues(&self, wire: net::WireFormat) -> Option<net::credit::CreditConfig> {
        Some(ExpressPassConfig::credit_queues(self, wire))
    }
    /// Credits pace the data that follows their path back (ExpressPass 3:
    /// "symmetric routing"; credit and data share one ECMP hash).
    fn needs_symmetric_paths(&self) -> bool {
        true
    }
}
