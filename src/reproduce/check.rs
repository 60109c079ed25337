//! Checking a `reproduce.toml` when it is read: every name a claim uses
//! (experiment, case, axis, value, metric, statistic, placeholder) against
//! the full and the quick sweep, and every number and key combination, each
//! mistake named by file, line and key.

use super::spec::{Claim, Reproduction, STATS, Selection};
use crate::scenario::ScenarioError;
use crate::scenario::error::Source;
use crate::sweep::Sweep;
use crate::sweep::spec::value_text;
use std::collections::BTreeMap;
use toml::Spanned;

impl Reproduction {
    pub(super) fn check(&self, src: &Source<'_>) -> Result<(), ScenarioError> {
        if self.experiments.is_empty() {
            return Err(src.error(None, "experiment", "the file lists no [[experiment]]"));
        }
        let sweeps = self.read_sweeps(src)?;
        for (i, c) in self.claims.iter().enumerate() {
            self.check_claim(src, i, c, &sweeps)?;
        }
        Ok(())
    }

    /// Checks the experiments' ids and reads their sweeps, full and quick.
    fn read_sweeps(
        &self,
        src: &Source<'_>,
    ) -> Result<BTreeMap<(String, bool), Sweep>, ScenarioError> {
        let err =
            |span: std::ops::Range<usize>, key: &str, msg: String| src.error(Some(span), key, msg);
        let mut sweeps: BTreeMap<(String, bool), Sweep> = BTreeMap::new();
        for (i, e) in self.experiments.iter().enumerate() {
            let id = e.id.get_ref();
            let ok = !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
            if !ok {
                let msg = format!("'{id}' is not a folder name: use letters, digits, - and _");
                return Err(err(e.id.span(), &format!("experiment[{i}].id"), msg));
            }
            if self.experiments[..i].iter().any(|o| o.id.get_ref() == id) {
                let msg = format!("experiment '{id}' is listed twice");
                return Err(err(e.id.span(), &format!("experiment[{i}].id"), msg));
            }
            for quick in [false, true] {
                let file = self.sweep_file(e, quick);
                let span = match (&e.quick, quick) {
                    (Some(q), true) => q.span(),
                    _ => e.sweep.span(),
                };
                let key = if quick && e.quick.is_some() {
                    "quick"
                } else {
                    "sweep"
                };
                let s = Sweep::read(&file).map_err(|why| {
                    err(
                        span.clone(),
                        &format!("experiment[{i}].{key}"),
                        why.to_string(),
                    )
                })?;
                sweeps.insert((id.clone(), quick), s);
            }
        }
        Ok(sweeps)
    }

    /// Checks claim `i`: its experiment, metric and comparisons, and its
    /// selections against both of the experiment's sweeps.
    /// Why `id` names no experiment, if it names none.
    fn unknown_experiment(&self, id: &str) -> Option<String> {
        if self.experiment(id).is_some() {
            return None;
        }
        let ids: Vec<&str> = self
            .experiments
            .iter()
            .map(|e| e.id.get_ref().as_str())
            .collect();
        Some(format!(
            "no experiment '{id}': the experiments are {}",
            ids.join(", ")
        ))
    }

