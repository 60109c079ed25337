//! The CSV tables of a run: `flows.csv`, `ports.csv` and `queues.csv`
//! (whole, from memory, or streamed as samples are taken).

use super::us;
use crate::world::{
    CcSample, GoodputOf, GoodputSample, QueueSample, RowSink, RttRow, RunRecord, VIQ_CLASS,
};
use std::io::Write as _;

/// `flows.csv`: one row per TCP flow (columns in docs/outputs.md).
pub fn flows_csv(run: &RunRecord) -> String {
    let mut s = super::columns::FLOWS.header();
    for f in &run.flows {
        let fct_ps = f.fct_ps();
        let (finish, fct) = match f.completed_at {
            Some(c) => (us(c.ps()), us(c.since(f.start).ps())),
            None => (String::new(), String::new()),
        };
        let ideal = f.ideal_fct_ps;
        let slowdown = match (fct_ps, ideal) {
            (Some(fct), Some(ideal)) => format!("{:.4}", fct as f64 / ideal as f64),
            _ => String::new(),
        };
        let opt_us = |t: Option<u64>| t.map_or(String::new(), us);
        let opt = |n: Option<u64>| n.map_or(String::new(), |n| n.to_string());
        let st = f.record.counters;
        let rx = f.rx;
        let start = (f.start != sim_core::SimTime::MAX).then_some(f.start.ps());
        super::columns::FLOWS
            .row(&mut s)
            .cell("id", f.id)
            .cell("workload", f.workload)
            .cell("src", f.src.0)
            .cell("dst", f.dst.0)
            .cell(
                "size_bytes",
                f.size.map_or(String::new(), |b| b.to_string()),
            )
            .cell("start_us", opt_us(start))
            .cell("finish_us", finish)
            .cell("fct_us", fct)
            .cell("received_us", opt_us(f.received_at.map(|t| t.ps())))
            .cell("ideal_fct_us", opt_us(ideal))
            .cell("slowdown", slowdown)
            .cell("bytes_acked", f.bytes_acked)
            .cell("retransmissions", st.retransmits)
            .cell("syn_retransmissions", st.syn_retransmits)
            .cell("fin_retransmissions", st.fin_retransmits)
            .cell("timeouts", st.timeouts)
            .cell("rto_episodes", st.rto_episodes)
            .cell("fast_recoveries", st.fast_recoveries)
            .cell("ecn_reductions", st.ecn_reductions)
            .cell("sack_recovered", st.sack_recovered)
            .cell("tail_loss_probes", st.tail_loss_probes)
            .cell("window_probes", st.window_probes)
            .cell("naks_sent", opt(rx.naks_sent))
            .cell("cnps_sent", opt(rx.cnps_sent))
            .cell("transport", &run.transports[f.transport as usize].name)
            .end();
    }
    s
}

/// `goodput.csv`: per interval, the goodput over all flows (`flow` =
/// `all`), of each workload's flows together (`workload N`, with two
/// workloads with flows or more) and of each chosen flow open in it, in
/// Gb/s (data bytes first
/// acknowledged in the interval, over the interval).
pub fn goodput_csv(run: &RunRecord) -> String {
    let mut s = super::columns::GOODPUT.header();
    let Some(interval) = run.goodput_interval else {
        return s;
    };
    let row = goodput_row(interval);
    for g in run.goodput {
        row(&mut s, g);
    }
    s
}

/// `links.csv`: per interval, each tier's link utilisation (empty but for
/// its header when the series is off).
pub fn links_csv(run: &RunRecord) -> String {
    let mut s = super::columns::LINKS.header();
    let Some((tiers, rows)) = run.links else {
        return s;
    };
    for r in rows {
        let tier = &tiers[r.tier as usize];
        super::columns::LINKS
            .row(&mut s)
            .cell("time_us", us(r.time_ps))
            .cell("tier", &tier.name)
            .cell("links", tier.links)
            .cell("utilisation", format_args!("{:.6}", r.utilisation))
            .end();
    }
    s
}

