//! The figures of one run, from its folder's files: queue occupancy over
//! time (`queues.csv`), goodput over time (`goodput.csv`), the FCT CDF
//! (`flows.csv`), RTT over time (`rtt.csv`), the ping RTT CDF
//! (`pings.csv`), and each traced flow's window and rate over time
//! (`cc.csv`). A figure whose file is absent (its output was off) is
//! skipped.

use super::PlotError;
use super::chart::{Chart, Point, Series, Style, XAxis};
use super::data::Csv;
use std::collections::BTreeMap;
use std::path::Path;

/// The most lines a figure draws; the rest are named in its title.
pub const MAX_SERIES: usize = 8;
/// The most points a CDF line has (quantiles of larger samples).
const CDF_POINTS: usize = 2000;

/// Every figure a run's files allow, by file stem.
pub fn figures(dir: &Path) -> Result<Vec<(String, Chart)>, PlotError> {
    let mut out = Vec::new();
    if let Some(c) = Csv::read_if_present(&dir.join("queues.csv"))? {
        out.push(("queues".to_string(), queues(&c)?));
    }
    if let Some(c) = Csv::read_if_present(&dir.join("goodput.csv"))? {
        out.push(("goodput".to_string(), goodput(&c)?));
    }
    if let Some(c) = Csv::read_if_present(&dir.join("flows.csv"))? {
        out.push(("fct_cdf".to_string(), fct_cdf(&c)?));
    }
    if let Some(c) = Csv::read_if_present(&dir.join("rtt.csv"))? {
        out.push(("rtt".to_string(), rtt(&c)?));
    }
    if let Some(c) = Csv::read_if_present(&dir.join("pings.csv"))? {
        out.push(("ping_rtt_cdf".to_string(), ping_cdf(&c)?));
    }
    if let Some(c) = Csv::read_if_present(&dir.join("cc.csv"))? {
        out.extend(cc_figures(&c)?);
    }
    Ok(out.into_iter().filter(|(_, c)| !c.is_empty()).collect())
}

/// Time in the unit that suits the span: (divisor from us, label).
fn time_unit(max_us: f64) -> (f64, &'static str) {
    if max_us >= 2_000_000.0 {
        (1e6, "time (s)")
    } else if max_us >= 2_000.0 {
        (1e3, "time (ms)")
    } else {
        (1.0, "time (us)")
    }
}

/// The divisor and label of a time axis for column `t` of `c` (in us),
/// in the unit that suits its largest value.
fn time_axis(c: &Csv, t: usize) -> (f64, &'static str) {
    let max_us = c
        .rows
        .iter()
        .filter_map(|r| Csv::num(r, t))
        .fold(0.0, f64::max);
    time_unit(max_us)
}

/// Series keyed by name, points in file order.
type Lines = BTreeMap<String, Vec<Point>>;

fn point(x: f64, y: f64) -> Point {
    Point { x, y, err: None }
}

/// Keeps the `MAX_SERIES` lines `rank` puts first (ties by name); the
/// title says how many there were.
fn keep_top(lines: Lines, rank: impl Fn(&[Point]) -> f64, what: &str) -> (Vec<Series>, String) {
    let total = lines.len();
    let mut v: Vec<(String, Vec<Point>)> = lines.into_iter().collect();
    v.sort_by(|a, b| rank(&b.1).total_cmp(&rank(&a.1)).then(a.0.cmp(&b.0)));
    v.truncate(MAX_SERIES);
    let note = if total > MAX_SERIES {
        format!(" ({MAX_SERIES} of {total} {what})")
    } else {
        String::new()
    };
    let series = v
        .into_iter()
        .map(|(name, points)| Series { name, points })
        .collect();
    (series, note)
}

fn peak(points: &[Point]) -> f64 {
    points.iter().map(|p| p.y).fold(0.0, f64::max)
}

/// Queue occupancy (packets) of each sampled class queue and VIQ; the
/// `MAX_SERIES` with the highest peaks.
fn queues(c: &Csv) -> Result<Chart, PlotError> {
    let (t, port_name, class, packets) = (
        c.col("time_us")?,
        c.col("name")?,
        c.col("class")?,
        c.col("packets")?,
    );
    let (div, x_label) = time_axis(c, t);
    let classes: std::collections::BTreeSet<&str> =
        c.rows.iter().map(|r| r[class].as_str()).collect();
    let mut lines = Lines::new();
    for r in &c.rows {
        let (Some(x), Some(y)) = (Csv::num(r, t), Csv::num(r, packets)) else {
            continue;
        };
        let mut name = r[port_name].clone();
        if classes.len() > 1 || r[class] == "viq" {
            name = format!(
                "{name} {}",
                if r[class] == "viq" {
                    "VIQ".into()
                } else {
                    format!("class {}", r[class])
                }
            );
        }
        lines.entry(name).or_default().push(point(x / div, y));
    }
    let (series, note) = keep_top(lines, peak, "queues, by peak");
    Ok(Chart {
        title: format!("Queue occupancy{note}{}", c.thinned_note()),
        x: XAxis::Numeric {
            label: x_label.into(),
            log: false,
        },
        y_label: "queue (packets)".into(),
        y_log: false,
        style: Style::Line,
        series,
    })
}

