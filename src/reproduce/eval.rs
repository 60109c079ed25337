//! Checking claims on finished sweeps: each claim's number (a metric of
//! one case at fixed axis values, reduced over seeds) against the paper's
//! number and its directions, and the verdict.

use super::rules::{self, Direction, Point, SEEDS_NEEDED};
use super::spec::{Claim, Reproduction, Selection};
use crate::plot::PlotError;
use crate::plot::data::SweepResults;
use crate::report::units;
use crate::sweep::Sweep;
use crate::sweep::spec::value_text;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// How a claim came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Every seed within the tolerance or band, or (for a claim with only
    /// a direction) the direction holds, on seeds that differ.
    Pass,
    /// It would pass, but it rests on one seed, or on seeds that gave
    /// identical numbers: the spread over seeds is not measured, so the
    /// effect cannot be told from noise. Counted apart from PASS.
    NoSpread,
    /// The mean is within the tolerance or band (and the directions
    /// hold), but some seed is outside it. Not a PASS.
    AtEdge,
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
            Verdict::NoSpread => "NO SPREAD",
            Verdict::AtEdge => "AT THE EDGE",
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
    /// The range of ours over its seeds, in `unit`.
    pub range: Option<(f64, f64)>,
    /// The fewest seeds any number the claim compares rests on.
    pub seeds: usize,
    /// The unit of `ours` (the paper's, when it gives a number).
    pub unit: String,
    /// ours / paper.
    pub ratio: Option<f64>,
    /// Each direction checked: whether it holds, in words.
    pub directions: Vec<(bool, String)>,
    /// What the reader must know of how it was judged: values left out
    /// (a zero denominator, an axis the quick sweep shortens), too few seeds.
    pub notes: Vec<String>,
    /// The numbers `why` quotes, by placeholder name, as the report shows
    /// them (`ours` among them).
    pub numbers: BTreeMap<String, String>,
    /// The verdict.
    pub verdict: Verdict,
}

/// The finished results of each experiment, read once, and the full
/// sweeps' axes (what a quick run is compared with).
pub struct Results {
    by_id: BTreeMap<String, SweepResults>,
    full: BTreeMap<String, Sweep>,
}

impl Results {
    /// Reads every experiment's sweep folder under `out` (absent ones are
    /// left out: their claims are NOT RUN).
    pub fn read(r: &Reproduction, out: &Path) -> Result<Results, PlotError> {
        let mut by_id = BTreeMap::new();
        let mut full = BTreeMap::new();
        for e in &r.experiments {
            let dir = out.join(e.id.get_ref());
            if dir.join("sweep.json").exists() && dir.join("sweep.csv").exists() {
                by_id.insert(e.id.get_ref().clone(), SweepResults::read(&dir)?);
            }
            if let Ok(s) = Sweep::read(&r.sweep_file(e, false)) {
                full.insert(e.id.get_ref().clone(), s);
            }
        }
        Ok(Results { by_id, full })
    }
}

/// The points of `sel` per value of `axis` (one point, at "", without
/// one), each reduced over its seeds, in run order; `None` when a run the
/// selection takes has not finished (interrupted or failed): a claim is
/// judged on all its runs or not at all.
fn values(
    res: &mut SweepResults,
    sel: &Selection,
    axis: Option<&str>,
    quick: bool,
) -> Result<Option<Vec<Point>>, PlotError> {
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
    let free_at = axis.and_then(axis_at);
    let selected = |run: &crate::sweep::spec::Run| {
        case.as_ref().is_none_or(|c| *c == run.case)
            && fixed_at.iter().all(|(a, v)| run.axes[*a] == *v)
    };
    if res.unfinished.iter().any(selected) {
        return Ok(None);
    }
    let mut groups: Vec<(String, Vec<(u64, f64)>)> = Vec::new();
    for i in 0..res.runs.len() {
        let run = &res.runs[i].0;
        if !selected(run) {
            continue;
        }
        let key = free_at.map_or(String::new(), |a| run.axes[a].clone());
        let seed = run.seed;
        let Some(v) = res.value(i, &y)? else { continue };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, vs)) => vs.push((seed, v)),
            None => groups.push((key, vec![(seed, v)])),
        }
    }
    Ok(Some(
        groups
            .into_iter()
            .map(|(k, vs)| Point::of_seeds(&k, &vs, sel.stat()))
            .collect(),
    ))
}

