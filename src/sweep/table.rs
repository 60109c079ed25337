//! `sweep.csv`: one row per run, with the run's id, case, axis values and
//! seed, then its headline metrics from `summary.json` (docs/outputs.md).
//! Rows are in run order whatever order the runs finished in.

use super::spec::Run;
use crate::report::RunSummary;

/// The headline metric columns, after the run's own (declared, with
/// units and meanings, in `report::columns::SWEEP_METRICS`).
pub fn metrics() -> impl Iterator<Item = &'static str> {
    crate::report::columns::SWEEP_METRICS.iter().map(|c| c.name)
}

/// How many metric columns a row has.
fn metric_count() -> usize {
    crate::report::columns::SWEEP_METRICS.len()
}

/// A number as written: Rust's shortest form that reads back exactly
/// (deterministic); empty where the metric does not exist.
fn num(v: Option<f64>) -> String {
    v.map_or(String::new(), |x| format!("{x}"))
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The header line of a sweep's table with these axes.
pub fn header<'a>(axes: impl Iterator<Item = &'a str>) -> String {
    let mut cols = vec!["run".to_string(), "case".to_string()];
    cols.extend(axes.map(field));
    cols.push("seed".into());
    cols.extend(metrics().map(str::to_string));
    cols.join(",") + "\n"
}

/// A row's first fields, the run's own: id, case, axis values, seed.
fn own_columns(run: &Run) -> Vec<String> {
    let mut cols = vec![run.id.clone(), field(&run.case)];
    cols.extend(run.axes.iter().map(|a| field(a)));
    cols.push(run.seed.to_string());
    cols
}

/// The rest of `line` after `run`'s own columns and their comma.
fn after_own_columns<'a>(run: &Run, line: &'a str) -> Result<&'a str, String> {
    let prefix = own_columns(run).join(",") + ",";
    line.strip_prefix(&prefix)
        .ok_or_else(|| format!("it does not start with the run's own columns ({prefix})"))
}

/// `offered_load`'s field: the offered loads of the load-driven
/// workloads summed; empty for a run without one.
fn offered_load(offered: &[f64]) -> String {
    num((!offered.is_empty()).then(|| offered.iter().sum()))
}

/// Checks that `line` is a well-formed row of `run`: its id, case, axis
/// values and seed, then one field per metric, each a number, empty, or
/// (the first) a stop reason; one line.
pub fn check_row(run: &Run, line: &str) -> Result<(), String> {
    let rest = after_own_columns(run, line)?;
    let Some(rest) = rest.strip_suffix('\n') else {
        return Err("it does not end with a line break".into());
    };
    let fields: Vec<&str> = rest.split(',').collect();
    if fields.len() != metric_count() {
        return Err(format!(
            "{} metric fields where a row has {}",
            fields.len(),
            metric_count()
        ));
    }
    let word = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c == '_');
    if !word(fields[0]) {
        return Err(format!("'{}' is not a stop reason", fields[0]));
    }
    for (name, v) in metrics().zip(&fields).skip(1) {
        if !v.is_empty() && v.parse::<f64>().is_err() {
            return Err(format!("{name} = '{v}' is not a number"));
        }
    }
    Ok(())
}

/// The row of a finished run.
pub fn row(run: &Run, s: &RunSummary) -> String {
    let f = &s.flows;
    let offered: Vec<f64> = s.loads.iter().map(|l| l.offered).collect();
    let mut cols = own_columns(run);
    cols.extend([
        s.stop_reason.to_string(),
        format!("{}", s.simulated_time_us),
        s.events.to_string(),
        f.total.to_string(),
        f.completed.to_string(),
        num(f.goodput_gbps),
        num(f.jain_index),
        num(f.fct_us.mean),
        num(f.fct_us.p50),
        num(f.fct_us.p99),
        num(f.fct_us.p999),
        num(f.slowdown.mean),
        num(f.slowdown.p50),
        num(f.slowdown.p99),
        s.drops.to_string(),
        s.ecn_marks.to_string(),
        s.max_switch_queue_packets.to_string(),
        f.retransmissions.to_string(),
        f.timeouts.to_string(),
        f.rto_episodes.to_string(),
        f.syn_retransmissions.to_string(),
        offered_load(&offered),
        f.unfinished_waiting_on_timer.to_string(),
        f.unfinished_nothing_acked.to_string(),
    ]);
    let cct = crate::report::headline(&s.jobs);
    cols.extend([
        num(cct.and_then(|c| c.cct_us.mean)),
        num(cct.and_then(|c| c.cct_over_bound())),
    ]);
    debug_assert_eq!(cols.len(), 3 + run.axes.len() + metric_count());
    cols.join(",") + "\n"
}

