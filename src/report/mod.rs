//! Results of a run: the summary (`summary.json`, the terminal), the CSV
//! tables (`csv`) and the output folder (`folder`).
//!
//! `summary.json` and `flows.csv` hold simulated results only, so they are
//! byte-identical between runs of the same scenario and seed; wall-clock
//! figures go to `perf.json` and the terminal. A run's files are written
//! into a staging folder and moved into place whole, so a reader never sees
//! half a run and an interrupted run never leaves one.

use crate::world::{FlowRow, RunRecord, StopReason};
use serde::Serialize;
use sim_core::stats::{Summary, jain_index};

pub mod claim;
mod collectives;
pub mod columns;
mod csv;
mod folder;
mod human;
pub mod marker;
mod pfc;
pub mod schema;
mod traces;
mod transports;
pub mod units;
pub mod volume;
mod workloads;
pub use crate::paths::ideal_fct;
pub use claim::{FolderKind, Refused};
pub use collectives::{
    CollectiveRow, JobSummary, OpSummary, collective_rows, collectives_csv, headline, transfers_csv,
};
pub use csv::{
    CsvRows, cc_csv, flows_csv, goodput_csv, links_csv, pings_csv, ports_csv, queues_csv,
    rounds_csv, rtt_csv,
};
pub use folder::{FolderBusy, Lock, RunFolder, try_lock, write_atomic, write_replace};
pub use pfc::{PfcSummary, pfc_csv, pfc_stall};
pub use traces::{Split, TraceJobSummary, iterations_csv, nodes_csv, split, trace_jobs};
pub use transports::TransportSummary;
pub use workloads::{Fairness, ProbesSummary, RoundsSummary, WorkloadSummary, round_rows};

/// Formats picoseconds as microseconds with six decimals, exactly.
pub(crate) fn us(ps: u64) -> String {
    format!("{}.{:06}", ps / 1_000_000, ps % 1_000_000)
}

/// A statistic with `decimals` decimals, or `n/a` where it does not exist.
fn or_na(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "n/a".to_string(), |x| format!("{x:.decimals$}"))
}

/// A time in microseconds in the unit that suits it, or `n/a`.
fn time_or_na(v_us: Option<f64>) -> String {
    v_us.map_or_else(|| "n/a".to_string(), units::fmt_time_us)
}

/// Simulated results of a run (the content of `summary.json`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RunSummary {
    /// Scenario name.
    pub scenario: String,
    /// Master seed.
    pub seed: u64,
    /// Why the run ended: `completed`, `stop_time` or `event_limit`.
    pub stop_reason: &'static str,
    /// Simulated time at the end, in microseconds.
    pub simulated_time_us: f64,
    /// Events processed.
    pub events: u64,
    /// Packets delivered at a link's far end (any kind).
    pub packet_hops: u64,
    /// TCP flows.
    pub flows: FlowSummary,
    /// Drops at switch ports, all causes (`drops_by_cause` splits them).
    pub drops: u64,
    /// Drops at switch ports by cause.
    pub drops_by_cause: DropsByCause,
    /// The switches' ingress stages (VIQs of R-AQM and ABQ).
    pub ingress: IngressSummary,
    /// CE marks at switch ports.
    pub ecn_marks: u64,
    /// Largest queue any switch port reached, in packets.
    pub max_switch_queue_packets: u64,
    /// The switch port whose queue was longest on average over the run
    /// (the bottleneck, as ABQ's and R-AQM's queue figures measure it);
    /// `null` without switch ports or simulated time.
    pub busiest_port: Option<BusiestPort>,
    /// With `output.queue_from`: the standing queue after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_after: Option<QueueAfter>,
    /// Packet sources.
    pub sources: Vec<SourceSummary>,
    /// The load of each workload defined by one (`flows`, `shuffle` with a load).
    pub loads: Vec<LoadSummary>,
    /// Each workload's flows, fairness, delays, rounds and probes.
    pub workloads: Vec<WorkloadSummary>,
    /// Each transport's flows, goodput and fairness (R-AQM paper VI-D's mixed runs).
    pub transports: Vec<TransportSummary>,
    /// Each collective job's iterations, completion times and bus
    /// bandwidth (absent without a collective workload).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobSummary>,
    /// Each execution-trace job's iterations and their split into
    /// compute and exposed and overlapped communication (absent without a
    /// chakra workload).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub traces: Vec<TraceJobSummary>,
    /// Each collective's results, the rows of `collectives.csv` that
    /// `jobs` summarises (computed once, with their bounds).
    #[serde(skip)]
    pub collectives: Vec<CollectiveRow>,
    /// Jain's index over the flows `output.jain_flows` chooses; `null`
    /// when it is not set.
    pub fairness: Option<Fairness>,
    /// Short-term fairness from the goodput series (absent without
    /// `output.goodput_interval`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goodput_fairness: Option<GoodputFairness>,
    /// What PFC did (absent when PFC is off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pfc: Option<PfcSummary>,
    /// What the ports' credit queues did (absent without them: only
    /// ExpressPass has credits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub credits: Option<CreditSummary>,
    /// With `output.max_min`: the flows' max-min fair rates over the
    /// paths routing gives them ([`crate::max_min`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_min: Option<crate::max_min::MaxMinSummary>,
}

