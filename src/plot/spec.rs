//! `[[plot]]`: a figure a sweep file asks for.
//!
//! ```toml
//! [[plot]]
//! x = "workload[0].load"        # a grid axis (default: the first)
//! y = "slowdown_p99"            # a sweep.csv metric, or a summary.json path
//! series = "case"               # one line per case (default), or an axis
//! log_y = true
//!
//! [[plot]]
//! kind = "slowdown-by-size"     # x: flow-size percentile bins, a line per case
//! stat = "p99"                  # mean, p50, p99 or p999
//!
//! [[plot]]
//! kind = "fct-cdf"              # the FCT CDF, a line per case
//!
//! [[plot]]
//! kind = "over-time"            # one time series of several runs
//! y = "cc_rate"                 # queue, goodput, cc_rate or cc_window
//! flow = 0                      # (port = "s0->h0" for a queue)
//! ```
//!
//! A summary path is dotted, with list positions as numbers:
//! `workloads.1.rtt_us.p99`, `flows.by_size.0.slowdown.mean`.

use serde::{Deserialize, Serialize};

/// The statistics of a summary (`fct_us`, `slowdown`, ...).
pub const STATS: &[&str] = &["mean", "p50", "p99", "p999"];

/// What a figure shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PlotKind {
    /// A metric against a swept value, a line per series, error bars over seeds.
    #[default]
    Metric,
    /// FCT slowdown against flow-size percentile bins (about equal flow
    /// counts per bin, the count under each), a line per series.
    SlowdownBySize,
    /// The CDF of flow completion times, a line per series, pooled over
    /// seeds.
    FctCdf,
    /// A time series (`y`: queue, goodput, cc_rate, cc_window) of several
    /// runs in one figure, a line per series, each the run with the
    /// lowest seed ([`super::over_time`]).
    OverTime,
}

/// One `[[plot]]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlotSpec {
    /// What it shows.
    #[serde(default)]
    pub kind: PlotKind,
    /// The grid axis on x (`metric`; default: the first axis).
    pub x: Option<String>,
    /// The metric (`metric`): a `sweep.csv` column or a summary path.
    pub y: Option<String>,
    /// The statistic (`slowdown-by-size`; default `p99`).
    pub stat: Option<String>,
    /// `case` (default) or a grid axis: one line per value.
    pub series: Option<String>,
    /// `metric`: a second metric drawn as one more line, named `bound`
    /// (its mean over the runs at each x): a theory's bound, such as a
    /// collective's (`jobs.0.collectives.0.bound_us`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bound: Option<String>,
    /// Log x (absent: log when the values span more than two decades).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_x: Option<bool>,
    /// Log y (absent: log when the values span more than two decades).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_y: Option<bool>,
    /// The title (default: y against x).
    pub title: Option<String>,
    /// The x label (default: the axis key).
    pub x_label: Option<String>,
    /// The y label (default: the metric).
    pub y_label: Option<String>,
    /// The file stem under `plots/` (default: from the metric and axis).
    pub name: Option<String>,
    /// `over-time` of `queue`: the port (`s0->h0`, as `queues.csv` names
    /// it; default: the one whose queue peaks highest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<String>,
    /// `over-time` of `cc_rate` or `cc_window`: the traced flow (default:
    /// the lowest traced).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow: Option<u64>,
    /// `over-time` of `goodput`: one workload's flows together (a
    /// collective job's goodput; default: every flow's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<u64>,
}

