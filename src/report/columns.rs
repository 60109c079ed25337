//! Every column of every CSV file a run writes, declared once: its name,
//! unit and meaning. The writers take their headers from here, `dcnsim
//! list outputs` prints it, the `[[plot]]` validator reads it, and a test
//! checks that docs/outputs.md names every column (the docs say more).

/// One column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// Its header.
    pub name: &'static str,
    /// Its unit (`us`, `bytes`, `count`...; `id` and `text` for labels).
    pub unit: &'static str,
    /// What it holds, in a line.
    pub meaning: &'static str,
}

/// One CSV file of a run's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CsvFile {
    /// Its name in the folder.
    pub name: &'static str,
    /// When a run writes it.
    pub when: &'static str,
    /// Its columns, in order.
    pub columns: &'static [Column],
}

impl CsvFile {
    /// The header line, with its line break.
    pub fn header(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|c| c.name).collect();
        names.join(",") + "\n"
    }

    /// The position of the column named `name` in a row.
    pub fn index(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.name == name)
    }

    /// A row of this file, written cell by cell into `line` under the
    /// names of its columns: a row cannot disagree with the header.
    pub fn row<'a>(&'static self, line: &'a mut String) -> Row<'a> {
        Row {
            file: self,
            next: 0,
            line,
        }
    }
}

/// A CSV row being written: each cell names its column, in the table's
/// order ([`CsvFile::row`]); [`Row::end`] checks that none is missing.
pub struct Row<'a> {
    file: &'static CsvFile,
    next: usize,
    line: &'a mut String,
}

impl Row<'_> {
    /// Writes column `name`'s cell.
    pub fn cell(mut self, name: &str, value: impl std::fmt::Display) -> Self {
        use std::fmt::Write as _;
        let column = self
            .file
            .columns
            .get(self.next)
            .map_or("(none)", |c| c.name);
        assert_eq!(
            column, name,
            "{}: cell {} is written as {name}",
            self.file.name, self.next
        );
        if self.next > 0 {
            self.line.push(',');
        }
        let _ = write!(self.line, "{value}");
        self.next += 1;
        self
    }

    /// Writes empty cells up to column `next` (not included): the columns
    /// this row has no value for (a PFC frame's packet fields).
    pub fn empty_until(mut self, next: &str) -> Self {
        assert!(
            self.file.columns[self.next..]
                .iter()
                .any(|c| c.name == next),
            "{}: no column {next} after cell {}",
            self.file.name,
            self.next
        );
        while let Some(c) = self.file.columns.get(self.next).filter(|c| c.name != next) {
            self = self.cell(c.name, "");
        }
        self
    }

    /// Writes empty cells for every column left (a class row's ingress
    /// and port-only columns).
    pub fn empty_rest(mut self) -> Self {
        while let Some(c) = self.file.columns.get(self.next) {
            self = self.cell(c.name, "");
        }
        self
    }

    /// Ends the row with its line break; every column was written.
    pub fn end(self) {
        assert_eq!(
            self.next,
            self.file.columns.len(),
            "{}: a row of {} cells",
            self.file.name,
            self.next
        );
        self.line.push('\n');
    }
}

const fn col(name: &'static str, unit: &'static str, meaning: &'static str) -> Column {
    Column {
        name,
        unit,
        meaning,
    }
}

