//! `kind = "ping"`: echo probes at a fixed interval from one host to
//! another, each answered at once by the far host, with every probe's
//! round-trip time recorded (the `ping` RTTs of MQ-ECN section 2 and 6 and
//! R-AQM's latency probes).
//!
//! A probe is an ICMP echo of Linux ping's default size (56 data bytes +
//! 8 ICMP + 20 IP = 84 B). The reply has the probe's size and priority and
//! leaves the far host's NIC like any packet (no host processing delay is
//! modelled). A probe or reply lost in the network is counted, not
//! retransmitted.

use super::{Gaps, Plan, PlanEnv, SourcePlan, Workload, check_stop, priority_zero};
use super::{check_endpoints, check_packet_size};
use serde::Deserialize;
use sim_core::{Bytes, SimDuration};

fn ping_size() -> Bytes {
    Bytes(84) // Linux ping: -s 56 data bytes
}

/// A checked `ping` workload.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ping {
    src: u32,
    dst: u32,
    interval: SimDuration,
    #[serde(default = "ping_size")]
    packet_size: Bytes,
    #[serde(default)]
    start: SimDuration,
    stop: Option<SimDuration>,
    count: Option<u64>,
    #[serde(default = "priority_zero")]
    priority: u8,
}

impl Workload for Ping {
    fn kind(&self) -> &'static str {
        "ping"
    }
    fn uses_transport(&self) -> bool {
        false
    }
    fn priority(&self) -> u8 {
        self.priority
    }
    fn check(&self, hosts: u32) -> Result<(), (String, String)> {
        check_endpoints(self.src, self.dst, hosts)?;
        if self.interval == SimDuration::ZERO {
            return Err(("interval".into(), "interval must be positive".into()));
        }
        if self.count == Some(0) {
            return Err(("count".into(), "count must be positive".into()));
        }
        check_packet_size(self.packet_size, "IP + ICMP")?;
        check_stop(self.start, self.stop)
    }
    fn endless(&self) -> Option<&'static str> {
        (self.stop.is_none() && self.count.is_none())
            .then_some("a ping with neither stop nor count")
    }
    fn plan(&self, _env: &PlanEnv<'_>) -> Plan {
        Plan {
            sources: vec![SourcePlan {
                src: self.src,
                dst: self.dst,
                packet_size: self.packet_size.0 as u32,
                start: self.start,
                stop: self.stop,
                packets: self.count,
                gaps: Gaps::Periodic {
                    interval: self.interval,
                },
                echo: true,
            }],
            ..Plan::default()
        }
    }
}