/// Credits through the ports' credit queues (ExpressPass 3.1): those
/// sent onto links and those dropped on a full queue, at switches and at
/// host NICs apart (a NIC's limiter is the first a receiver's credits meet).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CreditSummary {
    /// Credits switch ports sent.
    pub switch_sent: u64,
    /// Credits switch ports dropped.
    pub switch_dropped: u64,
    /// Credits host NICs sent.
    pub nic_sent: u64,
    /// Credits host NICs dropped.
    pub nic_dropped: u64,
}

impl CreditSummary {
    /// The counts of a run, `None` without credit queues.
    pub fn of(run: &RunRecord) -> Option<CreditSummary> {
        if !run.credit_queues {
            return None;
        }
        let mut s = CreditSummary {
            switch_sent: 0,
            switch_dropped: 0,
            nic_sent: 0,
            nic_dropped: 0,
        };
        for port in &run.ports {
            let Some((q_sent, q_dropped)) = port.credits else {
                continue;
            };
            let (sent, dropped) = if port.at_switch {
                (&mut s.switch_sent, &mut s.switch_dropped)
            } else {
                (&mut s.nic_sent, &mut s.nic_dropped)
            };
            *sent += q_sent;
            *dropped += q_dropped;
        }
        Some(s)
    }
}

/// A workload's target load and the load its planned flows offer.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LoadSummary {
    /// `[[workload]]` index.
    pub workload: u32,
    /// Its `load` key: flow bytes per sender as a fraction of the sender's link rate.
    pub target: f64,
    /// The planned flows' bytes over the senders' capacity over the arrival window.
    pub offered: f64,
}

/// Switch drops by cause.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct DropsByCause {
    /// Egress buffer full.
    pub overflow: u64,
    /// Early drops by the egress AQM, as packets arrived.
    pub aqm: u64,
    /// Head drops by the egress AQM at dequeue (CoDel's).
    pub aqm_dequeue: u64,
    /// A VIQ was full.
    pub viq_full: u64,
    /// Held too long in a VIQ (R-AQM's old ACKs).
    pub viq_aged: u64,
    /// Lossless packets that found their PFC headroom full (absent when
    /// none: a lossless violation).
    #[serde(skip_serializing_if = "is_zero")]
    pub pfc_headroom: u64,
    /// Packets on a link when it went down, or sent into it after
    /// (absent when none: `[[failure]]`).
    #[serde(skip_serializing_if = "is_zero")]
    pub link_down: u64,
    /// Packets a switch had no route for, after routing around failed
    /// links (absent when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub unroutable: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What the switches' ingress stages did.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct IngressSummary {
    /// Packets held in a VIQ.
    pub held: u64,
    /// Held packets released to forwarding.
    pub released: u64,
    /// Largest VIQ, in packets, over all ports.
    pub max_viq_packets: u64,
}

/// Short-term (instantaneous) fairness, as FairQ's Fig. 2 judges it: in
/// each `goodput_interval` with at least two flows open, Jain's index of
/// their goodputs in that interval.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GoodputFairness {
    /// Intervals with at least two flows open.
    pub intervals: u64,
    /// The mean of the intervals' indices.
    pub mean_jain: f64,
    /// The smallest.
    pub min_jain: f64,
}

