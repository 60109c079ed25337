//! The livelock watch: a run whose flows are unfinished and whose packets
//! have stopped moving, while timers keep firing (a controller's rate
//! timer that sends nothing), would otherwise run to the event cap. Progress is
//! packets moved, not events: at every check (each [`CHECK_EVENTS`]
//! events) the fabric's hop count is compared with the last check's, and
//! after [`QUIET_CHECKS`] checks without a hop the run stops as stalled,
//! unless something it waits on will move a packet: a flow yet to start,
//! or a flow with a retransmission timeout (or a SYN's, or a probe) armed.
//! A 1 s initial SYN timeout is such a wait, not a stall.

use super::World;
use std::fmt::Write as _;

/// Events between two checks.
pub const CHECK_EVENTS: u64 = 1 << 22;
/// Checks in a row without a packet moved before the run is called stalled
/// (about 8.4 million events).
pub const QUIET_CHECKS: u32 = 2;

/// What the watch remembers between checks.
#[derive(Debug, Default)]
pub struct Watch {
    hops: u64,
    quiet: u32,
    quiet_since: sim_core::SimTime,
}

impl Watch {
    /// Counts a check that has seen `hops` packet hops in all by `now`:
    /// whether no packet has moved for [`QUIET_CHECKS`] checks.
    pub(super) fn quiet_after(&mut self, hops: u64, now: sim_core::SimTime) -> bool {
        if hops != self.hops {
            *self = Watch {
                hops,
                quiet: 0,
                quiet_since: now,
            };
            return false;
        }
        self.quiet += 1;
        self.quiet >= QUIET_CHECKS
    }
}

impl World {
    /// Called every [`CHECK_EVENTS`] events: whether the run is livelocked
    /// (then [`World::stall_detail`] says where its flows are stuck).
    pub(super) fn livelocked(&mut self) -> bool {
        let now = self.now();
        if !self.watch.quiet_after(self.fabric.hops, now)
            || self.open_flows == 0
            || self.active_sources > 0
        {
            return false;
        }
        let waiting = self.flows.iter().any(|f| f.waits(now));
        if waiting {
            return false;
        }
        self.livelock = Some(self.livelock_report());
        true
    }

    /// Where a livelocked run's flows are stuck, in words.
    pub(super) fn livelock_report(&self) -> String {
        let now = self.now();
        let stuck: Vec<usize> = (0..self.flows.len())
            .filter(|&i| !self.flows[i].done)
            .collect();
        let mut s = format!(
            "no packet moved between {:.3} ms and {:.3} ms of simulated time ({} events) while \
             timers kept firing, and no flow waits on a start or a retransmission timeout; \
             {} flows are stuck:",
            self.watch.quiet_since.ps() as f64 / 1e9,
            now.ps() as f64 / 1e9,
            u64::from(self.watch.quiet) * CHECK_EVENTS,
            stuck.len()
        );
        for &i in stuck.iter().take(5) {
            let f = &self.flows[i];
            let a = f.sender.addr();
            let name = |h: net::HostId| {
                self.node_names
                    .get(self.fabric.port(self.fabric.host_port(h)).node.idx())
                    .map_or("?", String::as_str)
            };
            let _ = write!(
                s,
                " flow {i} ({} -> {}, {} of {} bytes acknowledged);",
                name(a.src),
                name(a.dst),
                f.sender.bytes_acked(),
                f.size.map_or("unbounded".into(), |b| b.to_string())
            );
        }
        if stuck.len() > 5 {
            let _ = write!(s, " and {} more;", stuck.len() - 5);
        }
        let mut held: Vec<(u64, u64, net::PortId)> = Vec::new();
        for (p, port) in self.fabric.ports().iter().enumerate() {
            let queued: u64 = port.queues.iter().map(|q| q.packets()).sum();
            let viq = port.ingress.viq.packets();
            if queued + viq > 0 {
                held.push((queued, viq, net::PortId(p as u32)));
            }
        }
        if held.is_empty() {
            let _ = write!(
                s,
                " no packet of theirs is queued anywhere: what they wait for was dropped \
                 ({} drops at switches; a transport without a retransmission timeout never \
                 resends it)",
                self.fabric
                    .ports()
                    .iter()
                    .map(|p| p.stats.drops())
                    .sum::<u64>()
            );
        } else {
            held.sort_by_key(|h| std::cmp::Reverse(h.0 + h.1));
            s.push_str(" packets sit at");
            for (q, v, p) in held.iter().take(5) {
                let _ = write!(
                    s,
                    " {} ({q} queued, {v} held in the VIQ);",
                    self.port_name(*p)
                );
            }
        }
        s
    }

    /// Why the run stalled, when the livelock watch stopped it.
    pub fn stall_detail(&self) -> Option<&str> {
        self.livelock.as_deref()
    }
}
