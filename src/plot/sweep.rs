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
use super::bins;
use super::chart::{Chart, Point, REFERENCE_OF, Series, Style, XAxis};
use super::data::{Csv, SweepResults};
use super::spec::{PlotKind, PlotSpec};
use crate::report::units;
use crate::sweep::Run;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The most figures one `[[plot]]` table may split into.
const MAX_SPLITS: usize = 24;

/// One figure and the numbers behind it (`series,x,mean,min,max,n`).
pub struct Figure {
    /// The file stem under `plots/`.
    pub name: String,
    /// The figure.
    pub chart: Chart,
    /// Its data as CSV.
    pub data: String,
}

/// Every figure of the sweep folder `dir`.
pub fn figures(dir: &Path) -> Result<Vec<Figure>, PlotError> {
    let mut sweep = SweepResults::read(dir)?;
    let specs = if sweep.plots.is_empty() {
        defaults(&sweep.axes)
    } else {
        sweep.plots.clone()
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
        bound: None,
        log_x: None,
        log_y: None,
        title: None,
        x_label: None,
        y_label: None,
        name: None,
        port: None,
        flow: None,
        workload: None,
    };
    let mut out = Vec::new();
    // Against each grid axis; a sweep of cases alone gets them by case.
    let xs: Vec<Option<String>> = if axes.is_empty() {
        vec![None]
    } else {
        axes.iter().cloned().map(Some).collect()
    };
    for x in xs {
        for y in ["goodput_gbps", "fct_p99_us", "slowdown_p99"] {
            out.push(PlotSpec {
                x: x.clone(),
                y: Some(y.into()),
                ..plain.clone()
            });
        }
    }
    for stat in ["p50", "p99"] {
        out.push(PlotSpec {
            kind: PlotKind::SlowdownBySize,
            stat: Some(stat.into()),
            ..plain.clone()
        });
    }
    out.push(PlotSpec {
        kind: PlotKind::FctCdf,
        ..plain
    });
    out
}

/// A metric's words and declared unit: a `sweep.csv` column's from
/// `report::columns::SWEEP_METRICS`; a summary path's from its words, the
/// unit from a part that ends in one (`workloads.1.rtt_us.p99` -> `workloads
/// 1 rtt p99`, `us`).
pub(crate) fn words_of(metric: &str) -> (String, &'static str) {
    if let Some(c) = crate::report::columns::sweep_metric(metric) {
        return (c.meaning.to_string(), c.unit);
    }
    let mut unit = "";
    let words: Vec<String> = metric
        .split('.')
        .map(|part| {
            for (suffix, u) in [
                ("_us", "us"),
                ("_gbps", "gbps"),
                ("_bytes", "bytes"),
                ("_packets", "packets"),
            ] {
                if let Some(stem) = part.strip_suffix(suffix) {
                    unit = u;
                    return stem.replace('_', " ");
                }
            }
            part.replace('_', " ")
        })
        .collect();
    // The field's acronyms in capitals; a statistic last reads first
    // (`flows.fct_us.p99` -> `p99 flows FCT`).
    let mut words: Vec<String> = words
        .join(" ")
        .split(' ')
        .map(|w| match w {
            "fct" | "rtt" | "pfc" | "ecn" | "viq" | "cnp" | "nic" | "int" => w.to_uppercase(),
            _ => w.to_string(),
        })
        .collect();
    if words.len() > 1
        && let Some(last) = words.last()
        && matches!(
            last.as_str(),
            "mean" | "std" | "p50" | "p99" | "p999" | "max" | "min"
        )
    {
        let stat = words.pop().unwrap_or_default();
        words.insert(0, stat);
    }
    (words.join(" "), unit)
}

/// What a figure's y is, for its title: the `y_label` the sweep gave
/// without its unit, else the metric's words.
fn y_words(spec: &PlotSpec, metric: &str) -> String {
    match &spec.y_label {
        Some(l) => match l.rfind(" (") {
            Some(at) if l.ends_with(')') && at > 0 => l[..at].to_string(),
            _ => l.clone(),
        },
        None => words_of(metric).0,
    }
}

/// The scale and axis label for values of `metric` whose largest is `max`.
fn label_of(metric: &str, max: f64) -> (units::Scale, String) {
    let (words, unit) = words_of(metric);
    match unit {
        "" | "ratio" | "count" | "text" => (units::Scale::unit(""), words),
        _ => {
            let scale = units::for_column_unit(unit, max);
            (scale, scale.label(&words))
        }
    }
}