    fn check_claim(
        &self,
        src: &Source<'_>,
        i: usize,
        c: &Claim,
        sweeps: &BTreeMap<(String, bool), Sweep>,
    ) -> Result<(), ScenarioError> {
        let err =
            |span: std::ops::Range<usize>, key: &str, msg: String| src.error(Some(span), key, msg);
        let at = |key: &str| format!("claim[{i}].{key}");
        let id = c.experiment.get_ref();
        if let Some(msg) = self.unknown_experiment(id) {
            return Err(err(c.experiment.span(), &at("experiment"), msg));
        }
        let Some(y) = &c.ours.y else {
            return Err(src.error(
                None,
                &at("ours.y"),
                "ours needs y: a sweep.csv metric or a summary.json path",
            ));
        };
        crate::plot::spec::check_metric(y.get_ref())
            .map_err(|m| err(y.span(), &at("ours.y"), m))?;
        check_rules(src, c, y, &at)?;
        // The axis ours varies along (a trend's or `over`'s), if any.
        let axis = c.axis_key();
        let free = c.free_axis();
        let over = c.over.as_ref().map(|t| t.get_ref().as_str());
        for quick in [false, true] {
            let s = &sweeps[&(id.clone(), quick)];
            if let Some((key, t)) = axis
                && !s.axis_keys().any(|k| k == t.get_ref())
            {
                let msg = format!(
                    "'{}' is not an axis of {}: its axes are {}",
                    t.get_ref(),
                    s.file.display(),
                    axes_text(s)
                );
                return Err(err(t.span(), &at(key), msg));
            }
            for (key, sel) in c.selections() {
                // Ours and `per` vary along the claim's free axis; a
                // compared selection along `over`.
                let axis = if matches!(key, "ours" | "per") {
                    free
                } else {
                    over
                };
                check_selection(src, s, &sel, axis, quick, &at(key))?;
                check_indices(src, s, &sel, &at(&format!("{key}.y")))?;
            }
            // A number a why quotes is one number of the full run (the
            // quick sweep may lack its value): every axis fixed.
            for (key, sel) in c.number_selections().into_iter().filter(|_| !quick) {
                check_selection(src, s, &sel, None, quick, &at(&key))?;
                check_indices(src, s, &sel, &at(&format!("{key}.y")))?;
            }
        }
        check_except(
            src,
            c,
            [&sweeps[&(id.clone(), false)], &sweeps[&(id.clone(), true)]],
            &at,
        )
    }
}

/// Checks that a metric path's list positions exist in the sweep's runs
/// (`flows.by_size.3` with three buckets would read nothing after every
/// run): the buckets, transports or workloads of the first run of the
/// selection's case, loaded only when its metric names a position.
fn check_indices(
    src: &Source<'_>,
    s: &Sweep,
    sel: &Selection,
    key: &str,
) -> Result<(), ScenarioError> {
    let Some(y) = &sel.y else {
        return Ok(());
    };
    const LISTS: [(&str, &str); 3] = [
        ("flows.by_size.", "flow-size buckets"),
        ("transports.", "transports"),
        ("workloads.", "workloads"),
    ];
    let Some((prefix, what, n)) = LISTS.iter().find_map(|&(prefix, what)| {
        let rest = y.get_ref().strip_prefix(prefix)?;
        Some((prefix, what, rest.split('.').next()?.parse::<usize>().ok()?))
    }) else {
        return Ok(());
    };
    let case = sel.case.as_ref().map(|c| c.get_ref().as_str());
    let Some(run) = s.runs.iter().find(|r| case.is_none_or(|c| r.case == c)) else {
        return Ok(());
    };
    let sc = s
        .load(run)
        .map_err(|e| src.error(Some(y.span()), key, format!("{e:#}")))?;
    let len = match prefix {
        "flows.by_size." => sc.output.size_buckets.len() + 1,
        "transports." => sc.transports.len(),
        _ => sc.workloads.len(),
    };
    if n < len {
        return Ok(());
    }
    let msg = format!(
        "{}: position {n} does not exist: the runs of {} have {len} {what} (0 to {})",
        y.get_ref(),
        s.file.display(),
        len.saturating_sub(1)
    );
    Err(src.error(Some(y.span()), key, msg))
}

/// Checks that each `except` value is a value of the claim's axis (`over`,
/// a trend's or `flat_with`; in the full sweep or the quick one).
fn check_except(
    src: &Source<'_>,
    c: &Claim,
    sweeps: [&Sweep; 2],
    at: &dyn Fn(&str) -> String,
) -> Result<(), ScenarioError> {
    let Some(axis) = c.free_axis() else {
        return Ok(());
    };
    let values: Vec<String> = sweeps.iter().flat_map(|s| s.axis_values(axis)).collect();
    for (k, v) in c.except.iter().enumerate() {
        let text = value_text(v.get_ref());
        if !values.contains(&text) {
            let mut shown = values.clone();
            shown.dedup();
            let msg = format!(
                "{text} is not a value of {axis}: its values are {}",
                shown.join(", ")
            );
            return Err(src.error(Some(v.span()), &at(&format!("except[{k}]")), msg));
        }
    }
    Ok(())
}