/// Aggregate goodput and that of the `MAX_SERIES - 1` flows that carried
/// the most bytes.
fn goodput(c: &Csv) -> Result<Chart, PlotError> {
    let (t, flow, gbps) = (c.col("time_us")?, c.col("flow")?, c.col("gbps")?);
    let (div, x_label) = time_axis(c, t);
    let mut all = Vec::new();
    let mut flows: BTreeMap<u64, Vec<Point>> = BTreeMap::new();
    for r in &c.rows {
        let (Some(x), Some(y)) = (Csv::num(r, t), Csv::num(r, gbps)) else {
            continue;
        };
        match r[flow].parse::<u64>() {
            Ok(id) => flows.entry(id).or_default().push(point(x / div, y)),
            Err(_) => all.push(point(x / div, y)),
        }
    }
    let total = flows.len();
    // The flows that carried the most bytes (the sum of their intervals'
    // goodput), ties by id: the first ids of a workload are often its
    // smallest flows.
    let mut ranked: Vec<(u64, Vec<Point>)> = flows.into_iter().collect();
    let carried = |p: &[Point]| p.iter().map(|q| q.y).sum::<f64>();
    ranked.sort_by(|a, b| carried(&b.1).total_cmp(&carried(&a.1)).then(a.0.cmp(&b.0)));
    ranked.truncate(MAX_SERIES - 1);
    ranked.sort_by_key(|r| r.0);
    let mut series = vec![Series {
        name: "all flows".into(),
        points: all,
    }];
    series.extend(ranked.into_iter().map(|(id, points)| Series {
        name: format!("flow {id}"),
        points,
    }));
    let note = if total > MAX_SERIES - 1 {
        format!(
            " (the {} flows of {total} that carried the most)",
            MAX_SERIES - 1
        )
    } else {
        String::new()
    };
    Ok(Chart {
        title: format!("Goodput{note}{}", c.thinned_note()),
        x: XAxis::Numeric {
            label: x_label.into(),
            log: false,
        },
        y_label: "goodput (Gb/s)".into(),
        y_log: false,
        style: Style::Line,
        series,
    })
}

/// An empirical CDF of `values` (sorted here), at most `CDF_POINTS` points.
pub fn cdf(mut values: Vec<f64>) -> Vec<Point> {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let step = n.div_ceil(CDF_POINTS).max(1);
    let mut points: Vec<Point> = (0..n)
        .step_by(step)
        .map(|i| point(values[i], (i + 1) as f64 / n as f64))
        .collect();
    if n > 0 && !(n - 1).is_multiple_of(step) {
        points.push(point(values[n - 1], 1.0));
    }
    points
}

/// A CDF line per group, named `PREFIX KEY` when there are several.
fn cdf_lines(by: BTreeMap<u64, Vec<f64>>, prefix: &str) -> Vec<Series> {
    let several = by.len() > 1;
    by.into_iter()
        .map(|(key, v)| Series {
            name: if several {
                format!("{prefix} {key}")
            } else {
                String::new()
            },
            points: cdf(v),
        })
        .collect()
}

/// The CDF of completed flows' FCTs, a line per workload.
fn fct_cdf(c: &Csv) -> Result<Chart, PlotError> {
    let (w, fct) = (c.col("workload")?, c.col("fct_us")?);
    let mut by: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    let mut unfinished = 0;
    for r in &c.rows {
        let wl = r[w].parse::<u64>().unwrap_or(0);
        match Csv::num(r, fct) {
            Some(x) => by.entry(wl).or_default().push(x),
            None => unfinished += 1,
        }
    }
    let series = cdf_lines(by, "workload");
    let note = if unfinished > 0 {
        format!(" ({unfinished} unfinished, not shown)")
    } else {
        String::new()
    };
    Ok(Chart {
        title: format!("FCT CDF{note}{}", c.thinned_note()),
        x: XAxis::Numeric {
            label: "flow completion time (us)".into(),
            log: true,
        },
        y_label: "fraction of flows".into(),
        y_log: false,
        style: Style::Line,
        series,
    })
}

