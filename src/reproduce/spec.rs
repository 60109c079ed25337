//! `reproduce.toml`: a paper's experiments and the claims checked on them.
//!
//! ```toml
//! [paper]
//! name = "ABQ"
//! title = "ABQ: Active Buffer Queueing in Datacenters"
//!
//! [[experiment]]
//! id = "fig4"
//! title = "Fig. 4: 10 to 100 senders x 32 KB"
//! sweep = "fig4.toml"             # the paper's size
//! quick = "fig4-quick.toml"       # the scaled version (`--quick`)
//! figures = ["max_switch_queue_packets-vs-workload_0__senders"]
//!
//! [[claim]]
//! experiment = "fig4"
//! name = "ABQ keeps a shorter queue than DCTCP at 100 senders"
//! where = "Fig. 4(a)"
//! quote = "ABQ can make queues significantly shorter"   # the paper's words
//! paper = { value = 20, unit = "packets" }
//! ours = { y = "max_switch_queue_packets", case = "ABQ", at = { "workload[0].senders" = "1-100" } }
//! band = [0.5, 2.0]               # ours / paper within
//! below = { case = "DCTCP" }      # and below the same selection for DCTCP
//!
//! [[not_reproduced]]
//! what = "Fig. 11: 32 queues per port"
//! where = "5.3.1"
//! why = "a port has at most 8 class queues"
//! ```
//!
//! A claim compares by a tolerance or a ratio band against the paper's
//! number, by a direction (`below`, `above`, `not_above`, `not_below`,
//! `grows_with`, `falls_with`, `flat_with`, `at_most`, `at_least`), or
//! both; `per` makes ours a ratio to another selection and `over` averages
//! it across an axis (a direction with `over` must hold at every value of
//! the axis). A `why` quotes the run through placeholders (`numbers`). The
//! rules that judge are [`super::rules`]'s; everything a claim names
//! (experiment, case, axis, value, metric, unit, placeholder) is checked
//! when the file is read (`reproduce/check.rs`), for the full and the quick
//! sweep, with the file, line and key of a mistake.

use super::rules::Direction;
use crate::scenario::ScenarioError;
use crate::scenario::error::Source;
use crate::sweep::spec::value_text;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The paper.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Paper {
    /// Its short name (`R-AQM`), as docs/references.md lists it.
    pub name: String,
    /// Its title.
    pub title: String,
    /// What holds for every experiment that the reader must know first,
    /// e.g. what the paper's simulator does with a non-ECT packet above the
    /// marking threshold (the report prints it under the title).
    pub setup: Option<String>,
}

/// One experiment: a sweep at the paper's size and, optionally, a scaled one.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// Its name and folder under the reproduction's folder.
    pub id: Spanned<String>,
    /// The figure or table it reproduces, in words.
    pub title: String,
    /// The sweep file at the paper's size (relative to `reproduce.toml`).
    pub sweep: Spanned<String>,
    /// The scaled sweep file for `--quick` (absent: the full one).
    pub quick: Option<Spanned<String>>,
    /// Figures shown in the report: a sweep figure's stem (`goodput`), or
    /// one run's figure as `RUN/STEM` (`r0001/goodput`), drawn for it.
    #[serde(default)]
    pub figures: Vec<String>,
    /// What the reader should know about the setup (unstated values chosen).
    #[serde(default)]
    pub note: String,
}

/// The paper's number.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaperValue {
    /// The value.
    pub value: f64,
    /// Its unit (`ms`, `Gb/s`, `packets`, `%`, ...).
    #[serde(default)]
    pub unit: String,
    /// How the number follows from what the paper prints, when the paper
    /// does not print it (read off a figure, or computed): the report marks
    /// it derived and gives this.
    pub derived: Option<String>,
}

