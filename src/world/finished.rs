//! What a copy of the world hands the merge when its run is over: owned
//! rows of the components it ran, nothing live. A flow's sender half, a
//! port with its queues and a transport's controller stay where they ran;
//! the merge sees only what the report reads of them (docs/architecture.md,
//! "Merging through owned results").
//!
//! Every run goes through these rows: an undivided run reads its own
//! ([`World::tables`]), a run cut into LPs merges every LP's in LP order
//! ([`Merge`]), on threads of one process or on MPI ranks (the parts are
//! serialisable). So the one-process goldens guard the rows, and the cut
//! goldens guard their merge.

use super::{FlowRow, PortRow, World};
use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use sim_core::SimTime;
use transport::ReceiverRecord;
use transport::{ReceiverEnd, SenderEnd};

/// What one LP copy ran, as owned rows: the report's rows, and what it
/// counted of the sources, triggers and delays, which the merge writes
/// into LP 0's copy.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Finished {
    /// The rows of its flows and ports, and its counts.
    rows: Rows,
    /// Per packet source, the end(s) that ran here.
    sources: Vec<SourcePart>,
    /// Per trigger at a host of this copy: its times.
    triggers: Vec<TriggerPart>,
    /// Per workload, its delay histograms as (value, count) pairs, ns.
    delays: Vec<[Vec<(u64, u64)>; 2]>,
}

/// The report's rows of one copy: what [`World::tables`] reads of an
/// undivided run, and a cut run's merge puts together.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Rows {
    /// A row per flow whose sender half ran here, its receiver's fields
    /// unset and `waiting_on_timer` the sender's part of it (a resending
    /// timer armed, not completed), before the network is read.
    senders: Vec<FlowRow>,
    /// Per flow whose receiver half ran here.
    receivers: Vec<ReceiverPart>,
    /// A row per port this copy held.
    ports: Vec<PortRow>,
    /// The flow of each packet still in the network, once a packet.
    in_network: Vec<u32>,
    /// Its counts.
    counts: Counts,
}

/// What a flow's receiving end reports.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct ReceiverPart {
    flow: u32,
    received_at: Option<SimTime>,
    rx: ReceiverRecord,
}

/// What one end of a packet source counted.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct SourcePart {
    source: u32,
    /// At its sending host: packets sent, each probe's send time and RTT.
    sender: Option<(u64, Vec<u64>, Vec<u64>)>,
    /// At its receiving host: packets received and their delays' sum.
    receiver: Option<(u64, u128)>,
}

/// When a trigger's delay began and ended.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
struct TriggerPart {
    trigger: u32,
    began: Option<SimTime>,
    fired: Option<SimTime>,
}

/// A copy's counts: summed, or the latest of, over the copies.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub(super) struct Counts {
    /// Packet hops taken.
    pub(super) hops: u64,
    /// Packets lost on failed links of its ports.
    pub(super) lost_on_links: u64,
    /// Packets its switches dropped for want of a route.
    pub(super) unroutable_drops: u64,
    /// Flows of its sender halves not yet done.
    pub(super) open_flows: u64,
    /// Sources of its hosts still sending.
    pub(super) active_sources: u64,
    /// Its last event that did work.
    pub(super) last_activity: SimTime,
    /// Its clock.
    pub(super) now: SimTime,
    /// Events it ran.
    pub(super) events: u64,
}

/// The report's tables of a whole run: every flow's and port's row, and
/// the run's counts.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tables {
    pub(super) flows: Vec<FlowRow>,
    pub(super) ports: Vec<PortRow>,
    pub(super) counts: Counts,
}

impl Tables {
    /// Port `p`'s link as the run left it: (rate, delay).
    pub(crate) fn link(&self, p: net::PortId) -> (sim_core::Bandwidth, sim_core::SimDuration) {
        let row = &self.ports[p.idx()];
        (
            sim_core::Bandwidth::from_bps(row.rate_bps),
            sim_core::SimDuration::from_ps(row.delay_ps),
        )
    }
}

