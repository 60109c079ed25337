//! `kind = "over-time"`: one time series from several runs of a sweep in
//! one figure, a line per series (case, or a value of the `series` axis):
//! DCQCN's rate beside HPCC's, a port's queue per case, goodput per case.
//!
//! Each line is one run's, the split's run of that series with the lowest
//! seed (a time series is not averaged over seeds; the title names the
//! seed). What each `y` reads:
//!
//! | `y` | file | the line |
//! |---|---|---|
//! | `queue` | `queues.csv` | the bytes queued at port `port` (its classes summed; default: the port with the highest peak over the split's runs) |
//! | `goodput` | `goodput.csv` | the aggregate goodput |
//! | `cc_rate` | `cc.csv` | traced flow `flow`'s rate (default: the lowest traced flow) |
//! | `cc_window` | `cc.csv` | traced flow `flow`'s window (`window_bytes`, else TCP's `cwnd_bytes`) |

use super::PlotError;
use super::chart::{Chart, Point, Series};
use super::data::{Csv, SweepResults};
use super::spec::PlotSpec;
use super::sweep::{Figure, Keys, check_splits, group, keys, split_name, titled};
use crate::report::units;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The time series `y` may name, each with the file it reads and the
/// `[output]` key that writes that file.
pub const SERIES: &[(&str, &str, &str)] = &[
    ("queue", "queues.csv", "output.queue_interval"),
    ("goodput", "goodput.csv", "output.goodput_interval"),
    ("cc_rate", "cc.csv", "output.cc_trace"),
    ("cc_window", "cc.csv", "output.cc_trace"),
];

/// The file and output key of series `y`.
fn source(y: &str) -> Option<(&'static str, &'static str)> {
    SERIES.iter().find(|s| s.0 == y).map(|s| (s.1, s.2))
}

/// A series and the index of the run that draws its line.
type Chosen = (String, Option<usize>);

/// One run's line: (time in us, value in the series' base unit).
type Line = Vec<(f64, f64)>;

/// The figures of one `over-time` table.
pub fn figures(sweep: &SweepResults, spec: &PlotSpec) -> Result<Vec<Figure>, PlotError> {
    let y = spec.y.as_deref().unwrap_or("queue");
    let (file, key) = source(y).unwrap_or(("queues.csv", "output.queue_interval"));
    // Per split, per series (first-seen order): the run with the lowest seed.
    let mut splits: Vec<(String, Vec<Chosen>)> = Vec::new();
    for (i, (run, _)) in sweep.runs.iter().enumerate() {
        let Keys { split, series, .. } = keys(spec, &sweep.axes, run, None);
        let chosen = group(group(&mut splits, &split), &series);
        if chosen.is_none_or(|j| run.seed < sweep.runs[j].0.seed) {
            *chosen = Some(i);
        }
    }
    check_splits(spec, splits.len())?;
    let count = splits.len();
    let mut out = Vec::new();
    for (n, (split, runs)) in splits.iter().enumerate() {
        let mut csvs = Vec::new();
        // Every entry was set when it was made.
        for (name, i) in runs.iter().filter_map(|(n, i)| Some((n, (*i)?))) {
            let path = sweep.dir.join("runs").join(&sweep.runs[i].0.id).join(file);
            let c = Csv::read_if_present(&path)?.ok_or_else(|| {
                PlotError::read(
                    &path,
                    format!("absent: an over-time plot of {y} needs {key} set in every run"),
                )
            })?;
            csvs.push((name.clone(), sweep.runs[i].0.seed, c));
        }
        let port = match (y, &spec.port) {
            ("queue", None) => Some(busiest_port(&csvs)?),
            (_, p) => p.clone(),
        };
        let mut lines = Vec::new();
        for (name, _, c) in &csvs {
            let line = line_of(c, y, port.as_deref(), spec.flow, spec.workload)?;
            lines.push((name.clone(), line));
        }
        let seeds: Vec<u64> = csvs.iter().map(|c| c.1).collect();
        out.push(Figure {
            name: split_name(
                &spec
                    .name
                    .clone()
                    .unwrap_or_else(|| format!("{y}-over-time")),
                n,
                count,
            ),
            ..figure(spec, y, port.as_deref(), split, lines, &seeds)
        });
    }
    Ok(out)
}

/// The port whose queue peaks highest over every run of the split.
fn busiest_port(csvs: &[(String, u64, Csv)]) -> Result<String, PlotError> {
    let mut best: Option<(f64, String)> = None;
    for (_, _, c) in csvs {
        let (name, bytes) = (c.col("name")?, c.col("bytes")?);
        for r in &c.rows {
            let b = Csv::num(r, bytes).unwrap_or(0.0);
            if best
                .as_ref()
                .is_none_or(|(p, n)| b > *p || (b == *p && r[name] < *n))
            {
                best = Some((b, r[name].clone()));
            }
        }
    }
    best.map(|b| b.1)
        .ok_or_else(|| PlotError::Spec("an over-time plot of queue: no queue was sampled".into()))
}

