//! The plugin registries: one table per family, one row per kind.
//!
//! A row holds everything dcnsim knows of a kind: its name (the TOML
//! `kind`), what it models and the paper section it follows, its keys with
//! default, unit and meaning (what `dcnsim list` prints and
//! docs/scenarios.md must name), and its parse-and-validate, which turns
//! the kind's table into a checked value that builds the thing. The loader
//! dispatches on these rows only: a kind that has no row is an error that
//! lists the rows, never a fall-through to another kind.
//!
//! docs/extending.md has a recipe per family. Adding an egress AQM (the
//! others are alike):
//! 1. write the plugin and its serde config in `crates/aqm/src/<name>.rs`
//!    (`pub mod <name>;` in its lib.rs), and implement
//!    [`::aqm::EgressPlugin`] for the config: `check` for the cross-key rules,
//!    `build` for one port's plugin;
//! 2. add one row to [`aqm::FAMILY`] with
//!    its keys;
//! 3. document the kind and its keys in docs/scenarios.md (a test fails
//!    until every row's kind and keys are named there).

pub mod aqm;
pub mod cc;
pub mod ingress;
pub mod scheduler;
pub mod tables;
pub mod topology;
pub mod transport;
pub mod workload;

use crate::scenario::ScenarioError;
use crate::scenario::Table;
use std::fmt::Write as _;
use std::ops::Deref;
use std::sync::Arc;

/// A config that passed its row's checks. Only the registries make one, so
/// the world can only build plugins, shapes and workloads from checked configs.
#[derive(Debug)]
pub struct Checked<P: ?Sized>(Arc<P>);

impl<P: ?Sized> Checked<P> {
    /// Wraps a config its row has just checked.
    fn new(checked: Arc<P>) -> Self {
        Checked(checked)
    }
}

impl<P: ?Sized> Clone for Checked<P> {
    fn clone(&self) -> Self {
        Checked(Arc::clone(&self.0))
    }
}

impl<P: ?Sized> Deref for Checked<P> {
    type Target = P;
    fn deref(&self) -> &P {
        &self.0
    }
}

/// One key of a kind, as documented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// The TOML key.
    pub name: &'static str,
    /// Its default as a user would write it, `required`, or `none` (absent
    /// unless given).
    pub default: &'static str,
    /// Its unit or type (`duration`, `queue size`, `integer`...), then
    /// its bounds after a comma where it has them: `duration, 0 to 1s`,
    /// `duration, > 0`. A duration key must state its minimum (a test
    /// reads it); `dcnsim list` and docs/scenarios.md print this text.
    pub unit: &'static str,
    /// What it means.
    pub meaning: &'static str,
}

/// What a row says of its kind, apart from how to parse it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindDoc {
    /// The TOML `kind`.
    pub name: &'static str,
    /// What it models, in a line.
    pub about: &'static str,
    /// The paper or standard and section it follows (empty if none).
    pub paper: &'static str,
    /// Its keys.
    pub keys: &'static [Key],
    /// The transport family it runs on (controllers only; empty otherwise).
    pub runs_on: &'static str,
}

/// One kind of a family: its documentation and its parse-and-validate.
pub struct Kind<O> {
    /// The documentation.
    pub doc: KindDoc,
    /// Reads the kind's table (without `kind`) into a checked value.
    pub parse: fn(&Table<'_>) -> Result<O, ScenarioError>,
}

/// A plugin family: where its tables live, the kind used when the table or
/// its `kind` is absent, and its rows.
pub struct Family<O: 'static> {
    /// The family's name (`dcnsim list NAME`).
    pub name: &'static str,
    /// The TOML table its kinds live in.
    pub table: &'static str,
    /// The kind used when none is given (`None`: `kind` is required).
    pub default: Option<&'static str>,
    /// The rows.
    pub kinds: &'static [Kind<O>],
}

