//! What a finished run hands its report: rows the world computes from its
//! components when the run ends, and the series it sampled, read-only.
//! The report reads only a [`RunRecord`]: never the world's fields, a
//! component's live state or an endpoint, so that a new component reaches
//! the report as a row and the world keeps its fields to itself.

use super::{
    CcSample, DelayHistograms, FlowRow, GoodputSample, JobCollective, LinkSample, QueueSample,
    RttRow, Source, Tier, WorkloadInfo, World,
};
use crate::registry::workload::chakra::{NodeInfo, NodeKind, RankPart};
use crate::scenario::NamedTransport;
use crate::world::finished::Tables;
use crate::world::sampling::QueueAfter;
use net::ingress::IngressStats;
use net::port::ClassStats;
use net::{HostId, PortId, PortStats};
use sim_core::{SimDuration, SimTime};

/// A port at the run's end, as the report reads it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PortRow {
    /// The port's id (its index among the fabric's ports).
    pub id: PortId,
    /// Its name in the outputs (`sw3:p2->h5`).
    pub name: String,
    /// The node it belongs to.
    pub node: u32,
    /// The node at the far end of its cable.
    pub peer_node: u32,
    /// Whether it is a switch's port (else a host's NIC).
    pub at_switch: bool,
    /// Its counters and occupancy integrals.
    pub stats: PortStats,
    /// Per class queue, when it has several.
    pub class_stats: Vec<ClassStats>,
    /// Its ingress stage's counters (the VIQ).
    pub ingress: IngressStats,
    /// What PFC did at it, under PFC (boxed: most runs have none).
    pub pfc: Option<Box<PfcRow>>,
    /// Its credit queue's credits sent and dropped, if it has one.
    pub credits: Option<(u64, u64)>,
    /// Packets it trimmed to their headers.
    pub trimmed: u64,
    /// Packets lost on its link while the link was down.
    pub lost_on_link: u64,
    /// Packets queued at it at the end (its class queues).
    pub queued_packets: u64,
    /// Packets held in its VIQ at the end.
    pub viq_packets: u64,
    /// Its link's rate at the end (a degradation lowers it), bits per
    /// second.
    pub rate_bps: u64,
    /// Its link's propagation delay, picoseconds.
    pub delay_ps: u64,
}

/// PFC at one port over the run.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PfcRow {
    /// Its per-priority counters.
    pub stats: net::pfc::PfcStats,
    /// The headroom it holds per priority, bytes.
    pub headroom_bytes: u64,
    /// Its paused priorities at the end (a bit each).
    pub paused_at_end: u8,
    /// Time each priority was paused, picoseconds.
    pub paused_ps: [u64; 8],
}

/// One collective and, per transfer in its plan's order, the transfer's
/// ideal delivery on the empty fabric: (fixed part, streaming part), ps.
#[derive(Clone, Debug)]
pub struct CollectiveRecord<'w> {
    /// The collective as planned.
    pub job: &'w JobCollective,
    /// Each transfer's ideal delivery (`paths::ideal_delivery`).
    pub ideal: Vec<(u64, u64)>,
    /// Each transfer's link at its sender (a GPU's NIC or NVLink).
    pub links: Vec<net::HostLink>,
}

/// One execution-trace job as it ran: per iteration and rank, when the
/// rank began and ended the iteration and when it computed and
/// communicated.
#[derive(Clone, Debug)]
pub struct TraceRecord<'w> {
    /// The job's `[[workload]]`.
    pub workload: u32,
    /// The host of each rank.
    pub ranks: &'w [u32],
    /// Iterations planned.
    pub iterations: u32,
    /// Each rank's nodes, in its trace's order.
    pub nodes: &'w [Vec<crate::registry::workload::chakra::NodeInfo>],
    /// Per iteration and rank (iteration-major).
    pub parts: Vec<PartTimes>,
}