/// A number for the report: four significant digits.
pub fn num(v: f64) -> String {
    units::short(v)
}

/// A value with its unit, for people: times and bytes scaled (`37.9 ms`,
/// `408.9 KB`), rates in Gb/s, whole counts with thousands separated
/// (`429,370`), other counts and ratios bare.
pub fn shown(v: f64, unit: &str) -> String {
    match unit {
        "count" if v.fract() == 0.0 && v.abs() < 1e15 => thousands(v as i64),
        "" | "ratio" | "count" => num(v),
        "gbps" => format!("{} Gb/s", num(v)),
        "%" => format!("{}%", num(v)),
        "us" => crate::report::units::fmt_time_us(v),
        "bytes" if v.abs() >= 1e6 => format!("{} MB", num(v / 1e6)),
        "bytes" if v.abs() >= 1e3 => format!("{} KB", num(v / 1e3)),
        "bytes" => format!("{} B", num(v)),
        u => format!("{} {u}", num(v)),
    }
}

/// `n` with its thousands separated by commas.
pub(crate) fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// Checks claim `c` on its experiment's results.
pub fn evaluate(c: &Claim, results: &mut Results, quick: bool) -> Result<Outcome, PlotError> {
    let metric_unit = c.metric_unit();
    let unit = match &c.paper {
        Some(p) if !p.unit.is_empty() => p.unit.clone(),
        _ => metric_unit.to_string(),
    };
    let to_unit = |v: f64| units::convert(v, metric_unit, &unit).unwrap_or(v);
    let mut o = Outcome {
        ours: None,
        range: None,
        seeds: 0,
        unit: unit.clone(),
        ratio: None,
        directions: Vec::new(),
        notes: Vec::new(),
        numbers: BTreeMap::new(),
        verdict: Verdict::NotRun,
    };
    let id = c.experiment.get_ref();
    let full_values = c
        .free_axis()
        .and_then(|a| results.full.get(id).map(|s| s.axis_values(a)));
    let Some(res) = results.by_id.get_mut(id) else {
        return Ok(o);
    };
    let Some(series) = series_of(res, c, quick, &mut o.notes)? else {
        return Ok(o);
    };
    let series: Vec<Point> = series.iter().map(|p| p.map(&to_unit)).collect();
    let except: Vec<String> = c.except.iter().map(|v| value_text(v.get_ref())).collect();
    let judged: Vec<Point> = series
        .iter()
        .filter(|p| !except.contains(&p.at))
        .cloned()
        .collect();
    if let (Some(axis), Some(full)) = (c.free_axis(), &full_values) {
        let full_n = full.iter().filter(|v| !except.contains(v)).count();
        if judged.len() < full_n {
            o.notes.push(format!(
                "judged at {} of the full sweep's {full_n} value{} of {axis}",
                judged.len(),
                if full_n == 1 { "" } else { "s" }
            ));
        }
    }
    if judged.is_empty() {
        o.notes.push("no value left to judge at".to_string());
        return Ok(o);
    }
    let ours = ours_point(c, &series);
    o.seeds = series.iter().map(|p| p.seeds).min().unwrap_or(0);
    let mut varied = series.iter().any(|p| p.hi > p.lo);
    if let Some(d) = axis_direction(c, &judged, &unit) {
        o.directions.push(d);
    }
    for (word, sel, dir) in c.compared() {
        let units = (unit.as_str(), &to_unit as &dyn Fn(f64) -> f64);
        let Some((d, theirs)) = compare(res, c, (&judged, &ours), sel, (word, dir), quick, units)?
        else {
            return Ok(o);
        };
        o.seeds = o
            .seeds
            .min(theirs.iter().map(|p| p.seeds).min().unwrap_or(0));
        varied |= theirs.iter().any(|p| p.hi > p.lo);
        o.directions.push(d);
    }
    if let Some(m) = c.at_most.as_ref().map(|m| *m.get_ref()) {
        o.directions
            .push((ours.hi <= m, format!("at most {}", shown(m, &unit))));
    }
    if let Some(m) = c.at_least.as_ref().map(|m| *m.get_ref()) {
        o.directions
            .push((ours.lo >= m, format!("at least {}", shown(m, &unit))));
    }
    if !o.directions.is_empty() && o.seeds < SEEDS_NEEDED {
        o.notes.push(format!(
            "{} seed{}: a direction needs {SEEDS_NEEDED} for its spread to be measured",
            o.seeds,
            if o.seeds == 1 { "" } else { "s" }
        ));
    } else if !o.directions.is_empty() && !varied {
        o.notes.push(format!(
            "its {} seeds gave identical values: the spread over seeds is not measured",
            o.seeds
        ));
    }
    o.numbers = numbers(res, c, ours.value, &unit, quick)?;
    o.ratio = c
        .paper
        .as_ref()
        .and_then(|p| (p.value != 0.0).then(|| ours.value / p.value));
    o.verdict = verdict_of(c, &ours, o.ratio, &o.directions);
    if o.verdict == Verdict::AtEdge {
        o.notes.push(format!(
            "the mean is inside, but the seeds span {} to {}: not every seed is",
            shown(ours.lo, &unit),
            shown(ours.hi, &unit)
        ));
    }
    // A PASS needs seeds that differ: on one seed, or on seeds that
    // agree exactly, nothing says the number is not one draw's.
    if o.verdict == Verdict::Pass && (o.seeds < SEEDS_NEEDED || !varied) {
        o.verdict = Verdict::NoSpread;
    }
    o.ours = Some(ours.value);
    o.range = Some((ours.lo, ours.hi));
    Ok(o)
}

