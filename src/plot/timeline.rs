//! Timelines from `events.csv`: why a flow stalled, in two kinds of figure.
//!
//! - Per port (`timeline_port_<port>`): its queued bytes after each
//!   enqueue, departure and drop, with the CE marks, each drop cause and the
//!   PFC frames it sent or received as markers on it.
//! - Per flow (`timeline_flow_<id>`): tcptrace's view, the sequence number
//!   of each data packet as it leaves its source and the acknowledgment
//!   number of each ACK as it leaves its receiver, over time, with the
//!   retransmissions, the drops and the CE marks of its data as markers.
//!   The data is drawn where the log saw its first data packet leave (a
//!   host's port when the log has it), the ACKs at the port that logged
//!   most of the receiver's (one that carried none of the flow's data, so
//!   never the sender's own handshake ACKs); the legend names the node of
//!   each, and names no stream the log did not hold. Drops are drawn last,
//!   over the retransmissions and marks at the same sequence numbers.
//!
//! A run draws up to [`MAX_SERIES`] of each: the ports and flows with the
//! most marks, drops, PFC frames and retransmissions (ties by name), all of
//! them when `[output] events` chose fewer.

use super::PlotError;
use super::chart::{Chart, Point, Series};
use super::data::Csv;
use super::run::{MAX_SERIES, point, rescale, time_axis};
use crate::report::units::{self, Scale};
use std::collections::BTreeMap;

/// The columns of `events.csv` a timeline reads.
struct Cols {
    t: usize,
    event: usize,
    node: usize,
    port: usize,
    flow: usize,
    kind: usize,
    seq: usize,
    ack: usize,
    queue: usize,
    detail: usize,
}

impl Cols {
    fn of(c: &Csv) -> Result<Cols, PlotError> {
        Ok(Cols {
            t: c.col("time_us")?,
            event: c.col("event")?,
            node: c.col("node")?,
            port: c.col("port")?,
            flow: c.col("flow")?,
            kind: c.col("kind")?,
            seq: c.col("seq")?,
            ack: c.col("ack")?,
            queue: c.col("queue_bytes")?,
            detail: c.col("detail")?,
        })
    }
}

/// What a marker on a port's queue stands for, by event (`None`: part of
/// the queue line).
fn port_mark(event: &str, detail: &str) -> Option<String> {
    match event {
        "enqueue" | "dequeue" | "cnp" | "nak" | "retransmit" => None,
        "mark" => Some("CE mark".into()),
        "trim" => Some("trimmed".into()),
        "drop" => Some(format!("drop: {detail}")),
        "pause_sent" => Some("PAUSE sent".into()),
        "resume_sent" => Some("RESUME sent".into()),
        "pause_received" => Some("PAUSE received".into()),
        "resume_received" => Some("RESUME received".into()),
        other => Some(other.to_string()),
    }
}

/// The `MAX_SERIES` keys with the highest counts (ties by key), in key order.
fn top<K: Ord + Clone>(counts: &BTreeMap<K, u64>) -> Vec<K> {
    let mut v: Vec<(&K, &u64)> = counts.iter().collect();
    v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut keep: Vec<K> = v
        .into_iter()
        .take(MAX_SERIES)
        .map(|(k, _)| k.clone())
        .collect();
    keep.sort();
    keep
}

/// Every timeline `events.csv` allows, by file stem.
pub fn figures(c: &Csv) -> Result<Vec<(String, Chart)>, PlotError> {
    let cols = Cols::of(c)?;
    let (tx, x_label) = time_axis(c, cols.t);
    let mut out = ports(c, &cols, tx, &x_label);
    out.extend(flows(c, &cols, tx, &x_label));
    Ok(out)
}

/// A timeline: lines over time, with markers for its events.
fn chart(
    title: String,
    x_label: &str,
    y_label: String,
    line: Vec<Series>,
    marks: Vec<Series>,
) -> Chart {
    Chart {
        marks,
        ..Chart::lines(title, x_label.to_string(), y_label, false, line)
    }
}

/// Marker series in name order, drops last (on top: a dropped packet's
/// retransmission sits at its sequence number and would hide it).
fn marks_drops_last(by: BTreeMap<String, Vec<Point>>) -> Vec<Series> {
    let mut v = series(by);
    v.sort_by_key(|s| s.name.contains("drop"));
    v
}

fn series(by: BTreeMap<String, Vec<Point>>) -> Vec<Series> {
    by.into_iter()
        .map(|(name, points)| Series { name, points })
        .collect()
}