/// Checks that claim `c` (metric `y`) compares something, and in units and
/// combinations that make sense; `at` names its keys.
/// The paper's unit converts to the metric's.
fn check_paper_unit(
    src: &Source<'_>,
    c: &Claim,
    y: &Spanned<String>,
    at: &dyn Fn(&str) -> String,
) -> Result<(), ScenarioError> {
    let metric_unit = c.metric_unit();
    if let Some(p) = &c.paper
        && crate::report::units::convert(1.0, metric_unit, &p.unit).is_none()
        && !p.unit.is_empty()
    {
        let unit = if metric_unit.is_empty() {
            "no unit"
        } else {
            metric_unit
        };
        let msg = format!(
            "'{}' cannot be compared with {} ({unit}): give the paper's value in the metric's unit",
            p.unit,
            y.get_ref(),
        );
        return Err(src.error(None, &at("paper.unit"), msg));
    }
    Ok(())
}

fn check_rules(
    src: &Source<'_>,
    c: &Claim,
    y: &Spanned<String>,
    at: &dyn Fn(&str) -> String,
) -> Result<(), ScenarioError> {
    check_numbers(src, c, at)?;
    check_paper_unit(src, c, y, at)?;
    let numeric = c.tolerance.is_some() || c.band.is_some();
    if numeric && c.paper.is_none() {
        let msg =
            "tolerance and band compare with the paper's number: give paper = { value, unit }";
        return Err(src.error(None, &at("paper"), msg));
    }
    let direction = c.compared().next().is_some()
        || c.grows_with.is_some()
        || c.falls_with.is_some()
        || c.flat_with.is_some()
        || c.at_most.is_some()
        || c.at_least.is_some();
    if !numeric && !direction {
        let msg = "the claim compares nothing: give tolerance, band, or a direction (below, above, not_above, not_below, grows_with, falls_with, flat_with, at_most, at_least)";
        return Err(src.error(None, &at("name"), msg));
    }
    if c.per.is_some() && c.compared().next().is_some() {
        let msg = "per makes ours a ratio, which below and above cannot compare: check the direction in a claim of its own";
        return Err(src.error(None, &at("per"), msg));
    }
    let axes: Vec<&str> = [
        ("grows_with", &c.grows_with),
        ("falls_with", &c.falls_with),
        ("flat_with", &c.flat_with),
        ("over", &c.over),
    ]
    .into_iter()
    .filter_map(|(k, a)| a.as_ref().map(|_| k))
    .collect();
    if axes.len() > 1 {
        let msg = format!(
            "{} each name the axis ours varies along: give one of them",
            axes.join(" and ")
        );
        return Err(src.error(None, &at(axes[1]), msg));
    }
    check_pairs(src, c, at)?;
    check_placeholders(src, c, at)?;
    if !c.except.is_empty() && c.free_axis().is_none() {
        return Err(src.error(
            None,
            &at("except"),
            "except names values of the claim's axis (over, grows_with, falls_with or \
             flat_with): give one of them",
        ));
    }
    Ok(())
}