/// Ours, the number the claim reports: a trend's last point, the mean of
/// the points of a flat series or of `over`, else the one point.
fn ours_point(c: &Claim, series: &[Point]) -> Point {
    if c.grows_with.is_some() || c.falls_with.is_some() {
        series[series.len() - 1].clone()
    } else if c.over.is_some() || c.flat_with.is_some() {
        Point::mean(series)
    } else {
        series[0].clone()
    }
}

/// A trend's or a flat series' direction over `points` (in `unit`), in words.
fn axis_direction(c: &Claim, points: &[Point], unit: &str) -> Option<(bool, String)> {
    let at = |p: &Point| format!("{} ({})", shown(p.value, unit), p.at);
    if let Some(within) = c.flat_within.as_ref().map(|w| *w.get_ref()) {
        let f = rules::flat(points, within);
        let mut text = format!(
            "stays within {}% of its mean {}",
            num(within * 100.0),
            shown(f.mean, unit)
        );
        if let Some((p, off)) = &f.furthest {
            let _ = write!(text, " (furthest: {}, {}% off)", at(p), num(off * 100.0));
        }
        return Some((f.holds, text));
    }
    let grows = c.grows_with.is_some();
    if !grows && c.falls_with.is_none() {
        return None;
    }
    let tolerance = c.step_tolerance.as_ref().map_or(0.0, |t| *t.get_ref());
    let t = rules::trend(points, grows, tolerance);
    let (first, last) = (&points[0], &points[points.len() - 1]);
    let word = if grows { "grows" } else { "falls" };
    let mut text = format!("{word} from {} to {}", at(first), at(last));
    match &t.broken {
        Some((a, b)) => {
            let against = if grows { "falls" } else { "grows" };
            let _ = write!(text, ", but {against} from {} to {}", at(a), at(b));
        }
        None if t.steps > 0 && !t.holds => text.push_str(", the ends inside their seeds' spread"),
        None if tolerance > 0.0 => {
            let within = num(tolerance * 100.0);
            let _ = write!(text, " at every step ({}), within {within}%", t.steps);
        }
        None => {
            let _ = write!(text, " at every step ({})", t.steps);
        }
    }
    Some((t.holds, text))
}

/// Ours at each value of the claim's free axis (one value without one),
/// as a ratio to `per` where given; `None` when a run it takes has not
/// finished. A value whose denominator is zero is left out, and said in
/// `notes`.
fn series_of(
    res: &mut SweepResults,
    c: &Claim,
    quick: bool,
    notes: &mut Vec<String>,
) -> Result<Option<Vec<Point>>, PlotError> {
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
    let mut zero = Vec::new();
    let mut ratios = Vec::new();
    for s in series {
        let Some(d) = theirs.iter().find(|t| t.at == s.at) else {
            continue;
        };
        match s.per(d) {
            Some(r) => ratios.push(r),
            None => zero.push(if s.at.is_empty() {
                "its one value".to_string()
            } else {
                s.at.clone()
            }),
        }
    }
    if !zero.is_empty() {
        let axis = free.map_or(String::new(), |a| format!(" of {a}"));
        notes.push(format!(
            "the denominator can be zero at {}{axis} (left out)",
            zero.join(", ")
        ));
    }
    Ok(Some(ratios))
}

