//! A trace job's timeline, from `nodes.csv` (`trace_timeline_<workload>`):
//! for its slowest iteration (the longest from its first rank's start to
//! its last rank's end), one row per rank, with a bar for each compute
//! node and each communication node over time. Where a rank's compute
//! and communication bars stand one above the other, communication is
//! hidden behind compute; where a communication bar stands alone, it is
//! exposed. Up to [`MAX_RANKS`] ranks are drawn, those whose iteration
//! ended last; the title says how many of how many.

use super::PlotError;
use super::chart::{Chart, Point, Series, Style};
use super::data::Csv;
use super::run::rescale;
use crate::report::units;
use std::collections::BTreeMap;

/// The most ranks one timeline draws (a row each).
pub const MAX_RANKS: usize = 32;

/// The bands of a row, in drawing order: (kind in `nodes.csv`, legend).
const BANDS: [(&str, &str); 3] = [
    ("compute", "GPU compute"),
    ("cpu", "CPU compute"),
    ("comm", "communication"),
];

/// One node's row: (iteration, rank, host, band, start, end).
type Row = (u64, u64, u64, usize, f64, f64);

/// A timeline per trace job.
pub fn figures(c: &Csv) -> Result<Vec<(String, Chart)>, PlotError> {
    let col = |n: &str| c.col(n);
    let (w, it, rank, host) = (
        col("workload")?,
        col("iteration")?,
        col("rank")?,
        col("host")?,
    );
    let (kind, start, end) = (col("kind")?, col("start_us")?, col("end_us")?);
    let mut jobs: BTreeMap<u64, Vec<Row>> = BTreeMap::new();
    for r in &c.rows {
        let num = |i: usize| Csv::num(r, i);
        let band = match r.get(kind).map(String::as_str) {
            Some("compute") => 0,
            Some("cpu") => 1,
            Some("collective" | "send" | "recv") => 2,
            _ => continue,
        };
        let (Some(job), Some(i), Some(k), Some(h), Some(a), Some(b)) =
            (num(w), num(it), num(rank), num(host), num(start), num(end))
        else {
            continue;
        };
        let row = (i as u64, k as u64, h as u64, band, a, b);
        jobs.entry(job as u64).or_default().push(row);
    }
    Ok(jobs
        .into_iter()
        .filter_map(|(job, rows)| timeline(job, &rows))
        .collect())
}

/// The timeline of one job's slowest iteration.
fn timeline(job: u64, rows: &[Row]) -> Option<(String, Chart)> {
    let mut span: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    for &(i, _, _, _, a, b) in rows {
        let s = span.entry(i).or_insert((f64::MAX, f64::MIN));
        *s = (s.0.min(a), s.1.max(b));
    }
    let (&slowest, &(from, to)) = span
        .iter()
        .max_by(|a, b| (a.1.1 - a.1.0).total_cmp(&(b.1.1 - b.1.0)))?;
    // The ranks whose iteration ended last, drawn in rank order.
    let mut last: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    for &(_, k, h, _, _, b) in rows.iter().filter(|r| r.0 == slowest) {
        let e = last.entry((k, h)).or_insert(f64::MIN);
        *e = e.max(b);
    }
    let all = last.len();
    let mut ranks: Vec<((u64, u64), f64)> = last.into_iter().collect();
    ranks.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranks.truncate(MAX_RANKS);
    let mut shown: Vec<(u64, u64)> = ranks.into_iter().map(|r| r.0).collect();
    shown.sort_unstable();
    let row_of: BTreeMap<(u64, u64), usize> =
        (shown.iter().enumerate()).map(|(i, &k)| (k, i)).collect();
    let mut series: Vec<Series> = Vec::new();
    for (band, (_, name)) in BANDS.iter().enumerate() {
        let mut points = Vec::new();
        for &(_, k, h, _, t0, t1) in rows.iter().filter(|r| r.0 == slowest && r.3 == band) {
            if let Some(&y) = row_of.get(&(k, h)) {
                for x in [t0 - from, t1 - from] {
                    points.push(Point {
                        x,
                        y: y as f64,
                        err: None,
                    });
                }
            }
        }
        if !points.is_empty() {
            series.push(Series {
                name: name.to_string(),
                points,
            });
        }
    }
    if series.is_empty() {
        return None;
    }
    let scale = units::time_us(to - from);
    rescale(&mut series, scale, false);
    let which = if shown.len() == all {
        format!("all {all} ranks")
    } else {
        format!("the {} of {all} ranks that ended last", shown.len())
    };
    let y_label = if shown.len() == all {
        "rank".to_string()
    } else {
        "row (the ranks drawn, in rank order)".to_string()
    };
    let mut chart = Chart::lines(
        format!("Job {job}, iteration {slowest} (its slowest): what {which} did"),
        scale.label("time since the iteration's start"),
        y_label,
        false,
        series,
    );
    chart.style = Style::Spans;
    chart.x_range = Some((0.0, scale.of(to - from)));
    Some((format!("trace_timeline_{job}"), chart))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two ranks, compute then communication beside more compute: the
    /// slowest iteration is drawn from its start, a band per kind present.
    #[test]
    fn the_timeline_draws_each_kind_in_its_band_from_the_iteration_start() {
        let rows = vec![
            (0, 0, 0, 0, 0.0, 10.0),
            (1, 0, 0, 0, 100.0, 150.0),
            (1, 0, 0, 2, 150.0, 300.0),
            (1, 0, 0, 0, 150.0, 200.0),
            (1, 1, 4, 0, 100.0, 160.0),
            (1, 1, 4, 2, 160.0, 320.0),
        ];
        let (name, chart) = timeline(7, &rows).expect("a timeline");
        assert_eq!(name, "trace_timeline_7");
        assert!(chart.title.contains("iteration 1") && chart.title.contains("all 2 ranks"));
        assert_eq!(chart.style, Style::Spans);
        let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["GPU compute", "communication"]);
        // Pairs of points from the iteration's start, rank 1 on row 1.
        let comm = &chart.series[1].points;
        assert_eq!(comm.len(), 4);
        assert_eq!((comm[0].x, comm[1].x, comm[2].y), (50.0, 200.0, 1.0));
    }
}
