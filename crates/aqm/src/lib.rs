//! dcnsim switch plugins: implementations of `net`'s [`EgressAqm`] hook.
//!
//! - [`DropTail`]: accept everything; the port's buffer limit does the dropping.
//! - [`StepEcn`]: DCTCP's switch rule (DCTCP paper section 3.1, RFC 8257 section
//!   3.1): mark CE when the instantaneous queue exceeds K.
//!
//! - [`mq_ecn::MqEcn`]: MQ-ECN's per-queue thresholds from the round time.
//! - [`red::Red`]: RED with ECN, per-queue / per-port / per-pool, with MQ-ECN's
//!   "standard" and "minimum" presets.
//! - [`codel::Codel`]: CoDel's head drop on sojourn time (RFC 8289).
//! - [`pie::Pie`]: PIE's random early drop from a PI controller of the
//!   queueing delay (RFC 8033).
//!
//!
//! And of `net`'s [`net::IngressHook`] (the ingress stage of a port):
//!
//! - [`r_aqm::RAqm`]: R-AQM's ACK shaping with a token bucket (R-AQM paper IV-V).
//! - [`abq::Abq`]: ABQ's ACK holding with the X-halving release (ABQ paper).
//! - [`fairq::FairQ`]: FairQ's per-port fair-share rwnd (FairQ paper III, V).
//! - [`hscc::Hscc`]: the HSCC-style rwnd clamp to one MSS under congestion.
//!
//! Each plugin has a serde config with the paper's defaults that builds it.

pub mod abq;
pub mod codel;
pub mod fairq;
pub mod hscc;
pub mod mq_ecn;
pub mod pie;
pub mod plugin;
pub mod r_aqm;
pub mod red;
pub mod rwnd;

pub use plugin::{EgressPlugin, IngressPlugin, Invalid, LoadContext};

use net::{Ecn, EgressAqm, Packet, QueueState, Verdict};
use serde::Deserialize;
use sim_core::{Bandwidth, QueueSize, SimDuration, SimTime};

/// What a marking AQM does with a packet that is not ECN-capable (a pure
/// ACK, SYN, SYN-ACK or FIN, or a flow without ECN) where it would mark an
/// ECT packet: the `non_ect` key of `step-ecn`, `red` and `mq-ecn`. The
/// simulators of the papers differ: ns-2's DWRR queue of MQ-ECN's authors
/// marks ECT packets and drops only on overflow (`Pass`); ns-3's
/// RedQueueDisc drops a non-ECT packet where it would mark (`Drop`). Each
/// AQM keeps its earlier behaviour as its default: `red` drops (RFC 3168
/// 7: a router "drops" what it cannot mark), `step-ecn` and `mq-ecn` let it
/// pass (DCTCP's switches mark only; a pure ACK is never dropped early).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NonEct {
    /// Dropped where an ECT packet would be marked.
    Drop,
    /// Accepted; only the buffer limit drops it.
    Pass,
}

impl NonEct {
    /// `red`'s default.
    pub fn drop() -> NonEct {
        NonEct::Drop
    }

    /// `step-ecn`'s and `mq-ecn`'s default.
    pub fn pass() -> NonEct {
        NonEct::Pass
    }

    /// The verdict on `pkt` where the queue is `congested` (an ECT packet
    /// would be marked).
    #[inline(always)]
    pub fn verdict(self, congested: bool, pkt: &Packet) -> Verdict {
        if !congested {
            Verdict::Accept
        } else if pkt.ecn != Ecn::NotEct {
            Verdict::Mark
        } else if self == NonEct::Drop {
            Verdict::Drop
        } else {
            Verdict::Accept
        }
    }
}

/// Checks a threshold pair the way every plugin needs it: one unit, ordered.
/// Errors are `(key, message)`.
pub(crate) fn check_threshold_pair(
    lo: QueueSize,
    hi: QueueSize,
) -> Result<(), (&'static str, String)> {
    if !lo.same_unit(hi) {
        return Err((
            "k_max",
            "k_min and k_max must use the same unit (both bytes or both pkt)".into(),
        ));
    }
    if lo.amount() > hi.amount() {
        return Err(("k_max", "must be at least k_min".into()));
    }
    Ok(())
}