impl<O> Family<O> {
    /// The row named `name`.
    pub fn find(&self, name: &str) -> Option<&'static Kind<O>> {
        self.kinds.iter().find(|k| k.doc.name == name)
    }

    /// The valid kinds, quoted, for error messages.
    pub fn choices(&self) -> String {
        self.kinds
            .iter()
            .map(|k| format!("\"{}\"", k.doc.name))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The family's documentation, without its parsers.
    pub fn info(&self) -> FamilyInfo {
        FamilyInfo {
            name: self.name,
            table: self.table,
            default: self.default,
            kinds: self.kinds.iter().map(|k| k.doc).collect(),
        }
    }
}

/// A family's documentation.
#[derive(Debug, Clone)]
pub struct FamilyInfo {
    /// The family's name.
    pub name: &'static str,
    /// The TOML table.
    pub table: &'static str,
    /// The default kind.
    pub default: Option<&'static str>,
    /// Each kind's documentation.
    pub kinds: Vec<KindDoc>,
}

/// Every family, in the order of a scenario file.
pub fn families() -> Vec<FamilyInfo> {
    vec![
        topology::FAMILY.info(),
        scheduler::FAMILY.info(),
        aqm::FAMILY.info(),
        ingress::FAMILY.info(),
        transport::FAMILY.info(),
        cc::FAMILY.info(),
        workload::FAMILY.info(),
    ]
}

/// A row's text with its lists of names filled from the registry: `{tcp
/// cc}` and `{roce cc}` become the controllers each transport family
/// accepts, so that a new controller's row is the only place its name is
/// written.
pub fn filled(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('{') {
        return text.into();
    }
    text.replace("{tcp cc}", &cc::listed_on(cc::TCP))
        .replace("{roce cc}", &cc::listed_on(cc::ROCE))
        .into()
}

/// `dcnsim list [FAMILY]`: every kind with its keys, defaults, units and
/// paper section. `None` if `family` names no family.
pub fn render_list(family: Option<&str>) -> Option<String> {
    let all = families();
    let chosen: Vec<&FamilyInfo> = all
        .iter()
        .filter(|f| family.is_none_or(|n| n == f.name))
        .collect();
    let tables: Vec<tables::TableInfo> = tables::tables()
        .into_iter()
        .filter(|t| family.is_none_or(|n| n == t.name))
        .collect();
    if chosen.is_empty() && tables.is_empty() {
        return None;
    }
    let mut s = String::new();
    for f in chosen {
        let _ = write!(s, "{} [{}]", f.name, f.table);
        if let Some(d) = f.default {
            let _ = write!(s, " (default kind: {d})");
        }
        s.push('\n');
        for k in &f.kinds {
            let _ = write!(s, "  {:<18} ", k.name);
            if !k.runs_on.is_empty() {
                let _ = write!(s, "({}) ", k.runs_on);
            }
            let _ = write!(s, "{}", filled(k.about));
            if !k.paper.is_empty() {
                let _ = write!(s, " [{}]", k.paper);
            }
            s.push('\n');
            for key in k.keys {
                let _ = writeln!(
                    s,
                    "      {:<26} {:<14} {:<18} {}",
                    key.name,
                    key.default,
                    key.unit,
                    filled(key.meaning)
                );
            }
        }
        s.push('\n');
    }
    for t in tables {
        render_table(&mut s, &t);
    }
    Some(s)
}

/// A table of fixed keys, as `dcnsim list` prints it: its keys, then the
/// names its naming keys take.
fn render_table(s: &mut String, t: &tables::TableInfo) {
    let _ = writeln!(s, "{} [{}]", t.name, t.table);
    let _ = writeln!(s, "  {}", t.about);
    for key in t.keys {
        let _ = writeln!(
            s,
            "      {:<26} {:<14} {:<18} {}",
            key.name, key.default, key.unit, key.meaning
        );
    }
    for (key, names) in &t.choices {
        let _ = writeln!(s, "    {key}:");
        for (name, meaning) in names {
            let _ = writeln!(s, "      {:<26} {meaning}", format!("\"{name}\""));
        }
    }
    s.push('\n');
}