impl PlotSpec {
    /// Checks it against the sweep's axes: the key at fault and why.
    pub fn check(&self, axes: &[&str]) -> Result<(), (String, String)> {
        let axis_list = || {
            if axes.is_empty() {
                "the sweep has no grid axes".to_string()
            } else {
                format!("the grid axes are {}", axes.join(", "))
            }
        };
        if let Some(x) = &self.x
            && !axes.contains(&x.as_str())
        {
            return Err((
                "x".into(),
                format!("'{x}' is not a grid axis: {}", axis_list()),
            ));
        }
        if self.bound.is_some() && self.kind != PlotKind::Metric {
            let msg = "bound is a second metric of a `metric` figure; this one is another kind";
            return Err(("bound".into(), msg.into()));
        }
        if let Some(s) = &self.series {
            if s != "case" && !axes.contains(&s.as_str()) {
                let msg = format!("'{s}' is neither \"case\" nor a grid axis: {}", axis_list());
                return Err(("series".into(), msg));
            }
            if self.x.as_ref() == Some(s) {
                return Err(("series".into(), "series and x are the same axis".into()));
            }
        }
        if let Some(n) = &self.name {
            let ok = !n.is_empty()
                && n.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if !ok {
                let msg = format!("'{n}' is not a file name: use letters, digits, - _ .");
                return Err(("name".into(), msg));
            }
        }
        if self.kind != PlotKind::OverTime {
            let keys = [
                ("port", self.port.is_some()),
                ("flow", self.flow.is_some()),
                ("workload", self.workload.is_some()),
            ];
            for (k, given) in keys {
                if given {
                    return Err((k.into(), format!("{k} is for kind = \"over-time\"")));
                }
            }
        }
        match self.kind {
            PlotKind::OverTime => return self.check_over_time(),
            PlotKind::Metric => {
                let Some(y) = &self.y else {
                    let msg = format!(
                        "y is required: a sweep.csv metric ({}) or a summary.json path such as \
                         \"workloads.0.rtt_us.p99\"",
                        numeric_metrics().join(", ")
                    );
                    return Err(("y".into(), msg));
                };
                check_metric(y).map_err(|m| ("y".to_string(), m))?;
                if self.stat.is_some() {
                    return Err((
                        "stat".into(),
                        "stat is for kind = \"slowdown-by-size\"".into(),
                    ));
                }
            }
            PlotKind::SlowdownBySize | PlotKind::FctCdf => {
                let (kind, fixed) = if self.kind == PlotKind::FctCdf {
                    if self.stat.is_some() {
                        let msg = "stat is for kind = \"slowdown-by-size\"";
                        return Err(("stat".into(), msg.into()));
                    }
                    ("fct-cdf", "x: FCT, y: fraction of flows")
                } else {
                    (
                        "slowdown-by-size",
                        "x: flow-size bins, y: slowdown; use stat",
                    )
                };
                if let Some(s) = &self.stat
                    && !STATS.contains(&s.as_str())
                {
                    let msg = format!("'{s}' is not a statistic: choose {}", STATS.join(", "));
                    return Err(("stat".into(), msg));
                }
                for k in ["x", "y"] {
                    let given = if k == "x" { &self.x } else { &self.y };
                    if given.is_some() {
                        let msg = format!("{k} is fixed for kind = \"{kind}\" ({fixed})");
                        return Err((k.into(), msg));
                    }
                }
            }
        }
        Ok(())
    }

    /// The keys of an `over-time` table.
    fn check_over_time(&self) -> Result<(), (String, String)> {
        let names: Vec<&str> = super::over_time::SERIES.iter().map(|s| s.0).collect();
        let y = match &self.y {
            Some(y) if names.contains(&y.as_str()) => y.as_str(),
            Some(y) => {
                let msg = format!("'{y}' is not a time series: choose {}", names.join(", "));
                return Err(("y".into(), msg));
            }
            None => {
                let msg = format!("y is required: one of {}", names.join(", "));
                return Err(("y".into(), msg));
            }
        };
        let fixed = [
            ("x", self.x.is_some(), "x is time for kind = \"over-time\""),
            (
                "stat",
                self.stat.is_some(),
                "stat is for kind = \"slowdown-by-size\"",
            ),
            ("log_x", self.log_x.is_some(), "x is time, linear"),
            (
                "port",
                self.port.is_some() && y != "queue",
                "port is for y = \"queue\"",
            ),
            (
                "flow",
                self.flow.is_some() && !y.starts_with("cc_"),
                "flow is for y = \"cc_rate\" or \"cc_window\"",
            ),
            (
                "workload",
                self.workload.is_some() && y != "goodput",
                "workload is for y = \"goodput\"",
            ),
        ];
        match fixed.into_iter().find(|f| f.1) {
            Some((k, _, why)) => Err((k.into(), why.into())),
            None => Ok(()),
        }
    }

    /// The statistic of a `slowdown-by-size` figure.
    pub fn stat(&self) -> &str {
        self.stat.as_deref().unwrap_or("p99")
    }
}

/// The `sweep.csv` metrics that are numbers.
pub fn numeric_metrics() -> Vec<&'static str> {
    crate::sweep::table::metrics()
        .filter(|m| *m != "stop_reason")
        .collect()
}

