//! How much a run will write, estimated before anything is built: the rows
//! of its sampled series (`queues.csv`, `goodput.csv`, `rtt.csv`, `cc.csv`) and the
//! bytes of all its files. A sampling interval may be short, but a run
//! whose series would pass [`MAX_SAMPLE_ROWS`] is refused at load, as one
//! that would not fit in memory is; and a run whose files would not fit on
//! the disk is refused before it simulates (`runner`).
//!
//! The series run while traffic remains, so their length is the run's
//! duration: `stop_time` when it is set, else a lower bound from the plan
//! (the latest planned start or stop, and the time each host's link needs
//! to carry the bytes it sends or receives). A refusal is never a guess
//! that the run might be long: it happens only when even the bound is
//! too long.

use crate::registry::workload::Planned;
use crate::scenario::{QueuePorts, Scenario};
use std::fmt;

/// The most rows the sampled series of one run may have together: at
/// about 40 bytes a row, some 8 GB of CSV.
pub const MAX_SAMPLE_ROWS: u64 = 200_000_000;
/// The finest sampling interval: a nanosecond is below a 64-byte packet's
/// serialisation on a 400 Gb/s link.
pub const MIN_SAMPLE_INTERVAL_PS: u64 = 1_000;

/// Bytes of a row, as written (rounded up), per file.
const QUEUE_ROW_BYTES: u64 = 48;
const GOODPUT_ROW_BYTES: u64 = 40;
const RTT_ROW_BYTES: u64 = 80;
/// A `links.csv` row (`20.000000,agg->core,128,0.112431`).
const LINK_ROW_BYTES: u64 = 40;
const CC_ROW_BYTES: u64 = 48;
const FLOW_ROW_BYTES: u64 = 220;
/// A trace job's `nodes.csv` row (`0,1,7,14,11,allreduce0,collective,4036.165760,4800.851360`),
/// one per trigger of its plan at most, and an `iterations.csv` row less.
const NODE_ROW_BYTES: u64 = 80;
const PORT_ROW_BYTES: u64 = 160;
/// `summary.json`, `perf.json` and the rest of the small files.
const FIXED_BYTES: u64 = 64 * 1024;
/// Bytes of an `events.csv` row, as written (rounded up).
const EVENT_ROW_BYTES: u64 = 96;
/// A pcap record's header.
const PCAP_RECORD_BYTES: u64 = 16;
/// The frame a port is assumed to send back to back, for the captures'
/// and the event log's estimate: 1500 B of IP at the host links' rate.
const FULL_FRAME_BYTES: u64 = 1514;

/// One sampled series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Series {
    /// The file it goes to.
    pub file: &'static str,
    /// The key that turns it on.
    pub key: &'static str,
    /// Rows per interval.
    pub per_interval: u64,
    /// Intervals over the run.
    pub intervals: u64,
    /// Bytes per row.
    row_bytes: u64,
}

impl Series {
    /// Its rows.
    pub fn rows(&self) -> u64 {
        self.per_interval.saturating_mul(self.intervals)
    }
}

/// What a run will write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volume {
    /// The duration the series are counted over, in ps.
    pub duration_ps: u64,
    /// Whether that duration is `stop_time` (else a lower bound).
    pub from_stop_time: bool,
    /// The sampled series that are on.
    pub series: Vec<Series>,
    /// Bytes of every file of the run.
    pub bytes: u64,
}

/// A run whose series would be too long.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooManySamples(pub Volume);

impl fmt::Display for TooManySamples {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = &self.0;
        let rows: u64 = v
            .series
            .iter()
            .map(Series::rows)
            .fold(0, u64::saturating_add);
        let over = if v.from_stop_time {
            "over stop_time"
        } else {
            "over at least"
        };
        write!(
            f,
            "the run would write about {rows} sampled rows ({over} {:.3} ms:",
            v.duration_ps as f64 / 1e9
        )?;
        for s in &v.series {
            write!(
                f,
                " {} {} rows from {}, {} per interval;",
                s.file,
                s.rows(),
                s.key,
                s.per_interval
            )?;
        }
        write!(
            f,
            " the limit is {MAX_SAMPLE_ROWS}): lengthen the interval, sample fewer ports \
             (output.queue_ports), or shorten the run"
        )
    }
}