/// Which of our numbers: a metric over the runs of one case at fixed axis
/// values, reduced over the seeds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    /// A `sweep.csv` metric or a `summary.json` path.
    pub y: Option<Spanned<String>>,
    /// The case (required when the sweep has cases).
    pub case: Option<Spanned<String>>,
    /// Axis values, by axis key (every axis with more than one value, but
    /// a `grows_with`/`falls_with` axis, must be fixed).
    #[serde(default)]
    pub at: BTreeMap<String, Spanned<toml::Value>>,
    /// With `--quick`: axis values that replace `at`'s (the scaled sweep's
    /// grid may differ).
    #[serde(default)]
    pub quick_at: BTreeMap<String, Spanned<toml::Value>>,
    /// Over the seeds: `mean` (default), `min` or `max`.
    pub stat: Option<Spanned<String>>,
}

/// One selection, or a list of them (`below = [{ case = "A" }, { case =
/// "B" }]`: ours below each).
#[derive(Debug, Clone)]
pub struct Selections(pub Vec<Selection>);

impl<'de> Deserialize<'de> for Selections {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Selections;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a selection ({ case = \"...\" }) or a list of them")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<Selections, A::Error> {
                let one =
                    Selection::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(Selections(vec![one]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Selections, A::Error> {
                let mut v = Vec::new();
                while let Some(s) = seq.next_element::<Selection>()? {
                    v.push(s);
                }
                Ok(Selections(v))
            }
        }
        d.deserialize_any(V)
    }
}

/// One claim of the paper, checked on one experiment.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// The experiment it is checked on.
    pub experiment: Spanned<String>,
    /// The claim in words.
    pub name: String,
    /// Where the paper says it (`Fig. 9(a)`, `Table 1`, `VI-B`).
    #[serde(rename = "where")]
    pub source: String,
    /// The paper's number, when it gives one.
    pub paper: Option<PaperValue>,
    /// Ours.
    pub ours: Selection,
    /// Relative tolerance: PASS when |ours / paper - 1| is at most this.
    pub tolerance: Option<Spanned<f64>>,
    /// Ratio band: PASS when ours / paper is within it.
    pub band: Option<Spanned<[f64; 2]>>,
    /// Ours as a ratio: divided by this selection (its keys replace
    /// ours's), e.g. DropTail's queue per ABQ's.
    pub per: Option<Selection>,
    /// Ours averaged over every value of this axis (with `per`, the mean
    /// of the ratios at each value).
    pub over: Option<Spanned<String>>,
    /// With `over` or `flat_with`: values of the axis a direction need not
    /// hold at (the exceptions the paper itself names, or a value outside
    /// the regime its sentence is about).
    #[serde(default)]
    pub except: Vec<Spanned<toml::Value>>,
    /// Direction: ours is below this selection (its keys replace ours's),
    /// or below each of a list: "the best" names every scheme it beats.
    pub below: Option<Selections>,
    /// Direction: ours is above this selection, or each of a list.
    pub above: Option<Selections>,
    /// Direction: ours is at most this selection's (ties hold: "drops the
    /// fewest" when both drop none), or each of a list's.
    pub not_above: Option<Selections>,
    /// Direction: ours is at least this selection's, or each of a list's.
    pub not_below: Option<Selections>,
    /// Direction: ours rises along this axis, at every step (within
    /// `step_tolerance`), and its last value is above its first by more
    /// than their seeds' spread.
    pub grows_with: Option<Spanned<String>>,
    /// Direction: ours falls along this axis, as `grows_with` mirrored.
    pub falls_with: Option<Spanned<String>>,
    /// With a trend: how far (relative) one step may go against it.
    pub step_tolerance: Option<Spanned<f64>>,
    /// Direction: ours stays about the same along this axis, every value
    /// within `flat_within` of their mean.
    pub flat_with: Option<Spanned<String>>,
    /// With `flat_with`: the band around the mean, relative (0.25: +-25%).
    pub flat_within: Option<Spanned<f64>>,
    /// Direction: ours is at most this (in the metric's unit, or the paper's).
    pub at_most: Option<Spanned<f64>>,
    /// Direction: ours is at least this.
    pub at_least: Option<Spanned<f64>>,
    /// Why ours differs, when it does: shown under the claim in the
    /// report. Numbers of the run go in as placeholders, `{ours}` or a
    /// name of `numbers`, filled from the run, so that no reason goes stale.
    #[serde(default)]
    pub why: String,
    /// Numbers `why` quotes, by placeholder name: each a selection (its keys
    /// replacing ours's) that picks one number.
    #[serde(default)]
    pub numbers: BTreeMap<String, Selection>,
    /// The paper's words the claim comes from: a short quote of its
    /// sentence, or its figure's caption.
    pub quote: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    paper: Paper,
    #[serde(rename = "experiment")]
    experiments: Vec<Experiment>,
    #[serde(rename = "claim", default)]
    claims: Vec<Claim>,
    #[serde(rename = "not_reproduced", default)]
    not_reproduced: Vec<NotReproduced>,
}

/// A figure or table of the paper that the reproduction does not run, and
/// why: the report lists it, so that its absence is stated, not hidden.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotReproduced {
    /// The figure or table, in words (`Fig. 11: 32 queues per port`).
    pub what: String,
    /// Where in the paper.
    #[serde(rename = "where")]
    pub source: String,
    /// Why it is not run: what dcnsim lacks, or what the paper leaves out.
    pub why: String,
}