/// `goodput.csv`'s row writer for a series of `interval`.
fn goodput_row(interval: sim_core::SimDuration) -> impl Fn(&mut String, &GoodputSample) {
    move |s, g| {
        let gbps = g.bytes as f64 * 8.0 / interval.ps() as f64 * 1e3;
        let flow = match g.of {
            GoodputOf::All => "all".to_string(),
            GoodputOf::Workload(w) => format!("workload {w}"),
            GoodputOf::Flow(f) => f.to_string(),
        };
        super::columns::GOODPUT
            .row(s)
            .cell("time_us", us(g.time_ps))
            .cell("flow", flow)
            .cell("gbps", format_args!("{gbps:.6}"))
            .end();
    }
}

/// `cc.csv`: every `cc_trace` interval, each traced flow's controller
/// state, one row per variable (its name carries its unit), values in
/// Rust's shortest exact form.
pub fn cc_csv(run: &RunRecord) -> String {
    let mut s = super::columns::CC.header();
    for c in run.cc {
        cc_row(&mut s, c);
    }
    s
}

/// One `cc.csv` row.
fn cc_row(s: &mut String, c: &CcSample) {
    super::columns::CC
        .row(s)
        .cell("time_us", us(c.time_ps))
        .cell("flow", c.flow)
        .cell("variable", c.variable)
        .cell("value", c.value)
        .end();
}

/// Writes one row of a series into a line.
type RowWriter<T> = Box<dyn Fn(&mut String, &T) + Send>;

/// A series' CSV file written as the run goes (a [`RowSink`]): the same
/// bytes as the function that writes it whole, without holding the rows.
pub struct CsvRows<W: std::io::Write, T> {
    name: &'static str,
    out: std::io::BufWriter<W>,
    line: String,
    row: RowWriter<T>,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write, T> CsvRows<W, T> {
    fn new(name: &'static str, out: W, header: String, row: RowWriter<T>) -> Self {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
        let error = out.write_all(header.as_bytes()).err();
        CsvRows {
            name,
            out,
            line: String::with_capacity(96),
            row,
            error,
        }
    }
}

impl<W: std::io::Write> CsvRows<W, QueueSample> {
    /// `queues.csv`, streamed; `names` names every port, by port id
    /// (`World::port_names`).
    pub fn queues(out: W, names: Vec<String>) -> Self {
        let row = move |s: &mut String, q: &QueueSample| queue_row(s, q, &names);
        Self::new(
            "queues.csv",
            out,
            super::columns::QUEUES.header(),
            Box::new(row),
        )
    }
}

impl<W: std::io::Write> CsvRows<W, CcSample> {
    /// `cc.csv`, streamed.
    pub fn cc(out: W) -> Self {
        Self::new("cc.csv", out, super::columns::CC.header(), Box::new(cc_row))
    }
}

impl<W: std::io::Write> CsvRows<W, GoodputSample> {
    /// `goodput.csv` of a series of `interval`, streamed.
    pub fn goodput(out: W, interval: sim_core::SimDuration) -> Self {
        let header = super::columns::GOODPUT.header();
        Self::new("goodput.csv", out, header, Box::new(goodput_row(interval)))
    }
}

impl<W: std::io::Write> CsvRows<W, RttRow> {
    /// `rtt.csv`, streamed.
    pub fn rtt(out: W) -> Self {
        Self::new(
            "rtt.csv",
            out,
            super::columns::RTT.header(),
            Box::new(rtt_row),
        )
    }
}

impl<W: std::io::Write + Send, T> RowSink<T> for CsvRows<W, T> {
    fn record(&mut self, row: &T) {
        if self.error.is_none() {
            self.line.clear();
            (self.row)(&mut self.line, row);
            self.error = self.out.write_all(self.line.as_bytes()).err();
        }
    }

