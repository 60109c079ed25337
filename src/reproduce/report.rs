//! `report.md`: per experiment, each claim's paper value, ours, the ratio
//! and the verdict, the reasons given for claims that do not pass, and the
//! experiment's figures. It holds simulated results only, so a rerun of the
//! same version gives the same bytes.

use super::eval::{Outcome, Verdict, num, shown};
use super::spec::{Claim, Piece, Reproduction};
use crate::sweep::table::{field, split};
use std::fmt::Write as _;
use std::path::Path;

/// How many claims came out each way.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// PASS.
    pub pass: usize,
    /// NO SPREAD: would pass, on one seed or on seeds that agree exactly.
    pub no_spread: usize,
    /// AT THE EDGE: the mean inside the band, a seed outside.
    pub at_edge: usize,
    /// DIRECTION ONLY.
    pub direction_only: usize,
    /// DIFFERS.
    pub differs: usize,
    /// NOT RUN.
    pub not_run: usize,
}

impl Tally {
    /// Counts `outcomes`.
    pub fn of(outcomes: &[Outcome]) -> Tally {
        let mut t = Tally::default();
        for o in outcomes {
            match o.verdict {
                Verdict::Pass => t.pass += 1,
                Verdict::NoSpread => t.no_spread += 1,
                Verdict::AtEdge => t.at_edge += 1,
                Verdict::DirectionOnly => t.direction_only += 1,
                Verdict::Differs => t.differs += 1,
                Verdict::NotRun => t.not_run += 1,
            }
        }
        t
    }

    /// `3 PASS, 2 NO SPREAD, 0 AT THE EDGE, 1 DIRECTION ONLY, 0 DIFFERS,
    /// 0 NOT RUN`.
    pub fn text(&self) -> String {
        format!(
            "{} PASS, {} NO SPREAD, {} AT THE EDGE, {} DIRECTION ONLY, {} DIFFERS, {} NOT RUN",
            self.pass,
            self.no_spread,
            self.at_edge,
            self.direction_only,
            self.differs,
            self.not_run
        )
    }
}