/// A direction judged: whether it holds, and it in words.
type Judged = (bool, String);

/// One direction against another selection `sel`: whether it holds (with
/// `over`, at every judged value of the axis), in words, and the other
/// selection's points; `None` when the other runs did not finish.
fn compare(
    res: &mut SweepResults,
    c: &Claim,
    (judged, ours): (&[Point], &Point),
    sel: &Selection,
    (word, dir): (&str, Direction),
    quick: bool,
    (unit, to_unit): (&str, &dyn Fn(f64) -> f64),
) -> Result<Option<(Judged, Vec<Point>)>, PlotError> {
    let word = word.replace('_', " ");
    let who = who(sel, quick);
    let over = c.over.as_ref().map(|a| a.get_ref().as_str());
    let Some(theirs) = values(res, &c.ours.merged(sel), over, quick)? else {
        return Ok(None);
    };
    let theirs: Vec<Point> = theirs.iter().map(|p| p.map(to_unit)).collect();
    let seeds = theirs.iter().map(|p| p.seeds).min().unwrap_or(0);
    let Some(axis) = over else {
        let Some(t) = theirs.first() else {
            return Ok(None);
        };
        let text = format!("{word} {who}'s {}", with_range(t, unit, seeds));
        let holds = dir.holds(ours, t);
        return Ok(Some(((holds, text), theirs)));
    };
    let held = judged
        .iter()
        .filter(|p| theirs.iter().any(|t| t.at == p.at && dir.holds(p, t)))
        .count();
    let except: Vec<String> = c.except.iter().map(|v| value_text(v.get_ref())).collect();
    let but = if except.is_empty() {
        String::new()
    } else {
        format!(" (but {})", except.join(", "))
    };
    let n = judged.len();
    let text = format!("{word} {who} at {held} of {n} values of {axis}{but}");
    Ok(Some(((held == n, text), theirs)))
}

/// The other selection by what differs from ours: its case, else its
/// metric, else its axis values.
fn who(sel: &Selection, quick: bool) -> String {
    match (&sel.case, &sel.y) {
        (Some(c), _) => c.get_ref().clone(),
        (None, Some(y)) => y.get_ref().clone(),
        (None, None) => {
            let at: Vec<String> = sel
                .fixed(quick)
                .iter()
                .map(|(k, v)| format!("{k} = {v}"))
                .collect();
            at.join(", ")
        }
    }
}

/// A point for people: its value, and its seeds' range when it has several.
pub fn with_range(p: &Point, unit: &str, seeds: usize) -> String {
    if seeds > 1 && p.hi > p.lo {
        format!(
            "{} [{} to {}]",
            shown(p.value, unit),
            shown(p.lo, unit),
            shown(p.hi, unit)
        )
    } else {
        shown(p.value, unit)
    }
}

/// The numbers `why` quotes, as the report shows them: `ours`, and each of
/// `numbers` (in its metric's unit; "n/a" where its runs did not finish).
fn numbers(
    res: &mut SweepResults,
    c: &Claim,
    ours: f64,
    unit: &str,
    quick: bool,
) -> Result<BTreeMap<String, String>, PlotError> {
    let mut m = BTreeMap::new();
    m.insert("ours".to_string(), shown(ours, unit));
    for (key, sel) in c.number_selections() {
        let name = key.trim_start_matches("numbers.").to_string();
        let y = sel.y.as_ref().map_or("", |y| y.get_ref().as_str());
        let own = crate::plot::sweep::words_of(y).1;
        let same_metric = c.ours.y.as_ref().is_some_and(|o| o.get_ref() == y) && c.per.is_none();
        // In the claim's unit where the number's converts to it (a paused
        // fraction beside the paper's %), else in its own.
        let text = match values(res, &sel, None, quick)?.as_deref() {
            Some([p]) => match units::convert(p.value, own, unit) {
                Some(v) if same_metric && !unit.is_empty() => shown(v, unit),
                _ => shown(p.value, own),
            },
            _ => "n/a".to_string(),
        };
        m.insert(name, text);
    }
    Ok(m)
}