/// A grid axis key in words: its last part first, the table it belongs to
/// after (`workload[0].load` -> `load (workload 0)`, `switch.aqm.k` ->
/// `k (switch aqm)`).
fn axis_words(key: &str) -> String {
    let (head, last) = key.rsplit_once('.').unwrap_or(("", key));
    let plain = |t: &str| {
        t.replace("[*]", "s, every one")
            .replace(['_', '.'], " ")
            .replace('[', " ")
            .replace(']', "")
    };
    if head.is_empty() {
        plain(last)
    } else {
        format!("{} ({})", plain(last), plain(head))
    }
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
pub(crate) struct Keys {
    pub(crate) split: String,
    pub(crate) series: String,
    pub(crate) x: String,
}

pub(crate) fn keys(spec: &PlotSpec, axes: &[String], run: &Run, x: Option<usize>) -> Keys {
    let series_axis = spec
        .series
        .as_ref()
        .and_then(|s| axes.iter().position(|a| a == s));
    let mut split: Vec<String> = axes
        .iter()
        .enumerate()
        .filter(|(i, _)| Some(*i) != x && Some(*i) != series_axis)
        .map(|(i, a)| format!("{a}={}", run.axes[i]))
        .collect();
    // Lines by an axis: each case gets figures of its own, so that two
    // cases' runs are never pooled into one line.
    if series_axis.is_some() && !run.case.is_empty() {
        split.insert(0, run.case.clone());
    }
    // A metric figure of a sweep without a grid axis puts its cases on x,
    // as one line.
    let by_case = axes.is_empty() && spec.kind == PlotKind::Metric;
    let series = match series_axis {
        Some(i) => format!("{}={}", axes[i], run.axes[i]),
        None if by_case => String::new(),
        None => run.case.clone(),
    };
    let x = match x {
        Some(i) => run.axes[i].clone(),
        None if by_case => run.case.clone(),
        None => String::new(),
    };
    Keys {
        split: split.join(", "),
        series,
        x,
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

fn figures_of(sweep: &mut SweepResults, spec: &PlotSpec) -> Result<Vec<Figure>, PlotError> {
    let mut figures = match spec.kind {
        PlotKind::Metric => metric_figures(sweep, spec)?,
        PlotKind::SlowdownBySize | PlotKind::FctCdf => flow_figures(sweep, spec)?,
        PlotKind::OverTime => super::over_time::figures(sweep, spec)?,
    };
    share_scales(&mut figures, spec);
    Ok(figures)
}

/// The figures one `[[plot]]` splits into sit side by side: they get one
/// y range (and one x range on a numeric x axis) covering all of them, and
/// a log axis if any of them asked for one (unless the table set it).
pub(crate) fn share_scales(figures: &mut [Figure], spec: &PlotSpec) {
    if figures.len() < 2 {
        return;
    }
    let union = |a: Option<(f64, f64)>, b: (f64, f64)| match a {
        None => Some(b),
        Some((lo, hi)) => Some((lo.min(b.0), hi.max(b.1))),
    };
    if spec.log_y.is_none() && figures.iter().any(|f| f.chart.y_log) {
        for f in figures.iter_mut() {
            f.chart.y_log = true;
        }
    }
    let x_numeric = matches!(figures[0].chart.x, XAxis::Numeric { .. });
    if x_numeric && spec.log_x.is_none() {
        let any_log = figures
            .iter()
            .any(|f| matches!(f.chart.x, XAxis::Numeric { log: true, .. }));
        for f in figures.iter_mut() {
            if let XAxis::Numeric { log, .. } = &mut f.chart.x {
                *log = any_log;
            }
        }
    }
    let (mut xs, mut ys) = (None, None);
    for f in figures.iter() {
        if let Some((x, y)) = f.chart.data_ranges() {
            xs = union(xs, x);
            ys = union(ys, y);
        }
    }
    for f in figures.iter_mut() {
        f.chart.y_range = ys;
        if x_numeric {
            f.chart.x_range = xs;
        }
    }
}

/// The entry of `key` in `groups`, which keep first-seen order (splits of
/// a figure, series of a split); a new key gets an empty entry at the end.
pub(crate) fn group<'a, T: Default>(groups: &'a mut Vec<(String, T)>, key: &str) -> &'a mut T {
    let at = match groups.iter().position(|(k, _)| k == key) {
        Some(at) => at,
        None => {
            groups.push((key.to_string(), T::default()));
            groups.len() - 1
        }
    };
    &mut groups[at].1
}

/// Refuses a plot that would split into more than `MAX_SPLITS` figures.
pub(crate) fn check_splits(spec: &PlotSpec, splits: usize) -> Result<(), PlotError> {
    if splits > MAX_SPLITS {
        return Err(PlotError::Spec(format!(
            "a plot of {} splits into {splits} figures (one per value of the other axes), more \
             than {MAX_SPLITS}: put one of those axes on series",
            spec.y.as_deref().unwrap_or("flows"),
        )));
    }
    Ok(())
}

/// The file stem of split `n` of `count`.
pub(crate) fn split_name(base: &str, n: usize, count: usize) -> String {
    if count > 1 {
        format!("{base}-{}", n + 1)
    } else {
        base.to_string()
    }
}

/// The title, with the split's axis values.
pub(crate) fn titled(spec: &PlotSpec, default: String, split: &str) -> String {
    let mut title = spec
        .title
        .clone()
        .unwrap_or_else(|| crate::scenario::capitalised(&default));
    if !split.is_empty() {
        let _ = write!(title, " ({split})");
    }
    title
}

/// `metric` figures: `y` against a grid axis.
fn metric_figures(sweep: &mut SweepResults, spec: &PlotSpec) -> Result<Vec<Figure>, PlotError> {
    let x_axis = spec
        .x
        .as_ref()
        .and_then(|x| sweep.axes.iter().position(|a| a == x))
        .or((!sweep.axes.is_empty()).then_some(0));
    let y_name = spec.y.clone().unwrap_or_default();
    let mut g = Gathered::default();
    for i in 0..sweep.runs.len() {
        let k = keys(spec, &sweep.axes, &sweep.runs[i].0, x_axis);
        let v = sweep.value(i, &y_name)?;
        g.add(&k, v);
    }
    check_splits(spec, g.splits.len())?;
    let x_key = x_axis.map(|i| sweep.axes[i].clone()).unwrap_or_default();
    let base_name = spec.name.clone().unwrap_or_else(|| {
        if sweep.axes.is_empty() {
            format!("{}-by-case", stem_of(&y_name))
        } else {
            format!("{}-vs-{}", stem_of(&y_name), stem_of(&x_key))
        }
    });
    let mut out = Vec::new();
    for (n, split) in g.splits.iter().enumerate() {
        let (series_names, xs, values) = &g.per[split];
        let numeric = xs.iter().all(|x| x.parse::<f64>().is_ok());
        let x_of = |x: &String| -> f64 {
            if numeric {
                x.parse().unwrap_or(0.0)
            } else {
                xs.iter().position(|v| v == x).unwrap_or(0) as f64
            }
        };
        let mut data = String::from("series,x,mean,min,max,n\n");
        let mut series = Vec::new();
        for s in series_names {
            let mut points = Vec::new();
            for x in xs {
                let v = values.get(&(s.clone(), x.clone())).map_or(&[][..], |v| v);
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
        let mut references = Vec::new();
        if let Some(b) = &spec.bound {
            references.extend(bound_series(sweep, spec, b, x_axis, split, &x_of)?);
        }
        let ys = |series: &[Series], references: &[Series]| -> Vec<f64> {
            series
                .iter()
                .chain(references)
                .flat_map(|s| &s.points)
                .map(|p| p.y)
                .collect()
        };
        let max_y = ys(&series, &references)
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs()));
        let (scale, default_label) = label_of(&y_name, max_y);
        for p in series
            .iter_mut()
            .chain(&mut references)
            .flat_map(|s| s.points.iter_mut())
        {
            p.y = scale.of(p.y);
            p.err = p.err.map(|(lo, hi)| (scale.of(lo), scale.of(hi)));
        }
        let x_words = if sweep.axes.is_empty() {
            "case".to_string()
        } else {
            axis_words(&x_key)
        };
        let x_label = spec.x_label.clone().unwrap_or_else(|| x_words.clone());
        let x = if numeric {
            let xs: Vec<f64> = series.iter().flat_map(|s| &s.points).map(|p| p.x).collect();
            XAxis::Numeric {
                label: x_label,
                log: spec
                    .log_x
                    .unwrap_or_else(|| super::chart::spans_decades(xs)),
            }
        } else {
            XAxis::Categories {
                label: x_label,
                names: xs.clone(),
                notes: Vec::new(),
            }
        };
        out.push(Figure {
            name: split_name(&base_name, n, g.splits.len()),
            chart: Chart {
                title: titled(
                    spec,
                    if sweep.axes.is_empty() {
                        format!("{} by case", y_words(spec, &y_name))
                    } else {
                        format!("{} vs {}", y_words(spec, &y_name), x_words)
                    },
                    split,
                ),
                x,
                // A given label keeps its words; its unit is the scale's,
                // which follows the data (a "(us)" label on values in ms
                // would misread them a thousandfold).
                y_label: match &spec.y_label {
                    Some(given) if scale.unit.is_empty() => given.clone(),
                    Some(_) => scale.label(&y_words(spec, &y_name)),
                    None => default_label,
                },
                y_log: spec
                    .log_y
                    .unwrap_or_else(|| super::chart::spans_decades(ys(&series, &references))),
                style: if sweep.axes.is_empty() {
                    Style::Points
                } else {
                    Style::Markers
                },
                series,
                x_range: None,
                y_range: None,
                marks: Vec::new(),
                references,
            },
            data,
        });
    }
    Ok(out)
}

/// The lines of `spec.bound`'s metric `b` in split `split`: at each x,
/// the mean over its runs, without error bars; one line named `bound`
/// where every series has the same bound (cases on one collective), else
/// one per series (cases of different algorithms), named
/// [`REFERENCE_OF`] and the series.
fn bound_series(
    sweep: &mut SweepResults,
    spec: &PlotSpec,
    b: &str,
    x_axis: Option<usize>,
    split: &str,
    x_of: &dyn Fn(&String) -> f64,
) -> Result<Vec<Series>, PlotError> {
    let mut at: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for i in 0..sweep.runs.len() {
        let k = keys(spec, &sweep.axes, &sweep.runs[i].0, x_axis);
        if k.split != split {
            continue;
        }
        if let Some(v) = sweep.value(i, b)? {
            at.entry((k.series.clone(), k.x.clone()))
                .or_default()
                .push(v);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let line = |name: String, points: BTreeMap<&String, f64>| {
        let mut points: Vec<Point> = (points.into_iter())
            .map(|(x, y)| Point {
                x: x_of(x),
                y,
                err: None,
            })
            .collect();
        points.sort_by(|a, b| a.x.total_cmp(&b.x));
        Series { name, points }
    };
    // Per x, each series' bound; one line when they agree everywhere.
    let mut by_x: BTreeMap<&String, Vec<f64>> = BTreeMap::new();
    for ((_, x), v) in &at {
        by_x.entry(x).or_default().push(mean(v));
    }
    let agree = by_x.values().all(|v| {
        let (lo, hi) = v
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
        hi - lo <= 1e-9 * hi.abs().max(1.0)
    });
    if agree {
        let points = by_x.iter().map(|(&x, v)| (x, mean(v))).collect();
        return Ok(vec![line("bound".to_string(), points)]);
    }
    let mut per: BTreeMap<&String, BTreeMap<&String, f64>> = BTreeMap::new();
    for ((series, x), v) in &at {
        per.entry(series).or_default().insert(x, mean(v));
    }
    Ok(per
        .into_iter()
        .map(|(series, points)| line(format!("{REFERENCE_OF}{series}"), points))
        .collect())
}

/// One completed flow of a run: its size (0 when unbounded) and FCT.
struct FlowRow {
    size_bytes: Option<u64>,
    fct_us: f64,
    slowdown: Option<f64>,
}

/// The completed flows of run `i`, from its `flows.csv`.
fn flows_of(sweep: &SweepResults, i: usize) -> Result<Vec<FlowRow>, PlotError> {
    let file = sweep
        .dir
        .join("runs")
        .join(&sweep.runs[i].0.id)
        .join("flows.csv");
    let c = Csv::read(&file)?;
    let (size, fct, sd) = (c.col("size_bytes")?, c.col("fct_us")?, c.col("slowdown")?);
    Ok(c.rows
        .iter()
        .filter_map(|r| {
            Some(FlowRow {
                size_bytes: r[size].parse().ok(),
                fct_us: Csv::num(r, fct)?,
                slowdown: Csv::num(r, sd),
            })
        })
        .collect())
}

/// One series' flows, pooled over its runs: (series name, flows).
type Pooled = (String, Vec<FlowRow>);

/// The statistic `stat` (mean, p50, p99, p999) of `v`.
fn stat_of(stat: &str, v: &mut [f64]) -> Option<f64> {
    match stat {
        "mean" => (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64),
        "p50" => bins::quantile(v, 0.5),
        "p999" => bins::quantile(v, 0.999),
        _ => bins::quantile(v, 0.99),
    }
}

/// `slowdown-by-size` and `fct-cdf` figures, from each run's `flows.csv`,
/// pooled over the seeds of a series.
fn flow_figures(sweep: &mut SweepResults, spec: &PlotSpec) -> Result<Vec<Figure>, PlotError> {
    // Per split, per series (both in first-seen order): the flows.
    let mut splits: Vec<(String, Vec<Pooled>)> = Vec::new();
    for i in 0..sweep.runs.len() {
        let k = keys(spec, &sweep.axes, &sweep.runs[i].0, None);
        let rows = flows_of(sweep, i)?;
        group(group(&mut splits, &k.split), &k.series).extend(rows);
    }
    check_splits(spec, splits.len())?;
    // One set of size bins for every split, so that the panels line up.
    let sizes: Vec<u64> = splits
        .iter()
        .flat_map(|(_, series)| series.iter().flat_map(|(_, rows)| rows))
        .filter_map(|r| {
            r.size_bytes
                .filter(|b| *b > 0)
                .filter(|_| r.slowdown.is_some())
        })
        .collect();
    let bin_list = bins::percentile_bins(&sizes, bins::BINS);
    if spec.kind == PlotKind::SlowdownBySize && bin_list.len() < 2 {
        // Every flow in one bin (an incast of equal flows): a figure of
        // one point says nothing the metric figures do not.
        return Ok(Vec::new());
    }
    let count = splits.len();
    let mut out = Vec::new();
    for (n, (split, series)) in splits.iter().enumerate() {
        let figure = match spec.kind {
            PlotKind::FctCdf => fct_cdf_figure(spec, split, series),
            _ => slowdown_figure(spec, split, series, &bin_list),
        };
        let base = spec.name.clone().unwrap_or_else(|| match spec.kind {
            PlotKind::FctCdf => "fct_cdf".to_string(),
            _ => format!("slowdown_{}-by-size", spec.stat()),
        });
        out.push(Figure {
            name: split_name(&base, n, count),
            ..figure
        });
    }
    Ok(out)
}

/// Slowdown (`spec.stat()`) against flow-size percentile bins taken over
/// every series' flows of every split (`bin_list`), so that the bins are
/// common; each bin's count of flows is printed under it.
/// Each bin's slowdowns of `flows` (size, slowdown).
fn by_bin(flows: &[(u64, f64)], bin_list: &[bins::Bin]) -> Vec<Vec<f64>> {
    let mut per: Vec<Vec<f64>> = vec![Vec::new(); bin_list.len()];
    for &(size, sd) in flows {
        if let Some(b) = bin_list.iter().position(|b| b.holds(size)) {
            per[b].push(sd);
        }
    }
    per
}

/// A series' point per bin with flows (`stat` of its slowdowns), each
/// also a row of the figure's `data`.
fn bin_points(
    name: &str,
    mut per: Vec<Vec<f64>>,
    bin_list: &[bins::Bin],
    stat: &str,
    data: &mut String,
) -> Vec<Point> {
    let mut points = Vec::new();
    for (b, v) in per.iter_mut().enumerate() {
        let n = v.len();
        if let Some(y) = stat_of(stat, v) {
            let _ = writeln!(
                data,
                "{},{},{},{n},{y}",
                crate::sweep::table::field(name),
                bin_list[b].label(),
                bin_list[b].up_to_bytes
            );
            points.push(Point {
                x: b as f64,
                y,
                err: None,
            });
        }
    }
    points
}

fn slowdown_figure(
    spec: &PlotSpec,
    split: &str,
    series: &[Pooled],
    bin_list: &[bins::Bin],
) -> Figure {
    let sized: Vec<Vec<(u64, f64)>> = series
        .iter()
        .map(|(_, rows)| {
            rows.iter()
                .filter_map(|r| Some((r.size_bytes.filter(|b| *b > 0)?, r.slowdown?)))
                .collect()
        })
        .collect();
    let all: Vec<u64> = sized.iter().flatten().map(|f| f.0).collect();
    let stat = spec.stat();
    let mut data = String::from("series,bin,up_to_bytes,flows,slowdown\n");
    let mut lines = Vec::new();
    for ((name, _), flows) in series.iter().zip(&sized) {
        let points = bin_points(name, by_bin(flows, bin_list), bin_list, stat, &mut data);
        lines.push(Series {
            name: name.clone(),
            points,
        });
    }
    // Each bin's flow count, over all series (they share a workload).
    let notes = bin_list
        .iter()
        .map(|b| format!("n={}", all.iter().filter(|s| b.holds(**s)).count()))
        .collect();
    let ys: Vec<f64> = lines.iter().flat_map(|s| &s.points).map(|p| p.y).collect();
    Figure {
        name: String::new(),
        chart: Chart {
            title: titled(spec, format!("FCT slowdown ({stat}) by flow size"), split),
            x: XAxis::Categories {
                label: spec.x_label.clone().unwrap_or_else(|| {
                    "flow size in bytes (bins of equal count, upper ends)".into()
                }),
                names: bin_list.iter().map(bins::Bin::label).collect(),
                notes,
            },
            y_label: spec
                .y_label
                .clone()
                .unwrap_or_else(|| format!("{stat} slowdown")),
            y_log: spec
                .log_y
                .unwrap_or_else(|| super::chart::spans_decades(ys)),
            style: Style::Markers,
            series: lines,
            x_range: None,
            y_range: None,
            marks: Vec::new(),
            references: Vec::new(),
        },
        data,
    }
}

/// The CDF of completed flows' FCTs, a line per series.
fn fct_cdf_figure(spec: &PlotSpec, split: &str, series: &[Pooled]) -> Figure {
    let mut lines: Vec<Series> = series
        .iter()
        .map(|(name, rows)| Series {
            name: name.clone(),
            points: super::run::cdf(rows.iter().map(|r| r.fct_us).collect()),
        })
        .collect();
    let xs = || lines.iter().flat_map(|s| &s.points).map(|p| p.x);
    let scale = units::time_us(xs().fold(0.0, f64::max));
    let log = spec
        .log_x
        .unwrap_or_else(|| super::chart::spans_decades(xs()));
    let mut data = String::from("series,fct_us,fraction\n");
    for s in &mut lines {
        for p in &mut s.points {
            let _ = writeln!(
                data,
                "{},{},{}",
                crate::sweep::table::field(&s.name),
                p.x,
                p.y
            );
            p.x = scale.of(p.x);
        }
    }
    Figure {
        name: String::new(),
        chart: Chart {
            title: titled(spec, "FCT CDF".into(), split),
            x: XAxis::Numeric {
                label: spec
                    .x_label
                    .clone()
                    .unwrap_or_else(|| scale.label("flow completion time")),
                log,
            },
            y_label: spec
                .y_label
                .clone()
                .unwrap_or_else(|| "fraction of flows".into()),
            y_log: spec.log_y.unwrap_or(false),
            style: Style::Steps,
            series: lines,
            x_range: None,
            y_range: None,
            marks: Vec::new(),
            references: Vec::new(),
        },
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_names_become_labels_with_units() {
        assert_eq!(label_of("fct_p99_us", 2e4).1, "99th-percentile FCT (ms)");
        assert_eq!(label_of("goodput_gbps", 9.0).1, "aggregate goodput (Gb/s)");
        assert_eq!(label_of("drops", 9.0).1, "drops");
        assert_eq!(
            label_of("workloads.1.rtt_us.p99", 80.0).1,
            "p99 workloads 1 RTT (µs)"
        );
        assert_eq!(stem_of("workload[0].load"), "workload_0__load");
        assert_eq!(axis_words("workload[0].load"), "load (workload 0)");
        assert_eq!(
            axis_words("workload[*].load"),
            "load (workloads, every one)"
        );
        assert_eq!(axis_words("seed"), "seed");
    }

    #[test]
    fn a_point_is_the_mean_with_the_range_of_the_seeds() {
        let p = point_of(2.0, &[1.0, 2.0, 6.0]).unwrap();
        assert_eq!((p.x, p.y, p.err), (2.0, 3.0, Some((1.0, 6.0))));
        assert_eq!(point_of(0.0, &[4.0]).unwrap().err, None);
        assert!(point_of(0.0, &[]).is_none());
    }
}