fn ports(c: &Csv, k: &Cols, tx: Scale, x_label: &str) -> Vec<(String, Chart)> {
    let mut notable: BTreeMap<&str, u64> = BTreeMap::new();
    for r in &c.rows {
        let n = notable.entry(r[k.port].as_str()).or_default();
        *n += port_mark(&r[k.event], &r[k.detail]).is_some() as u64;
    }
    let mut out = Vec::new();
    for port in top(&notable) {
        let (mut queue, mut marks) = (Vec::new(), BTreeMap::<String, Vec<Point>>::new());
        let mut last = 0.0;
        for r in c.rows.iter().filter(|r| r[k.port] == port) {
            let Some(t) = Csv::num(r, k.t) else { continue };
            let q = Csv::num(r, k.queue);
            match port_mark(&r[k.event], &r[k.detail]) {
                None if matches!(r[k.event].as_str(), "enqueue" | "dequeue") => {
                    last = q.unwrap_or(last);
                    queue.push(point(tx.of(t), last));
                }
                None => {}
                Some(name) => {
                    last = q.unwrap_or(last);
                    marks.entry(name).or_default().push(point(tx.of(t), last));
                }
            }
        }
        let peak = queue
            .iter()
            .chain(marks.values().flatten())
            .map(|p| p.y)
            .fold(0.0, f64::max);
        let scale = units::bytes(peak);
        let mut line = vec![Series {
            name: "queue".into(),
            points: queue,
        }];
        let mut marks = marks_drops_last(marks);
        rescale(&mut line, scale, true);
        rescale(&mut marks, scale, true);
        let stem = format!("timeline_port_{}", crate::observe::safe_name(port));
        let title = format!(
            "Port {port}: queue over time and its events{}",
            c.thinned_note()
        );
        out.push((
            stem,
            chart(title, x_label, scale.label("queue"), line, marks),
        ));
    }
    out
}

/// Each flow's source (the node where its first data packet leaves), the
/// port its receiver's ACKs are drawn at, and its count of notable events
/// (retransmissions, drops, marks), by flow id.
struct FlowEnds<'a> {
    src: BTreeMap<u64, &'a str>,
    /// The (node, port) that logged the most of the flow's ACKs among the
    /// ports that carried none of its data: the receiver's ACKs, never the
    /// sender's own (its handshake's and FIN's, which leave by the port
    /// its data leaves by), whichever ports the log chose.
    acks_at: BTreeMap<u64, (&'a str, &'a str)>,
    notable: BTreeMap<u64, u64>,
}

/// [`FlowEnds`] of the logged events.
fn ends<'a>(c: &'a Csv, k: &Cols) -> FlowEnds<'a> {
    let mut src = BTreeMap::<u64, &str>::new();
    let mut notable: BTreeMap<u64, u64> = BTreeMap::new();
    let mut data_ports = std::collections::BTreeSet::<(u64, &str)>::new();
    let mut ack_counts = BTreeMap::<(u64, &str, &str), u64>::new();
    for r in &c.rows {
        let Some(f) = Csv::num(r, k.flow).map(|f| f as u64) else {
            continue;
        };
        let n = notable.entry(f).or_default();
        *n += matches!(r[k.event].as_str(), "retransmit" | "drop" | "mark") as u64;
        if r[k.event] != "dequeue" {
            continue;
        }
        match r[k.kind].as_str() {
            "data" => {
                src.entry(f).or_insert(r[k.node].as_str());
                data_ports.insert((f, r[k.port].as_str()));
            }
            "ack" => {
                *ack_counts
                    .entry((f, r[k.port].as_str(), r[k.node].as_str()))
                    .or_default() += 1
            }
            _ => {}
        }
    }
    let mut acks_at = BTreeMap::<u64, ((&str, &str), u64)>::new();
    for ((f, port, node), n) in ack_counts {
        if data_ports.contains(&(f, port)) {
            continue;
        }
        let best = acks_at.entry(f).or_insert(((node, port), n));
        if n > best.1 {
            *best = ((node, port), n);
        }
    }
    FlowEnds {
        src,
        acks_at: acks_at.into_iter().map(|(f, (at, _))| (f, at)).collect(),
        notable,
    }
}