/// The verdict: a tolerance or band passes when every seed of ours is
/// inside it and every direction holds; the mean inside with a seed
/// outside is AT THE EDGE; it is DIRECTION ONLY when only the directions
/// hold; a claim of directions alone passes when they all hold.
fn verdict_of(
    c: &Claim,
    ours: &Point,
    _ratio: Option<f64>,
    directions: &[(bool, String)],
) -> Verdict {
    let all_hold = directions.iter().all(|d| d.0);
    let numeric = c.tolerance.is_some() || c.band.is_some();
    let tolerance = c.tolerance.as_ref().map(|t| *t.get_ref());
    let band = c.band.as_ref().map(|b| *b.get_ref());
    let paper = c.paper.as_ref().map(|p| p.value);
    // Whether value `v` of ours (the mean, or one seed's) is inside.
    let inside = |v: f64| match (tolerance, band, paper) {
        (Some(t), _, Some(p)) if p != 0.0 => (v / p - 1.0).abs() <= t,
        (Some(t), _, Some(_)) => v.abs() <= t, // the paper says 0
        (None, Some([lo, hi]), Some(p)) if p != 0.0 => (lo..=hi).contains(&(v / p)),
        _ => false,
    };
    let within = inside(ours.value);
    let every_seed = inside(ours.lo) && inside(ours.hi);
    match (numeric, within, all_hold, directions.is_empty()) {
        (true, true, true, _) if every_seed => Verdict::Pass,
        (true, true, true, _) => Verdict::AtEdge,
        (true, false, true, false) => Verdict::DirectionOnly,
        (true, _, _, _) => Verdict::Differs,
        (false, _, true, false) => Verdict::Pass,
        (false, _, _, _) => Verdict::Differs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(keys: &str) -> Claim {
        let text = format!(
            "experiment = \"e\"\nname = \"n\"\nwhere = \"w\"\nquote = \"q\"\n\
             ours = {{ y = \"fct_mean_us\" }}\n{keys}"
        );
        toml::from_str(&text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn seeds(v: &[f64]) -> Point {
        let s: Vec<(u64, f64)> = (1u64..).zip(v.iter().copied()).collect();
        Point::of_seeds("", &s, "mean")
    }

    /// Issue 57: "the best" is checked against every scheme it names.
    #[test]
    fn a_direction_takes_a_list_of_selections() {
        let c = claim("below = [{ case = \"minimum\" }, { case = \"standard\" }]\n");
        let against: Vec<String> = c
            .compared()
            .map(|(key, s, _)| format!("{key} {}", s.case.as_ref().expect("a case").get_ref()))
            .collect();
        assert_eq!(against, ["below minimum", "below standard"]);
        let one = claim("below = { case = \"minimum\" }\n");
        assert_eq!(one.compared().count(), 1);
    }

    /// Issue 57: a band holds only when every seed is inside it; the mean
    /// inside with a seed outside is AT THE EDGE, never a PASS.
    #[test]
    fn a_band_passes_only_when_every_seed_is_inside() {
        let c = claim("paper = { value = 100.0 }\ntolerance = 0.1\n");
        let inside = seeds(&[95.0, 100.0, 105.0]);
        assert_eq!(verdict_of(&c, &inside, Some(1.0), &[]), Verdict::Pass);
        let edge = seeds(&[85.0, 100.0, 115.0]);
        assert_eq!(verdict_of(&c, &edge, Some(1.0), &[]), Verdict::AtEdge);
        let out = seeds(&[120.0, 125.0, 130.0]);
        assert_eq!(verdict_of(&c, &out, Some(1.25), &[]), Verdict::Differs);
        let with_dir = [(true, "below".to_string())];
        assert_eq!(
            verdict_of(&c, &out, Some(1.25), &with_dir),
            Verdict::DirectionOnly
        );
    }

    #[test]
    fn whole_counts_read_with_their_thousands_separated() {
        assert_eq!(shown(429370.0, "count"), "429,370");
        assert_eq!(shown(76.0, "count"), "76");
        assert_eq!(shown(-1234.0, "count"), "-1,234");
        assert_eq!(shown(898.5, "count"), "898.5");
        assert_eq!(shown(0.5, "ratio"), num(0.5));
    }
}
