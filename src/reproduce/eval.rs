//! Checking claims on finished sweeps: each claim's number (a metric of
//! one case at fixed axis values, reduced over seeds) against the paper's
//! number and its directions, and the verdict.

use super::spec::{Claim, Reproduction, Selection, Test};
use crate::plot::PlotError;
use crate::plot::data::SweepResults;
use crate::report::units;
use crate::sweep::spec::value_text;
use std::collections::BTreeMap;
use std::path::Path;

/// How a claim came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Within the tolerance or band, or (for a claim with only a
    /// direction) the direction holds.
    Pass,
    /// Outside the tolerance or band, but the claim's direction holds.
    DirectionOnly,
    /// Neither.
    Differs,
    /// The runs it needs did not finish.
    NotRun,
}

impl Verdict {
    /// As the report writes it.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::DirectionOnly => "DIRECTION ONLY",
            Verdict::Differs => "DIFFERS",
            Verdict::NotRun => "NOT RUN",
        }
    }
}

/// A claim's result.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Ours, in `unit`.
    pub ours: Option<f64>,
    /// The unit of `ours` (the paper's, when it gives a number).
    pub unit: String,
    /// ours / paper.
    pub ratio: Option<f64>,
    /// Each direction checked: whether it holds, in words.
    pub directions: Vec<(bool, String)>,
    /// The verdict.
    pub verdict: Verdict,
}

/// The finished results of each experiment, read once.
pub struct Results {
    by_id: BTreeMap<String, SweepResults>,
}

impl Results {
    /// Reads every experiment's sweep folder under `out` (absent ones are
    /// left out: their claims are NOT RUN).
    pub fn read(r: &Reproduction, out: &Path) -> Result<Results, PlotError> {
        let mut by_id = BTreeMap::new();
        for e in &r.experiments {
            let dir = out.join(e.id.get_ref());
            if dir.join("sweep.json").exists() && dir.join("sweep.csv").exists() {
                by_id.insert(e.id.get_ref().clone(), SweepResults::read(&dir)?);
            }
        }
        Ok(Results { by_id })
    }
}

/// The values of `sel` per value of `trend` (one group, keyed "", without
/// one), each reduced over its seeds, in run order; `None` when a run the
/// selection takes has not finished (interrupted or failed): a claim is
/// judged on all its runs or not at all.
fn values(
    res: &mut SweepResults,
    sel: &Selection,
    trend: Option<&str>,
    quick: bool,
) -> Result<Option<Vec<(String, f64)>>, PlotError> {
    let fixed = sel.fixed(quick);
    let y = sel
        .y
        .as_ref()
        .map_or("", |y| y.get_ref().as_str())
        .to_string();
    let case = sel.case.as_ref().map(|c| c.get_ref().clone());
    let axis_at = |name: &str| res.axes.iter().position(|a| a == name);
    let fixed_at: Vec<(usize, String)> = fixed
        .iter()
        .filter_map(|(k, v)| axis_at(k).map(|i| (i, v.clone())))
        .collect();
    let trend_at = trend.and_then(axis_at);
    let selected = |run: &crate::sweep::spec::Run| {
        case.as_ref().is_none_or(|c| *c == run.case)
            && fixed_at.iter().all(|(a, v)| run.axes[*a] == *v)
    };
    if res.unfinished.iter().any(selected) {
        return Ok(None);
    }
    let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
    for i in 0..res.runs.len() {
        let run = &res.runs[i].0;
        if !selected(run) {
            continue;
        }
        let key = trend_at.map_or(String::new(), |a| run.axes[a].clone());
        let Some(v) = res.value(i, &y)? else { continue };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, vs)) => vs.push(v),
            None => groups.push((key, vec![v])),
        }
    }
    Ok(Some(
        groups
            .into_iter()
            .map(|(k, vs)| {
                let v = match sel.stat() {
                    "min" => vs.iter().copied().fold(f64::INFINITY, f64::min),
                    "max" => vs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                    _ => vs.iter().sum::<f64>() / vs.len() as f64,
                };
                (k, v)
            })
            .collect(),
    ))
}

/// A number for the report: four significant digits.
pub fn num(v: f64) -> String {
    units::short(v)
}

/// A value with its unit, for people: times scaled (`37.9 ms`), rates in
/// Gb/s, counts and ratios bare.
pub fn shown(v: f64, unit: &str) -> String {
    match unit {
        "" | "ratio" | "count" => num(v),
        "gbps" => format!("{} Gb/s", num(v)),
        "us" => crate::report::units::fmt_time_us(v),
        u => format!("{} {u}", num(v)),
    }
}