/// `flows.csv`.
#[rustfmt::skip]
pub static FLOWS: CsvFile = CsvFile { name: "flows.csv", when: "always", columns: &[
    col("id", "id", "flow id, in order of creation"),
    col("workload", "id", "the [[workload]] that made it"),
    col("src", "id", "sending host"),
    col("dst", "id", "receiving host"),
    col("size_bytes", "bytes", "data bytes; empty for an unbounded flow"),
    col("start_us", "us", "when it opened (TCP: its SYN; RoCE: its first packet)"),
    col("finish_us", "us", "when its last byte was acknowledged; empty if unfinished"),
    col("fct_us", "us", "finish_us - start_us"),
    col("received_us", "us", "when the receiver had every byte in order"),
    col("ideal_fct_us", "us", "the same flow alone on the empty network"),
    col("slowdown", "ratio", "fct_us / ideal_fct_us"),
    col("bytes_acked", "bytes", "data bytes acknowledged"),
    col("retransmissions", "count", "data packets sent again"),
    col("syn_retransmissions", "count", "SYNs sent again after a timeout"),
    col("fin_retransmissions", "count", "FINs sent again after a timeout"),
    col("timeouts", "count", "expiries of the retransmission timer"),
    col("rto_episodes", "count", "runs of back-to-back expiries without progress"),
    col("fast_recoveries", "count", "fast-recovery episodes (RoCE: go-back-N on a NAK)"),
    col("ecn_reductions", "count", "window reductions on ECN-Echo (RoCE: CNPs received)"),
    col("sack_recovered", "count", "segments retransmitted on a SACK or RACK loss verdict"),
    col("tail_loss_probes", "count", "RACK-TLP probes sent"),
    col("window_probes", "count", "zero-window probes sent by the persist timer (UEC: RTSs asking for credit)"),
    col("naks_sent", "count", "RoCE: NAKs its receiver sent (empty for TCP)"),
    col("cnps_sent", "count", "RoCE: CNPs its receiver sent (empty for TCP)"),
    col("transport", "text", "the flow's transport (default, or NAME of [transport.NAME])"),
]};

/// `ports.csv`.
#[rustfmt::skip]
pub static PORTS: CsvFile = CsvFile { name: "ports.csv", when: "always", columns: &[
    col("port", "id", "the switch egress port"),
    col("node", "id", "its switch"),
    col("peer_node", "id", "the node at the far end of its link"),
    col("name", "text", "the port by node names, tor3->host17"),
    col("class", "id", "class queue, or all for the port as a whole"),
    col("tx_packets", "count", "packets transmitted"),
    col("tx_bytes", "bytes", "IP bytes transmitted"),
    col("drops_overflow", "count", "drops of a full buffer"),
    col("drops_aqm", "count", "early drops by the AQM as packets arrived"),
    col("drops_aqm_dequeue", "count", "head drops by the AQM as packets were about to leave (CoDel)"),
    col("drops", "count", "drops, all causes"),
    col("ecn_marks", "count", "CE marks"),
    col("max_packets", "packets", "largest queue"),
    col("avg_bytes", "bytes", "time-average queue over the run"),
    col("viq_held", "count", "packets held in the port's VIQ"),
    col("viq_released", "count", "held packets released"),
    col("viq_drops_full", "count", "drops of a full VIQ"),
    col("viq_drops_aged", "count", "held packets dropped as too old"),
    col("viq_max_packets", "packets", "largest VIQ"),
    col("avg_viq_packets", "packets", "time-average VIQ over the run"),
    col("tx_wire_bytes", "bytes", "bytes transmitted with framing (port rows only)"),
    col("max_bytes", "bytes", "largest queue in bytes (port rows only)"),
    col("avg_packets", "packets", "time-average queue over the run (port rows only)"),
    col("dropped_bytes", "bytes", "IP bytes dropped, all causes (port rows only)"),
    col("mean_wait_us", "us", "mean time a transmitted packet waited in the queue (port rows only)"),
    col("trimmed", "count", "data packets cut to their header instead of dropped ([switch.trim]; port rows only)"),
    col("lost_on_link", "count", "packets lost on the port's link when it went down ([[failure]]; port rows only)"),
]};

/// `queues.csv`.
#[rustfmt::skip]
pub static QUEUES: CsvFile = CsvFile { name: "queues.csv", when: "output.queue_interval", columns: &[
    col("time_us", "us", "the sampling instant"),
    col("port", "id", "the switch egress port"),
    col("node", "id", "its switch"),
    col("name", "text", "the port by node names, tor3->host17"),
    col("class", "id", "class queue, or viq"),
    col("bytes", "bytes", "bytes queued"),
    col("packets", "packets", "packets queued"),
]};