impl GoodputFairness {
    /// From a run's goodput series (flows with a row in an interval are
    /// the open ones); `None` without a series or such an interval.
    fn of(run: &RunRecord) -> Option<GoodputFairness> {
        let f = run.goodput_fairness.as_ref()?;
        (f.intervals > 0).then(|| GoodputFairness {
            intervals: f.intervals,
            mean_jain: f.sum / f.intervals as f64,
            min_jain: f.min,
        })
    }
}

/// The standing queue after `output.queue_from` (RCC Fig. 8): of the
/// sampled ports, the one with the longest mean over the samples at or
/// after that time.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct QueueAfter {
    /// From when, in microseconds.
    pub from_us: f64,
    /// The samples at or after it.
    pub samples: u64,
    /// The port, by node names.
    pub port: String,
    /// Its mean queue over those samples, in bytes.
    pub mean_bytes: f64,
    /// Its largest queue among them, in bytes.
    pub max_bytes: u64,
}

/// [`QueueAfter`] of a run; `None` without `output.queue_from` or before
/// any sample at or after it.
fn queue_after(run: &RunRecord) -> Option<QueueAfter> {
    let (q, ports) = run.queue_after?;
    if q.samples == 0 {
        return None;
    }
    let best = (0..ports.len()).reduce(|a, b| if q.ports[b].0 > q.ports[a].0 { b } else { a })?;
    Some(QueueAfter {
        from_us: q.from_ps as f64 / 1e6,
        samples: q.samples,
        port: run.ports[ports[best].idx()].name.clone(),
        mean_bytes: q.ports[best].0 as f64 / q.samples as f64,
        max_bytes: q.ports[best].1,
    })
}

/// The switch port with the longest time-average queue.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct BusiestPort {
    /// The port, by node names (`tor3->host17`).
    pub name: String,
    /// Time-average queue over the run, in packets.
    pub mean_packets: f64,
    /// Time-average queue over the run, in bytes.
    pub mean_bytes: f64,
    /// Largest queue, in packets.
    pub max_packets: u64,
}

/// The switch port of a run with the longest time-average queue in
/// bytes (the first such port on a tie).
fn busiest_port(run: &RunRecord, end_ps: u64) -> Option<BusiestPort> {
    if end_ps == 0 {
        return None;
    }
    let (mut best, mut best_area) = (None, 0u128);
    for (i, p) in run.ports.iter().enumerate() {
        let area = p.stats.queue_bytes_area.area_at(end_ps);
        if p.at_switch && (best.is_none() || area > best_area) {
            (best, best_area) = (Some(i), area);
        }
    }
    let i = best?;
    let p = &run.ports[i];
    let avg = |a: u128| a as f64 / end_ps as f64;
    Some(BusiestPort {
        name: p.name.clone(),
        mean_packets: avg(p.stats.queue_packets_area.area_at(end_ps)),
        mean_bytes: avg(best_area),
        max_packets: p.stats.max_packets,
    })
}

/// TCP flow statistics.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FlowSummary {
    /// Flows in the scenario.
    pub total: usize,
    /// Flows whose data was all acknowledged.
    pub completed: usize,
    /// Data bytes acknowledged, over all flows.
    pub bytes_acked: u64,
    /// Aggregate goodput: acknowledged data bits over the time from the
    /// first flow start to the last completion (or the end of the run, if a
    /// flow is still open), in Gb/s; `null` without flows or time.
    pub goodput_gbps: Option<f64>,
    /// Jain's index of per-flow goodput (bytes acknowledged / time active);
    /// `null` when no flow was active or none sent anything (0/0).
    pub jain_index: Option<f64>,
    /// Flow completion times of completed flows, in microseconds.
    pub fct_us: Summary,
    /// FCT slowdown (FCT over the ideal FCT, see `paths`) of
    /// completed flows of known size.
    pub slowdown: Summary,
    /// FCT and slowdown by flow size (`output.size_buckets`); flows
    /// without a size are in none.
    pub by_size: Vec<SizeBucket>,
    /// Retransmitted data segments.
    pub retransmissions: u64,
    /// SYNs sent again after a timeout.
    pub syn_retransmissions: u64,
    /// FINs sent again after a timeout.
    pub fin_retransmissions: u64,
    /// Retransmission-timer expiries (SYN, data or FIN).
    pub timeouts: u64,
    /// RTO episodes (back-to-back expiries count once).
    pub rto_episodes: u64,
    /// Fast-recovery episodes.
    pub fast_recoveries: u64,
    /// Window reductions on ECN-Echo.
    pub ecn_reductions: u64,
    /// Segments retransmitted on a SACK-based loss verdict in recovery.
    pub sack_recovered: u64,
    /// Tail-loss probes sent.
    pub tail_loss_probes: u64,
    /// Packets a UEC or NDP sender gave up (`timeouts` counts those its
    /// timer gave up, one by one, `sack_recovered` those a NACK named) and
    /// that were acknowledged before they went again: a late ACK, the
    /// give-up spurious. So `retransmissions` = `timeouts` +
    /// `sack_recovered` - this - `resends_pending` for those families.
    pub given_up_then_acked: u64,
    /// Packets given up and still waiting to go again when the run ended.
    pub resends_pending: u64,
    /// Unfinished flows whose sender, at the end, waited on a timer that
    /// resends and had not fired yet: their timeouts are still to come,
    /// so `timeouts` does not count them (a SYN dropped early waits a 1 s
    /// initial RTO, past a 40 ms stop).
    pub unfinished_waiting_on_timer: usize,
    /// Unfinished flows with no data byte acknowledged by the end (never
    /// past the handshake, or never heard back from).
    pub unfinished_nothing_acked: usize,
}