/// Each workload's median and 99th-percentile RTT per interval.
fn rtt(c: &Csv) -> Result<Chart, PlotError> {
    let (t, w, p50, p99) = (
        c.col("time_us")?,
        c.col("workload")?,
        c.col("p50_us")?,
        c.col("p99_us")?,
    );
    let (div, x_label) = time_axis(c, t);
    let mut lines = Lines::new();
    for r in &c.rows {
        let Some(x) = Csv::num(r, t) else { continue };
        for (col, stat) in [(p50, "p50"), (p99, "p99")] {
            if let Some(y) = Csv::num(r, col) {
                let name = format!("workload {} {stat}", r[w]);
                lines.entry(name).or_default().push(point(x / div, y));
            }
        }
    }
    let (series, note) = keep_top(lines, |_| 0.0, "lines");
    let y_log = super::chart::spans_decades(series.iter().flat_map(|s| &s.points).map(|p| p.y));
    Ok(Chart {
        title: format!("RTT per interval{note}{}", c.thinned_note()),
        x: XAxis::Numeric {
            label: x_label.into(),
            log: false,
        },
        y_label: "RTT (us)".into(),
        y_log,
        style: Style::Line,
        series,
    })
}

/// From `cc.csv`: each traced flow's window over time (`window_bytes`,
/// else TCP's `cwnd_bytes`) and, where the controller sets a rate, its
/// rate over time.
fn cc_figures(c: &Csv) -> Result<Vec<(String, Chart)>, PlotError> {
    let (t, flow, var, value) = (
        c.col("time_us")?,
        c.col("flow")?,
        c.col("variable")?,
        c.col("value")?,
    );
    let (div, x_label) = time_axis(c, t);
    let has = |name: &str| c.rows.iter().any(|r| r[var] == name);
    let window = if has("window_bytes") {
        Some("window_bytes")
    } else if has("cwnd_bytes") {
        Some("cwnd_bytes")
    } else {
        None
    };
    let mut out = Vec::new();
    for (stem, variable, title) in [
        ("cc_window", window, "Congestion window"),
        (
            "cc_rate",
            has("rate_gbps").then_some("rate_gbps"),
            "Sending rate",
        ),
    ] {
        let Some(variable) = variable else { continue };
        let mut lines = Lines::new();
        let (mut peak_y, mut least_y): (f64, f64) = (0.0, f64::INFINITY);
        for r in c.rows.iter().filter(|r| r[var] == variable) {
            if let (Some(x), Some(y)) = (Csv::num(r, t), Csv::num(r, value)) {
                peak_y = peak_y.max(y);
                if y > 0.0 {
                    least_y = least_y.min(y);
                }
                let name = format!("flow {:>4}", r[flow]);
                lines.entry(name).or_default().push(point(x / div, y));
            }
        }
        // Windows in KB or MB, as the largest needs.
        let (scale, y_label) = match variable {
            "rate_gbps" => (1.0, "rate (Gb/s)"),
            _ if peak_y >= 2e6 => (1e6, "window (MB)"),
            _ => (1e3, "window (KB)"),
        };
        for points in lines.values_mut() {
            for p in points.iter_mut() {
                p.y /= scale;
            }
        }
        let (series, note) = keep_top(lines, |_| 0.0, "traced flows");
        out.push((
            stem.to_string(),
            Chart {
                title: format!("{title} per traced flow{note}{}", c.thinned_note()),
                x: XAxis::Numeric {
                    label: x_label.into(),
                    log: false,
                },
                y_label: y_label.into(),
                // Windows and rates that span two decades (an incast's
                // shares beside a long flow's) read on a log axis.
                y_log: peak_y > 100.0 * least_y,
                style: Style::Line,
                series,
            },
        ));
    }
    Ok(out)
}

/// The CDF of ping RTTs, a line per ping source.
fn ping_cdf(c: &Csv) -> Result<Chart, PlotError> {
    let (src, rtt) = (c.col("source")?, c.col("rtt_us")?);
    let mut by: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    let mut lost = 0;
    for r in &c.rows {
        match Csv::num(r, rtt) {
            Some(x) => by.entry(r[src].parse().unwrap_or(0)).or_default().push(x),
            None => lost += 1,
        }
    }
    let series = cdf_lines(by, "ping");
    let note = if lost > 0 {
        format!(" ({lost} lost)")
    } else {
        String::new()
    };
    let log = super::chart::spans_decades(series.iter().flat_map(|s| &s.points).map(|p| p.x));
    Ok(Chart {
        title: format!("Ping RTT CDF{note}"),
        x: XAxis::Numeric {
            label: "RTT (us)".into(),
            log,
        },
        y_label: "fraction of probes".into(),
        y_log: false,
        style: Style::Line,
        series,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cdf_ends_at_one_and_thins_large_samples() {
        let p = cdf(vec![3.0, 1.0, 2.0]);
        assert_eq!(
            p.iter().map(|p| (p.x, p.y)).collect::<Vec<_>>(),
            vec![(1.0, 1.0 / 3.0), (2.0, 2.0 / 3.0), (3.0, 1.0)]
        );
        let big = cdf((0..100_001).map(f64::from).collect());
        assert!(big.len() <= CDF_POINTS + 1);
        assert_eq!(big.last().map(|p| (p.x, p.y)), Some((100_000.0, 1.0)));
    }
}