/// `goodput.csv`.
#[rustfmt::skip]
pub static GOODPUT: CsvFile = CsvFile { name: "goodput.csv", when: "output.goodput_interval", columns: &[
    col("time_us", "us", "the end of the interval"),
    col("flow", "id", "the flow, all (every flow), or workload N (a workload's flows, with two workloads or more)"),
    col("gbps", "Gb/s", "data bytes first acknowledged in the interval, over its length"),
]};

/// `links.csv`.
#[rustfmt::skip]
pub static LINKS: CsvFile = CsvFile { name: "links.csv", when: "output.link_interval", columns: &[
    col("time_us", "us", "the end of the interval"),
    col("tier", "text", "the links' direction between two kinds of node (host->tor, tor->agg, ...)"),
    col("links", "count", "the tier's links"),
    col("utilisation", "ratio", "bits started onto them in the interval over their capacity in it"),
]};

/// `rtt.csv`.
#[rustfmt::skip]
pub static RTT: CsvFile = CsvFile { name: "rtt.csv", when: "output.rtt_interval", columns: &[
    col("time_us", "us", "the end of the interval"),
    col("workload", "id", "the workload"),
    col("samples", "count", "RTT samples in the interval"),
    col("mean_us", "us", "their mean"),
    col("p50_us", "us", "their median"),
    col("p99_us", "us", "their 99th percentile"),
    col("max_us", "us", "their largest"),
]};

/// `rounds.csv`.
#[rustfmt::skip]
pub static ROUNDS: CsvFile = CsvFile { name: "rounds.csv", when: "a workload with rounds", columns: &[
    col("workload", "id", "the workload"),
    col("round", "id", "the round, from 0"),
    col("start_us", "us", "its first flow's start"),
    col("end_us", "us", "when its last flow was received in full"),
    col("duration_us", "us", "end_us - start_us"),
]};

/// `collectives.csv`.
#[rustfmt::skip]
pub static COLLECTIVES: CsvFile = CsvFile { name: "collectives.csv", when: "a collective workload", columns: &[
    col("workload", "id", "the job"),
    col("iteration", "id", "the job's iteration, from 0"),
    col("collective", "id", "its place in the iteration, from 0 (the workload's own op, then each of then)"),
    col("op", "text", "all-reduce, all-gather, reduce-scatter, all-to-all, broadcast or reduce"),
    col("algorithm", "text", "ring, halving-doubling, tree, hierarchical, hierarchical-tree, direct or serialised"),
    col("ranks", "count", "the job's ranks"),
    col("size_bytes", "bytes", "the collective's size (nccl-tests': the buffer each rank holds)"),
    col("start_us", "us", "its first transfer's start"),
    col("end_us", "us", "its last byte's arrival; empty if it did not complete"),
    col("cct_us", "us", "collective completion time: end_us - start_us"),
    col("bound_us", "us", "the least CCT the empty fabric allows: critical path or busiest link"),
    col("iteration_us", "us", "its iteration's time: from the end of the one before (the job's start for the first) to its last collective's end"),
    col("algbw_gbps", "Gb/s", "algorithm bandwidth: size / cct"),
    col("busbw_gbps", "Gb/s", "bus bandwidth (nccl-tests): algbw x 2(N-1)/N for all-reduce, x (N-1)/N for all-gather, reduce-scatter, all-to-all, x 1 for broadcast and reduce"),
    col("slowest_rank", "id", "the rank whose last receipt came last"),
    col("slowest_host", "id", "that rank's host"),
    col("slowest_step", "id", "the step that took longest, from its first start to its last receipt"),
    col("slowest_step_us", "us", "how long it took"),
]};