/// The terminal's line on the flows a run left unfinished, if any: how
/// many wait on a timer still to fire and how many had nothing
/// acknowledged, which the counts of timeouts cannot show.
fn unfinished_line(f: &FlowSummary) -> String {
    let open = f.total - f.completed;
    if open == 0 {
        return String::new();
    }
    format!(
        "  unfinished        {open} flows: {} waiting on a retransmission timer still to fire, \
         {} with nothing acknowledged\n",
        f.unfinished_waiting_on_timer, f.unfinished_nothing_acked
    )
}

/// FCT and slowdown of the flows of one size range.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SizeBucket {
    /// The range as text: `<=100KB`, `100KB-10MB`, `>10MB`.
    pub bucket: String,
    /// Flows in it are larger than this many bytes.
    pub above_bytes: u64,
    /// And at most this many (`null`: no upper edge).
    pub up_to_bytes: Option<u64>,
    /// Flows in the bucket.
    pub flows: usize,
    /// Of which completed (the statistics are over these).
    pub completed: usize,
    /// Of which not completed: counted here, never averaged in as 0.
    pub unfinished: usize,
    /// FCT of its completed flows, in microseconds.
    pub fct_us: Summary,
    /// Slowdown of its completed flows.
    pub slowdown: Summary,
}

/// A byte count as a short size (`100KB`, `1.5MB`, `999B`), 1000-based.
fn short_size(b: u64) -> String {
    for (unit, scale) in [("GB", 1e9), ("MB", 1e6), ("KB", 1e3)] {
        if b as f64 >= scale {
            return format!("{}{unit}", b as f64 / scale);
        }
    }
    format!("{b}B")
}

/// The buckets' labels and ranges for `edges` (upper edges, increasing).
fn bucket_ranges(edges: &[u64]) -> Vec<(String, u64, Option<u64>)> {
    let mut out = Vec::with_capacity(edges.len() + 1);
    let mut lo = 0;
    for &hi in edges {
        let label = if lo == 0 {
            format!("<={}", short_size(hi))
        } else {
            format!("{}-{}", short_size(lo), short_size(hi))
        };
        out.push((label, lo, Some(hi)));
        lo = hi;
    }
    out.push((format!(">{}", short_size(lo)), lo, None));
    out
}

/// One packet source's statistics.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SourceSummary {
    /// `[[workload]]` index.
    pub workload: u32,
    /// Sending host.
    pub src: u32,
    /// Receiving host.
    pub dst: u32,
    /// Packets sent.
    pub packets_sent: u64,
    /// Packets received.
    pub packets_received: u64,
    /// Mean wait in the sending host's NIC queue (arrival to start of
    /// transmission), in nanoseconds; `null` if nothing was sent.
    pub mean_nic_wait_ns: Option<f64>,
    /// Mean one-way delay of received packets, in microseconds; `null` if
    /// nothing was received.
    pub mean_delay_us: Option<f64>,
}