/// The sampled series `sc` asks for: rows per interval and intervals
/// (`intervals` of a sampling period), over `switch_ports` ports of
/// `classes` queues each and `flows` flows.
fn sampled_series(
    sc: &Scenario,
    intervals: &dyn Fn(sim_core::SimDuration) -> u64,
    switch_ports: u64,
    classes: u64,
    flows: u64,
) -> Vec<Series> {
    let size = sc.topology.spec.size;
    let mut series = Vec::new();
    if let Some(n) = sc.output.queue_interval.map(intervals) {
        let ports = match &sc.output.queue_ports {
            Some(QueuePorts::List(l)) => (l.len() as u64).saturating_mul(size.links),
            _ => switch_ports,
        };
        series.push(Series {
            file: "queues.csv",
            key: "output.queue_interval",
            per_interval: ports.min(switch_ports).saturating_mul(classes),
            intervals: n,
            row_bytes: QUEUE_ROW_BYTES,
        });
    }
    if let Some(n) = sc.output.goodput_interval.map(intervals) {
        let traced = sc
            .output
            .goodput_flows
            .as_ref()
            .map_or(flows, |l| l.len() as u64);
        series.push(Series {
            file: "goodput.csv",
            key: "output.goodput_interval",
            per_interval: traced + 1,
            intervals: n,
            row_bytes: GOODPUT_ROW_BYTES,
        });
    }
    if let Some(n) = sc.output.link_interval.map(intervals) {
        series.push(Series {
            file: "links.csv",
            key: "output.link_interval",
            // At most one tier per pair of node kinds: eight covers a
            // three-tier fabric and its planes' NICs.
            per_interval: 8,
            intervals: n,
            row_bytes: LINK_ROW_BYTES,
        });
    }
    if let Some(n) = sc.output.rtt_interval.map(intervals) {
        series.push(Series {
            file: "rtt.csv",
            key: "output.rtt_interval",
            per_interval: sc.workloads.len() as u64,
            intervals: n,
            row_bytes: RTT_ROW_BYTES,
        });
    }
    if let Some(c) = &sc.output.cc_trace {
        series.push(Series {
            file: "cc.csv",
            key: "output.cc_trace.interval",
            // About six variables a flow (window or rate, the controller's own).
            per_interval: (c.flows.len() as u64).saturating_mul(6),
            intervals: intervals(c.interval),
            row_bytes: CC_ROW_BYTES,
        });
    }
    series
}

impl Volume {
    /// The estimate for `sc` with its workloads `planned`.
    pub fn of(sc: &Scenario, planned: &[Planned]) -> Volume {
        let (duration_ps, from_stop_time) = match sc.simulation.stop_time {
            Some(t) => (t.ps(), true),
            None => (duration_bound_ps(sc, planned), false),
        };
        let intervals = |i: sim_core::SimDuration| duration_ps / i.ps().max(1) + 1;
        let size = sc.topology.spec.size;
        let switch_ports = size
            .links
            .saturating_mul(2)
            .saturating_sub(size.hosts as u64);
        let classes = sc.switch.classes as u64 + 1; // and the VIQ
        let flows: u64 = planned.iter().map(|p| p.plan.flows.len() as u64).sum();
        let trace_nodes: u64 = (planned.iter())
            .filter(|p| !p.plan.traces.is_empty())
            .map(|p| p.plan.triggers.len() as u64)
            .sum();
        let series = sampled_series(sc, &intervals, switch_ports, classes, flows);
        let sampled = series
            .iter()
            .map(|s| s.rows().saturating_mul(s.row_bytes))
            .fold(0, u64::saturating_add);
        let bytes = sampled
            .saturating_add(observed_bytes(sc, duration_ps, switch_ports))
            .saturating_add(flows.saturating_mul(FLOW_ROW_BYTES))
            .saturating_add(trace_nodes.saturating_mul(NODE_ROW_BYTES))
            .saturating_add(
                switch_ports
                    .saturating_mul(classes)
                    .saturating_mul(PORT_ROW_BYTES),
            )
            .saturating_add(FIXED_BYTES);
        Volume {
            duration_ps,
            from_stop_time,
            series,
            bytes,
        }
    }

    /// Refuses series longer than [`MAX_SAMPLE_ROWS`].
    pub fn check(self) -> Result<Volume, TooManySamples> {
        let rows = self
            .series
            .iter()
            .map(Series::rows)
            .fold(0, u64::saturating_add);
        if rows > MAX_SAMPLE_ROWS {
            return Err(TooManySamples(self));
        }
        Ok(self)
    }
}