/// `transfers.csv`.
#[rustfmt::skip]
pub static TRANSFERS: CsvFile = CsvFile { name: "transfers.csv", when: "a collective workload", columns: &[
    col("workload", "id", "the job"),
    col("iteration", "id", "the job's iteration"),
    col("flow", "id", "the transfer's flow (flows.csv)"),
    col("channel", "id", "its channel"),
    col("step", "id", "its step of the algorithm, from 0"),
    col("piece", "id", "its piece of the step's transfer (chunk), from 0"),
    col("src_rank", "id", "the sending rank"),
    col("dst_rank", "id", "the receiving rank"),
    col("src", "id", "the sending host"),
    col("dst", "id", "the receiving host"),
    col("size_bytes", "bytes", "its bytes"),
    col("start_us", "us", "when it started (its inputs were in, after any compute); empty if never"),
    col("received_us", "us", "when its last byte arrived; empty if it did not"),
    col("acked_us", "us", "when its last byte was acknowledged; empty if it was not"),
]};

/// `iterations.csv`.
#[rustfmt::skip]
pub static ITERATIONS: CsvFile = CsvFile { name: "iterations.csv", when: "a chakra workload", columns: &[
    col("workload", "id", "the job"),
    col("iteration", "id", "the iteration, from 0"),
    col("rank", "id", "the rank"),
    col("host", "id", "its host"),
    col("start_us", "us", "when the rank began the iteration (the job's start, or the end of its iteration before); empty if never"),
    col("end_us", "us", "when its every node of the iteration was done; empty if not"),
    col("time_us", "us", "end_us - start_us"),
    col("compute_us", "us", "time computing (the union of its compute nodes, GPU and CPU)"),
    col("comm_us", "us", "time communicating (the union of its communication nodes, each from its issue to its end)"),
    col("overlapped_us", "us", "time computing and communicating at once"),
    col("exposed_us", "us", "time communicating only: comm_us - overlapped_us"),
    col("idle_us", "us", "time doing neither (waiting on a dependency)"),
]};

/// `nodes.csv`.
#[rustfmt::skip]
pub static NODES: CsvFile = CsvFile { name: "nodes.csv", when: "a chakra workload", columns: &[
    col("workload", "id", "the job"),
    col("iteration", "id", "the iteration, from 0"),
    col("rank", "id", "the rank"),
    col("host", "id", "its host"),
    col("node", "id", "the node's id in the rank's trace"),
    col("name", "text", "the node's name in the trace (commas, quotes and line breaks as spaces)"),
    col("kind", "text", "compute (GPU), cpu, collective, send or recv (nodes that do no work are left out)"),
    col("start_us", "us", "when it began: its compute, or its issue (holding the communication stream); empty if never"),
    col("end_us", "us", "when it ended: its compute's end, or the rank's part of it done"),
]};

/// `pings.csv`.
#[rustfmt::skip]
pub static PINGS: CsvFile = CsvFile { name: "pings.csv", when: "a ping workload", columns: &[
    col("workload", "id", "the workload"),
    col("source", "id", "the packet source, among the run's"),
    col("probe", "id", "the probe's number, from 0"),
    col("sent_us", "us", "when it was sent"),
    col("rtt_us", "us", "its round-trip time; empty if lost or in flight"),
]};

/// `pfc.csv`.
#[rustfmt::skip]
pub static PFC: CsvFile = CsvFile { name: "pfc.csv", when: "[switch.pfc]", columns: &[
    col("port", "id", "the port"),
    col("node", "id", "its node"),
    col("peer_node", "id", "the node at the far end"),
    col("name", "text", "the port by node names, tor3->host17"),
    col("priority", "id", "the priority"),
    col("pauses_sent", "count", "PAUSE frames sent upstream"),
    col("resumes_sent", "count", "RESUME frames sent upstream"),
    col("pauses_received", "count", "PAUSE frames received"),
    col("resumes_received", "count", "RESUME frames received"),
    col("paused_us", "us", "time its egress was paused"),
    col("paused_fraction", "fraction", "paused_us over the run"),
    col("headroom_bytes", "bytes", "the port's headroom"),
    col("peak_headroom_bytes", "bytes", "the most headroom used"),
    col("lossless_drops", "count", "lossless packets dropped at this port"),
]};