/// One rank's part of one iteration, as it ran.
#[derive(Clone, Debug, Default)]
pub struct PartTimes {
    /// The iteration.
    pub iteration: u32,
    /// The rank.
    pub rank: u32,
    /// When it began the iteration (`None`: it never did).
    pub start: Option<SimTime>,
    /// When its every node of the iteration was done.
    pub end: Option<SimTime>,
    /// Its compute, as intervals (one still going at the run's end ends
    /// there).
    pub compute: Vec<(SimTime, SimTime)>,
    /// Its communication (a node's issue to its end), as intervals.
    pub comm: Vec<(SimTime, SimTime)>,
    /// Each node's span (`None`: it never began), in its trace's order.
    pub spans: Vec<Option<(SimTime, SimTime)>>,
}

/// Everything a finished run reports, by row.
pub struct RunRecord<'w> {
    /// When the run ended.
    pub end: SimTime,
    /// Events processed.
    pub events: u64,
    /// Packet hops taken.
    pub packet_hops: u64,
    /// Every flow's row, by flow id.
    pub flows: Vec<FlowRow>,
    /// Every port's row, by port id.
    pub ports: Vec<PortRow>,
    /// Each host's NIC port, by host id.
    pub host_ports: Vec<PortId>,
    /// Every collective of the run's jobs, in order.
    pub collectives: Vec<CollectiveRecord<'w>>,
    /// Every execution-trace job of the run, in order.
    pub traces: Vec<TraceRecord<'w>>,
    /// Every packet source's record.
    pub sources: &'w [Source],
    /// Every workload's description.
    pub workloads: &'w [WorkloadInfo],
    /// The scenario's transports (flows name theirs by index).
    pub transports: &'w [NamedTransport],
    /// The upper edges of the flow-size buckets.
    pub size_buckets: &'w [u64],
    /// Each workload's delay histograms.
    pub delays: &'w [DelayHistograms],
    /// The flows `output.jain_flows` chose.
    pub jain_flows: Option<&'w [u32]>,
    /// Packets lost on links that were down (host links included).
    pub lost_on_links: u64,
    /// Packets no route could carry.
    pub unroutable_drops: u64,
    /// PFC's configuration, when the switches ran it.
    pub pfc: Option<&'w net::pfc::PfcConfig>,
    /// Whether the ports had credit queues.
    pub credit_queues: bool,
    /// The goodput series' interval, when it was sampled.
    pub goodput_interval: Option<SimDuration>,
    /// The goodput series (kept rows).
    pub goodput: &'w [GoodputSample],
    /// Jain's index over each goodput interval's flows.
    pub goodput_fairness: Option<super::goodput::IntervalFairness>,
    /// The link-utilisation series, when it was sampled.
    pub links: Option<(&'w [Tier], &'w [LinkSample])>,
    /// The congestion controllers' trace.
    pub cc: &'w [CcSample],
    /// The RTT series.
    pub rtt: &'w [RttRow],
    /// The queue series.
    pub queues: &'w [QueueSample],
    /// The queues after `output.queue_from`, with their ports.
    pub queue_after: Option<(&'w QueueAfter, &'w [PortId])>,
}

impl RunRecord<'_> {
    /// The NIC port of host `h`.
    pub fn nic(&self, h: HostId) -> &PortRow {
        &self.ports[self.host_ports[h.idx()].idx()]
    }
}