/// A table cell: `|` and line breaks would end it.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// The report of `r` with `outcomes` (one per claim, in order); `out` is
/// the reproduction's folder (figures are linked relative to it).
/// `incomplete` says why not every run finished: then the first line says
/// the reproduction is incomplete (and claims whose runs did not all
/// finish are NOT RUN).
pub fn render(
    r: &Reproduction,
    outcomes: &[Outcome],
    out: &Path,
    quick: bool,
    incomplete: Option<&str>,
    against: Option<&Against>,
) -> String {
    let mut s = String::new();
    match incomplete {
        None => {
            let _ = writeln!(s, "# Reproduction: {}\n", r.paper.name);
        }
        Some(why) => {
            let _ = writeln!(
                s,
                "# INCOMPLETE reproduction: {} ({why})\n\nThis report is not final: a claim \
                 is judged only on all of its runs, so claims whose runs did not all finish \
                 are NOT RUN. Rerun the same command to finish the runs left (finished ones \
                 are kept).\n",
                r.paper.name
            );
        }
    }
    let _ = writeln!(s, "*{}*\n", r.paper.title);
    let _ = writeln!(
        s,
        "dcnsim {}, `dcnsim reproduce {}{}`: {} experiments, {} claims: {}.{}\n",
        env!("CARGO_PKG_VERSION"),
        r.file
            .parent()
            .map_or(String::new(), |p| p.display().to_string()),
        if quick { " --quick" } else { "" },
        r.experiments.len(),
        r.claims.len(),
        Tally::of(outcomes).text(),
        match r.not_reproduced.len() {
            0 => String::new(),
            n => format!(" Not reproduced: {n} (listed at the end, with why)."),
        }
    );
    let _ = writeln!(
        s,
        "PASS: every seed within the tolerance or ratio band of the paper's number (or, \
         for a claim the paper states without a number, its direction holds), on seeds \
         that differ. NO SPREAD: it would pass, but it rests on one seed or on seeds that \
         gave identical numbers, so the spread over seeds is not measured. AT THE EDGE: the \
         mean is within the band, but a seed is not. DIRECTION ONLY: the number is off but \
         the effect goes the paper's way. DIFFERS: neither. Ours is the mean over seeds \
         unless the claim says otherwise, with the range over its seeds in brackets. Every \
         scheme runs the same workload for a given seed, so a comparison between schemes \
         is judged seed by seed: a direction holds only when every seed's pair goes the \
         claimed way and the means differ by at least {}% of the larger; \"no more than\" \
         fails when every seed shows an excess, however small. A ratio's range is that of \
         its per-seed ratios. A direction needs {} seeds for its spread to be measured. A \
         trend must hold at every step of its axis. A paper number marked (derived) is \
         not printed in the paper; its derivation is given under the table.\n",
        super::rules::MIN_EFFECT * 100.0,
        super::rules::SEEDS_NEEDED
    );
    if let Some(setup) = &r.paper.setup {
        let _ = writeln!(s, "{}\n", setup.trim());
    }

    for e in &r.experiments {
        let id = e.id.get_ref();
        let _ = writeln!(s, "## {}\n", e.title);
        let file = r.sweep_file(e, quick);
        let _ = writeln!(s, "Sweep `{}`.", file.display());
        if !e.note.is_empty() {
            let _ = writeln!(s, "{}", e.note.trim());
        }
        s.push('\n');
        let claims: Vec<usize> = (0..r.claims.len())
            .filter(|&i| r.claims[i].experiment.get_ref() == id)
            .collect();
        if !claims.is_empty() {
            let _ = writeln!(s, "| claim | where | paper | dcnsim | ratio | verdict |");
            let _ = writeln!(s, "|---|---|---|---|---|---|");
            for &i in &claims {
                let (c, o) = (&r.claims[i], &outcomes[i]);
                let paper = c.paper.as_ref().map_or("(direction)".to_string(), |p| {
                    let derived = if p.derived.is_some() {
                        " (derived)"
                    } else {
                        ""
                    };
                    let value = if p.unit.is_empty() {
                        num(p.value)
                    } else {
                        shown(p.value, &p.unit)
                    };
                    format!("{value}{derived}")
                });
                let ours = ours_cell(o);
                let ratio = o.ratio.map_or("".to_string(), num);
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | {} | {} | **{}** |",
                    cell(&c.name),
                    cell(&c.source),
                    cell(&paper),
                    cell(&ours),
                    ratio,
                    o.verdict.word()
                );
            }
            s.push('\n');
            s.push_str(&words(r, &claims));
            for &i in &claims {
                let (c, o) = (&r.claims[i], &outcomes[i]);
                // A reason explains a verdict: none for a claim not judged.
                if !matches!(o.verdict, Verdict::Pass | Verdict::NotRun)
                    && let Some(why) = why_text(c, o, quick)
                {
                    let _ = writeln!(s, "*{}* ({}): {why}\n", c.name, o.verdict.word());
                }
            }
        }
        for f in &e.figures {
            let png = super::figure_path(id, f);
            if out.join(&png).exists() {
                let _ = writeln!(s, "![{f}]({})\n", png.display());
            } else {
                let _ = writeln!(s, "(figure `{f}` was not drawn)\n");
            }
        }
    }
    if let Some(a) = against {
        s.push_str(&a.section(r, outcomes, quick));
    }
    if !r.not_reproduced.is_empty() {
        let _ = writeln!(s, "## Not reproduced\n");
        for n in &r.not_reproduced {
            let _ = writeln!(s, "*{}* ({}): {}\n", n.what, n.source, n.why.trim());
        }
    }
    s
}

/// The "ours" cell: the number with its seeds' range, each direction and
/// whether it holds, and the notes on how it was judged.
fn ours_cell(o: &Outcome) -> String {
    let mut ours = match (o.ours, o.range) {
        (Some(v), Some((lo, hi))) if o.seeds > 1 && hi > lo => format!(
            "{} [{} to {}, {} seeds]",
            shown(v, &o.unit),
            shown(lo, &o.unit),
            shown(hi, &o.unit),
            o.seeds
        ),
        (Some(v), _) => format!(
            "{} ({} seed{})",
            shown(v, &o.unit),
            o.seeds,
            if o.seeds == 1 { "" } else { "s" }
        ),
        (None, _) => "n/a".to_string(),
    };
    for (holds, text) in &o.directions {
        let _ = write!(
            ours,
            "; {text} {}",
            if *holds { "(holds)" } else { "(fails)" }
        );
    }
    for n in &o.notes {
        let _ = write!(ours, "; {n}");
    }
    ours
}