impl World {
    /// This copy's rows at the run's end `end` (the time PFC's pause
    /// totals run to).
    pub(super) fn finished(&self, end: SimTime) -> Finished {
        let hosts = |h: net::HostId| self.owns_host(h);
        Finished {
            rows: self.rows(end),
            sources: (self.sources.iter().enumerate())
                .filter(|(_, s)| hosts(s.src) || hosts(s.dst))
                .map(|(i, s)| SourcePart {
                    source: i as u32,
                    sender: hosts(s.src).then(|| (s.sent, s.sent_ps.clone(), s.rtt_ps.clone())),
                    receiver: hosts(s.dst).then_some((s.received, s.delay_sum_ps)),
                })
                .collect(),
            triggers: (self.deps.own_times(hosts))
                .map(|(trigger, began, fired)| TriggerPart {
                    trigger,
                    began,
                    fired,
                })
                .collect(),
            delays: (self.metrics.per_workload.iter())
                .map(|d| {
                    [
                        counts_of(d.rtt_ns.as_ref()),
                        counts_of(d.one_way_ns.as_ref()),
                    ]
                })
                .collect(),
        }
    }

    /// This copy's report rows at the run's end `end`.
    fn rows(&self, end: SimTime) -> Rows {
        let (senders, receivers) = self.flow_parts();
        Rows {
            senders,
            receivers,
            ports: (self.fabric.ports().iter())
                .map(|(id, p)| self.port_row(id, p, end))
                .collect(),
            in_network: super::record::flows_in_flight(&self.fabric).collect(),
            counts: self.own_counts(),
        }
    }

    /// The rows of the flow halves this copy ran.
    fn flow_parts(&self) -> (Vec<FlowRow>, Vec<ReceiverPart>) {
        let mut senders = Vec::new();
        let mut receivers = Vec::new();
        for (id, f) in self.flows.iter() {
            if self.owns_host(f.sender.addr().src) {
                senders.push(self.sender_row(id, f));
            }
            if self.owns_host(f.receiver_host()) {
                receivers.push(ReceiverPart {
                    flow: id,
                    received_at: f.received_at,
                    rx: f.receiver.record(),
                });
            }
        }
        (senders, receivers)
    }

    /// This copy's counts.
    fn own_counts(&self) -> Counts {
        let (lost_on_links, unroutable_drops) = match &self.role {
            Some(r) => (self.fabric).fault_counts_of(|n| r.partition.lp(n) == r.me),
            None => (self.fabric.lost_on_links(), self.fabric.unroutable_drops()),
        };
        Counts {
            hops: self.fabric.hops,
            lost_on_links,
            unroutable_drops,
            open_flows: self.open_flows as u64,
            active_sources: self.active_sources as u64,
            last_activity: self.last_activity,
            now: self.q.now(),
            events: self.q.events_processed(),
        }
    }

    /// The report's tables: a merged run's, or this undivided world's own
    /// rows, at the run's end.
    pub(super) fn tables(&self) -> Tables {
        match &self.whole {
            Some(t) => t.clone(),
            None => {
                let mut merge = Merge::new(self);
                merge.add_rows(self.rows(self.end_time()));
                let mut tables = merge.tables();
                self.ideal_fcts(&mut tables);
                tables
            }
        }
    }

    /// Each sized flow's ideal FCT, over the links as the whole run left
    /// them (a copy's own fabric knows only its own ports' rates).
    pub(super) fn ideal_fcts(&self, tables: &mut Tables) {
        let fcts: Vec<Option<u64>> = (tables.flows.iter())
            .map(|f| {
                let t = &self.transports[f.transport as usize].config;
                let link = &|p| tables.link(p);
                (f.size).map(|s| crate::paths::ideal_fct(&self.fabric, link, &f.addr(), s, t).ps())
            })
            .collect();
        for (row, fct) in tables.flows.iter_mut().zip(fcts) {
            row.ideal_fct_ps = fct;
        }
    }
}

/// The end of a run as reported (`World::end_time`): the last event that
/// did work of a run that completed or stalled (superseded timer events
/// left behind do not extend it), else its clock; over the LPs, the
/// latest of each.
pub(super) fn end_of(
    stop: Option<super::StopReason>,
    last_activity: Option<SimTime>,
    now: Option<SimTime>,
) -> SimTime {
    use super::StopReason::{Completed, Stalled};
    match stop {
        Some(Completed | Stalled) => last_activity,
        _ => now,
    }
    .unwrap_or(SimTime::ZERO)
}

/// A histogram as the (value, count) pairs of its recorded buckets (each
/// value the highest its bucket holds, which records into the same
/// bucket again).
fn counts_of(h: Option<&Histogram<u64>>) -> Vec<(u64, u64)> {
    h.map_or_else(Vec::new, |h| {
        (h.iter_recorded())
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect()
    })
}

