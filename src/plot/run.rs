//! The figures of one run, from its folder's files: queue occupancy over
//! time (`queues.csv`), goodput over time (`goodput.csv`), the FCT CDF
//! (`flows.csv`), RTT over time (`rtt.csv`), the ping RTT CDF
//! (`pings.csv`), each traced flow's window and rate over time
//! (`cc.csv`), a collective job's steps over time (`transfers.csv`,
//! [`super::collective`]), and the timelines of ports and flows
//! (`events.csv`, [`super::timeline`]). A figure whose file is absent (its output was
//! off) is skipped.

use super::PlotError;
use super::bins;
use super::chart::{Chart, Point, Series, Style, XAxis};
use super::data::Csv;
use crate::report::units::{self, Scale};
use std::collections::{BTreeMap, BTreeSet};
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
    let transfers = Csv::read_if_present(&dir.join("transfers.csv"))?;
    if let Some(c) = Csv::read_if_present(&dir.join("flows.csv"))? {
        whole_flows(dir, &c)?;
        out.push(("fct_cdf".to_string(), fct_cdf(&c)?));
        let jobs = collective_workloads(transfers.as_ref())?;
        let by_size = slowdown_by_size(&c, &jobs)?;
        out.extend(by_size.map(|chart| ("slowdown_by_size".to_string(), chart)));
    }
    if let Some(c) = Csv::read_if_present(&dir.join("links.csv"))? {
        out.push(("link_utilisation".to_string(), link_utilisation(&c)?));
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
    if let Some(c) = &transfers {
        out.extend(super::collective::figures(c)?);
    }
    if let Some(c) = Csv::read_if_present(&dir.join("nodes.csv"))? {
        out.extend(super::trace::figures(&c)?);
    }
    if let Some(c) = Csv::read_if_present(&dir.join("events.csv"))? {
        out.extend(super::timeline::figures(&c)?);
    }
    Ok(out.into_iter().filter(|(_, c)| !c.is_empty()).collect())
}

/// `flows.csv` has a row for every flow `summary.json` counts: one cut
/// short at a line's end reads as a smaller run, so it is refused.
fn whole_flows(dir: &Path, c: &Csv) -> Result<(), PlotError> {
    let Ok(summary) = super::data::read_summary(dir) else {
        return Ok(()); // no summary to hold it against (its own error comes elsewhere)
    };
    let Some(total) = super::data::json_number(&summary, "flows.total") else {
        return Ok(());
    };
    if c.lines != total as u64 {
        let why = format!(
            "{} rows, but summary.json counts {total} flows: the file is truncated or edited",
            c.lines
        );
        return Err(PlotError::read(&c.file, why));
    }
    Ok(())
}

/// The scale and label of a time axis for column `t` of `c` (in us),
/// in the unit that suits its largest value.
pub(super) fn time_axis(c: &Csv, t: usize) -> (Scale, String) {
    let max_us = c
        .rows
        .iter()
        .filter_map(|r| Csv::num(r, t))
        .fold(0.0, f64::max);
    let s = units::time_us(max_us);
    (s, s.label("time"))
}

/// Rescales every point's y (`Some`) or x into `scale`'s unit.
pub(super) fn rescale(series: &mut [Series], scale: Scale, y: bool) {
    for p in series.iter_mut().flat_map(|s| s.points.iter_mut()) {
        if y {
            p.y = scale.of(p.y);
        } else {
            p.x = scale.of(p.x);
        }
    }
}

/// The largest |y| (or x) of the series.
fn max_of(series: &[Series], y: bool) -> f64 {
    series
        .iter()
        .flat_map(|s| &s.points)
        .map(|p| if y { p.y } else { p.x })
        .filter(|v| v.is_finite())
        .fold(0.0, |m, v| m.max(v.abs()))
}

/// Series keyed by name, points in file order.
type Lines = BTreeMap<String, Vec<Point>>;

pub(super) fn point(x: f64, y: f64) -> Point {
    Point { x, y, err: None }
}

