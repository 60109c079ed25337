//! The HSCC-style rwnd clamp, the baseline R-AQM compares with and one of
//! its compensation modes (R-AQM paper IV-D: "set the ACK header's rwnd to 1
//! \[MSS\] in the switch when incast congestion occurs").
//!
//! At the ingress of port X, every segment that carries a window (ACK flag,
//! no SYN) has its window lowered to one MSS, rounded up to the segment's
//! window-scale unit ([`crate::rwnd::clamp_window`]), while port X's own
//! output queue, which with symmetric routing carries the data of the flows
//! these ACKs belong to, holds more than `k`. The comparison is the DCTCP
//! one: strictly above `k`, in `k`'s unit, all class queues of the port.
//! Nothing is held, so there is no VIQ.

use crate::rwnd::{carries_window, clamp_window};
use net::{Arrival, IngressHook, IngressView, Packet};
use serde::Deserialize;
use sim_core::{Bytes, QueueSize, SimTime};

/// `[switch.ingress] kind = "hscc"`: keys and defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HsccConfig {
    /// Congestion threshold on the output queue (default 65 pkt, the ECN
    /// threshold of R-AQM paper VI-A).
    pub k: QueueSize,
    /// The window granted under congestion (default one 1460 B MSS).
    pub mss: Bytes,
}

impl Default for HsccConfig {
    fn default() -> Self {
        HsccConfig {
            k: QueueSize::Packets(65),
            mss: Bytes(1460),
        }
    }
}

impl HsccConfig {
    /// Checks the keys: `(key, message)` for the first problem.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.mss.0 == 0 {
            return Err(("mss", "must be positive".into()));
        }
        Ok(())
    }
}

/// The clamp at one port.
#[derive(Clone, Debug)]
pub struct Hscc {
    cfg: HsccConfig,
    /// Windows rewritten so far.
    pub clamped: u64,
}

impl Hscc {
    /// A clamp with the given keys.
    pub fn new(cfg: HsccConfig) -> Self {
        Hscc { cfg, clamped: 0 }
    }
}

impl IngressHook for Hscc {
    fn viq_capacity(&self) -> QueueSize {
        QueueSize::Packets(0)
    }

    fn on_arrival(&mut self, _now: SimTime, view: &IngressView, pkt: &mut Packet) -> Arrival {
        let congested = self.cfg.k.exceeded_by(view.out_bytes, view.out_packets);
        if congested && carries_window(pkt) && clamp_window(pkt, self.cfg.mss.0) {
            self.clamped += 1;
        }
        Arrival::Forward
    }
}

impl crate::IngressPlugin for HsccConfig {
    fn check(&self, _ctx: &crate::LoadContext) -> Result<(), crate::Invalid> {
        self.validate()
    }
    fn build(&self, _ctx: &crate::PortContext) -> Box<dyn IngressHook> {
        Box::new(Hscc::new(*self))
    }
    fn rewrites_rwnd(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use net::TcpFlags;

    use crate::testing::view;

    #[test]
    fn clamps_to_one_mss_only_above_k() {
        let mut h = Hscc::new(HsccConfig::default());
        let ack = Packet {
            flags: TcpFlags::ACK,
            window: 40_000,
            reserved: 7,
            ..Default::default()
        };
        let mut a = ack;
        h.on_arrival(SimTime::ZERO, &view(65), &mut a);
        assert_eq!(a.window, 40_000, "65 packets is not above K = 65");
        h.on_arrival(SimTime::ZERO, &view(66), &mut a);
        assert_eq!(a.window, 12, "1460 B in 128 B units, rounded up");
        assert_eq!(h.clamped, 1);
    }
}