impl World {
    /// What the run hands its report, from its state at the end.
    pub fn run_record(&self) -> RunRecord<'_> {
        let end = self.end_time();
        let fabric = &self.fabric;
        let tables = self.tables();
        let hosts = fabric.host_count() as u32;
        RunRecord {
            end,
            events: self.events_processed(),
            packet_hops: tables.counts.hops,
            collectives: self.collective_records(&tables),
            flows: tables.flows,
            ports: tables.ports,
            host_ports: (0..hosts).map(|h| fabric.host_port(HostId(h))).collect(),
            traces: self.trace_records(end),
            sources: &self.sources,
            workloads: &self.workloads,
            transports: &self.transports,
            size_buckets: &self.size_buckets,
            delays: &self.metrics.per_workload,
            jain_flows: self.jain_flows.as_deref(),
            lost_on_links: tables.counts.lost_on_links,
            unroutable_drops: tables.counts.unroutable_drops,
            pfc: fabric.pfc(),
            credit_queues: fabric.config().credits.is_some(),
            goodput_interval: self.goodput_interval(),
            goodput: self.goodput_samples(),
            goodput_fairness: self.goodput_fairness(),
            links: self.link_samples(),
            cc: self.cc_samples(),
            rtt: self.rtt_rows(),
            queues: self.queue_samples(),
            queue_after: self.queue_after(),
        }
    }

    /// The row of port `id` (`p`, held here) at the run's end `end`.
    pub(super) fn port_row(&self, id: PortId, p: &net::port::Port, end: SimTime) -> PortRow {
        let fabric = &self.fabric;
        let (rate, delay) = fabric.link(id);
        PortRow {
            id,
            name: self.port_name(id),
            node: p.node.0,
            peer_node: p.peer_node.0,
            at_switch: p.at_switch,
            stats: p.stats.clone(),
            class_stats: p.class_stats.clone(),
            ingress: p.ingress.stats.clone(),
            pfc: p.pfc.as_deref().map(|st| {
                Box::new(PfcRow {
                    stats: st.stats.clone(),
                    headroom_bytes: st.headroom_bytes,
                    paused_at_end: st.paused,
                    paused_ps: std::array::from_fn(|q| fabric.paused_ps(id, q, end)),
                })
            }),
            credits: p.credit.as_deref().map(|q| (q.sent, q.dropped)),
            trimmed: fabric.trimmed(id),
            lost_on_link: fabric.lost_on_link(id),
            queued_packets: p.queues.iter().map(|q| q.packets()).sum(),
            viq_packets: p.ingress.viq.packets(),
            rate_bps: rate.bps(),
            delay_ps: delay.ps(),
        }
    }

    /// Each trace job with its ranks' times, read off its triggers.
    fn trace_records(&self, end: SimTime) -> Vec<TraceRecord<'_>> {
        (self.traces.iter())
            .map(|job| TraceRecord {
                workload: job.workload,
                ranks: &job.plan.ranks,
                iterations: job.plan.iterations,
                nodes: &job.plan.nodes,
                parts: (job.plan.parts.iter())
                    .map(|p| self.part_times(p, &job.plan.nodes[p.rank as usize], end))
                    .collect(),
            })
            .collect()
    }

    /// When rank part `p` (its nodes `nodes`) began, ended and ran each
    /// node; a node still running at the run's `end` ends there.
    fn part_times(&self, p: &RankPart, nodes: &[NodeInfo], end: SimTime) -> PartTimes {
        let spans: Vec<Option<(SimTime, SimTime)>> = (p.entry.iter().zip(&p.done))
            .map(|(&a, &b)| {
                let began = self.trigger_times(a).began?;
                Some((began, self.trigger_times(b).fired.unwrap_or(end).max(began)))
            })
            .collect();
        let of = |f: fn(NodeKind) -> bool| {
            (nodes.iter().zip(&spans))
                .filter(|(n, _)| f(n.kind))
                .filter_map(|(_, s)| *s)
                .collect()
        };
        PartTimes {
            iteration: p.iteration,
            rank: p.rank,
            start: self.trigger_times(p.begin).fired,
            end: self.trigger_times(p.end).fired,
            compute: of(NodeKind::computes),
            comm: of(NodeKind::communicates),
            spans,
        }
    }

    /// Each collective with its transfers' ideal deliveries, read off
    /// the flows' rows.
    fn collective_records(&self, tables: &Tables) -> Vec<CollectiveRecord<'_>> {
        let flows = &tables.flows;
        let ideal = |f: u32| {
            let row = &flows[f as usize];
            let cfg = &self.transports[row.transport as usize].config;
            let size = row.size.unwrap_or(0);
            let link = &|p| tables.link(p);
            crate::paths::ideal_delivery(&self.fabric, link, &row.addr(), size, cfg)
        };
        let link = |f: u32| {
            let row = &flows[f as usize];
            self.fabric.link_towards(row.src, row.dst)
        };
        (self.collectives.iter())
            .map(|job| CollectiveRecord {
                job,
                ideal: job.plan.transfers.iter().map(|t| ideal(t.flow)).collect(),
                links: job.plan.transfers.iter().map(|t| link(t.flow)).collect(),
            })
            .collect()
    }
}