/// Run `c`'s line of series `y`.
fn line_of(
    c: &Csv,
    y: &str,
    port: Option<&str>,
    flow: Option<u64>,
    workload: Option<u64>,
) -> Result<Line, PlotError> {
    let t = c.col("time_us")?;
    let mut by_time: BTreeMap<u64, f64> = BTreeMap::new();
    let mut add = |r: &[String], v: Option<f64>| {
        if let (Some(x), Some(v)) = (Csv::num(r, t), v) {
            *by_time.entry(x.to_bits()).or_default() += v;
        }
    };
    match y {
        "queue" => {
            let (name, class, bytes) = (c.col("name")?, c.col("class")?, c.col("bytes")?);
            for r in c
                .rows
                .iter()
                .filter(|r| Some(r[name].as_str()) == port && r[class] != "viq")
            {
                add(r, Csv::num(r, bytes));
            }
        }
        "goodput" => {
            // Every flow's, or one workload's (`workload = N`).
            let (f, gbps) = (c.col("flow")?, c.col("gbps")?);
            let wanted = workload.map_or("all".to_string(), |w| format!("workload {w}"));
            for r in c.rows.iter().filter(|r| r[f] == wanted) {
                add(r, Csv::num(r, gbps));
            }
        }
        _ => {
            let (f, var, value) = (c.col("flow")?, c.col("variable")?, c.col("value")?);
            let wanted = flow.or_else(|| c.rows.iter().filter_map(|r| r[f].parse().ok()).min());
            let variable = match y {
                "cc_rate" => Some("rate_gbps"),
                _ => super::run::window_variable(c, var),
            };
            for r in c
                .rows
                .iter()
                .filter(|r| Some(r[var].as_str()) == variable && r[f].parse().ok() == wanted)
            {
                add(r, Csv::num(r, value));
            }
        }
    }
    // Time keys are bit patterns of non-negative times: their order is the
    // times' order.
    Ok(by_time
        .into_iter()
        .map(|(k, v)| (f64::from_bits(k), v))
        .collect())
}

/// The figure of one split: a line per series on one time axis.
fn figure(
    spec: &PlotSpec,
    y: &str,
    port: Option<&str>,
    split: &str,
    lines: Vec<(String, Line)>,
    seeds: &[u64],
) -> Figure {
    let max_t = lines
        .iter()
        .flat_map(|l| &l.1)
        .map(|p| p.0)
        .fold(0.0, f64::max);
    let max_y = lines
        .iter()
        .flat_map(|l| &l.1)
        .map(|p| p.1)
        .fold(0.0, f64::max);
    let tx = units::time_us(max_t);
    let (scale, words, what) = match y {
        "queue" => (
            units::bytes(max_y),
            "queue",
            format!("Queue at {}", port.unwrap_or("?")),
        ),
        "goodput" => (
            units::rate_gbps(max_y),
            "goodput",
            spec.workload.map_or("Aggregate goodput".to_string(), |w| {
                format!("Goodput of workload {w}")
            }),
        ),
        "cc_rate" => (units::rate_gbps(max_y), "rate", "Sending rate".to_string()),
        _ => (
            units::bytes(max_y),
            "window",
            "Congestion window".to_string(),
        ),
    };
    let flow_note = match (y, spec.flow) {
        ("cc_rate" | "cc_window", Some(f)) => format!(" of flow {f}"),
        ("cc_rate" | "cc_window", None) => " of the first traced flow".to_string(),
        _ => String::new(),
    };
    let mut seed_list: Vec<u64> = seeds.to_vec();
    seed_list.sort_unstable();
    seed_list.dedup();
    let seed_note = match seed_list.as_slice() {
        [s] => format!("seed {s}"),
        s => format!(
            "seeds {}",
            s.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        ),
    };
    let mut data = String::from("series,time_us,value\n");
    let mut series = Vec::new();
    for (name, line) in lines {
        for (t, v) in &line {
            let _ = writeln!(data, "{},{t},{v}", crate::sweep::table::field(&name));
        }
        series.push(Series {
            name,
            points: line
                .into_iter()
                .map(|(t, v)| Point {
                    x: tx.of(t),
                    y: scale.of(v),
                    err: None,
                })
                .collect(),
        });
    }
    // A rate is read on a linear axis: an aggregate's tail ramping to 0
    // spans decades without being a quantity that does (a log axis hid the
    // level the figure is for). Queues and windows may span them.
    let ys = series.iter().flat_map(|s| &s.points).map(|p| p.y);
    let rate = matches!(y, "goodput" | "cc_rate");
    let y_log = spec
        .log_y
        .unwrap_or_else(|| !rate && super::chart::spans_decades(ys));
    Figure {
        name: String::new(),
        chart: Chart::lines(
            titled(
                spec,
                format!("{what}{flow_note}"),
                &if split.is_empty() {
                    seed_note
                } else {
                    format!("{split}, {seed_note}")
                },
            ),
            spec.x_label.clone().unwrap_or_else(|| tx.label("time")),
            spec.y_label.clone().unwrap_or_else(|| scale.label(words)),
            y_log,
            series,
        ),
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> PlotSpec {
        toml::from_str(text).expect("a plot table")
    }

    /// An aggregate goodput whose tail ramps to 0 spans decades without
    /// being a quantity that does: it stays on a linear axis, in Tb/s when
    /// it reaches 1000 Gb/s (it switched to a log axis labelled "10k"
    /// beside "1000" in Gb/s).
    #[test]
    fn goodput_is_linear_and_in_the_unit_of_its_scale() {
        let line: Line = vec![(10.0, 1600.0), (20.0, 1500.0), (30.0, 40.0), (40.0, 0.5)];
        let f = figure(
            &spec("kind = \"over-time\"\ny = \"goodput\""),
            "goodput",
            None,
            "",
            vec![("a".into(), line.clone())],
            &[1],
        );
        assert!(!f.chart.y_log);
        assert_eq!(f.chart.y_label, "goodput (Tb/s)");
        assert_eq!(f.chart.series[0].points[0].y, 1.6);
        // A queue that spans decades still may go on a log axis.
        let q = figure(
            &spec("kind = \"over-time\"\ny = \"queue\""),
            "queue",
            Some("s0->h0"),
            "",
            vec![("a".into(), line)],
            &[1],
        );
        assert!(q.chart.y_log);
    }
}
