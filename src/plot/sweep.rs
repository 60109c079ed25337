//! The figures of a sweep, from its folder: `sweep.json` (axes, cases,
//! `[[plot]]` tables, runs), `sweep.csv` and each run's `summary.json`.
//!
//! A `metric` figure puts a grid axis on x and draws a line per case (or
//! per value of another axis); each point is the mean over the seeds, its
//! error bar their minimum and maximum. Axes on neither x nor the series
//! split the figure: one per combination of their values. Without `[[plot]]`
//! tables a sweep gets goodput, p99 FCT and p99 slowdown against each axis
//! and p99 slowdown by flow size. Unfinished runs are left out.

use super::PlotError;
use super::chart::{Chart, Point, Series, Style, XAxis};
use super::data::{Csv, json_number, read_summary};
use super::spec::{PlotKind, PlotSpec};
use crate::sweep::Run;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The most figures one `[[plot]]` table may split into.
const MAX_SPLITS: usize = 24;

/// What a figure needs of `sweep.json`.
#[derive(serde::Deserialize)]
struct Manifest {
    axes: Vec<String>,
    #[serde(default)]
    plots: Vec<PlotSpec>,
    runs: Vec<Run>,
}

/// One figure and the numbers behind it (`series,x,mean,min,max,n`).
pub struct Figure {
    /// The file stem under `plots/`.
    pub name: String,
    /// The figure.
    pub chart: Chart,
    /// Its data as CSV.
    pub data: String,
}

/// The finished runs and how to read their values.
struct Sweep<'a> {
    dir: &'a Path,
    axes: Vec<String>,
    /// Finished runs with their `sweep.csv` rows.
    runs: Vec<(Run, Vec<String>)>,
    table: Csv,
    summaries: BTreeMap<String, serde_json::Value>,
}

impl Sweep<'_> {
    /// The value of `y` for run `i`: a `sweep.csv` column or a summary path.
    fn value(&mut self, i: usize, y: &str) -> Result<Option<f64>, PlotError> {
        if let Ok(col) = self.table.col(y) {
            return Ok(Csv::num(&self.runs[i].1, col));
        }
        Ok(json_number(self.summary(i)?, y))
    }

    /// Run `i`'s `summary.json`, read once for every figure.
    fn summary(&mut self, i: usize) -> Result<&serde_json::Value, PlotError> {
        let id = &self.runs[i].0.id;
        if !self.summaries.contains_key(id) {
            let doc = read_summary(&self.dir.join("runs").join(id))?;
            self.summaries.insert(id.clone(), doc);
        }
        Ok(&self.summaries[id])
    }
}

/// Every figure of the sweep folder `dir`.
pub fn figures(dir: &Path) -> Result<Vec<Figure>, PlotError> {
    let file = dir.join("sweep.json");
    let text = std::fs::read_to_string(&file).map_err(|e| PlotError::read(&file, e.to_string()))?;
    let m: Manifest =
        serde_json::from_str(&text).map_err(|e| PlotError::read(&file, e.to_string()))?;
    let table = Csv::read(&dir.join("sweep.csv"))?;
    let run_col = table.col("run")?;
    let rows: BTreeMap<&str, &Vec<String>> = table
        .rows
        .iter()
        .map(|r| (r[run_col].as_str(), r))
        .collect();
    let runs: Vec<(Run, Vec<String>)> = m
        .runs
        .iter()
        .filter_map(|r| {
            rows.get(r.id.as_str())
                .map(|row| (r.clone(), (*row).clone()))
        })
        .collect();
    let mut sweep = Sweep {
        dir,
        axes: m.axes.clone(),
        runs,
        table,
        summaries: BTreeMap::new(),
    };
    let specs = if m.plots.is_empty() {
        defaults(&m.axes)
    } else {
        m.plots.clone()
    };
    let mut out = Vec::new();
    for spec in &specs {
        out.extend(figures_of(&mut sweep, spec)?);
    }
    Ok(out.into_iter().filter(|f| !f.chart.is_empty()).collect())
}

/// The figures of a sweep without `[[plot]]` tables.
fn defaults(axes: &[String]) -> Vec<PlotSpec> {
    let plain = PlotSpec {
        kind: PlotKind::Metric,
        x: None,
        y: None,
        stat: None,
        series: None,
        log_x: None,
        log_y: None,
        title: None,
        x_label: None,
        y_label: None,
        name: None,
    };
    let mut out = Vec::new();
    for x in axes {
        for y in ["goodput_gbps", "fct_p99_us", "slowdown_p99"] {
            out.push(PlotSpec {
                x: Some(x.clone()),
                y: Some(y.into()),
                ..plain.clone()
            });
        }
    }
    out.push(PlotSpec {
        kind: PlotKind::SlowdownBySize,
        ..plain
    });
    out
}

