//! `[switch.trim]`: packet trimming at every switch port, read into
//! [`net::TrimConfig`] (docs/models.md, "Packet trimming").

use net::TrimConfig;
use serde::Deserialize;
use sim_core::{Bytes, QueueSize};

/// The keys of `[switch.trim]` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TrimKeys {
    /// The size a trimmed packet keeps (default 64 B, htsim's `-trimsize`).
    pub header: Option<Bytes>,
    /// Trim when the class queue holds more than this (absent: only what
    /// would be dropped).
    pub threshold: Option<QueueSize>,
    /// The most a port's header queue holds (default 64,000 B).
    pub header_queue: Option<Bytes>,
}

impl TrimKeys {
    /// The configuration, or the key at fault and why.
    pub fn build(&self) -> Result<TrimConfig, (&'static str, String)> {
        let header = self.header.map_or(net::TRIM_HEADER_BYTES as u64, |b| b.0);
        if !(20..=512).contains(&header) {
            let msg = format!("{header} B: a trimmed packet keeps its headers, 20 to 512 bytes");
            return Err(("header", msg));
        }
        if let Some(t) = self.threshold
            && t.amount() == 0
        {
            let msg = "must be above 0 (absent: trim only what would be dropped)";
            return Err(("threshold", msg.into()));
        }
        let header_queue = self
            .header_queue
            .map_or(net::TRIM_HEADER_QUEUE_BYTES, |b| b.0);
        if header_queue < header {
            let msg = format!("{header_queue} B: must hold at least one {header} B header");
            return Err(("header_queue", msg));
        }
        Ok(TrimConfig {
            header_bytes: header as u32,
            threshold: self.threshold,
            header_queue_bytes: header_queue,
        })
    }
}