/// A reproduction file, read and checked.
#[derive(Debug, Clone)]
pub struct Reproduction {
    /// `reproduce.toml`.
    pub file: PathBuf,
    /// The paper.
    pub paper: Paper,
    /// The experiments, in file order.
    pub experiments: Vec<Experiment>,
    /// The claims, in file order.
    pub claims: Vec<Claim>,
    /// What of the paper it does not run, and why.
    pub not_reproduced: Vec<NotReproduced>,
}

/// The over-seeds statistics a selection may ask for.
pub const STATS: &[&str] = &["mean", "min", "max"];

impl Reproduction {
    /// Reads `DIR/reproduce.toml` (or the file itself) and checks it
    /// against the sweeps it names (the full ones, and with `quick` the
    /// scaled ones).
    pub fn read(path: &Path) -> Result<Reproduction, ScenarioError> {
        let file = if path.is_dir() {
            path.join("reproduce.toml")
        } else {
            path.to_path_buf()
        };
        let name = file.display().to_string();
        let text = crate::scenario::inputs::read_text(&file)
            .map_err(|e| ScenarioError::unreadable(&name, "reproduction file", e))?;
        let src = Source {
            file: &name,
            text: &text,
            overrides: &[],
            inputs: Default::default(),
        };
        let doc: Doc = toml::from_str(&text).map_err(|e| src.toml_error(&e, ""))?;
        let r = Reproduction {
            file: file.clone(),
            paper: doc.paper,
            experiments: doc.experiments,
            claims: doc.claims,
            not_reproduced: doc.not_reproduced,
        };
        r.check(&src)?;
        Ok(r)
    }

    /// The sweep file of `e` (the quick one with `quick`, when it has one).
    pub fn sweep_file(&self, e: &Experiment, quick: bool) -> PathBuf {
        let dir = self.file.parent().unwrap_or(Path::new(""));
        let f = match (&e.quick, quick) {
            (Some(q), true) => q.get_ref(),
            _ => e.sweep.get_ref(),
        };
        dir.join(f)
    }

    /// The experiment named `id`.
    pub fn experiment(&self, id: &str) -> Option<&Experiment> {
        self.experiments.iter().find(|e| e.id.get_ref() == id)
    }
}

impl Claim {
    /// Every selection the claim reads, with its key: ours, `per` and each
    /// compared one (their keys replacing ours's).
    pub fn selections(&self) -> Vec<(&'static str, Selection)> {
        let mut v = vec![("ours", self.ours.clone())];
        if let Some(p) = &self.per {
            v.push(("per", self.ours.merged(p)));
        }
        v.extend(
            self.compared()
                .map(|(key, o, _)| (key, self.ours.merged(o))),
        );
        v
    }