/// A metric's words on an axis: `fct_p99_us` -> `fct p99 (us)`.
fn label_of(metric: &str) -> String {
    for (suffix, unit) in [("_us", "us"), ("_gbps", "Gb/s"), ("_packets", "packets")] {
        if let Some(stem) = metric.strip_suffix(suffix) {
            return format!("{} ({unit})", stem.replace(['_', '.'], " "));
        }
    }
    metric.replace(['_', '.'], " ")
}

/// A file stem from free text.
fn stem_of(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect::<String>()
        .trim_matches('_')
        .to_string()
}

/// Where each run goes: its split (values of the axes on neither x nor
/// the series), its series and its x, as written.
struct Keys {
    split: String,
    series: String,
    x: String,
}

fn keys(spec: &PlotSpec, axes: &[String], run: &Run, x: Option<usize>) -> Keys {
    let series_axis = spec
        .series
        .as_ref()
        .and_then(|s| axes.iter().position(|a| a == s));
    let split: Vec<String> = axes
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != x && Some(*i) != series_axis)
        .map(|(i, a)| format!("{a}={}", run.axes[i]))
        .collect();
    let series = match series_axis {
        Some(i) => format!("{}={}", axes[i], run.axes[i]),
        None => run.case.clone(),
    };
    Keys {
        split: split.join(", "),
        series,
        x: x.map_or_else(String::new, |i| run.axes[i].clone()),
    }
}

/// One split's series names and x values (in first-seen order) and the
/// values per (series, x).
type Split = (
    Vec<String>,
    Vec<String>,
    BTreeMap<(String, String), Vec<f64>>,
);

/// Values gathered per split, series and x, each in first-seen order.
#[derive(Default)]
struct Gathered {
    splits: Vec<String>,
    per: BTreeMap<String, Split>,
}

impl Gathered {
    fn add(&mut self, k: &Keys, v: Option<f64>) {
        if !self.per.contains_key(&k.split) {
            self.splits.push(k.split.clone());
        }
        let (series, xs, values) = self.per.entry(k.split.clone()).or_default();
        if !series.contains(&k.series) {
            series.push(k.series.clone());
        }
        if !xs.contains(&k.x) {
            xs.push(k.x.clone());
        }
        let cell = values.entry((k.series.clone(), k.x.clone())).or_default();
        cell.extend(v);
    }
}