/// `cc.csv`.
#[rustfmt::skip]
pub static CC: CsvFile = CsvFile { name: "cc.csv", when: "output.cc_trace", columns: &[
    col("time_us", "us", "the sampling instant"),
    col("flow", "id", "the traced flow"),
    col("variable", "text", "the state variable, unit last in its name"),
    col("value", "its name's", "its value"),
]};

/// `events.csv`.
#[rustfmt::skip]
pub static EVENTS: CsvFile = CsvFile { name: "events.csv", when: "output.events", columns: &[
    col("time_us", "us", "when it happened (picosecond precision)"),
    col("event", "text", "enqueue, dequeue, mark, drop, pause_sent, resume_sent, pause_received, resume_received, cnp, nak, retransmit or trim"),
    col("node", "text", "the node of the port"),
    col("port", "text", "the port by node names, tor3->host17 (a host's own port for cnp, nak, retransmit)"),
    col("flow", "id", "the packet's flow (empty: a packet source's, or a PFC frame)"),
    col("kind", "text", "data, ack, control, datagram or credit"),
    col("seq", "count", "sequence number: TCP's byte offset, RoCE's PSN, Homa's offset"),
    col("ack", "count", "acknowledgment number: TCP's cumulative ACK, RoCE's expected PSN"),
    col("bytes", "bytes", "the packet's IP size"),
    col("ecn", "text", "its ECN field after the event: not-ect, ect0 or ce"),
    col("queue_bytes", "bytes", "the port's queued bytes after the event"),
    col("detail", "text", "a drop's cause (overflow, aqm, aqm_dequeue, viq_full, viq_aged, pfc_headroom); a PFC frame's priority"),
]};

/// Every CSV file of a run, in the order docs/outputs.md gives them.
pub static FILES: &[&CsvFile] = &[
    &FLOWS,
    &PORTS,
    &PFC,
    &QUEUES,
    &GOODPUT,
    &LINKS,
    &RTT,
    &ROUNDS,
    &COLLECTIVES,
    &ITERATIONS,
    &NODES,
    &TRANSFERS,
    &PINGS,
    &CC,
    &EVENTS,
];

/// `sweep.csv`'s headline metrics, after the run's own columns (run,
/// case, one per axis, seed). The meaning is short: it is a figure's axis
/// label.
#[rustfmt::skip]
pub static SWEEP_METRICS: &[Column] = &[
    col("stop_reason", "text", "why the run stopped"),
    col("simulated_time_us", "us", "simulated time"),
    col("events", "count", "events"),
    col("flows", "count", "flows"),
    col("flows_completed", "count", "flows completed"),
    col("goodput_gbps", "gbps", "aggregate goodput"),
    col("jain_index", "ratio", "Jain's fairness index"),
    col("fct_mean_us", "us", "mean FCT"),
    col("fct_p50_us", "us", "median FCT"),
    col("fct_p99_us", "us", "99th-percentile FCT"),
    col("fct_p999_us", "us", "99.9th-percentile FCT"),
    col("slowdown_mean", "ratio", "mean FCT slowdown"),
    col("slowdown_p50", "ratio", "median FCT slowdown"),
    col("slowdown_p99", "ratio", "99th-percentile FCT slowdown"),
    col("drops", "count", "drops"),
    col("ecn_marks", "count", "ECN marks"),
    col("max_switch_queue_packets", "packets", "largest switch queue"),
    col("retransmissions", "count", "retransmitted segments"),
    col("timeouts", "count", "retransmission timeouts"),
    col("rto_episodes", "count", "RTO episodes"),
    col("syn_retransmissions", "count", "SYNs sent again"),
    col("offered_load", "ratio", "offered load (planned flows, summed over the workloads with a load)"),
    col("unfinished_waiting_on_timer", "count", "unfinished flows waiting on a timer still to fire"),
    col("unfinished_nothing_acked", "count", "unfinished flows with nothing acknowledged"),
    col("cct_mean_us", "us", "mean collective completion time (the first collective of the first job that completed one)"),
    col("cct_over_bound", "ratio", "mean collective completion time over its bound"),
];