/// Checks the keys that come in pairs: `flat_within` with `flat_with`,
/// `step_tolerance` with a trend.
fn check_pairs(
    src: &Source<'_>,
    c: &Claim,
    at: &dyn Fn(&str) -> String,
) -> Result<(), ScenarioError> {
    match (&c.flat_with, &c.flat_within) {
        (Some(_), None) => {
            let msg = "flat_with needs flat_within: the band around the mean every value must \
                       stay in, relative (0.25: +-25%)";
            return Err(src.error(None, &at("flat_within"), msg));
        }
        (None, Some(w)) => {
            let msg = "flat_within is the band of flat_with: give flat_with (the axis)";
            return Err(src.error(Some(w.span()), &at("flat_within"), msg.to_string()));
        }
        _ => {}
    }
    let trend = c.grows_with.is_some() || c.falls_with.is_some();
    if let Some(t) = &c.step_tolerance
        && !trend
    {
        let msg = "step_tolerance is how far a step may go against a trend: give grows_with \
                   or falls_with";
        return Err(src.error(Some(t.span()), &at("step_tolerance"), msg.to_string()));
    }
    for (key, v) in [
        ("step_tolerance", &c.step_tolerance),
        ("flat_within", &c.flat_within),
    ] {
        if let Some(v) = v
            && !(v.get_ref().is_finite() && *v.get_ref() >= 0.0)
        {
            let msg = format!(
                "{} is not a relative tolerance: give a finite number >= 0 (0.1: 10%)",
                v.get_ref()
            );
            return Err(src.error(Some(v.span()), &at(key), msg));
        }
    }
    Ok(())
}