/// The pcap captures' and the event log's bytes, were each observed port
/// busy all run with full-size frames at the host links' rate (an
/// estimate: a port sends less, but smaller packets are more records).
fn observed_bytes(sc: &Scenario, duration_ps: u64, switch_ports: u64) -> u64 {
    let rate = sc.topology.spec.shape.max_host_rate();
    let frame_ps = rate.tx_time(FULL_FRAME_BYTES + 24).ps().max(1);
    let frames = duration_ps / frame_ps + 1;
    let pcap = sc.output.pcap.as_ref().map_or(0, |p| {
        let record = PCAP_RECORD_BYTES + FULL_FRAME_BYTES.min(p.snaplen as u64);
        (p.ports.len() as u64).saturating_mul(frames.saturating_mul(record))
    });
    let events = sc.output.events.as_ref().map_or(0, |e| {
        let hosts = sc.topology.spec.size.hosts as u64;
        let ports = e
            .ports
            .as_ref()
            .map_or(switch_ports.saturating_add(hosts), |l| l.len() as u64);
        // An enqueue and a departure a frame.
        ports.saturating_mul(frames.saturating_mul(2 * EVENT_ROW_BYTES))
    });
    pcap.saturating_add(events)
}

/// A lower bound on how long the run lasts: its latest planned start or
/// stop, and the longest any host's link needs to send or receive what the
/// plan gives it.
fn duration_bound_ps(sc: &Scenario, planned: &[Planned]) -> u64 {
    let hosts = sc.topology.spec.size.hosts as usize;
    let mut sent = vec![0u64; hosts];
    let mut received = vec![0u64; hosts];
    let mut latest = 0u64;
    for p in planned {
        for f in &p.plan.flows {
            latest = latest.max(f.start.ps()).max(f.stop.map_or(0, |s| s.ps()));
            let bytes = f.size.unwrap_or(0);
            if let Some(s) = sent.get_mut(f.src as usize) {
                *s = s.saturating_add(bytes);
            }
            if let Some(r) = received.get_mut(f.dst as usize) {
                *r = r.saturating_add(bytes);
            }
        }
        for s in &p.plan.sources {
            latest = latest.max(s.start.ps()).max(s.stop.map_or(0, |t| t.ps()));
        }
    }
    let shape = &sc.topology.spec.shape;
    let busiest = (0..hosts)
        .map(|h| {
            let rate = shape.host_rate(h as u32);
            rate.tx_time(sent[h].max(received[h])).ps()
        })
        .max()
        .unwrap_or(0);
    latest.max(busiest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(output: &str) -> Scenario {
        let text = format!(
            "[topology]\nkind = \"star\"\nhosts = 17\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n\
             [switch]\nbuffer = \"300pkt\"\n[[workload]]\nkind = \"incast\"\nreceiver = 0\n\
             senders = \"1-16\"\nsize = \"1MB\"\n[output]\n{output}\n"
        );
        crate::scenario::parse_str("t.toml", &text).expect("valid")
    }

    #[test]
    fn an_incast_lasts_at_least_its_receivers_link_time() {
        let sc = scenario("queue_interval = \"1us\"");
        let planned = crate::registry::workload::plan_all(&sc, 1);
        let v = Volume::of(&sc, &planned);
        // 16 MB through one 10 Gb/s link: 12.8 ms.
        assert_eq!(v.duration_ps, 12_800_000_000);
        assert!(!v.from_stop_time);
        // The star's 17 switch ports, one class and the VIQ, every 1 us.
        assert_eq!(v.series[0].per_interval, 34);
        assert_eq!(v.series[0].intervals, 12_801);
        assert!(v.check().is_ok());
    }

    #[test]
    fn a_picosecond_interval_is_refused_with_the_numbers() {
        let sc = scenario("queue_interval = \"1ns\"\ngoodput_interval = \"1ns\"");
        let planned = crate::registry::workload::plan_all(&sc, 1);
        let e = Volume::of(&sc, &planned).check().expect_err("too many");
        let text = e.to_string();
        assert!(
            text.contains("queues.csv") && text.contains("goodput.csv"),
            "{text}"
        );
        assert!(text.contains("over at least 12.800 ms"), "{text}");
    }

    #[test]
    fn a_capture_and_an_event_log_count_a_busy_port_for_the_whole_run() {
        let base = scenario("");
        let planned = crate::registry::workload::plan_all(&base, 1);
        let without = Volume::of(&base, &planned).bytes;
        let sc =
            scenario("pcap = { ports = [\"switch->host0\", \"host1->switch\"], snaplen = 128 }");
        let with = Volume::of(&sc, &planned).bytes;
        // 12.8 ms at 10 Gb/s of 1538-byte wire frames: 10,403 frames a port,
        // 16 + 128 bytes each.
        let frames = 12_800_000_000u64 / 1_230_400 + 1;
        assert_eq!(with - without, 2 * frames * 144);
        let logged = scenario("events = { ports = [\"switch->host0\"] }");
        assert_eq!(
            Volume::of(&logged, &planned).bytes - without,
            frames * 2 * 96
        );
    }
}