/// Checks claim `c` on its experiment's results.
pub fn evaluate(c: &Claim, results: &mut Results, quick: bool) -> Result<Outcome, PlotError> {
    let metric_unit = c.metric_unit();
    let unit = match &c.paper {
        Some(p) if !p.unit.is_empty() => p.unit.clone(),
        _ => metric_unit.to_string(),
    };
    let to_unit = |v: f64| units::convert(v, metric_unit, &unit).unwrap_or(v);
    let not_run = Outcome {
        ours: None,
        unit: unit.clone(),
        ratio: None,
        directions: Vec::new(),
        verdict: Verdict::NotRun,
    };
    let Some(res) = results.by_id.get_mut(c.experiment.get_ref()) else {
        return Ok(not_run);
    };
    let Some(series) = series_of(res, c, quick)? else {
        return Ok(not_run);
    };
    let (Some(first), Some(last)) = (series.first().cloned(), series.last().cloned()) else {
        return Ok(not_run);
    };
    let mut directions = Vec::new();
    let ours = if c.grows_with.is_some() || c.falls_with.is_some() {
        let grows = c.grows_with.is_some();
        let holds = if grows {
            last.1 > first.1
        } else {
            last.1 < first.1
        };
        let (from, to) = (
            shown(to_unit(first.1), &unit),
            shown(to_unit(last.1), &unit),
        );
        let word = if grows { "grows" } else { "falls" };
        let text = format!("{word} from {from} ({}) to {to} ({})", first.0, last.0);
        directions.push((holds, text));
        to_unit(last.1)
    } else if c.over.is_some() {
        to_unit(series.iter().map(|s| s.1).sum::<f64>() / series.len() as f64)
    } else {
        to_unit(first.1)
    };
    for (word, o, cmp) in c.compared() {
        let Some(d) = compare(
            res,
            c,
            &series,
            (ours, &unit, &to_unit),
            word,
            o,
            cmp,
            quick,
        )?
        else {
            return Ok(not_run);
        };
        directions.push(d);
    }
    if let Some(m) = c.at_most.as_ref().map(|m| *m.get_ref()) {
        directions.push((ours <= m, format!("at most {}", shown(m, &unit))));
    }
    if let Some(m) = c.at_least.as_ref().map(|m| *m.get_ref()) {
        directions.push((ours >= m, format!("at least {}", shown(m, &unit))));
    }
    let ratio = c
        .paper
        .as_ref()
        .and_then(|p| (p.value != 0.0).then(|| ours / p.value));
    let verdict = verdict_of(c, ours, ratio, &directions);
    Ok(Outcome {
        ours: Some(ours),
        unit,
        ratio,
        directions,
        verdict,
    })
}

/// Ours at each value of the claim's free axis (one value without one),
/// as a ratio to `per` where given; `None` when a run it takes has not finished.
fn series_of(
    res: &mut SweepResults,
    c: &Claim,
    quick: bool,
) -> Result<Option<Vec<(String, f64)>>, PlotError> {
    let free = c.free_axis();
    let Some(series) = values(res, &c.ours, free, quick)? else {
        return Ok(None);
    };
    let Some(p) = &c.per else {
        return Ok(Some(series));
    };
    let Some(theirs) = values(res, &c.ours.merged(p), free, quick)? else {
        return Ok(None);
    };
    Ok(Some(
        series
            .into_iter()
            .filter_map(|(k, v)| {
                let t = theirs.iter().find(|(tk, _)| *tk == k)?.1;
                (t != 0.0).then(|| (k, v / t))
            })
            .collect(),
    ))
}

/// One direction against another selection `o`: whether `cmp(ours,
/// theirs)` holds (with `over`, at every value of the axis but the paper's
/// exceptions), in words; `None` when the other runs did not finish.
#[allow(clippy::too_many_arguments)]
fn compare(
    res: &mut SweepResults,
    c: &Claim,
    series: &[(String, f64)],
    (ours, unit, to_unit): (f64, &str, &dyn Fn(f64) -> f64),
    word: &str,
    o: &Selection,
    cmp: Test,
    quick: bool,
) -> Result<Option<(bool, String)>, PlotError> {
    let word = word.replace('_', " ");
    // The other selection by what differs from ours: its case, else its
    // metric, else its axis values.
    let who = match (&o.case, &o.y) {
        (Some(c), _) => c.get_ref().clone(),
        (None, Some(y)) => y.get_ref().clone(),
        (None, None) => {
            let at: Vec<String> = o
                .fixed(quick)
                .iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            at.join(", ")
        }
    };
    let over = c.over.as_ref().map(|a| a.get_ref().as_str());
    let Some(theirs) = values(res, &c.ours.merged(o), over, quick)? else {
        return Ok(None);
    };
    if theirs.is_empty() {
        return Ok(None);
    }
    let Some(axis) = over else {
        let t = to_unit(theirs[0].1);
        return Ok(Some((
            cmp(ours, t),
            format!("{word} {who}'s {}", shown(t, unit)),
        )));
    };
    let except: Vec<String> = c.except.iter().map(|v| value_text(v.get_ref())).collect();
    let judged: Vec<&(String, f64)> = series.iter().filter(|(k, _)| !except.contains(k)).collect();
    let held = judged
        .iter()
        .filter(|(k, v)| theirs.iter().any(|(tk, t)| tk == k && cmp(*v, *t)))
        .count();
    let but = if except.is_empty() {
        String::new()
    } else {
        format!(" (but {})", except.join(", "))
    };
    let n = judged.len();
    Ok(Some((
        held == n,
        format!("{word} {who} at {held} of {n} values of {axis}{but}"),
    )))
}

/// The verdict: a tolerance or band passes when ours is inside it and
/// every direction holds, and is DIRECTION ONLY when only the directions
/// hold; a claim of directions alone passes when they all hold.
fn verdict_of(c: &Claim, ours: f64, ratio: Option<f64>, directions: &[(bool, String)]) -> Verdict {
    let all_hold = directions.iter().all(|d| d.0);
    let numeric = c.tolerance.is_some() || c.band.is_some();
    let tolerance = c.tolerance.as_ref().map(|t| *t.get_ref());
    let band = c.band.as_ref().map(|b| *b.get_ref());
    let within = match (tolerance, band, ratio, &c.paper) {
        (Some(t), _, Some(r), _) => (r - 1.0).abs() <= t,
        (Some(t), _, None, Some(_)) => ours.abs() <= t, // the paper says 0
        (None, Some([lo, hi]), Some(r), _) => r >= lo && r <= hi,
        _ => false,
    };
    match (numeric, within, all_hold, directions.is_empty()) {
        (true, true, true, _) => Verdict::Pass,
        (true, false, true, false) => Verdict::DirectionOnly,
        (true, _, _, _) => Verdict::Differs,
        (false, _, true, false) => Verdict::Pass,
        (false, _, _, _) => Verdict::Differs,
    }
}
