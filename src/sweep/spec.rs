//! A sweep file, and the list of runs it stands for.
//!
//! ```toml
//! [sweep]
//! base = "../incast.toml"     # the scenario every run starts from
//! seeds = 3                   # seeds 1, 2, 3; or a list: [1, 7, 42]
//! set = { "simulation.stop_time" = "20ms" }   # overrides for every run
//!
//! [sweep.grid]                # the cartesian product of these lists
//! "workload[0].senders" = ["1-8", "1-16", "1-32"]
//!
//! [[sweep.case]]              # named sets of overrides, crossed with the grid
//! name = "DCTCP K=65"
//! set = { "switch.aqm" = { kind = "step-ecn", k = "65pkt" } }
//! ```
//!
//! Each run is the base scenario with overrides: the sweep's `set`, then
//! its case's, then its seed, then its grid values, handed to the scenario
//! loader as `--set KEY=VALUE` strings, so a run is validated exactly as
//! `dcnsim run BASE --set ...` would be. Runs are numbered case-major, then
//! grid point (axes in the order of their keys, sorted; the last axis
//! varies fastest), then seed.

use super::fingerprint::Fingerprint;
use crate::plot::PlotSpec;
use crate::scenario::ScenarioError;
use crate::scenario::error::Source;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most runs one sweep may have: beyond this a typo in a grid is
/// more likely than a plan.
pub const MAX_RUNS: usize = 1_000_000;

/// A sweep file, read.
#[derive(Debug, Clone)]
pub struct Sweep {
    /// The sweep file as given.
    pub file: PathBuf,
    /// The sweep's name (`name`, else the file's stem).
    pub name: String,
    /// The base scenario, resolved against the sweep file's folder.
    pub base: PathBuf,
    /// The axes of the grid: each dotted key and its values, in run order.
    pub axes: Vec<(String, Vec<toml::Value>)>,
    /// Every run, in order.
    pub runs: Vec<Run>,
    /// The `[[plot]]` tables, checked against the axes.
    pub plots: Vec<PlotSpec>,
}