/// Whether `y` names a numeric `sweep.csv` metric or a numeric
/// `summary.json` path (list positions as numbers); else why, with the
/// nearest valid names.
pub(crate) fn check_metric(y: &str) -> Result<(), String> {
    if numeric_metrics().contains(&y) {
        return Ok(());
    }
    let paths = crate::report::schema::summary_paths();
    let generic = crate::report::schema::generic(y);
    if paths.contains(&generic) {
        return Ok(());
    }
    // The three nearest names, list positions shown as 0.
    let mut near: Vec<((u8, usize), String)> = numeric_metrics()
        .iter()
        .map(|m| m.to_string())
        .chain(paths.iter().map(|p| p.replace(".N", ".0")))
        .map(|c| {
            // Names that contain what was written come first, shortest
            // first; then the rest by edit distance.
            let rank = if c.contains(y) {
                (0, c.len())
            } else {
                (1, strsim::levenshtein(y, &c))
            };
            (rank, c)
        })
        .collect();
    near.sort();
    let names: Vec<String> = near
        .into_iter()
        .take(3)
        .map(|(_, c)| format!("\"{c}\""))
        .collect();
    Err(format!(
        "'{y}' names no sweep.csv column nor summary.json number; the nearest are {} \
         (`dcnsim list outputs` lists them all)",
        names.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> PlotSpec {
        toml::from_str(text).unwrap()
    }

    #[test]
    fn plot_tables_are_checked_against_the_axes() {
        let axes = ["workload[0].load"];
        assert!(spec("y = \"fct_p99_us\"").check(&axes).is_ok());
        assert!(spec("y = \"workloads.1.rtt_us.p99\"").check(&axes).is_ok());
        assert!(
            spec("kind = \"slowdown-by-size\"\nstat = \"mean\"")
                .check(&axes)
                .is_ok()
        );
        let err = |t: &str| spec(t).check(&axes).unwrap_err();
        assert_eq!(err("y = \"fct\"").0, "y");
        assert!(err("y = \"fct\"").1.contains("fct_p99_us"));
        assert_eq!(err("y = \"drops\"\nx = \"load\"").0, "x");
        assert!(
            err("y = \"drops\"\nx = \"load\"")
                .1
                .contains("workload[0].load")
        );
        assert_eq!(err("y = \"drops\"\nseries = \"seed\"").0, "series");
        assert_eq!(err("kind = \"slowdown-by-size\"\nstat = \"max\"").0, "stat");
        assert_eq!(err("kind = \"slowdown-by-size\"\ny = \"drops\"").0, "y");
        assert!(
            spec("kind = \"fct-cdf\"\nseries = \"case\"")
                .check(&axes)
                .is_ok()
        );
        assert_eq!(err("kind = \"fct-cdf\"\nstat = \"p99\"").0, "stat");
        assert_eq!(err("kind = \"fct-cdf\"\nx = \"workload[0].load\"").0, "x");
        assert_eq!(err("y = \"drops\"\nname = \"a/b\"").0, "name");
        // A sweep of cases alone draws a metric by case.
        assert!(spec("y = \"drops\"").check(&[]).is_ok());
    }

    #[test]
    fn over_time_tables_name_a_series_and_only_its_keys() {
        let ok = |t: &str| spec(t).check(&[]).is_ok();
        let err = |t: &str| spec(t).check(&[]).unwrap_err();
        assert!(ok("kind = \"over-time\"\ny = \"queue\"\nport = \"s0->h0\""));
        assert!(ok("kind = \"over-time\"\ny = \"cc_rate\"\nflow = 3"));
        assert!(ok("kind = \"over-time\"\ny = \"goodput\"\nlog_y = true"));
        let e = err("kind = \"over-time\"\ny = \"drops\"");
        assert_eq!(e.0, "y");
        assert!(
            e.1.contains("queue, goodput, cc_rate, cc_window"),
            "{}",
            e.1
        );
        assert_eq!(err("kind = \"over-time\"").0, "y");
        assert_eq!(
            err("kind = \"over-time\"\ny = \"goodput\"\nport = \"s0->h0\"").0,
            "port"
        );
        assert_eq!(
            err("kind = \"over-time\"\ny = \"queue\"\nflow = 1").0,
            "flow"
        );
        assert_eq!(
            err("kind = \"over-time\"\ny = \"queue\"\nx = \"seed\"").0,
            "x"
        );
        assert_eq!(err("y = \"drops\"\nport = \"s0->h0\"").0, "port");
        assert!(ok("kind = \"over-time\"\ny = \"goodput\"\nworkload = 1"));
        assert_eq!(
            err("kind = \"over-time\"\ny = \"queue\"\nworkload = 1").0,
            "workload"
        );
        assert_eq!(err("y = \"drops\"\nworkload = 1").0, "workload");
    }
}
