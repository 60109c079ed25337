//! A collective job's timeline, from `transfers.csv`: for its slowest
//! iteration (the longest from first start to last receipt), the steps
//! each rank has received over time on channel 0, one step line per rank
//! (`collective_timeline_<workload>`). A rank that waits shows as a flat
//! stretch; the slowest ring's laggard is the last line to reach the top.
//! The ranks drawn are the [`MAX_SERIES`] whose last receipt came latest;
//! the title says how many of how many, the legend names the last to
//! finish, and the time axis starts at the iteration's first transfer.

use super::PlotError;
use super::chart::{Chart, Point, Series, Style};
use super::data::Csv;
use super::run::{MAX_SERIES, rescale};
use crate::report::units;
use std::collections::BTreeMap;

/// One transfer's row: (iteration, dst rank, dst host, step, start, received).
type Row = (u64, u64, u64, u64, f64, Option<f64>);

/// A rank's (rank, host) and its receipts' times.
type Receipts = ((u64, u64), Vec<f64>);

/// A timeline per job.
pub fn figures(c: &Csv) -> Result<Vec<(String, Chart)>, PlotError> {
    let col = |n: &str| c.col(n);
    let (w, it, ch, step) = (
        col("workload")?,
        col("iteration")?,
        col("channel")?,
        col("step")?,
    );
    let (dst_rank, dst, start, rx) = (
        col("dst_rank")?,
        col("dst")?,
        col("start_us")?,
        col("received_us")?,
    );
    let mut jobs: BTreeMap<u64, Vec<Row>> = BTreeMap::new();
    for r in &c.rows {
        let num = |i: usize| Csv::num(r, i);
        let (Some(job), Some(0.0)) = (num(w), num(ch)) else {
            continue;
        };
        let (Some(i), Some(d), Some(h), Some(s), Some(t0)) =
            (num(it), num(dst_rank), num(dst), num(step), num(start))
        else {
            continue;
        };
        jobs.entry(job as u64).or_default().push((
            i as u64,
            d as u64,
            h as u64,
            s as u64,
            t0,
            num(rx),
        ));
    }
    Ok(jobs
        .into_iter()
        .filter_map(|(job, rows)| timeline(job, &rows))
        .collect())
}

/// The receipts of iteration `it`'s ranks (times since `from`, in order),
/// of the [`MAX_SERIES`] whose last receipt came latest, in rank order;
/// and how many ranks received in it.
fn latest_ranks(rows: &[Row], it: u64, from: f64) -> (Vec<Receipts>, usize) {
    let mut by_rank: BTreeMap<(u64, u64), Vec<f64>> = BTreeMap::new();
    for &(_, d, h, _, _, t1) in rows.iter().filter(|r| r.0 == it) {
        if let Some(t) = t1 {
            by_rank.entry((d, h)).or_default().push(t - from);
        }
    }
    let mut ranks: Vec<Receipts> = by_rank.into_iter().collect();
    for (_, v) in &mut ranks {
        v.sort_by(f64::total_cmp);
    }
    let all = ranks.len();
    ranks.sort_by(|a, b| {
        b.1.last()
            .unwrap_or(&0.0)
            .total_cmp(a.1.last().unwrap_or(&0.0))
    });
    ranks.truncate(MAX_SERIES);
    ranks.sort_by_key(|r| r.0);
    (ranks, all)
}

/// The timeline of one job's slowest iteration.
fn timeline(job: u64, rows: &[Row]) -> Option<(String, Chart)> {
    // Each iteration's span: first start to last receipt.
    let mut span: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    for &(i, _, _, _, t0, t1) in rows {
        let s = span.entry(i).or_insert((f64::MAX, 0.0));
        s.0 = s.0.min(t0);
        s.1 = s.1.max(t1.unwrap_or(f64::MAX));
    }
    let (&slowest, &(from, _)) = span
        .iter()
        .max_by(|a, b| (a.1.1 - a.1.0).total_cmp(&(b.1.1 - b.1.0)))?;
    let (ranks, all) = latest_ranks(rows, slowest, from);
    let last = ranks
        .iter()
        .max_by(|a, b| {
            a.1.last()
                .unwrap_or(&0.0)
                .total_cmp(b.1.last().unwrap_or(&0.0))
        })
        .map(|r| r.0);
    let mut series: Vec<Series> = ranks
        .iter()
        .map(|((rank, host), times)| Series {
            name: if last == Some((*rank, *host)) {
                format!("rank {rank} (host {host}), last")
            } else {
                format!("rank {rank} (host {host})")
            },
            points: (1..)
                .zip(times)
                .map(|(k, &t)| Point {
                    x: t,
                    y: k as f64,
                    err: None,
                })
                .collect(),
        })
        .collect();
    let max_t = series
        .iter()
        .flat_map(|s| &s.points)
        .map(|p| p.x)
        .fold(0.0, f64::max);
    let scale = units::time_us(max_t);
    rescale(&mut series, scale, false);
    let which = if ranks.len() == all {
        format!("all {all} ranks")
    } else {
        format!("the {} of {all} ranks that finished last", ranks.len())
    };
    let mut chart = Chart::lines(
        format!("Job {job}, iteration {slowest} (its slowest): receipts of {which}"),
        scale.label("time since the iteration's first transfer"),
        "transfers received (steps x pieces)".to_string(),
        false,
        series,
    );
    chart.style = Style::Steps;
    chart.x_range = Some((0.0, scale.of(max_t)));
    Some((format!("collective_timeline_{job}"), chart))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten ranks, rank r's receipts at 100 + r and 200 + 10 r µs after the
    /// iteration's first start: the timeline starts at that start, says
    /// which ranks it draws, and names the last to finish.
    #[test]
    fn the_timeline_starts_at_the_iteration_and_names_its_ranks() {
        let mut rows = vec![(0, 0, 0, 0, 5.0, Some(6.0))];
        for r in 0..10u64 {
            let rf = r as f64;
            rows.push((1, r, r, 0, 1000.0, Some(1100.0 + rf)));
            rows.push((1, r, r, 1, 1000.0, Some(1200.0 + 10.0 * rf)));
        }
        let (name, chart) = timeline(3, &rows).expect("a timeline");
        assert_eq!(name, "collective_timeline_3");
        assert!(
            chart.title.contains("iteration 1") && chart.title.contains("the 8 of 10 ranks"),
            "{}",
            chart.title
        );
        assert_eq!(chart.x_range.map(|r| r.0), Some(0.0));
        let last: Vec<&str> = chart
            .series
            .iter()
            .filter(|s| s.name.ends_with(", last"))
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(last, ["rank 9 (host 9), last"]);
    }
}