/// MQ-ECN eq. (1)'s standard threshold: `k` as given, or `C x RTT x lambda`
/// bytes (lambda defaulting to 1). Returns the threshold and whether it
/// counts bytes (else packets); `None` when neither `k` nor `rtt` is given.
pub(crate) fn standard_threshold(
    k: Option<QueueSize>,
    rtt: Option<SimDuration>,
    lambda: Option<f64>,
    rate: Bandwidth,
) -> Option<(f64, bool)> {
    match (k, rtt) {
        (Some(k), _) => Some((k.amount() as f64, k.is_bytes())),
        (None, Some(rtt)) => Some((
            rate.bps() as f64 / 8.0 * rtt.as_secs_f64() * lambda.unwrap_or(1.0),
            true,
        )),
        (None, None) => None,
    }
}

/// What a plugin may know of the port it guards when it is built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortContext {
    /// The run's master seed (plugins derive their RNG streams from it).
    pub seed: u64,
    /// The port's index (the RNG stream's component).
    pub port: u32,
    /// The port's link rate.
    pub rate: Bandwidth,
    /// The scheduling weight of each class queue (its quantum; equal
    /// weights under strict priority).
    pub weights: Vec<u64>,
    /// Classes `0..strict_classes` are served in strict priority (all of
    /// them under a strict-priority scheduler, none under DWRR or WRR).
    pub strict_classes: usize,
    /// The most one queue of the port may hold: the per-port limit, or under
    /// a shared buffer of S bytes with factor a, `S x a / (1 + a)` (the
    /// dynamic threshold of a queue that is alone in the buffer).
    pub buffer: QueueSize,
    /// One packet time on this port: [`net::WireFormat::packet_time`].
    pub packet_time: SimDuration,
}

/// Accepts every packet: buffer overflow is the only loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct DropTail;

impl EgressAqm for DropTail {
    #[inline]
    fn on_enqueue(&mut self, _now: SimTime, _q: QueueState, _pkt: &Packet) -> Verdict {
        Verdict::Accept
    }
}

/// `kind = "droptail"`: takes no keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropTailConfig {}

impl EgressPlugin for DropTailConfig {
    fn build(&self, _ctx: &PortContext) -> Box<dyn EgressAqm> {
        Box::new(DropTail)
    }
}

/// Step marking at enqueue: an ECN-capable packet is marked CE when the queue,
/// counting the arriving packet, exceeds K; packets that are not ECN-capable
/// are accepted unmarked by default (only the buffer limit drops them), so
/// that SYNs and pure ACKs of an ECN flow are never dropped early, or
/// dropped there with `non_ect = "drop"` ([`NonEct`]).
///
/// K compares in its own unit: `"65pkt"` counts packets, `"97.5KB"` bytes.
/// With K = 65 packets, the 66th queued packet (and every later one while the
/// queue stays above 65) is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepEcn {
    /// The marking threshold K.
    pub k: QueueSize,
    /// What a non-ECT packet above K gets (default: passes).
    #[serde(default = "NonEct::pass")]
    pub non_ect: NonEct,
}

impl EgressAqm for StepEcn {
    #[inline]
    fn on_enqueue(&mut self, _now: SimTime, q: QueueState, pkt: &Packet) -> Verdict {
        let above = self
            .k
            .exceeded_by(q.bytes + pkt.size_bytes as u64, q.packets + 1);
        self.non_ect.verdict(above, pkt)
    }
}

impl EgressPlugin for StepEcn {
    fn build(&self, _ctx: &PortContext) -> Box<dyn EgressAqm> {
        Box::new(*self)
    }
}