/// Mean, and (min, max) when there are several.
fn point_of(x: f64, v: &[f64]) -> Option<Point> {
    if v.is_empty() {
        return None;
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let lo = v.iter().copied().fold(f64::MAX, f64::min);
    let hi = v.iter().copied().fold(f64::MIN, f64::max);
    Some(Point {
        x,
        y: mean,
        err: (v.len() > 1).then_some((lo, hi)),
    })
}

fn figures_of(sweep: &mut Sweep<'_>, spec: &PlotSpec) -> Result<Vec<Figure>, PlotError> {
    let x_axis = match spec.kind {
        PlotKind::Metric => spec
            .x
            .as_ref()
            .and_then(|x| sweep.axes.iter().position(|a| a == x))
            .or((!sweep.axes.is_empty()).then_some(0)),
        PlotKind::SlowdownBySize => None,
    };
    let mut g = Gathered::default();
    let mut buckets: Vec<String> = Vec::new();
    for i in 0..sweep.runs.len() {
        let k = keys(spec, &sweep.axes, &sweep.runs[i].0, x_axis);
        match spec.kind {
            PlotKind::Metric => {
                let y = spec.y.as_deref().unwrap_or_default();
                let v = sweep.value(i, y)?;
                g.add(&k, v);
            }
            PlotKind::SlowdownBySize => {
                let list = sweep.summary(i)?["flows"]["by_size"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                for (b, bucket) in list.iter().enumerate() {
                    let label = bucket["bucket"].as_str().unwrap_or_default().to_string();
                    if buckets.len() <= b {
                        buckets.push(label.clone());
                    }
                    let v = json_number(bucket, &format!("slowdown.{}", spec.stat()));
                    g.add(
                        &Keys {
                            x: label,
                            ..keys(spec, &sweep.axes, &sweep.runs[i].0, None)
                        },
                        v,
                    );
                }
            }
        }
    }
    if g.splits.len() > MAX_SPLITS {
        return Err(PlotError::Spec(format!(
            "a plot of {} splits into {} figures (one per value of the other axes), more \
             than {MAX_SPLITS}: put one of those axes on series",
            spec.y.as_deref().unwrap_or("slowdown"),
            g.splits.len()
        )));
    }
    let (x_key, y_name) = match spec.kind {
        PlotKind::Metric => (
            x_axis.map(|i| sweep.axes[i].clone()).unwrap_or_default(),
            spec.y.clone().unwrap_or_default(),
        ),
        PlotKind::SlowdownBySize => ("flow size".to_string(), format!("slowdown_{}", spec.stat())),
    };
    let base_name = spec.name.clone().unwrap_or_else(|| match spec.kind {
        PlotKind::Metric => format!("{}-vs-{}", stem_of(&y_name), stem_of(&x_key)),
        PlotKind::SlowdownBySize => format!("slowdown_{}-by-size", spec.stat()),
    });
    let mut out = Vec::new();
    for (n, split) in g.splits.iter().enumerate() {
        let (series_names, xs, values) = &g.per[split];
        let numeric = spec.kind == PlotKind::Metric && xs.iter().all(|x| x.parse::<f64>().is_ok());
        let x_of = |x: &String| -> f64 {
            if numeric {
                x.parse().unwrap_or(0.0)
            } else {
                xs.iter().position(|v| v == x).unwrap_or(0) as f64
            }
        };
        let order: Vec<&String> = if spec.kind == PlotKind::SlowdownBySize {
            buckets.iter().collect()
        } else {
            xs.iter().collect()
        };
        let mut data = String::from("series,x,mean,min,max,n\n");
        let mut series = Vec::new();
        for s in series_names {
            let mut points = Vec::new();
            for x in &order {
                let v = values
                    .get(&((*s).clone(), (*x).clone()))
                    .map_or(&[][..], |v| v);
                if let Some(p) = point_of(x_of(x), v) {
                    let (lo, hi) = p.err.unwrap_or((p.y, p.y));
                    let _ = writeln!(
                        data,
                        "{},{},{},{lo},{hi},{}",
                        crate::sweep::table::field(s),
                        crate::sweep::table::field(x),
                        p.y,
                        v.len()
                    );
                    points.push(p);
                }
            }
            if numeric {
                points.sort_by(|a, b| a.x.total_cmp(&b.x));
            }
            series.push(Series {
                name: s.clone(),
                points,
            });
        }
        let x_label = spec.x_label.clone().unwrap_or_else(|| x_key.clone());
        let values = |f: fn(&Point) -> f64| {
            series
                .iter()
                .flat_map(|s| &s.points)
                .map(f)
                .collect::<Vec<_>>()
        };
        let x = if numeric {
            XAxis::Numeric {
                label: x_label,
                log: spec
                    .log_x
                    .unwrap_or_else(|| super::chart::spans_decades(values(|p| p.x))),
            }
        } else {
            XAxis::Categories {
                label: x_label,
                names: order.iter().map(|s| (*s).clone()).collect(),
            }
        };
        let mut title = spec.title.clone().unwrap_or_else(|| match spec.kind {
            PlotKind::Metric => format!("{} vs {x_key}", label_of(&y_name)),
            PlotKind::SlowdownBySize => format!("FCT slowdown {} by flow size", spec.stat()),
        });
        if !split.is_empty() {
            let _ = write!(title, " ({split})");
        }
        let name = if g.splits.len() > 1 {
            format!("{base_name}-{}", n + 1)
        } else {
            base_name.clone()
        };
        out.push(Figure {
            name,
            chart: Chart {
                title,
                x,
                y_label: spec.y_label.clone().unwrap_or_else(|| label_of(&y_name)),
                y_log: spec
                    .log_y
                    .unwrap_or_else(|| super::chart::spans_decades(values(|p| p.y))),
                style: Style::Markers,
                series,
            },
            data,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_names_become_labels_with_units() {
        assert_eq!(label_of("fct_p99_us"), "fct p99 (us)");
        assert_eq!(label_of("goodput_gbps"), "goodput (Gb/s)");
        assert_eq!(label_of("workloads.1.rtt_us.p99"), "workloads 1 rtt us p99");
        assert_eq!(stem_of("workload[0].load"), "workload_0__load");
    }

    #[test]
    fn a_point_is_the_mean_with_the_range_of_the_seeds() {
        let p = point_of(2.0, &[1.0, 2.0, 6.0]).unwrap();
        assert_eq!((p.x, p.y, p.err), (2.0, 3.0, Some((1.0, 6.0))));
        assert_eq!(point_of(0.0, &[4.0]).unwrap().err, None);
        assert!(point_of(0.0, &[]).is_none());
    }
}