impl RunSummary {
    /// Summarises a finished run.
    pub fn of(run: &RunRecord, scenario: &str, seed: u64, stop: StopReason) -> RunSummary {
        let end = run.end;
        let collectives = collective_rows(run);
        let switches = SwitchTotals::of(run);
        RunSummary {
            scenario: scenario.to_string(),
            seed,
            stop_reason: stop.as_str(),
            simulated_time_us: end.ps() as f64 / 1e6,
            events: run.events,
            packet_hops: run.packet_hops,
            flows: FlowSummary::of(run),
            drops: switches.by_cause.total(),
            drops_by_cause: switches.by_cause,
            ingress: switches.ingress,
            ecn_marks: switches.marks,
            max_switch_queue_packets: switches.max_packets,
            busiest_port: busiest_port(run, end.ps()),
            queue_after: queue_after(run),
            sources: source_summaries(run),
            loads: (0u32..)
                .zip(run.workloads)
                .filter_map(|(workload, w)| {
                    w.load.map(|l| LoadSummary {
                        workload,
                        target: l.target,
                        offered: l.offered,
                    })
                })
                .collect(),
            workloads: workloads::workloads(run),
            transports: transports::transports(run),
            jobs: collectives::jobs(run, &collectives),
            traces: trace_jobs(run),
            collectives,
            fairness: run.jain_flows.map(|f| workloads::fairness(run, f)),
            goodput_fairness: GoodputFairness::of(run),
            pfc: PfcSummary::of(run),
            credits: CreditSummary::of(run),
            max_min: None,
        }
    }
}

/// Wall-clock figures (the content of `perf.json`; differs between runs).
#[derive(Debug, Clone, Serialize)]
pub struct Perf {
    /// Threads the run used (at most one per LP).
    pub threads: u32,
    /// Logical processes the fabric was cut into (1: not cut).
    pub lps: u32,
    /// Wall time of the event loop, in seconds.
    pub wall_seconds: f64,
    /// Events per wall-clock second.
    pub events_per_second: f64,
    /// Packet hops per wall-clock second.
    pub packet_hops_per_second: f64,
    /// The process's peak resident memory (`VmHWM`), in bytes; `null`
    /// where `/proc/self/status` cannot be read.
    pub peak_rss_bytes: Option<u64>,
    /// Where a partitioned run's time went; `null` for one LP.
    pub windows: Option<crate::world::WindowStats>,
}

/// This process's peak resident memory so far, from Linux's `VmHWM`.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

impl FlowSummary {
    /// Over a run's flows: totals, FCTs and slowdowns, by size bucket too,
    /// and the counters added up.
    fn of(run: &RunRecord) -> FlowSummary {
        let (end, rows) = (run.end, &run.flows);
        let mut all = workloads::FlowTally::new();
        let mut slowdowns = Vec::new();
        let ranges = bucket_ranges(run.size_buckets);
        // Per bucket: flows, unfinished, FCTs (us), slowdowns.
        let mut buckets: Vec<(usize, usize, Vec<f64>, Vec<f64>)> =
            vec![(0, 0, Vec::new(), Vec::new()); ranges.len()];
        for f in rows {
            all.add(f, end);
            let fct_ps = f.fct_ps();
            let slowdown = fct_ps
                .zip(f.ideal_fct_ps)
                .map(|(fct, ideal)| fct as f64 / ideal as f64);
            if let Some(x) = slowdown {
                slowdowns.push(x);
            }
            if let Some(size) = f.size {
                let b = &mut buckets[run.size_buckets.partition_point(|&e| e < size)];
                b.0 += 1;
                match (fct_ps, slowdown) {
                    (Some(fct), Some(x)) => {
                        b.2.push(fct as f64 / 1e6);
                        b.3.push(x);
                    }
                    _ => b.1 += 1,
                }
            }
        }
        let by_size = size_buckets(ranges, buckets);
        let unfinished = |f: &dyn Fn(&FlowRow) -> bool| {
            (rows.iter())
                .filter(|r| r.completed_at.is_none() && f(r))
                .count()
        };
        FlowSummary {
            total: rows.len(),
            completed: all.fcts.len(),
            bytes_acked: all.bytes,
            goodput_gbps: all.goodput_gbps(),
            jain_index: jain_index(&all.rates),
            fct_us: Summary::of(&mut all.fcts),
            slowdown: Summary::of(&mut slowdowns),
            by_size,
            retransmissions: all.counters.retransmits,
            syn_retransmissions: all.counters.syn_retransmits,
            fin_retransmissions: all.counters.fin_retransmits,
            timeouts: all.counters.timeouts,
            rto_episodes: all.counters.rto_episodes,
            fast_recoveries: all.counters.fast_recoveries,
            ecn_reductions: all.counters.ecn_reductions,
            sack_recovered: all.counters.sack_recovered,
            tail_loss_probes: all.counters.tail_loss_probes,
            given_up_then_acked: all.counters.given_up_then_acked,
            resends_pending: all.counters.resends_pending,
            unfinished_waiting_on_timer: unfinished(&|r| r.waiting_on_timer),
            unfinished_nothing_acked: unfinished(&|r| r.bytes_acked == 0),
        }
    }
}