/// One run of a sweep.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Run {
    /// Position in the sweep, from 0.
    pub index: usize,
    /// Its name and folder (`r0007`): the index, zero-padded.
    pub id: String,
    /// Its case's name (empty without cases).
    pub case: String,
    /// Each axis's value, as written in `sweep.csv`.
    pub axes: Vec<String>,
    /// The run's seed.
    pub seed: u64,
    /// The overrides that make its scenario, in order (`KEY=VALUE`).
    pub overrides: Vec<String>,
    /// The dcnsim version and input files it is made from (filled in by
    /// [`Sweep::check`]).
    #[serde(default)]
    pub fingerprint: Fingerprint,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDoc {
    sweep: SweepDoc,
    #[serde(default)]
    plot: Vec<PlotSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepDoc {
    base: String,
    name: Option<String>,
    seeds: Seeds,
    #[serde(default)]
    set: BTreeMap<String, toml::Value>,
    #[serde(default)]
    grid: BTreeMap<String, Vec<toml::Value>>,
    #[serde(default)]
    case: Vec<CaseDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseDoc {
    name: String,
    #[serde(default)]
    set: BTreeMap<String, toml::Value>,
}

/// `seeds`: a count (seeds 1 to N) or a list.
struct Seeds(Vec<u64>);

impl<'de> Deserialize<'de> for Seeds {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Seeds;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a count of seeds (3: seeds 1, 2, 3) or a list of seeds ([1, 7, 42])")
            }
            fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Seeds, E> {
                if !(1..=MAX_RUNS as i64).contains(&n) {
                    return Err(E::custom(format!(
                        "{n} seeds: the count must be 1 to {MAX_RUNS}"
                    )));
                }
                Ok(Seeds((1..=n as u64).collect()))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Seeds, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = seq.next_element::<u64>()? {
                    if v.contains(&s) {
                        return Err(serde::de::Error::custom(format!(
                            "seed {s} is listed twice"
                        )));
                    }
                    v.push(s);
                }
                if v.is_empty() {
                    return Err(serde::de::Error::custom("the list of seeds is empty"));
                }
                Ok(Seeds(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// How an axis value is written in `sweep.csv`: strings bare, everything
/// else as TOML.
pub fn value_text(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// `KEY=VALUE` for the scenario loader.
fn override_text(key: &str, v: &toml::Value) -> String {
    format!("{key}={v}")
}

impl Sweep {
    /// Reads and expands the sweep file at `path` (the runs' scenarios are
    /// not loaded yet: [`Sweep::check`] does that).
    pub fn read(path: &Path) -> Result<Sweep, ScenarioError> {
        let file = path.display().to_string();
        let text = crate::scenario::inputs::read_text(path)
            .map_err(|e| ScenarioError::unreadable(&file, "sweep file", e))?;
        let mut sweep = Sweep::parse(&file, &text)?;
        sweep.file = path.to_path_buf();
        let dir = path.parent().unwrap_or(Path::new(""));
        sweep.base = dir.join(&sweep.base);
        if sweep.name.is_empty() {
            sweep.name = path
                .file_stem()
                .map_or("sweep".into(), |s| s.to_string_lossy().into_owned());
        }
        Ok(sweep)
    }

    /// Parses sweep text; `file` names it in errors. `base` stays as written.
    pub fn parse(file: &str, text: &str) -> Result<Sweep, ScenarioError> {
        let src = Source {
            file,
            text,
            overrides: &[],
            inputs: Default::default(),
        };
        let doc: FileDoc = toml::from_str(text).map_err(|e| src.toml_error(&e, ""))?;
        let at = |key: &str, msg: String| {
            let last = key.rsplit_once(".set.").map_or(key, |(_, k)| k);
            let last = key.rsplit_once(".grid.").map_or(last, |(_, k)| k);
            src.error(find_key(text, last), key, msg)
        };
        let s = doc.sweep;
        if let Some(name) = &s.name {
            check_name(name).map_err(|m| at("sweep.name", m))?;
        }
        for (i, (k, vals)) in s.grid.iter().enumerate() {
            let key = format!("sweep.grid.{k}");
            check_key(k).map_err(|m| at(&key, m))?;
            if vals.is_empty() {
                return Err(at(&key, "the axis has no values".into()));
            }
            let texts: Vec<String> = vals.iter().map(value_text).collect();
            if let Some(j) = (1..texts.len()).find(|&j| texts[..j].contains(&texts[j])) {
                let msg = format!("{} is listed twice: each value is one grid point", texts[j]);
                return Err(at(&key, msg));
            }
            if let Some(o) = s.set.keys().find(|o| crate::scenario::keys_overlap(k, o)) {
                let msg = format!(
                    "`{k}` is a grid axis and sweep.set sets `{o}`, which overlaps it: keep one"
                );
                return Err(at(&key, msg));
            }
            if let Some(o) = s
                .grid
                .keys()
                .take(i)
                .find(|o| crate::scenario::keys_overlap(k, o))
            {
                let msg = format!(
                    "`{k}` and `{o}` are both grid axes and set the same key: a run's value \
                     would depend on their order; keep one"
                );
                return Err(at(&key, msg));
            }
        }
        for k in s.set.keys() {
            check_key(k).map_err(|m| at(&format!("sweep.set.{k}"), m))?;
        }
        let mut names: Vec<&str> = Vec::new();
        for (i, c) in s.case.iter().enumerate() {
            let key = format!("sweep.case[{i}].name");
            if c.name.trim().is_empty() {
                return Err(src.error(None, &key, "a case needs a name"));
            }
            if names.contains(&c.name.as_str()) {
                let msg = format!("two cases are named '{}'", c.name);
                return Err(src.error(None, &key, msg));
            }
            names.push(&c.name);
            for k in c.set.keys() {
                let key = format!("sweep.case[{i}].set.{k}");
                check_key(k).map_err(|m| at(&key, m))?;
                if let Some(g) = s.grid.keys().find(|g| crate::scenario::keys_overlap(k, g)) {
                    let msg = format!(
                        "`{k}`, set by case '{}', overlaps the grid axis `{g}`: keep one",
                        c.name
                    );
                    return Err(at(&key, msg));
                }
            }
        }
        let axis_keys: Vec<&str> = s.grid.keys().map(String::as_str).collect();
        for (i, p) in doc.plot.iter().enumerate() {
            p.check(&axis_keys).map_err(|(k, m)| {
                src.error(find_plot_key(text, i, &k), &format!("plot[{i}].{k}"), m)
            })?;
            if let Some(n) = &p.name
                && doc.plot[..i].iter().any(|o| o.name.as_ref() == Some(n))
            {
                let msg = format!(
                    "two [[plot]] tables are named '{n}': one file would overwrite the other"
                );
                return Err(src.error(
                    find_plot_key(text, i, "name"),
                    &format!("plot[{i}].name"),
                    msg,
                ));
            }
        }
        let axes: Vec<(String, Vec<toml::Value>)> = s.grid.into_iter().collect();
        let points = axes
            .iter()
            .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len()));
        let cases = s.case.len().max(1);
        let total = points
            .and_then(|p| p.checked_mul(cases))
            .and_then(|n| n.checked_mul(s.seeds.0.len()))
            .filter(|&n| n <= MAX_RUNS)
            .ok_or_else(|| {
                let msg = format!(
                    "the sweep has more than {MAX_RUNS} runs (cases x grid points x seeds)"
                );
                src.error(None, "sweep.grid", msg)
            })?;
        let width = (total.max(1) - 1).to_string().len().max(4);
        let common: Vec<String> = s.set.iter().map(|(k, v)| override_text(k, v)).collect();
        let no_case = [CaseDoc {
            name: String::new(),
            set: BTreeMap::new(),
        }];
        let case_list = if s.case.is_empty() {
            &no_case[..]
        } else {
            &s.case[..]
        };
        let mut runs = Vec::with_capacity(total);
        for case in case_list {
            for point in 0..points.unwrap_or(1) {
                // The point's value on each axis; the last axis varies fastest.
                let mut rest = point;
                let mut picks = vec![0; axes.len()];
                for (i, (_, vals)) in axes.iter().enumerate().rev() {
                    picks[i] = rest % vals.len();
                    rest /= vals.len();
                }
                for &seed in &s.seeds.0 {
                    let index = runs.len();
                    let mut overrides = common.clone();
                    overrides.extend(case.set.iter().map(|(k, v)| override_text(k, v)));
                    overrides.push(format!("simulation.seed={seed}"));
                    let mut shown = Vec::new();
                    for ((k, vals), &p) in axes.iter().zip(&picks) {
                        overrides.push(override_text(k, &vals[p]));
                        shown.push(value_text(&vals[p]));
                    }
                    runs.push(Run {
                        index,
                        id: format!("r{index:0width$}"),
                        case: case.name.clone(),
                        axes: shown,
                        seed,
                        overrides,
                        fingerprint: Fingerprint::default(),
                    });
                }
            }
        }
        Ok(Sweep {
            file: PathBuf::from(file),
            name: s.name.unwrap_or_default(),
            base: PathBuf::from(s.base),
            axes,
            runs,
            plots: doc.plot,
        })
    }

    /// The case names, in order (none without cases).
    pub fn cases(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.runs {
            if !r.case.is_empty() && out.last() != Some(&r.case.as_str()) {
                out.push(&r.case);
            }
        }
        out
    }

    /// The axis keys, in run order.
    pub fn axis_keys(&self) -> impl Iterator<Item = &str> {
        self.axes.iter().map(|(k, _)| k.as_str())
    }

    /// Loads every run's scenario (each validated as `dcnsim run` would),
    /// stopping at the first that fails, and records each run's
    /// fingerprint. Returns the runs' load warnings, each once, naming
    /// the first run that has it.
    pub fn check(&mut self) -> anyhow::Result<Vec<String>> {
        let mut warnings: Vec<String> = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..self.runs.len() {
            let sc = self.load(&self.runs[i])?;
            for w in &sc.warnings {
                if seen.insert(w.to_string()) {
                    let run = &self.runs[i];
                    warnings.push(format!("run {} ({}): {w}", run.id, self.describe(run)));
                }
            }
            self.runs[i].fingerprint = self.fingerprint(&sc);
        }
        Ok(warnings)
    }

    /// The values of axis `key`, as `sweep.csv` writes them (none when it
    /// is not an axis).
    pub fn axis_values(&self, key: &str) -> Vec<String> {
        self.axes
            .iter()
            .filter(|(k, _)| k == key)
            .flat_map(|(_, vs)| vs.iter().map(value_text))
            .collect()
    }

    /// The folder the sweep's inputs are named from: the sweep file's.
    pub fn root(&self) -> &Path {
        self.file.parent().unwrap_or(Path::new(""))
    }

    /// The fingerprint of a run's loaded scenario, its inputs named from [`Sweep::root`].
    pub fn fingerprint(&self, sc: &crate::scenario::Scenario) -> Fingerprint {
        Fingerprint::of(sc, self.root())
    }

    /// The files a sweep's runs read: the sweep file and every run's inputs.
    pub fn input_paths(&self) -> Vec<PathBuf> {
        let mut v = vec![self.file.clone()];
        for run in &self.runs {
            for f in &run.fingerprint.inputs {
                let p = self.root().join(&f.path);
                if !v.contains(&p) {
                    v.push(p);
                }
            }
        }
        v
    }

    /// The scenario of `run`; an error names the run by its case, axis
    /// values and seed.
    pub fn load(&self, run: &Run) -> anyhow::Result<crate::scenario::Scenario> {
        let mut sc = crate::scenario::load(&self.base, &run.overrides).map_err(|e| {
            anyhow::anyhow!(
                "{}: run {} ({}): {e}",
                self.file.display(),
                run.id,
                self.describe(run)
            )
        })?;
        sc.name = format!("{}/{}", self.name, run.id);
        Ok(sc)
    }

    /// A run's case, axis values and seed, for messages.
    pub fn describe(&self, run: &Run) -> String {
        let mut parts = Vec::new();
        if !run.case.is_empty() {
            parts.push(format!("case '{}'", run.case));
        }
        for (k, v) in self.axis_keys().zip(&run.axes) {
            parts.push(format!("{k}={v}"));
        }
        parts.push(format!("seed {}", run.seed));
        parts.join(", ")
    }
}

/// Checks `sweep.name`: it names the folder `results/NAME`, so it stays
/// inside `results/` (relative, no `..`) and is a name.
fn check_name(name: &str) -> Result<(), String> {
    let p = std::path::Path::new(name);
    let escapes = p.is_absolute()
        || p.components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
        || name.contains('\\');
    if name.trim().is_empty() || escapes {
        return Err(format!(
            "'{name}' is not a sweep name: it names the folder results/NAME, so give a \
             relative name without `..` (letters, digits, - _ . and / for subfolders)"
        ));
    }
    Ok(())
}

/// A sweep key must be a dotted scenario key, as `--set` takes.
fn check_key(key: &str) -> Result<(), String> {
    if crate::scenario::is_override_key(key) {
        Ok(())
    } else {
        Err(format!(
            "'{key}' is not a dotted scenario key such as \"switch.aqm.k\" or \
             \"workload[0].size\" (quote it in the sweep file)"
        ))
    }
}

/// The span of the first line that sets `key`, for errors serde does not
/// locate.
/// The span of `key` in the `i`th `[[plot]]` table, else of its header.
fn find_plot_key(text: &str, i: usize, key: &str) -> Option<std::ops::Range<usize>> {
    let mut offset = 0;
    let mut seen = 0;
    let mut header = None;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('[') {
            if header.is_some() {
                break;
            }
            if t == "[[plot]]" {
                if seen == i {
                    header = Some(offset..offset + t.len());
                }
                seen += 1;
            }
        } else if header.is_some() && t.split('=').next().unwrap_or("").trim() == key {
            let start = offset + (line.len() - line.trim_start().len());
            return Some(start..start + key.len());
        }
        offset += line.len();
    }
    header
}

fn find_key(text: &str, key: &str) -> Option<std::ops::Range<usize>> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        let written = t.split('=').next().unwrap_or("").trim().trim_matches('"');
        if t.contains('=') && (written == key || t.contains(&format!("\"{key}\""))) {
            let start = offset + (line.len() - t.len());
            return Some(start..start + written.len());
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
[sweep]
base = "x.toml"
seeds = 2
set = { "simulation.stop_time" = "1ms" }

[sweep.grid]
"workload[0].senders" = ["1-4", "1-8"]
"switch.buffer" = ["100pkt", "200pkt", "300pkt"]

[[sweep.case]]
name = "A"
set = { "switch.aqm" = { kind = "droptail" } }

[[sweep.case]]
name = "B"
"#;

    #[test]
    fn runs_are_cases_by_grid_by_seeds_in_order() {
        let s = Sweep::parse("s.toml", FILE).unwrap();
        assert_eq!(s.runs.len(), 2 * 2 * 3 * 2);
        let keys: Vec<&str> = s.axis_keys().collect();
        assert_eq!(keys, ["switch.buffer", "workload[0].senders"]);
        let r = &s.runs[3];
        assert_eq!(r.id, "r0003");
        assert_eq!(r.case, "A");
        assert_eq!(r.axes, ["100pkt", "1-8"]);
        assert_eq!(r.seed, 2);
        assert_eq!(
            r.overrides,
            [
                "simulation.stop_time=\"1ms\"",
                "switch.aqm={ kind = \"droptail\" }",
                "simulation.seed=2",
                "switch.buffer=\"100pkt\"",
                "workload[0].senders=\"1-8\"",
            ]
        );
        assert_eq!(s.runs[12].case, "B");
        assert_eq!(s.cases(), ["A", "B"]);
        assert!(s.runs.iter().enumerate().all(|(i, r)| r.index == i));
    }

    #[test]
    fn seeds_may_be_a_list() {
        let s = Sweep::parse("s.toml", "[sweep]\nbase = \"x\"\nseeds = [7, 9]\n").unwrap();
        let seeds: Vec<u64> = s.runs.iter().map(|r| r.seed).collect();
        assert_eq!(seeds, [7, 9]);
        assert!(s.runs[0].axes.is_empty());
        assert!(s.cases().is_empty());
    }

    #[test]
    fn bad_sweeps_are_refused_at_their_line() {
        let err = |text: &str| Sweep::parse("s.toml", text).unwrap_err().to_string();
        let head = "[sweep]\nbase = \"x\"\nseeds = 1\n";
        let e = err("[sweep]\nbase = \"x\"\nseeds = 0\n");
        assert!(
            e.contains("s.toml:3") && e.contains("count must be 1"),
            "{e}"
        );
        let e = err("[sweep]\nbase = \"x\"\nseeds = [1, 1]\n");
        assert!(e.contains("seed 1 is listed twice"), "{e}");
        let e = err(&format!("{head}[sweep.grid]\n\"a b\" = [1]\n"));
        assert!(
            e.contains("s.toml:5") && e.contains("not a dotted scenario key"),
            "{e}"
        );
        let e = err(&format!("{head}[sweep.grid]\n\"a.b\" = []\n"));
        assert!(e.contains("s.toml:5") && e.contains("no values"), "{e}");
        let e = err(&format!("{head}bogus = 2\n"));
        assert!(e.contains("s.toml:4") && e.contains("bogus"), "{e}");
        let e = err(&format!(
            "{head}[[sweep.case]]\nname = \"A\"\n[[sweep.case]]\nname = \"A\"\n"
        ));
        assert!(e.contains("two cases are named 'A'"), "{e}");
        let e = err(&format!(
            "{head}[sweep.grid]\n\"a.b\" = [1]\n[[sweep.case]]\nname = \"A\"\nset = {{ \"a.b\" = 2 }}\n"
        ));
        assert!(e.contains("overlaps the grid axis `a.b`"), "{e}");
        let ten = "[1,2,3,4,5,6,7,8,9,10]";
        let e = err(&format!(
            "[sweep]\nbase = \"x\"\nseeds = 1001\n[sweep.grid]\n\"a.b\" = {ten}\n\"a.c\" = {ten}\n\"a.d\" = {ten}\n"
        ));
        assert!(e.contains("more than 1000000 runs"), "{e}");
    }
}