/// The merge of every LP's rows into the run's tables, in LP order.
pub(super) struct Merge {
    flows: Vec<Option<FlowRow>>,
    received: Vec<Option<ReceiverPart>>,
    ports: Vec<Option<PortRow>>,
    in_network: Vec<bool>,
    delays: Vec<[Option<Histogram<u64>>; 2]>,
    counts: Counts,
}

impl Merge {
    /// An empty merge for the run `world` is a copy of.
    pub(super) fn new(world: &World) -> Merge {
        let flows = world.flows.len();
        Merge {
            flows: vec![None; flows],
            received: vec![None; flows],
            ports: vec![None; world.fabric.ports().len()],
            in_network: vec![false; flows],
            delays: (0..world.metrics.per_workload.len())
                .map(|_| [None, None])
                .collect(),
            counts: Counts::default(),
        }
    }

    /// Adds one copy's flow and port rows and counts.
    fn add_rows(&mut self, part: Rows) {
        for row in part.senders {
            let id = row.id as usize;
            assert!(self.flows[id].is_none(), "flow {id}'s sender ran in one LP");
            self.flows[id] = Some(row);
        }
        for r in part.receivers {
            let id = r.flow as usize;
            assert!(
                self.received[id].is_none(),
                "flow {id}'s receiver ran in one LP"
            );
            self.received[id] = Some(r);
        }
        for row in part.ports {
            let id = row.id.idx();
            assert!(self.ports[id].is_none(), "{} held by one LP", row.id);
            self.ports[id] = Some(row);
        }
        for f in part.in_network {
            self.in_network[f as usize] = true;
        }
        let (c, o) = (&mut self.counts, part.counts);
        c.hops += o.hops;
        c.lost_on_links += o.lost_on_links;
        c.unroutable_drops += o.unroutable_drops;
        c.open_flows += o.open_flows;
        c.active_sources += o.active_sources;
        c.last_activity = c.last_activity.max(o.last_activity);
        c.now = c.now.max(o.now);
        c.events += o.events;
    }

    /// Adds one LP copy's rows, and writes what it counted of the sources,
    /// triggers and delays into `into` (LP 0's copy, which keeps them for
    /// the report).
    pub(super) fn add(&mut self, part: Finished, into: &mut World) {
        for s in part.sources {
            let to = &mut into.sources[s.source as usize];
            if let Some((sent, sent_ps, rtt_ps)) = s.sender {
                (to.sent, to.sent_ps, to.rtt_ps) = (sent, sent_ps, rtt_ps);
            }
            if let Some((received, delay_sum_ps)) = s.receiver {
                (to.received, to.delay_sum_ps) = (received, delay_sum_ps);
            }
        }
        for t in part.triggers {
            into.deps.set_times(t.trigger, t.began, t.fired);
        }
        for (mine, its) in self.delays.iter_mut().zip(part.delays) {
            for (h, pairs) in mine.iter_mut().zip(its) {
                for (value, count) in pairs {
                    (h.get_or_insert_with(super::metrics::histogram))
                        .record_n(value, count)
                        .expect("a value this histogram's shape held");
                }
            }
        }
        self.add_rows(part.rows);
    }

    /// The merged histograms, for LP 0's copy to keep.
    pub(super) fn take_delays(&mut self) -> Vec<[Option<Histogram<u64>>; 2]> {
        std::mem::take(&mut self.delays)
    }

    /// The run's tables, once every copy is in.
    pub(super) fn tables(self) -> Tables {
        let in_network = self.in_network;
        let flows = (self.flows.into_iter().zip(self.received).enumerate())
            .map(|(id, (row, rx))| {
                let mut row = row.unwrap_or_else(|| panic!("flow {id}'s sender ran in no LP"));
                let rx = rx.unwrap_or_else(|| panic!("flow {id}'s receiver ran in no LP"));
                row.received_at = rx.received_at;
                row.rx = rx.rx;
                row.waiting_on_timer &= !in_network[id];
                row
            })
            .collect();
        let ports = (self.ports.into_iter().enumerate())
            .map(|(id, p)| p.unwrap_or_else(|| panic!("port {id} held by no LP")))
            .collect();
        Tables {
            flows,
            ports,
            counts: self.counts,
        }
    }
}