/// The size buckets' rows from their ranges and, per bucket, its flows,
/// its unfinished ones, and its FCTs (us) and slowdowns.
fn size_buckets(
    ranges: Vec<(String, u64, Option<u64>)>,
    buckets: Vec<(usize, usize, Vec<f64>, Vec<f64>)>,
) -> Vec<SizeBucket> {
    ranges
        .into_iter()
        .zip(buckets)
        .map(
            |((bucket, above_bytes, up_to_bytes), (n, open, mut fct, mut sd))| SizeBucket {
                bucket,
                above_bytes,
                up_to_bytes,
                flows: n,
                completed: n - open,
                unfinished: open,
                fct_us: Summary::of(&mut fct),
                slowdown: Summary::of(&mut sd),
            },
        )
        .collect()
}

/// What the switch ports counted over a run, added up.
struct SwitchTotals {
    by_cause: DropsByCause,
    ingress: IngressSummary,
    marks: u64,
    max_packets: u64,
}

impl SwitchTotals {
    fn of(run: &RunRecord) -> SwitchTotals {
        let mut t = SwitchTotals {
            by_cause: DropsByCause::default(),
            ingress: IngressSummary::default(),
            marks: 0,
            max_packets: 0,
        };
        let by_cause = &mut t.by_cause;
        for p in run.ports.iter().filter(|p| p.at_switch) {
            by_cause.overflow += p.stats.drops_overflow;
            by_cause.aqm += p.stats.drops_aqm;
            by_cause.aqm_dequeue += p.stats.drops_aqm_dequeue;
            let i = &p.ingress;
            by_cause.viq_full += i.viq_drops_full;
            by_cause.viq_aged += i.viq_drops_aged;
            by_cause.pfc_headroom += p
                .pfc
                .as_ref()
                .map_or(0, |s| s.stats.headroom_drops.iter().sum::<u64>());
            t.ingress.held += i.held;
            t.ingress.released += i.released;
            t.ingress.max_viq_packets = t.ingress.max_viq_packets.max(i.viq_max_packets);
            t.marks += p.stats.ecn_marks;
            t.max_packets = t.max_packets.max(p.stats.max_packets);
        }
        // A host's link can fail too: its NIC's losses count with the rest.
        by_cause.link_down = run.lost_on_links;
        by_cause.unroutable = run.unroutable_drops;
        t
    }
}

impl DropsByCause {
    /// Every drop, whatever its cause.
    fn total(&self) -> u64 {
        self.overflow
            + self.aqm
            + self.aqm_dequeue
            + self.viq_full
            + self.viq_aged
            + self.pfc_headroom
            + self.link_down
            + self.unroutable
    }
}

/// Each packet source's summary, in order.
fn source_summaries(run: &RunRecord) -> Vec<SourceSummary> {
    (run.sources.iter())
        .map(|s| {
            let nic = &run.nic(s.src).stats;
            SourceSummary {
                workload: s.workload,
                src: s.src.0,
                dst: s.dst.0,
                packets_sent: s.sent,
                packets_received: s.received,
                mean_nic_wait_ns: nic.mean_wait_ps().map(|w| w / 1e3),
                mean_delay_us: (s.received > 0)
                    .then(|| s.delay_sum_ps as f64 / s.received as f64 / 1e6),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_are_exact() {
        assert_eq!(us(1_230_400), "1.230400");
        assert_eq!(us(5), "0.000005");
    }
}