    /// The selections of `numbers`, each with its key (`numbers.NAME`).
    pub fn number_selections(&self) -> Vec<(String, Selection)> {
        self.numbers
            .iter()
            .map(|(name, s)| (format!("numbers.{name}"), self.ours.merged(s)))
            .collect()
    }

    /// The key of the axis ours varies along, and the axis:
    /// `grows_with`, `falls_with` or `over`.
    pub fn axis_key(&self) -> Option<(&'static str, &Spanned<String>)> {
        [
            ("grows_with", &self.grows_with),
            ("falls_with", &self.falls_with),
            ("flat_with", &self.flat_with),
            ("over", &self.over),
        ]
        .into_iter()
        .find_map(|(k, a)| a.as_ref().map(|a| (k, a)))
    }

    /// The unit of ours before conversion: the metric's, or a ratio with `per`.
    pub fn metric_unit(&self) -> &'static str {
        if self.per.is_some() {
            return "ratio";
        }
        let y = self.ours.y.as_ref().map_or("", |y| y.get_ref().as_str());
        crate::plot::sweep::words_of(y).1
    }

    /// The selections ours is compared with: (key, selection, the
    /// direction ours must hold against theirs).
    pub fn compared(&self) -> impl Iterator<Item = (&'static str, &Selection, Direction)> {
        [
            (&self.below, Direction::Below),
            (&self.above, Direction::Above),
            (&self.not_above, Direction::NotAbove),
            (&self.not_below, Direction::NotBelow),
        ]
        .into_iter()
        .flat_map(|(s, d)| {
            s.iter()
                .flat_map(|s| s.0.iter())
                .map(move |s| (d.key(), s, d))
        })
    }

    /// The axis ours varies along: a trend's, a flat series', or `over`'s.
    pub fn free_axis(&self) -> Option<&str> {
        self.axis_key().map(|(_, a)| a.get_ref().as_str())
    }

    /// The placeholders `why` names (`{name}`), in order.
    pub fn placeholders(&self) -> Vec<&str> {
        placeholders(&self.why)
    }
}

impl Selection {
    /// This selection with `other`'s given keys in place of its own.
    pub fn merged(&self, other: &Selection) -> Selection {
        let mut m = self.clone();
        if other.y.is_some() {
            m.y = other.y.clone();
        }
        if other.case.is_some() {
            m.case = other.case.clone();
        }
        if other.stat.is_some() {
            m.stat = other.stat.clone();
        }
        m.at.extend(other.at.clone());
        m.quick_at.extend(other.quick_at.clone());
        m
    }

    /// The axis values it fixes (`quick_at` over `at` with `quick`), as
    /// `sweep.csv` writes them.
    pub fn fixed(&self, quick: bool) -> BTreeMap<String, String> {
        let mut m: BTreeMap<String, String> = self
            .at
            .iter()
            .map(|(k, v)| (k.clone(), value_text(v.get_ref())))
            .collect();
        if quick {
            m.extend(
                self.quick_at
                    .iter()
                    .map(|(k, v)| (k.clone(), value_text(v.get_ref()))),
            );
        }
        m
    }

    /// The over-seeds statistic.
    pub fn stat(&self) -> &str {
        self.stat.as_ref().map_or("mean", |s| s.get_ref().as_str())
    }
}

/// A piece of a `why` text: words as written, or a placeholder's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Text as written (an unclosed `{` is text).
    Text(&'a str),
    /// The name inside `{name}`.
    Name(&'a str),
}

/// `text` cut into its words and its `{name}` placeholders, in order: the
/// one reading of a reason that its check and its report both use.
pub fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut v = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        v.push(Piece::Text(&rest[..open]));
        v.push(Piece::Name(&rest[open + 1..open + close]));
        rest = &rest[open + close + 1..];
    }
    v.push(Piece::Text(rest));
    v
}

/// The placeholders of a `why` text: each `{name}`, in order.
pub fn placeholders(text: &str) -> Vec<&str> {
    pieces(text)
        .into_iter()
        .filter_map(|p| match p {
            Piece::Name(n) => Some(n),
            Piece::Text(_) => None,
        })
        .collect()
}