    fn finish(&mut self) -> std::io::Result<()> {
        let named = super::folder::naming(self.name);
        match self.error.take() {
            Some(e) => Err(named(e)),
            None => self.out.flush().map_err(named),
        }
    }
}

/// `pings.csv`: every probe of every `ping` workload: its source (index
/// among the run's packet sources), number, send time and round-trip time
/// (empty when its echo never came back).
pub fn pings_csv(run: &RunRecord) -> String {
    let mut s = super::columns::PINGS.header();
    for (i, src) in run.sources.iter().enumerate().filter(|(_, s)| s.echo) {
        for (k, (&sent, &rtt)) in src.sent_ps.iter().zip(&src.rtt_ps).enumerate() {
            let rtt = if rtt == crate::world::LOST {
                String::new()
            } else {
                us(rtt)
            };
            super::columns::PINGS
                .row(&mut s)
                .cell("workload", src.workload)
                .cell("source", i)
                .cell("probe", k)
                .cell("sent_us", us(sent))
                .cell("rtt_us", rtt)
                .end();
        }
    }
    s
}

/// `rounds.csv`: every round of every workload with rounds: its first
/// flow's start, the time its last flow was received in full, and the
/// difference (empty for a round not started or not complete).
pub fn rounds_csv(run: &RunRecord) -> String {
    let mut s = super::columns::ROUNDS.header();
    for (w, r, start, end) in super::round_rows(run) {
        let opt = |t: Option<sim_core::SimTime>| t.map_or(String::new(), |t| us(t.ps()));
        let duration = start
            .zip(end)
            .map_or(String::new(), |(a, b)| us(b.since(a).ps()));
        super::columns::ROUNDS
            .row(&mut s)
            .cell("workload", w)
            .cell("round", r)
            .cell("start_us", opt(start))
            .cell("end_us", opt(end))
            .cell("duration_us", duration)
            .end();
    }
    s
}

/// `rtt.csv`: per interval and workload with samples in it, the count,
/// mean, median, 99th percentile and largest of its RTT samples (HDR, in
/// microseconds); `time_us` is the end of the interval.
pub fn rtt_csv(run: &RunRecord) -> String {
    let mut s = super::columns::RTT.header();
    for r in run.rtt {
        rtt_row(&mut s, r);
    }
    s
}

/// One `rtt.csv` row.
fn rtt_row(s: &mut String, r: &RttRow) {
    let us3 = |ns: f64| format!("{:.3}", ns / 1e3);
    super::columns::RTT
        .row(s)
        .cell("time_us", us(r.time_ps))
        .cell("workload", r.workload)
        .cell("samples", r.samples)
        .cell("mean_us", us3(r.mean_ns))
        .cell("p50_us", us3(r.p50_ns as f64))
        .cell("p99_us", us3(r.p99_ns as f64))
        .cell("max_us", us3(r.max_ns as f64))
        .end();
}

/// One `queues.csv` row; class `viq` is a port's VIQ.
fn queue_row(s: &mut String, q: &QueueSample, names: &[String]) {
    let class = if q.class == VIQ_CLASS {
        "viq".to_string()
    } else {
        q.class.to_string()
    };
    super::columns::QUEUES
        .row(s)
        .cell("time_us", us(q.time_ps))
        .cell("port", q.port)
        .cell("node", q.node)
        .cell(
            "name",
            names.get(q.port as usize).map_or("", String::as_str),
        )
        .cell("class", class)
        .cell("bytes", q.bytes)
        .cell("packets", q.packets)
        .end();
}

/// `queues.csv` of the samples a world kept in memory: one row per sampled
/// class queue per sampling instant, and one with class `viq` for the VIQ
/// of each sampled port that has an ingress plugin.
pub fn queues_csv(run: &RunRecord) -> String {
    let mut s = super::columns::QUEUES.header();
    let names: Vec<String> = run.ports.iter().map(|p| p.name.clone()).collect();
    for q in run.queues {
        queue_row(&mut s, q, &names);
    }
    s
}

/// A `ports.csv` row's first cells: the port, its nodes, its name, its class.
fn port_row<'a>(
    s: &'a mut String,
    port: usize,
    node: u32,
    peer: u32,
    name: &str,
    class: impl std::fmt::Display,
) -> super::columns::Row<'a> {
    super::columns::PORTS
        .row(s)
        .cell("port", port)
        .cell("node", node)
        .cell("peer_node", peer)
        .cell("name", name)
        .cell("class", class)
}