/// Keeps the `MAX_SERIES` lines `rank` puts first (ties by name); the
/// title says how many there were.
fn keep_top(lines: Lines, rank: impl Fn(&[Point]) -> f64, what: &str) -> (Vec<Series>, String) {
    let total = lines.len();
    let mut v: Vec<(String, Vec<Point>)> = lines.into_iter().collect();
    v.sort_by(|a, b| rank(&b.1).total_cmp(&rank(&a.1)).then(a.0.cmp(&b.0)));
    v.truncate(MAX_SERIES);
    // The legend in name order, which a reader scans (flow 2 before flow 10).
    v.sort_by(|a, b| natural(&a.0).cmp(&natural(&b.0)));
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

/// A name's sort key: its text, then its trailing number as a number.
fn natural(name: &str) -> (&str, u64, &str) {
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
    (stem, name[stem.len()..].parse().unwrap_or(0), name)
}

fn peak(points: &[Point]) -> f64 {
    points.iter().map(|p| p.y).fold(0.0, f64::max)
}

/// Queue occupancy (bytes, in the unit the peak needs) of each sampled
/// class queue and VIQ; the `MAX_SERIES` with the highest peaks. Bytes, not
/// packets: a queue of ACKs and one of full frames differ 25-fold.
fn queues(c: &Csv) -> Result<Chart, PlotError> {
    let (t, port_name, class, bytes) = (
        c.col("time_us")?,
        c.col("name")?,
        c.col("class")?,
        c.col("bytes")?,
    );
    let (tx, x_label) = time_axis(c, t);
    let classes: std::collections::BTreeSet<&str> =
        c.rows.iter().map(|r| r[class].as_str()).collect();
    let mut lines = Lines::new();
    for r in &c.rows {
        let (Some(x), Some(y)) = (Csv::num(r, t), Csv::num(r, bytes)) else {
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
        lines.entry(name).or_default().push(point(tx.of(x), y));
    }
    // Queues that stayed empty say nothing: they are counted, not drawn.
    let total = lines.len();
    if lines.values().any(|p| peak(p) > 0.0) {
        lines.retain(|_, p| peak(p) > 0.0);
    }
    let (mut series, mut note) = keep_top(lines, peak, "queues, by peak");
    if series.len() < total && note.is_empty() {
        note = format!(
            " ({} of {total} queues; the rest stayed empty)",
            series.len()
        );
    } else if series.len() < total {
        note = format!(" ({} of {total} queues, by peak)", series.len());
    }
    let scale = units::bytes(max_of(&series, true));
    rescale(&mut series, scale, true);
    // A queue under incast spans decades between its standing level and its peak.
    let y_log = super::chart::spans_decades(series.iter().flat_map(|s| &s.points).map(|p| p.y));
    Ok(Chart::lines(
        format!("Queue occupancy{note}{}", c.thinned_note()),
        x_label,
        scale.label("queue"),
        y_log,
        series,
    ))
}

/// Aggregate goodput, each workload's (when `goodput.csv` has them: two
/// jobs side by side), and that of the flows that carried the most bytes,
/// [`MAX_SERIES`] lines in all.
fn goodput(c: &Csv) -> Result<Chart, PlotError> {
    let (t, flow, gbps) = (c.col("time_us")?, c.col("flow")?, c.col("gbps")?);
    let (tx, x_label) = time_axis(c, t);
    let mut all = Vec::new();
    let mut workloads: BTreeMap<u64, Vec<Point>> = BTreeMap::new();
    let mut flows: BTreeMap<u64, Vec<Point>> = BTreeMap::new();
    for r in &c.rows {
        let (Some(x), Some(y)) = (Csv::num(r, t), Csv::num(r, gbps)) else {
            continue;
        };
        let at = point(tx.of(x), y);
        if let Some(w) = r[flow].strip_prefix("workload ") {
            if let Ok(w) = w.parse::<u64>() {
                workloads.entry(w).or_default().push(at);
            }
        } else if let Ok(id) = r[flow].parse::<u64>() {
            flows.entry(id).or_default().push(at);
        } else {
            all.push(at);
        }
    }
    let total = flows.len();
    let mut series = vec![Series {
        name: "all flows".into(),
        points: all,
    }];
    series.extend(workloads.into_iter().map(|(w, points)| Series {
        name: format!("workload {w}"),
        points,
    }));
    let room = MAX_SERIES.saturating_sub(series.len());
    // The flows that carried the most bytes (the sum of their intervals'
    // goodput), ties by id: the first ids of a workload are often its
    // smallest flows.
    let mut ranked: Vec<(u64, Vec<Point>)> = flows.into_iter().collect();
    let carried = |p: &[Point]| p.iter().map(|q| q.y).sum::<f64>();
    ranked.sort_by(|a, b| carried(&b.1).total_cmp(&carried(&a.1)).then(a.0.cmp(&b.0)));
    ranked.truncate(room);
    ranked.sort_by_key(|r| r.0);
    let shown = ranked.len();
    series.extend(ranked.into_iter().map(|(id, points)| Series {
        name: format!("flow {id}"),
        points,
    }));
    let note = if total > shown && shown > 0 {
        format!(" (the {shown} flows of {total} that carried the most)")
    } else {
        String::new()
    };
    Ok(Chart::lines(
        format!("Goodput{note}{}", c.thinned_note()),
        x_label,
        "goodput (Gb/s)".into(),
        false,
        series,
    ))
}

/// Each tier's link utilisation over time, in percent, a line per tier
/// in the order `links.csv` gives them (host links first).
fn link_utilisation(c: &Csv) -> Result<Chart, PlotError> {
    let (t, tier, u) = (c.col("time_us")?, c.col("tier")?, c.col("utilisation")?);
    let (tx, x_label) = time_axis(c, t);
    let mut order: Vec<String> = Vec::new();
    let mut lines: BTreeMap<String, Vec<Point>> = BTreeMap::new();
    for r in &c.rows {
        let (Some(x), Some(y)) = (Csv::num(r, t), Csv::num(r, u)) else {
            continue;
        };
        if !lines.contains_key(&r[tier]) {
            order.push(r[tier].clone());
        }
        lines
            .entry(r[tier].clone())
            .or_default()
            .push(point(tx.of(x), 100.0 * y));
    }
    let series = order
        .into_iter()
        .map(|name| Series {
            points: lines.remove(&name).unwrap_or_default(),
            name,
        })
        .collect();
    Ok(Chart::lines(
        format!("Link utilisation by tier{}", c.thinned_note()),
        x_label,
        "utilisation (%)".into(),
        false,
        series,
    ))
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
    let mut series = cdf_lines(by, "workload");
    let scale = units::time_us(max_of(&series, false));
    rescale(&mut series, scale, false);
    let note = if unfinished > 0 {
        format!(" ({unfinished} unfinished, not shown)")
    } else {
        String::new()
    };
    Ok(Chart {
        title: format!("FCT CDF{note}{}", c.thinned_note()),
        x: XAxis::Numeric {
            label: scale.label("flow completion time"),
            log: super::chart::spans_decades(series.iter().flat_map(|s| &s.points).map(|p| p.x)),
        },
        y_label: "fraction of flows".into(),
        y_log: false,
        style: Style::Steps,
        series,
        x_range: None,
        y_range: None,
        marks: Vec::new(),
        references: Vec::new(),
    })
}

/// The workloads (as `flows.csv` writes them) that are collective jobs:
/// those `transfers.csv` lists.
fn collective_workloads(transfers: Option<&Csv>) -> Result<BTreeSet<String>, PlotError> {
    let Some(t) = transfers else {
        return Ok(BTreeSet::new());
    };
    let w = t.col("workload")?;
    Ok(t.rows.iter().map(|r| r[w].clone()).collect())
}

/// The median and 99th-percentile FCT slowdown of completed flows of
/// known size against flow-size percentile bins, each bin's count of flows
/// under it (the figure of HPCC, Homa and pFabric). A collective job's
/// transfers (workloads in `jobs`) are left out: their sizes are the
/// job's pieces, not a distribution (two jobs drew a two-bin "trend").
/// None when the flows left fall in one bin (an incast of equal flows):
/// one point is no figure.
fn slowdown_by_size(c: &Csv, jobs: &BTreeSet<String>) -> Result<Option<Chart>, PlotError> {
    let (size, sd, w) = (c.col("size_bytes")?, c.col("slowdown")?, c.col("workload")?);
    let flows: Vec<(u64, f64)> = c
        .rows
        .iter()
        .filter(|r| !jobs.contains(&r[w]))
        .filter_map(|r| Some((r[size].parse().ok().filter(|b| *b > 0)?, Csv::num(r, sd)?)))
        .collect();
    let sizes: Vec<u64> = flows.iter().map(|f| f.0).collect();
    let bin_list = bins::percentile_bins(&sizes, bins::BINS);
    if bin_list.len() < 2 {
        return Ok(None);
    }
    let mut series = Vec::new();
    let mut counts = Vec::new();
    for (name, q) in [("p50", 0.5), ("p99", 0.99)] {
        let (points, n) = bins::quantile_by_bin(&bin_list, &flows, q);
        counts = n;
        series.push(Series {
            name: name.into(),
            points,
        });
    }
    let y_log = super::chart::spans_decades(series.iter().flat_map(|s| &s.points).map(|p| p.y));
    Ok(Some(Chart {
        title: format!("FCT slowdown by flow size{}", c.thinned_note()),
        x: XAxis::Categories {
            label: "flow size in bytes (bins of equal count, upper ends)".into(),
            names: bin_list.iter().map(bins::Bin::label).collect(),
            notes: counts.iter().map(|n| format!("n={n}")).collect(),
        },
        y_label: "FCT slowdown".into(),
        y_log,
        style: Style::Markers,
        series,
        x_range: None,
        y_range: None,
        marks: Vec::new(),
        references: Vec::new(),
    }))
}

/// Each workload's median and 99th-percentile RTT per interval.
fn rtt(c: &Csv) -> Result<Chart, PlotError> {
    let (t, w, p50, p99) = (
        c.col("time_us")?,
        c.col("workload")?,
        c.col("p50_us")?,
        c.col("p99_us")?,
    );
    let (tx, x_label) = time_axis(c, t);
    let mut lines = Lines::new();
    for r in &c.rows {
        let Some(x) = Csv::num(r, t) else { continue };
        for (col, stat) in [(p50, "p50"), (p99, "p99")] {
            if let Some(y) = Csv::num(r, col) {
                let name = format!("workload {} {stat}", r[w]);
                lines.entry(name).or_default().push(point(tx.of(x), y));
            }
        }
    }
    let (mut series, note) = keep_top(lines, |_| 0.0, "lines");
    let scale = units::time_us(max_of(&series, true));
    rescale(&mut series, scale, true);
    let y_log = super::chart::spans_decades(series.iter().flat_map(|s| &s.points).map(|p| p.y));
    Ok(Chart::lines(
        format!("RTT per interval{note}{}", c.thinned_note()),
        x_label,
        scale.label("RTT"),
        y_log,
        series,
    ))
}

/// The window variable of `cc.csv` (its column `var`): `window_bytes`
/// where a controller sets one, else TCP's `cwnd_bytes`; `None` if
/// neither was traced.
pub(crate) fn window_variable(c: &Csv, var: usize) -> Option<&'static str> {
    ["window_bytes", "cwnd_bytes"]
        .into_iter()
        .find(|name| c.rows.iter().any(|r| r[var] == *name))
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
    let (tx, x_label) = time_axis(c, t);
    let has = |name: &str| c.rows.iter().any(|r| r[var] == name);
    let window = window_variable(c, var);
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
                let name = format!("flow {}", r[flow]);
                lines.entry(name).or_default().push(point(tx.of(x), y));
            }
        }
        let (mut series, note) = keep_top(lines, |_| 0.0, "traced flows");
        // Windows in the byte unit the largest needs.
        let (scale, words) = match variable {
            "rate_gbps" => (units::rate_gbps(peak_y), "rate"),
            _ => (units::bytes(peak_y), "window"),
        };
        rescale(&mut series, scale, true);
        out.push((
            stem.to_string(),
            Chart::lines(
                format!("{title} per traced flow{note}{}", c.thinned_note()),
                x_label.clone(),
                scale.label(words),
                // Windows and rates that span two decades (an incast's
                // shares beside a long flow's) read on a log axis.
                peak_y > 100.0 * least_y,
                series,
            ),
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
    let mut series = cdf_lines(by, "ping");
    let scale = units::time_us(max_of(&series, false));
    rescale(&mut series, scale, false);
    let note = if lost > 0 {
        format!(" ({lost} lost)")
    } else {
        String::new()
    };
    let log = super::chart::spans_decades(series.iter().flat_map(|s| &s.points).map(|p| p.x));
    Ok(Chart {
        title: format!("Ping RTT CDF{note}"),
        x: XAxis::Numeric {
            label: scale.label("RTT"),
            log,
        },
        y_label: "fraction of probes".into(),
        y_log: false,
        style: Style::Steps,
        series,
        x_range: None,
        y_range: None,
        marks: Vec::new(),
        references: Vec::new(),
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
