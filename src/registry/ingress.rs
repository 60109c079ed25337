//! `[switch.ingress]`: the ingress plugin family (every switch port's
//! ingress stage: ACK holding in a VIQ, rwnd rewriting).

use super::{Checked, Family, key, row};
use crate::scenario::{ScenarioError, Table};
use aqm::IngressPlugin;
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// A checked ingress plugin config (`None`: accounting and forwarding only).
pub type Spec = Option<Checked<dyn IngressPlugin>>;

/// Reads a config of type `T` and runs its cross-key check.
fn parse<T: IngressPlugin + DeserializeOwned + 'static>(
    t: &Table<'_>,
) -> Result<Spec, ScenarioError> {
    let c: T = t.read()?;
    c.check(&t.ctx().plugin())
        .map_err(|(k, m)| t.invalid(k, m))?;
    Ok(Some(Checked::new(Arc::new(c))))
}

/// `kind = "none"`: takes no keys.
fn none(t: &Table<'_>) -> Result<Spec, ScenarioError> {
    t.read::<crate::scenario::NoKeys>()?;
    Ok(None)
}

/// The rows.
#[rustfmt::skip]
pub static FAMILY: Family<Spec> = Family {
    name: "ingress",
    table: "switch.ingress",
    default: Some("none"),
    kinds: &[
        row("none", "per-(port, priority) accounting and forwarding only", "", &[], none),
        row("r-aqm", "R-AQM: ACKs shaped by a token bucket fed by data departures", "R-AQM IV-V, VI-A", &[
            key("k_min", "20pkt", "queue size", "lower queue threshold K_min"),
            key("k_max", "40pkt", "queue size", "upper queue threshold K_max"),
            key("t", "3us", "duration, >= 100ns", "the gradient period T"),
            key("normal", "[1, 1]", "[alpha, n]", "tokens taken, ACKs released per viq_send in Normal"),
            key("draining", "[1, 2]", "[alpha, n]", "the same in Draining"),
            key("congest", "[10, 1]", "[alpha, n]", "the same in Congest"),
            key("bucket_depth", "largest alpha", "tokens", "token bucket depth"),
            key("viq_capacity", "500pkt", "queue size", "VIQ capacity"),
            key("max_age", "5ms", "duration, > 0", "held ACKs older than this are dropped"),
            key("compensation", "rwnd", "choice", "\"rwnd\", \"ece\" or \"none\" (IV-D; on RoCE, \"ece\" marks the released ACK, which the sender takes as a CNP at most once per cnp_interval: VII)"),
            key("compensation_threshold", "65pkt", "queue size", "output queue + VIQ above which released ACKs are compensated"),
            key("mss", "1460B", "size", "the window of the rwnd compensation"),
            key("ack_priority", "0", "priority", "the priority released ACKs carry"),
        ], parse::<aqm::r_aqm::RAqmConfig>),
        row("abq", "ABQ: ACKs held while the output queue is congested, released by X-halving", "ABQ III", &[
            key("k", "20pkt", "queue size", "the congestion threshold K on Q_out"),
            key("q_max", "port buffer", "queue size", "Q_max of X = min(Q_max - K, K), same unit as k"),
            key("mtu", "1500B", "size", "the MTU of \"4 MTU\" when k counts bytes"),
            key("max_hold", "5ms", "duration, > 0", "release an ACK held this long (a deviation)"),
            key("viq_capacity", "500pkt", "queue size", "VIQ capacity"),
            key("ece", "true", "bool", "set ECE on ACKs released in LCS"),
        ], parse::<aqm::abq::AbqConfig>),
        row("fairq", "FairQ: a per-port fair-share rwnd that holds the queue at alpha x B", "FairQ III, V", &[
            key("alpha", "0.2", "fraction", "target occupancy as a fraction of B"),
            key("t", "50us", "duration, >= 1us", "window update interval T"),
            key("m", "10", "integer", "updates M per LRwnd change"),
            key("buffer", "port buffer", "size", "B (1500 B per packet, or S x a/(1+a) when shared)"),
            key("flow_reset", "1s", "duration, > 0", "flow-count reset after this long without packets"),
            key("ecn", "false", "bool", "DCTCP-style marking option"),
            key("ecn_fraction", "0.25", "fraction", "the marking threshold as a fraction of B"),
            key("syn_ack", "true", "bool", "rewrite the SYN-ACK's window too (V-B: every departing ACK), so a new flow's first flight is its share"),
        ], parse::<aqm::fairq::FairqConfig>),
        row("hscc", "HSCC-style clamp: rwnd = one MSS while the output queue exceeds K", "R-AQM VI-A (HSCC)", &[
            key("k", "65pkt", "queue size", "congestion threshold on the output queue"),
            key("mss", "1460B", "size", "the window granted under congestion"),
        ], parse::<aqm::hscc::HsccConfig>),
    ],
};