/// The declared sweep metric named `name`.
pub fn sweep_metric(name: &str) -> Option<&'static Column> {
    SWEEP_METRICS.iter().find(|c| c.name == name)
}

/// `dcnsim list outputs`: every CSV file with its columns (unit,
/// meaning), `sweep.csv`'s metric columns and the numeric paths of
/// `summary.json`.
pub fn render_outputs() -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for f in FILES {
        let _ = writeln!(s, "{} (written {})", f.name, when_text(f.when));
        for c in f.columns {
            let _ = writeln!(s, "      {:<24} {:<10} {}", c.name, c.unit, c.meaning);
        }
        s.push('\n');
    }
    let _ = writeln!(
        s,
        "sweep.csv (a sweep's table: run, case, one column per axis, seed, then)"
    );
    for c in SWEEP_METRICS {
        let _ = writeln!(s, "      {:<24} {:<10} {}", c.name, c.unit, c.meaning);
    }
    let _ = writeln!(
        s,
        "\nsummary.json (numbers a [[plot]] y may name; N: a list position)"
    );
    for p in super::schema::summary_paths() {
        let _ = writeln!(s, "      {p}");
    }
    s
}

fn when_text(when: &str) -> String {
    if when == "always" {
        "by every run".into()
    } else {
        format!("with {when}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docs_name_every_file_and_column_in_its_section() {
        let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/outputs.md"))
            .expect("docs/outputs.md");
        let mut missing = Vec::new();
        for f in FILES {
            let heading = format!("## `{}`", f.name);
            let Some(at) = docs.find(&heading) else {
                missing.push(heading);
                continue;
            };
            let rest = &docs[at + heading.len()..];
            let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
            let word = |w: &str| {
                section.match_indices(w).any(|(i, _)| {
                    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
                    let before = section[..i].chars().next_back().is_none_or(|c| !ident(c));
                    let after = section[i + w.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !ident(c));
                    before && after
                })
            };
            for c in f.columns {
                if !word(c.name) {
                    missing.push(format!("{} {}", f.name, c.name));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "docs/outputs.md does not name: {missing:?}"
        );
    }

    #[test]
    fn names_are_unique_within_a_file() {
        for f in FILES {
            let mut names: Vec<&str> = f.columns.iter().map(|c| c.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), f.columns.len(), "{}", f.name);
        }
    }

    /// The row writer the files use: cells in the table's order, each
    /// named; a misnamed, a missing or an extra cell stops the run.
    static TINY: CsvFile = CsvFile {
        name: "tiny.csv",
        when: "tests",
        columns: &[
            col("a", "id", "a"),
            col("b", "id", "b"),
            col("c", "id", "c"),
        ],
    };

    #[test]
    fn a_row_is_written_in_its_columns_order() {
        let mut s = String::new();
        TINY.row(&mut s)
            .cell("a", 1)
            .empty_until("c")
            .cell("c", "x")
            .end();
        TINY.row(&mut s).cell("a", 2).empty_rest().end();
        assert_eq!(s, "1,,x\n2,,\n");
    }

    #[test]
    #[should_panic(expected = "cell 1 is written as c")]
    fn a_cell_out_of_order_is_refused() {
        TINY.row(&mut String::new()).cell("a", 1).cell("c", 2);
    }

    #[test]
    #[should_panic(expected = "a row of 2 cells")]
    fn a_row_missing_a_cell_is_refused() {
        TINY.row(&mut String::new()).cell("a", 1).cell("b", 2).end();
    }
}