/// The family names, for the error of `dcnsim list NAME`.
pub fn family_names() -> String {
    (families().iter().map(|f| f.name))
        .chain(tables::tables().iter().map(|t| t.name))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A row: its kind's documentation and parse-and-validate.
pub(crate) const fn row<O>(
    name: &'static str,
    about: &'static str,
    paper: &'static str,
    keys: &'static [Key],
    parse: fn(&Table<'_>) -> Result<O, ScenarioError>,
) -> Kind<O> {
    Kind {
        doc: KindDoc {
            name,
            about,
            paper,
            keys,
            runs_on: "",
        },
        parse,
    }
}

/// Shorthand for a [`Key`] in a row's key table.
pub(crate) const fn key(
    name: &'static str,
    default: &'static str,
    unit: &'static str,
    meaning: &'static str,
) -> Key {
    Key {
        name,
        default,
        unit,
        meaning,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;

    /// A valid scenario whose `family` table is replaced by `table`.
    fn scenario_with(family: &str, table: &str) -> String {
        let topology = "[topology]\nkind = \"star\"\nhosts = 4\nlink_rate = \"10Gbps\"\nlink_delay = \"1us\"\n";
        let switch = "[switch]\nbuffer = \"100pkt\"\nclasses = 2\n";
        let workload =
            "[[workload]]\nkind = \"incast\"\nreceiver = 0\nsenders = [1]\nsize = \"1MB\"\n";
        match family {
            "topology" => format!("[topology]\n{table}\n{switch}{workload}"),
            "workload" => format!("{topology}{switch}[[workload]]\n{table}\n"),
            "transport" => format!("{topology}{switch}{workload}[transport]\n{table}\n"),
            "cc" => {
                // `table` is `kind = "NAME"` and maybe a probe key: an inline table.
                let name = table.lines().next().unwrap_or_default();
                let kind = name.trim_start_matches("kind = ").trim_matches('"');
                let family = cc::FAMILY.find(kind).map_or("tcp", |k| k.doc.runs_on);
                let inline = table.lines().collect::<Vec<_>>().join(", ");
                format!(
                    "{topology}{switch}{workload}[transport]\nkind = \"{family}\"\ncc = {{ {inline} }}\n"
                )
            }
            _ => format!("{topology}{switch}[switch.{family}]\n{table}\n{workload}"),
        }
    }

    /// The keys serde accepts for a kind, read from its unknown-field error.
    fn serde_keys(family: &str, kind: &str) -> Vec<String> {
        let text = scenario_with(family, &format!("kind = \"{kind}\"\n__probe__ = 0"));
        let e = load_str("probe.toml", &text, &[]).expect_err("the probe key is unknown");
        let msg = e.message;
        assert!(
            msg.contains("unknown key `__probe__`"),
            "{family}/{kind}: {msg}"
        );
        if msg.contains("this table takes no keys") {
            return Vec::new();
        }
        let list = msg.split(": ").nth(1).unwrap_or_default();
        list.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn every_row_documents_exactly_the_keys_it_accepts() {
        for f in families() {
            for k in &f.kinds {
                let mut documented: Vec<String> =
                    k.keys.iter().map(|k| k.name.to_string()).collect();
                let mut accepted = serde_keys(f.name, k.name);
                if f.name == "transport" && matches!(k.name, "tcp" | "roce") {
                    accepted.push("cc".into()); // taken by the cc family first
                    if k.name == "tcp" {
                        accepted.push("preset".into()); // taken before serde
                    }
                }
                documented.sort();
                accepted.sort();
                assert_eq!(documented, accepted, "{} kind \"{}\"", f.name, k.name);
            }
        }
    }

    #[test]
    fn every_kind_and_key_is_in_the_scenario_reference() {
        let docs =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/scenarios.md"))
                .expect("docs/scenarios.md");
        let mut missing = Vec::new();
        for f in families() {
            for k in &f.kinds {
                if !docs.contains(&format!("\"{}\"", k.name)) {
                    missing.push(format!("{} kind \"{}\"", f.name, k.name));
                }
                for key in k.keys {
                    if !docs.contains(&format!("`{}`", key.name)) {
                        missing.push(format!(
                            "{} kind \"{}\": key `{}`",
                            f.name, k.name, key.name
                        ));
                    }
                }
            }
        }
        assert!(
            missing.is_empty(),
            "docs/scenarios.md does not name:\n{}",
            missing.join("\n")
        );
    }

    /// The presets table of docs/scenarios.md is `transport::tcp::preset::PRESETS`,
    /// and every key a preset sets is a `[transport]` key.
    #[test]
    fn the_preset_table_in_the_docs_is_the_presets() {
        use ::transport::tcp::preset::PRESETS;
        let docs =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/scenarios.md"))
                .expect("docs/scenarios.md");
        let header = docs
            .lines()
            .find(|l| l.starts_with("| preset | what it models |"))
            .expect("the presets table");
        let columns: Vec<&str> = header.split('|').map(str::trim).collect();
        let tcp_keys: Vec<&str> = transport::FAMILY.kinds[0]
            .doc
            .keys
            .iter()
            .map(|k| k.name)
            .collect();
        for p in PRESETS {
            let row = docs
                .lines()
                .find(|l| l.starts_with(&format!("| `{}` |", p.name)))
                .unwrap_or_else(|| panic!("no docs row for preset {}", p.name));
            let cells: Vec<&str> = row.split('|').map(str::trim).collect();
            assert_eq!(cells.len(), columns.len(), "{row}");
            for (key, value) in p.settings {
                assert!(
                    tcp_keys.contains(key),
                    "preset {} sets unknown key {key}",
                    p.name
                );
                let at = columns
                    .iter()
                    .position(|c| c == key)
                    .unwrap_or_else(|| panic!("the docs table has no column {key}"));
                let want = match value {
                    ::transport::tcp::preset::Setting::Cc(n) => format!("`\"{n}\"`"),
                    v => v.to_string(),
                };
                assert_eq!(cells[at], want, "preset {} key {key}", p.name);
            }
            assert_eq!(columns.len() - 4, p.settings.len(), "one column per key");
        }
    }

    #[test]
    fn every_time_key_states_its_bounds() {
        for f in families() {
            for k in &f.kinds {
                for key in k.keys.iter().filter(|key| key.unit.starts_with("duration")) {
                    let bound = key.unit.trim_start_matches("duration, ");
                    assert!(
                        bound.starts_with(['>', '0', '1', 'r']) && bound != key.unit,
                        "{} {}: `{}` states no minimum",
                        k.name,
                        key.name,
                        key.unit
                    );
                }
            }
        }
    }

    #[test]
    fn defaults_are_rows_and_names_are_unique() {
        for f in families() {
            let mut names: Vec<&str> = f.kinds.iter().map(|k| k.name).collect();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), f.kinds.len(), "{}: duplicate kind", f.name);
            if let Some(d) = f.default {
                assert!(names.contains(&d), "{}: default {d} has no row", f.name);
            }
        }
    }

    #[test]
    fn list_names_every_controller_under_its_transport() {
        let transport = render_list(Some("transport")).expect("transport");
        assert!(
            !transport.contains(" cc}"),
            "a list left unfilled: {transport}"
        );
        for c in cc::FAMILY.kinds {
            let list = cc::listed_on(c.doc.runs_on);
            assert!(list.split(", ").any(|n| n == c.doc.name), "{list}");
            assert!(
                transport.contains(&format!("({list})")),
                "{} missing from `dcnsim list transport`: {transport}",
                c.doc.name
            );
        }
    }

    #[test]
    fn list_prints_every_family_or_one() {
        let all = render_list(None).expect("all");
        for f in families() {
            assert!(all.contains(&format!("{} [{}]", f.name, f.table)), "{all}");
        }
        let one = render_list(Some("ingress")).expect("ingress");
        assert!(one.contains("r-aqm") && one.contains("R-AQM IV-V"), "{one}");
        assert!(!one.contains("step-ecn"), "{one}");
        assert!(render_list(Some("nope")).is_none());
    }
}
