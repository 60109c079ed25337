//! `report.md`: per experiment, each claim's paper value, ours, the ratio
//! and the verdict, the reasons given for claims that do not pass, and the
//! experiment's figures. It holds simulated results only, so a rerun of the
//! same version gives the same bytes.

use super::eval::{Outcome, Verdict, num, shown};
use super::spec::Reproduction;
use std::fmt::Write as _;
use std::path::Path;

/// How many claims came out each way.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Tally {
    /// PASS.
    pub pass: usize,
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
                Verdict::DirectionOnly => t.direction_only += 1,
                Verdict::Differs => t.differs += 1,
                Verdict::NotRun => t.not_run += 1,
            }
        }
        t
    }

    /// `3 PASS, 1 DIRECTION ONLY, 0 DIFFERS, 0 NOT RUN`.
    pub fn text(&self) -> String {
        format!(
            "{} PASS, {} DIRECTION ONLY, {} DIFFERS, {} NOT RUN",
            self.pass, self.direction_only, self.differs, self.not_run
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
        "PASS: within the tolerance or ratio band of the paper's number (or, for a claim \
         the paper states without a number, its direction holds). DIRECTION ONLY: the \
         number is off but the effect goes the paper's way. DIFFERS: neither. Ours is the \
         mean over seeds unless the claim says otherwise.\n"
    );
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
                    format!("{} {}", num(p.value), p.unit).trim().to_string()
                });
                let mut ours = o.ours.map_or("n/a".to_string(), |v| shown(v, &o.unit));
                for (holds, text) in &o.directions {
                    let _ = write!(
                        ours,
                        "; {text} {}",
                        if *holds { "(holds)" } else { "(fails)" }
                    );
                }
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
            for &i in &claims {
                let (c, o) = (&r.claims[i], &outcomes[i]);
                if o.verdict != Verdict::Pass && !c.why.trim().is_empty() {
                    let _ = writeln!(s, "*{}* ({}): {}\n", c.name, o.verdict.word(), c.why.trim());
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
    if !r.not_reproduced.is_empty() {
        let _ = writeln!(s, "## Not reproduced\n");
        for n in &r.not_reproduced {
            let _ = writeln!(s, "*{}* ({}): {}\n", n.what, n.source, n.why.trim());
        }
    }
    s
}
