//! `[switch.aqm]`: the egress AQM family (every switch port's output queues).

use super::{Checked, Family, key, row};
use crate::scenario::{ScenarioError, Table};
use aqm::EgressPlugin;
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// A checked egress AQM config; it builds one plugin per switch port.
pub type Spec = Checked<dyn EgressPlugin>;

/// Reads a config of type `T` and runs its cross-key check.
fn parse<T: EgressPlugin + DeserializeOwned + 'static>(
    t: &Table<'_>,
) -> Result<Spec, ScenarioError> {
    let c: T = t.read()?;
    c.check(&t.ctx().plugin())
        .map_err(|(k, m)| t.invalid(k, m))?;
    Ok(Checked::new(Arc::new(c)))
}

/// The rows.
#[rustfmt::skip]
pub static FAMILY: Family<Spec> = Family {
    name: "aqm",
    table: "switch.aqm",
    default: Some("droptail"),
    kinds: &[
        row("droptail", "accept every packet; a full buffer drops", "", &[], parse::<aqm::DropTailConfig>),
        row("step-ecn", "mark ECT packets CE when the queue, counting the arriving packet, exceeds K", "DCTCP 3.1, RFC 8257 3.1", &[
            key("k", "required", "queue size", "the marking threshold K (\"65pkt\" or bytes)"),
            key("non_ect", "pass", "choice", "\"pass\" or \"drop\": what a non-ECT packet (pure ACK, SYN, FIN, a flow without ECN) gets above K"),
        ], parse::<aqm::StepEcn>),
        row("red", "RED with ECN, per queue, port or pool; MQ-ECN's standard and minimum presets", "Floyd-Jacobson 1993; RFC 3168; MQ-ECN 2.2", &[
            key("k_min", "required*", "queue size", "lower threshold (*or a preset)"),
            key("k_max", "required*", "queue size", "upper threshold, same unit as k_min"),
            key("p_max", "0.1", "probability", "marking probability at k_max"),
            key("average", "instantaneous", "choice", "\"instantaneous\" or \"ewma\""),
            key("weight", "0.002", "fraction", "EWMA weight w_q (only with average = \"ewma\")"),
            key("mark_at", "enqueue", "choice", "\"enqueue\" or \"dequeue\""),
            key("scope", "queue", "choice", "\"queue\", \"port\" or \"pool\": the occupancy compared"),
            key("ecn", "true", "bool", "mark ECT packets (false: drop every packet instead)"),
            key("non_ect", "drop", "choice", "\"drop\" or \"pass\": what a non-ECT packet gets where an ECT one is marked (with ecn = true; at mark_at = \"dequeue\" it passes)"),
            key("reference_rate", "none", "rate", "the link rate k_min and k_max are given for: each port's thresholds scale by its rate over it"),
            key("spread", "true", "bool", "spread marks by RED's count (Floyd-Jacobson); false: each packet independently with p (DCQCN's CP)"),
            key("preset", "none", "choice", "\"standard\" or \"minimum\" (MQ-ECN 2.2), instead of k_min/k_max"),
            key("k_standard", "none", "queue size", "the standard threshold K of a preset"),
            key("rtt", "none", "duration, >= 0", "RTT of K = C x RTT x lambda, for a preset without k_standard"),
            key("lambda", "1", "factor", "lambda of K = C x RTT x lambda"),
        ], parse::<aqm::red::RedConfig>),
        row("mq-ecn", "per-class thresholds scaled by the scheduler's round time", "MQ-ECN 3", &[
            key("k_standard", "required*", "queue size", "the standard threshold K, eq. (1) (*or rtt)"),
            key("rtt", "none", "duration, >= 0", "RTT of K = C x RTT x lambda, instead of k_standard"),
            key("lambda", "1", "factor", "lambda of K = C x RTT x lambda"),
            key("beta", "0.75", "factor", "EWMA factor beta of T_round, eq. (6)"),
            key("t_idle", "1 packet time", "duration, > 0", "idle period after which T_round decays by beta"),
            key("k_min", "none", "queue size", "probabilistic variant (3.4): lower standard threshold"),
            key("k_max", "none", "queue size", "probabilistic variant: upper standard threshold"),
            key("p_max", "none", "probability", "probabilistic variant: marking probability at k_max"),
            key("non_ect", "pass", "choice", "\"pass\" or \"drop\": what a non-ECT packet gets where an ECT one is marked"),
        ], parse::<aqm::mq_ecn::MqEcnConfig>),
        row("codel", "drop (or mark) at the head of the queue when sojourn times stay above target for an interval", "RFC 8289", &[
            key("target", "5ms", "duration, > 0", "TARGET: the acceptable standing sojourn time"),
            key("interval", "100ms", "duration, > target", "INTERVAL: how long above target before a drop; the control law's base"),
            key("maxpacket_bytes", "1500", "bytes", "MAXPACKET: a queue of at most this behind a packet is never above target"),
            key("ecn", "false", "bool", "mark ECN-capable packets CE instead of dropping them"),
        ], parse::<aqm::codel::CodelConfig>),
        row("pie", "drop (or mark) arrivals with a probability a PI controller of the queueing delay sets", "RFC 8033", &[
            key("target", "15ms", "duration, > 0", "QDELAY_REF: the delay PIE steers to"),
            key("t_update", "15ms", "duration, >= 1us", "T_UPDATE: the period of the probability's update"),
            key("alpha", "0.125", "per second, >= 0", "weight of the delay's distance from target"),
            key("beta", "1.25", "per second, >= 0", "weight of the delay's change since the last update"),
            key("max_burst", "150ms", "duration, >= 0", "MAX_BURST: the burst allowance"),
            key("delay_estimate", "timestamp", "choice", "\"timestamp\" (sojourn of the last packet to leave) or \"departure-rate\" (Little's law)"),
            key("dq_threshold_bytes", "16384", "bytes, > 0", "DQ_THRESHOLD: bytes of one departure-rate measurement (only with delay_estimate = \"departure-rate\")"),
            key("mean_pktsize_bytes", "1500", "bytes", "MEAN_PKTSIZE: a queue of at most two of these is never dropped from"),
            key("ecn", "false", "bool", "mark ECN-capable packets CE instead while the probability is at most mark_ecnth"),
            key("mark_ecnth", "0.1", "probability", "the probability above which ECN-capable packets are dropped too (only with ecn = true)"),
        ], parse::<aqm::pie::PieConfig>),
    ],
};