fn flows(c: &Csv, k: &Cols, tx: Scale, x_label: &str) -> Vec<(String, Chart)> {
    let FlowEnds {
        src,
        acks_at,
        notable,
    } = ends(c, k);
    let mut out = Vec::new();
    for flow in top(&notable) {
        let Some(&from) = src.get(&flow) else {
            continue;
        };
        let acks_at = acks_at.get(&flow).copied();
        let mut lines = BTreeMap::<String, Vec<Point>>::new();
        let mut marks = BTreeMap::<String, Vec<Point>>::new();
        let mine = |r: &&Vec<String>| Csv::num(r, k.flow) == Some(flow as f64);
        for r in c.rows.iter().filter(mine) {
            let (Some(t), Some(seq)) = (Csv::num(r, k.t), Csv::num(r, k.seq)) else {
                continue;
            };
            let (event, kind, node) = (r[k.event].as_str(), r[k.kind].as_str(), r[k.node].as_str());
            let at = point(tx.of(t), seq);
            match (event, kind) {
                ("dequeue", "data") if node == from => lines
                    .entry(format!("data leaving {from}"))
                    .or_default()
                    .push(at),
                ("dequeue", "ack") if acks_at.is_some_and(|(_, p)| p == r[k.port]) => {
                    let acked = Csv::num(r, k.ack).unwrap_or(0.0);
                    let name = format!("ACKs leaving {node}");
                    lines.entry(name).or_default().push(point(tx.of(t), acked));
                }
                ("retransmit", _) => marks.entry("retransmission".into()).or_default().push(at),
                ("drop", "data") => marks.entry("data dropped".into()).or_default().push(at),
                ("mark", "data") => marks.entry("CE mark".into()).or_default().push(at),
                _ => {}
            }
        }
        let (mut line, mut marks) = (series(lines), marks_drops_last(marks));
        // TCP counts bytes, RoCE packets (PSNs): bytes where a step is a packet's payload.
        let sent = line
            .iter()
            .find(|s| s.name.starts_with("data"))
            .map_or(0, |s| s.points.len());
        let peak = line
            .iter()
            .chain(&marks)
            .flat_map(|s| &s.points)
            .map(|p| p.y)
            .fold(0.0, f64::max);
        let (scale, words) = if peak > 4.0 * sent as f64 {
            (units::bytes(peak), "sequence number")
        } else {
            (Scale::unit("PSN"), "sequence number")
        };
        rescale(&mut line, scale, true);
        rescale(&mut marks, scale, true);
        let title = format!("Flow {flow}: sequence over time{}", c.thinned_note());
        let stem = format!("timeline_flow_{flow}");
        out.push((stem, chart(title, x_label, scale.label(words), line, marks)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_eventful_keys_are_kept_in_order() {
        let counts: BTreeMap<u64, u64> = (0..20).map(|k| (k, k % 5)).collect();
        let kept = top(&counts);
        assert_eq!(kept.len(), MAX_SERIES);
        assert!(kept.windows(2).all(|w| w[0] < w[1]));
        assert!(kept.iter().all(|k| k % 5 >= 3), "{kept:?}");
    }

    fn events(rows: &[&str]) -> Csv {
        let dir = std::env::temp_dir().join(format!("dcnsim-timeline-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join(format!("events-{}.csv", rows.len()));
        let mut text = String::from(
            "time_us,event,node,port,flow,kind,seq,ack,bytes,ecn,queue_bytes,detail\n",
        );
        for r in rows {
            text.push_str(r);
            text.push('\n');
        }
        std::fs::write(&file, text).unwrap();
        Csv::read(&file).unwrap()
    }

    fn legend(c: &Csv) -> Vec<String> {
        let k = Cols::of(c).unwrap();
        let (tx, label) = time_axis(c, k.t);
        let charts = flows(c, &k, tx, &label);
        charts[0].1.series.iter().map(|s| s.name.clone()).collect()
    }

    /// The legend names only streams the log holds: the sender's own
    /// FIN ACK, which leaves by its data's port, is no "ACKs leaving";
    /// the receiver's ACKs logged at a switch port are, though the data
    /// was logged at another port of that switch.
    #[test]
    fn the_ack_stream_is_the_receivers_as_logged() {
        let sender_only = events(&[
            "1,dequeue,host1,host1->switch,0,data,1,1,1500,ect,0,",
            "2,dequeue,host1,host1->switch,0,data,1449,1,1500,ect,0,",
            "9,dequeue,host1,host1->switch,0,ack,2897,2,52,not-ect,0,",
        ]);
        assert_eq!(legend(&sender_only), ["data leaving host1"]);
        let at_one_switch = events(&[
            "1,dequeue,switch,switch->host0,0,data,1,1,1500,ect,0,",
            "2,dequeue,switch,switch->host1,0,ack,1,1449,52,not-ect,0,",
            "3,dequeue,switch,switch->host0,0,data,1449,1,1500,ect,0,",
            "4,dequeue,switch,switch->host1,0,ack,1,2897,52,not-ect,0,",
        ]);
        assert_eq!(
            legend(&at_one_switch),
            ["ACKs leaving switch", "data leaving switch"]
        );
    }

    #[test]
    fn drops_are_drawn_over_retransmissions() {
        let by: BTreeMap<String, Vec<Point>> = ["retransmission", "data dropped", "CE mark"]
            .iter()
            .map(|n| (n.to_string(), vec![point(1.0, 1.0)]))
            .collect();
        let names: Vec<String> = marks_drops_last(by).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["CE mark", "retransmission", "data dropped"]);
    }

    #[test]
    fn markers_name_marks_drops_and_pfc_frames() {
        assert_eq!(port_mark("enqueue", ""), None);
        assert_eq!(port_mark("mark", "").as_deref(), Some("CE mark"));
        assert_eq!(
            port_mark("drop", "overflow").as_deref(),
            Some("drop: overflow")
        );
        assert_eq!(
            port_mark("pause_received", "priority 3").as_deref(),
            Some("PAUSE received")
        );
        assert_eq!(
            port_mark("resume_sent", "priority 3").as_deref(),
            Some("RESUME sent")
        );
    }
}