/// Reads one metric's field from a run's `summary.json`.
type FromSummary = fn(&serde_json::Value) -> Option<String>;

/// The metric columns added since `sweep.csv` was first published, last
/// in a row, each read back from a finished run's `summary.json`: a row
/// written before them is completed from its run's summary instead of the
/// run being run again (a full MQ-ECN reproduction is three hours).
const ADDED_METRICS: &[(&str, FromSummary)] = &[
    ("syn_retransmissions", |s| {
        s["flows"]["syn_retransmissions"]
            .as_u64()
            .map(|n| n.to_string())
    }),
    ("offered_load", |s| {
        let loads = s["loads"].as_array()?;
        let offered: Option<Vec<f64>> = loads.iter().map(|l| l["offered"].as_f64()).collect();
        Some(offered_load(&offered?))
    }),
    // A summary written before these counts (issue 56) has none: empty.
    ("unfinished_waiting_on_timer", |s| {
        Some(
            s["flows"]["unfinished_waiting_on_timer"]
                .as_u64()
                .map_or(String::new(), |n| n.to_string()),
        )
    }),
    ("unfinished_nothing_acked", |s| {
        Some(
            s["flows"]["unfinished_nothing_acked"]
                .as_u64()
                .map_or(String::new(), |n| n.to_string()),
        )
    }),
    // Issue 58: a collective's headline, from the summary's jobs.
    ("cct_mean_us", |s| {
        Some(num(headline_json(s).map(|(mean, _)| mean)))
    }),
    ("cct_over_bound", |s| {
        Some(num(headline_json(s).and_then(|(mean, bound)| {
            (bound > 0.0).then(|| mean / bound)
        })))
    }),
];

/// [`crate::report::headline`] read from a `summary.json`: the mean CCT
/// and bound of the first job's first collective that completed.
fn headline_json(s: &serde_json::Value) -> Option<(f64, f64)> {
    s["jobs"].as_array()?.iter().find_map(|j| {
        let c = &j["collectives"][0];
        Some((c["cct_us"]["mean"].as_f64()?, c["bound_us"].as_f64()?))
    })
}

/// `line`, a row of `run` written before the last `ADDED_METRICS`,
/// completed from the run's `summary.json` text; `None` if it is not
/// such a row.
pub fn completed_row(run: &Run, line: &str, summary: &str) -> Option<String> {
    let body = line.strip_suffix('\n')?;
    let missing = metric_count().checked_sub(metrics_in(run, line)?)?;
    if missing == 0 || missing > ADDED_METRICS.len() {
        return None;
    }
    let s: serde_json::Value = serde_json::from_str(summary).ok()?;
    let mut out = body.to_string();
    for (_, read) in &ADDED_METRICS[ADDED_METRICS.len() - missing..] {
        out.push(',');
        out.push_str(&read(&s)?);
    }
    out.push('\n');
    check_row(run, &out).is_ok().then_some(out)
}

/// How many metric fields a row of `run` has (after its own columns).
fn metrics_in(run: &Run, line: &str) -> Option<usize> {
    let rest = after_own_columns(run, line).ok()?;
    Some(rest.trim_end_matches('\n').split(',').count())
}

/// Splits one CSV line into fields (quotes as [`field`] writes them).
pub fn split(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.trim_end_matches(['\n', '\r']).chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_with_commas_are_quoted_and_read_back() {
        assert_eq!(field("1-8"), "1-8");
        assert_eq!(field("[1, 2]"), "\"[1, 2]\"");
        assert_eq!(field("a\"b"), "\"a\"\"b\"");
        let line = ["r1", "[1, 2]", "a\"b", ""].map(field).join(",");
        assert_eq!(split(&line), ["r1", "[1, 2]", "a\"b", ""]);
    }

    #[test]
    fn the_added_metrics_are_the_last_columns_in_order() {
        let names: Vec<&str> = metrics().collect();
        let added: Vec<&str> = ADDED_METRICS.iter().map(|a| a.0).collect();
        assert_eq!(names[names.len() - added.len()..], added[..]);
    }
}