/// The counters a port's row and its class queues' rows share, read from
/// `PortStats` or `ClassStats`.
struct QueueCells {
    tx_packets: u64,
    tx_bytes: u64,
    drops_aqm: u64,
    drops_aqm_dequeue: u64,
    drops: u64,
    ecn_marks: u64,
    max_packets: u64,
    /// The time-average queue, formatted (empty over no time).
    avg_bytes: String,
}

impl QueueCells {
    /// Writes them into `row`, after its first cells. Overflow drops are
    /// the drops that are not the AQM's.
    fn cells(self, row: super::columns::Row<'_>) -> super::columns::Row<'_> {
        row.cell("tx_packets", self.tx_packets)
            .cell("tx_bytes", self.tx_bytes)
            .cell(
                "drops_overflow",
                self.drops - self.drops_aqm - self.drops_aqm_dequeue,
            )
            .cell("drops_aqm", self.drops_aqm)
            .cell("drops_aqm_dequeue", self.drops_aqm_dequeue)
            .cell("drops", self.drops)
            .cell("ecn_marks", self.ecn_marks)
            .cell("max_packets", self.max_packets)
            .cell("avg_bytes", self.avg_bytes)
    }
}

/// `ports.csv`: one row per switch port and class queue, plus a row with
/// class `all` for the port as a whole (which also carries its ingress
/// stage's VIQ counters). Averages are over the whole run.
pub fn ports_csv(run: &RunRecord) -> String {
    let mut s = super::columns::PORTS.header();
    let end = run.end.ps();
    // A time average over no time does not exist: an empty cell.
    let avg = |area: &sim_core::stats::TimeIntegral| match end {
        0 => String::new(),
        _ => format!("{:.3}", area.area_at(end) as f64 / end as f64),
    };
    for p in run.ports.iter().filter(|p| p.at_switch) {
        let (i, node, peer, name) = (p.id.idx(), p.node, p.peer_node, &p.name);
        let (st, ing) = (&p.stats, &p.ingress);
        let mean_wait = (st.mean_wait_ps()).map_or(String::new(), |w| format!("{:.6}", w / 1e6));
        let queue = QueueCells {
            tx_packets: st.tx_packets,
            tx_bytes: st.tx_bytes,
            drops_aqm: st.drops_aqm,
            drops_aqm_dequeue: st.drops_aqm_dequeue,
            drops: st.drops(),
            ecn_marks: st.ecn_marks,
            max_packets: st.max_packets,
            avg_bytes: avg(&st.queue_bytes_area),
        };
        queue
            .cells(port_row(&mut s, i, node, peer, name, "all"))
            .cell("viq_held", ing.held)
            .cell("viq_released", ing.released)
            .cell("viq_drops_full", ing.viq_drops_full)
            .cell("viq_drops_aged", ing.viq_drops_aged)
            .cell("viq_max_packets", ing.viq_max_packets)
            .cell("avg_viq_packets", avg(&ing.viq_packets_area))
            .cell("tx_wire_bytes", st.tx_wire_bytes)
            .cell("max_bytes", st.max_bytes)
            .cell("avg_packets", avg(&st.queue_packets_area))
            .cell("dropped_bytes", st.dropped_bytes)
            .cell("mean_wait_us", mean_wait)
            .cell("trimmed", p.trimmed)
            .cell("lost_on_link", p.lost_on_link)
            .end();
        if p.class_stats.len() > 1 {
            for (c, cs) in p.class_stats.iter().enumerate() {
                let queue = QueueCells {
                    tx_packets: cs.tx_packets,
                    tx_bytes: cs.tx_bytes,
                    drops_aqm: cs.drops_aqm,
                    drops_aqm_dequeue: cs.drops_aqm_dequeue,
                    drops: cs.drops,
                    ecn_marks: cs.ecn_marks,
                    max_packets: cs.max_packets,
                    avg_bytes: avg(&cs.queue_bytes_area),
                };
                // A class has no ingress stage, and the port-only columns are empty.
                queue
                    .cells(port_row(&mut s, i, node, peer, name, c))
                    .empty_rest()
                    .end();
            }
        }
    }
    s
}