/// Under a table: each claim in the paper's words, and how a derived paper
/// number was derived.
fn words(r: &Reproduction, claims: &[usize]) -> String {
    let mut s = String::new();
    for &i in claims {
        let c = &r.claims[i];
        let quote = c.quote.as_deref().map(str::trim).filter(|q| !q.is_empty());
        let derived = c.paper.as_ref().and_then(|p| p.derived.as_deref());
        if quote.is_none() && derived.is_none() {
            continue;
        }
        let _ = write!(s, "- *{}*:", c.name);
        if let Some(q) = quote {
            let _ = write!(s, " \"{}\" ({})", q.replace('\n', " "), c.source);
        }
        if let Some(d) = derived {
            let _ = write!(
                s,
                " The paper's number is derived: {}",
                d.trim().replace('\n', " ")
            );
        }
        s.push('\n');
    }
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// `why` with its placeholders filled from the run; `None` when it is
/// empty. A quick report says where to find it instead when it has numbers
/// of its own outside placeholders (written for the full run, they would
/// sit beside the quick run's numbers) or quotes a number the quick sweep
/// does not have.
pub fn why_text(c: &Claim, o: &Outcome, quick: bool) -> Option<String> {
    let why = c.why.trim();
    if why.is_empty() {
        return None;
    }
    let mut text = String::new();
    let (mut missing, mut digits) = (false, false);
    for piece in super::spec::pieces(why) {
        match piece {
            Piece::Text(s) => {
                digits |= s.chars().any(|ch| ch.is_ascii_digit());
                text.push_str(s);
            }
            Piece::Name(n) => {
                let v = o.numbers.get(n).map_or("n/a", String::as_str);
                missing |= v == "n/a";
                text.push_str(v);
            }
        }
    }
    if quick && (missing || digits) {
        return Some(
            "(its reason quotes the full run: see the report of a full reproduction)".to_string(),
        );
    }
    Some(text)
}

/// Another reproduction's verdicts of the same paper (`verdicts.csv`), to
/// show where a quick run and a full one part.
#[derive(Debug, Clone)]
pub struct Against {
    /// Whether the other run was quick.
    pub quick: bool,
    /// Its verdict of each claim, by claim name.
    pub verdicts: Vec<(String, String)>,
}

/// The header of `verdicts.csv`.
pub const VERDICTS_HEADER: &str = "claim,experiment,mode,verdict,dcnsim";
/// The header of a `verdicts.csv` written before its `dcnsim` column.
const VERDICTS_HEADER_OLD: &str = "claim,mode,verdict";

/// `verdicts.csv`: each claim's verdict and the report's "dcnsim" cell
/// (ours with its seeds' range, each direction, how it was judged), one
/// line each: for a later run's `--against`, and, published beside a
/// report, what CI holds HEAD's quick run to
/// (`scripts/ci-reproductions.sh`).
pub fn verdicts_csv(r: &Reproduction, outcomes: &[Outcome], quick: bool) -> String {
    let mut s = format!("{VERDICTS_HEADER}\n");
    let mode = if quick { "quick" } else { "full" };
    for (c, o) in r.claims.iter().zip(outcomes) {
        let _ = writeln!(
            s,
            "{},{},{mode},{},{}",
            field(&c.name),
            field(c.experiment.get_ref()),
            o.verdict.word(),
            field(&ours_cell(o))
        );
    }
    s
}

impl Against {
    /// Reads `DIR/verdicts.csv`.
    pub fn read(dir: &Path) -> Result<Against, String> {
        let file = dir.join("verdicts.csv");
        let text = std::fs::read_to_string(&file).map_err(|e| {
            format!(
                "{}: {e} (a reproduction's folder writes it)",
                file.display()
            )
        })?;
        let mut lines = text.lines();
        let columns = match lines.next() {
            Some(VERDICTS_HEADER) => 5,
            Some(VERDICTS_HEADER_OLD) => 3,
            _ => {
                return Err(format!(
                    "{}: not a verdicts file (its first line is not {VERDICTS_HEADER})",
                    file.display()
                ));
            }
        };
        let mut verdicts = Vec::new();
        let mut quick = false;
        for (n, line) in lines.enumerate() {
            let fields = split(line);
            if fields.len() != columns {
                let want = if columns == 5 {
                    VERDICTS_HEADER
                } else {
                    VERDICTS_HEADER_OLD
                };
                return Err(format!("{}: line {} is not {want}", file.display(), n + 2));
            }
            // claim,experiment,mode,verdict,dcnsim (or claim,mode,verdict).
            let at = |i: usize| fields[if columns == 5 && i > 0 { i + 1 } else { i }].clone();
            let (name, mode, verdict) = (at(0), at(1), at(2));
            quick = mode == "quick";
            verdicts.push((name, verdict));
        }
        Ok(Against { quick, verdicts })
    }

    /// The section listing the claims whose verdicts differ between this
    /// run and the other.
    fn section(&self, r: &Reproduction, outcomes: &[Outcome], quick: bool) -> String {
        let mode = |q: bool| if q { "--quick" } else { "full" };
        let mut rows = String::new();
        let mut both = 0;
        let mut differ = 0;
        for (c, o) in r.claims.iter().zip(outcomes) {
            let Some((_, theirs)) = self.verdicts.iter().find(|(n, _)| *n == c.name) else {
                continue;
            };
            both += 1;
            if theirs != o.verdict.word() {
                differ += 1;
                let _ = writeln!(
                    rows,
                    "| {} | {} | {theirs} |",
                    cell(&c.name),
                    o.verdict.word()
                );
            }
        }
        let mut s = format!(
            "## {} against {}\n\n**{} against {}:** {differ} of {both} verdicts differ.",
            mode(quick),
            mode(self.quick),
            mode(quick),
            mode(self.quick)
        );
        if differ > 0 {
            let _ = write!(
                s,
                " These claims come out differently in the two runs: a quick sweep is \
                 smaller, and most run one seed.\n\n| claim | {} | {} |\n|---|---|---|\n{rows}",
                mode(quick),
                mode(self.quick)
            );
        } else {
            s.push('\n');
        }
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(why: &str) -> Claim {
        let text = format!(
            "experiment = \"e\"\nname = \"n\"\nwhere = \"w\"\nours = {{ y = \"drops\" }}\n\
             at_most = 0\nwhy = \"{why}\"\nnumbers = {{ b = {{ case = \"B\" }} }}\n"
        );
        toml::from_str(&text).expect("a claim")
    }

    fn outcome(b: &str) -> Outcome {
        Outcome {
            ours: Some(3.0),
            range: None,
            seeds: 1,
            unit: String::new(),
            ratio: None,
            directions: Vec::new(),
            notes: Vec::new(),
            numbers: [("ours", "3.000"), ("b", b)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            verdict: Verdict::Differs,
        }
    }

    #[test]
    fn a_why_is_filled_from_the_run_and_a_quick_report_hides_the_full_runs_numbers() {
        let c = claim("ours {ours}, B {b}");
        assert_eq!(
            why_text(&c, &outcome("7.000"), false).as_deref(),
            Some("ours 3.000, B 7.000")
        );
        // Only placeholders: the quick run's own numbers, shown.
        assert_eq!(
            why_text(&c, &outcome("7.000"), true).as_deref(),
            Some("ours 3.000, B 7.000")
        );
        // A number the quick sweep lacks: not shown beside the quick numbers.
        let hidden = why_text(&c, &outcome("n/a"), true).expect("a line");
        assert!(hidden.contains("quotes the full run"), "{hidden}");
        // Digits of its own (written about the full run): hidden in quick only.
        let c = claim("ours {ours}, B {b}, at 36 senders");
        assert!(
            why_text(&c, &outcome("7.000"), true)
                .expect("a line")
                .contains("full run")
        );
        assert!(
            why_text(&c, &outcome("7.000"), false)
                .expect("a line")
                .ends_with("36 senders")
        );
    }
}