/// Fixtures shared by the plugins' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::PortContext;
    use net::IngressView;
    use sim_core::{Bandwidth, QueueSize};

    /// A one-class port of `gbps` Gb/s with `buffer`.
    pub fn ctx(gbps: u64, buffer: QueueSize) -> PortContext {
        PortContext {
            seed: 1,
            port: 0,
            rate: Bandwidth::from_gbps(gbps),
            weights: vec![1],
            strict_classes: 1,
            buffer,
            packet_time: net::WireFormat::ETHERNET.packet_time(Bandwidth::from_gbps(gbps)),
        }
    }

    /// What an ingress hook sees of a port with `out_packets` 1500 B packets
    /// in its output queue and an empty VIQ.
    pub fn view(out_packets: u64) -> IngressView {
        IngressView {
            out_bytes: out_packets * 1500,
            out_packets,
            viq_packets: 0,
            viq_bytes: 0,
            head_held_at: None,
            rate: Bandwidth::from_gbps(10),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ect(size: u32) -> Packet {
        Packet {
            size_bytes: size,
            ecn: Ecn::Ect0,
            ..Default::default()
        }
    }

    #[test]
    fn step_marks_only_above_k_packets() {
        let mut a = StepEcn {
            non_ect: NonEct::Pass,
            k: QueueSize::Packets(65),
        };
        let q = |n| QueueState {
            bytes: n * 1500,
            packets: n,
            ..Default::default()
        };
        assert_eq!(
            a.on_enqueue(SimTime::ZERO, q(64), &ect(1500)),
            Verdict::Accept
        );
        assert_eq!(
            a.on_enqueue(SimTime::ZERO, q(65), &ect(1500)),
            Verdict::Mark
        );
        assert_eq!(
            a.on_enqueue(SimTime::ZERO, q(200), &Packet::default()),
            Verdict::Accept
        );
    }

    proptest::proptest! {
        /// Step ECN never marks at or below K and always marks an ECT packet
        /// above it, in either unit; it never marks a non-ECT packet.
        #[test]
        fn step_ecn_marks_exactly_above_k(
            k in 1u64..200,
            bytes_unit in proptest::bool::ANY,
            packets in 0u64..300,
            size in 40u32..=1500,
            ect in proptest::bool::ANY,
        ) {
            let k = if bytes_unit { QueueSize::Bytes(k * 1000) } else { QueueSize::Packets(k) };
            let mut a = StepEcn { k, non_ect: NonEct::Pass };
            let q = QueueState { bytes: packets * 1000, packets, ..Default::default() };
            let pkt = Packet { size_bytes: size, ecn: if ect { Ecn::Ect0 } else { Ecn::NotEct }, ..Default::default() };
            let after = if bytes_unit { q.bytes + size as u64 } else { packets + 1 };
            let above = after > k.amount();
            let v = a.on_enqueue(SimTime::ZERO, q, &pkt);
            proptest::prop_assert_eq!(v == Verdict::Mark, above && ect);
            proptest::prop_assert!(v != Verdict::Drop);
        }
    }

    #[test]
    fn step_ecn_drops_or_passes_a_non_ect_packet_above_k_as_told() {
        let q = QueueState {
            bytes: 100 * 1500,
            packets: 100,
            ..Default::default()
        };
        let below = QueueState::default();
        let ack = Packet::default(); // not ECN-capable
        for (non_ect, want) in [
            (NonEct::Pass, Verdict::Accept),
            (NonEct::Drop, Verdict::Drop),
        ] {
            let mut a = StepEcn {
                k: QueueSize::Packets(65),
                non_ect,
            };
            assert_eq!(a.on_enqueue(SimTime::ZERO, q, &ack), want, "{non_ect:?}");
            assert_eq!(a.on_enqueue(SimTime::ZERO, below, &ack), Verdict::Accept);
            assert_eq!(a.on_enqueue(SimTime::ZERO, q, &ect(1500)), Verdict::Mark);
        }
    }

    #[test]
    fn step_marks_in_bytes_when_k_is_bytes() {
        let mut a = StepEcn {
            non_ect: NonEct::Pass,
            k: QueueSize::Bytes(3000),
        };
        let q = QueueState {
            bytes: 1500,
            packets: 1,
            ..Default::default()
        };
        assert_eq!(a.on_enqueue(SimTime::ZERO, q, &ect(1500)), Verdict::Accept);
        assert_eq!(a.on_enqueue(SimTime::ZERO, q, &ect(1501)), Verdict::Mark);
    }
}