/// Checks that every placeholder of `why` is `{ours}` or a name of
/// `numbers`, and that every number is quoted (a number nobody reads
/// would be a key accepted and ignored).
fn check_placeholders(
    src: &Source<'_>,
    c: &Claim,
    at: &dyn Fn(&str) -> String,
) -> Result<(), ScenarioError> {
    let used = c.placeholders();
    for name in &used {
        if *name != "ours" && !c.numbers.contains_key(*name) {
            let names: Vec<&str> = std::iter::once("ours")
                .chain(c.numbers.keys().map(String::as_str))
                .collect();
            let msg = format!(
                "{{{name}}} is not a number of the claim: the placeholders are {} \
                 (add it under numbers, a selection)",
                names
                    .iter()
                    .map(|n| format!("{{{n}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            return Err(src.error(None, &at("why"), msg));
        }
    }
    if let Some(name) = c.numbers.keys().find(|n| !used.contains(&n.as_str())) {
        let msg = format!("numbers.{name} is not quoted by why: write {{{name}}} where it goes");
        return Err(src.error(None, &at(&format!("numbers.{name}")), msg));
    }
    // A number names its scheme: one that took the claim's case in silence
    // printed the minimum threshold's drops as the standard's (issue 57).
    if let Some(case) = &c.ours.case
        && let Some((name, _)) = c.numbers.iter().find(|(_, sel)| sel.case.is_none())
    {
        let msg = format!(
            "numbers.{name} gives no case, so it would read the claim's (\"{}\") in silence: \
             give case = \"...\" for the scheme it quotes, the claim's own too",
            case.get_ref()
        );
        return Err(src.error(None, &at(&format!("numbers.{name}")), msg));
    }
    Ok(())
}

/// Checks that the claim's numbers can judge anything: a tolerance finite
/// and not negative, a band of two finite bounds in order, a finite paper
/// value and finite bounds for at_most and at_least.
fn check_numbers(
    src: &Source<'_>,
    c: &Claim,
    at: &dyn Fn(&str) -> String,
) -> Result<(), ScenarioError> {
    let err = |span: Option<std::ops::Range<usize>>, key: &str, msg: String| {
        src.error(span.or(Some(c.experiment.span())), &at(key), msg)
    };
    if let Some(t) = &c.tolerance {
        let v = *t.get_ref();
        if !v.is_finite() || v < 0.0 {
            let msg = format!(
                "{v} is not a tolerance: give a finite relative tolerance >= 0 (0.1 passes \
                 ours within 10% of the paper's)"
            );
            return Err(err(Some(t.span()), "tolerance", msg));
        }
    }
    if let Some(b) = &c.band {
        let [lo, hi] = *b.get_ref();
        if !lo.is_finite() || !hi.is_finite() || lo > hi {
            let msg = format!(
                "[{lo}, {hi}] is not a band: give [low, high], two finite ratios of ours to \
                 the paper's with low <= high (e.g. [0.5, 2.0])"
            );
            return Err(err(Some(b.span()), "band", msg));
        }
    }
    if let Some(p) = &c.paper
        && !p.value.is_finite()
    {
        let msg = format!(
            "{} is not a number the paper gives: give a finite value",
            p.value
        );
        return Err(err(None, "paper.value", msg));
    }
    for (key, bound) in [("at_most", &c.at_most), ("at_least", &c.at_least)] {
        if let Some(b) = bound
            && !b.get_ref().is_finite()
        {
            let msg = format!("{} is not a bound: give a finite number", b.get_ref());
            return Err(err(Some(b.span()), key, msg));
        }
    }
    Ok(())
}

fn axes_text(s: &Sweep) -> String {
    let keys: Vec<&str> = s.axis_keys().collect();
    if keys.is_empty() {
        "none".into()
    } else {
        keys.join(", ")
    }
}

/// Checks that `sel` picks runs of `s`: a case of it, a value of every
/// axis it fixes, and every axis with several values fixed (but `free`).
/// A selection names one of the sweep's cases when it has several.
fn check_case(
    src: &Source<'_>,
    s: &Sweep,
    sel: &Selection,
    which: &str,
    key: &str,
) -> Result<(), ScenarioError> {
    let cases = s.cases();
    match &sel.case {
        Some(c) if !cases.contains(&c.get_ref().as_str()) => {
            let msg = format!(
                "'{}' is not a case of {which}: its cases are {}",
                c.get_ref(),
                if cases.is_empty() {
                    "none".into()
                } else {
                    cases.join(", ")
                }
            );
            Err(src.error(Some(c.span()), &format!("{key}.case"), msg))
        }
        None if !cases.is_empty() => {
            let msg = format!("name a case of {which}: {}", cases.join(", "));
            Err(src.error(None, &format!("{key}.case"), msg))
        }
        _ => Ok(()),
    }
}

fn check_selection(
    src: &Source<'_>,
    s: &Sweep,
    sel: &Selection,
    free: Option<&str>,
    quick: bool,
    key: &str,
) -> Result<(), ScenarioError> {
    let which = format!(
        "{} ({})",
        s.file.display(),
        if quick { "quick" } else { "full" }
    );
    check_case(src, s, sel, &which, key)?;
    if let Some(st) = &sel.stat
        && !STATS.contains(&st.get_ref().as_str())
    {
        let msg = format!(
            "'{}' is not a statistic: choose {}",
            st.get_ref(),
            STATS.join(", ")
        );
        return Err(src.error(Some(st.span()), &format!("{key}.stat"), msg));
    }
    let fixed = sel.fixed(quick);
    let spans: BTreeMap<&String, std::ops::Range<usize>> = sel
        .at
        .iter()
        .chain(if quick {
            sel.quick_at.iter()
        } else {
            Default::default()
        })
        .map(|(k, v)| (k, v.span()))
        .collect();
    for (axis, value) in &fixed {
        let Some((_, values)) = s.axes.iter().find(|(k, _)| k == axis) else {
            let msg = format!(
                "'{axis}' is not an axis of {which}: its axes are {}",
                axes_text(s)
            );
            return Err(src.error(spans.get(axis).cloned(), &format!("{key}.at"), msg));
        };
        let texts: Vec<String> = values.iter().map(value_text).collect();
        if !texts.contains(value) {
            let msg = format!(
                "{axis} = '{value}' is not a value of {which}: it takes {}",
                texts.join(", ")
            );
            return Err(src.error(spans.get(axis).cloned(), &format!("{key}.at"), msg));
        }
        if Some(axis.as_str()) == free {
            let msg = format!("{axis} is the trend's axis: it cannot also be fixed");
            return Err(src.error(spans.get(axis).cloned(), &format!("{key}.at"), msg));
        }
    }
    for (axis, values) in &s.axes {
        if values.len() > 1 && !fixed.contains_key(axis) && Some(axis.as_str()) != free {
            let msg = format!(
                "{which} has several values of {axis}: fix one with at (or quick_at) = {{ \"{axis}\" = ... }}"
            );
            return Err(src.error(None, &format!("{key}.at"), msg));
        }
    }
    Ok(())
}
