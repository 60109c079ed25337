//! `--set KEY=VALUE` overrides, applied to the parsed document before any
//! check runs, so that an overridden scenario is validated exactly like a
//! file that says the same.
//!
//! `KEY` is a dotted path (`switch.aqm.k`, `workload[1].size`); a missing
//! table on the way is created, an array element must exist, and `[*]`
//! names every element (`workload[*].load`: one value for every workload,
//! so that one sweep axis moves them together). `VALUE` is
//! read as a TOML value (`8`, `true`, `[1, 2]`, `"1MB"`, `{ a = 1 }`); text
//! that is not one is taken as a string, so `--set topology.link_rate=40Gbps`
//! needs no quotes.

use super::error::OVERRIDE_SPAN;
use std::borrow::Cow;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// One step of an override's key: a table key, an element of an array of
/// tables, or every element of one (`[*]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step<'k> {
    Key(&'k str),
    Index(&'k str, usize),
    Each(&'k str),
}

impl<'k> Step<'k> {
    /// The key, and the array index if the step names one element.
    pub(crate) fn parts(&self) -> (&'k str, Option<usize>) {
        match *self {
            Step::Key(n) | Step::Each(n) => (n, None),
            Step::Index(n, i) => (n, Some(i)),
        }
    }
}

/// Splits `a.b[2].c` into steps; `None` if it is not of that form.
pub(crate) fn steps(key: &str) -> Option<Vec<Step<'_>>> {
    key.split('.')
        .map(|part| {
            let part = part.trim();
            let step = match part.split_once('[') {
                None => Step::Key(part),
                Some((name, rest)) => match rest.strip_suffix(']')? {
                    "*" => Step::Each(name),
                    idx => Step::Index(name, idx.parse().ok()?),
                },
            };
            let (name, _) = step.parts();
            let bare = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            bare.then_some(step)
        })
        .collect()
}

/// Whether two override keys set the same value: one names the other or a
/// part of it, `[*]` standing for any index (`workload[*].size` and
/// `workload[0].size`; `switch.aqm` and `switch.aqm.k`). Keys that are not
/// override keys overlap nothing.
pub fn keys_overlap(a: &str, b: &str) -> bool {
    let (Some(a), Some(b)) = (steps(a), steps(b)) else {
        return false;
    };
    a.iter().zip(&b).all(|(x, y)| match (x, y) {
        (Step::Index(n, i), Step::Index(m, j)) => n == m && i == j,
        _ => x.parts().0 == y.parts().0,
    })
}

/// Whether `key` is a dotted key an override can name (`a.b`, `w[0].c`).
pub fn is_override_key(key: &str) -> bool {
    steps(key).is_some()
}

/// Shifts every span of `v` by `by`, so that it points into override space.
fn shift(v: Spanned<DeValue<'_>>, by: usize) -> Spanned<DeValue<'_>> {
    let moved = |r: std::ops::Range<usize>| r.start + by..r.end + by;
    let span = moved(v.span());
    let inner = match v.into_inner() {
        DeValue::Array(a) => DeValue::Array(a.into_iter().map(|x| shift(x, by)).collect()),
        DeValue::Table(t) => {
            let mut out = DeTable::new();
            for (k, x) in t {
                out.insert(Spanned::new(moved(k.span()), k.into_inner()), shift(x, by));
            }
            DeValue::Table(out)
        }
        other => other,
    };
    Spanned::new(span, inner)
}

/// The value of an override: TOML if it parses as a value, else a string.
fn value(text: &str, span_base: usize) -> Spanned<DeValue<'_>> {
    let v = DeValue::parse(text.trim())
        .unwrap_or_else(|_| Spanned::new(0..text.len(), DeValue::String(Cow::Borrowed(text))));
    shift(v, span_base)
}

/// Applies override `i` (`KEY=VALUE`) to `root`. The error is a message for
/// a `--set` that cannot apply.
pub(crate) fn apply<'a>(root: &mut DeTable<'a>, i: usize, text: &'a str) -> Result<(), String> {
    let (key, val) = text
        .split_once('=')
        .ok_or("expected KEY=VALUE, e.g. --set topology.hosts=32")?;
    let path = steps(key).ok_or_else(|| {
        format!(
            "'{key}' is not a dotted key such as `switch.aqm.k`, `workload[0].size` or `workload[*].load`"
        )
    })?;
    let val = value(val, (i + 1) * OVERRIDE_SPAN);
    set(root, &path, &val, String::new())
}

/// Sets `val` at `path` below `table`; `walked` is the part of the key
/// already walked, for messages.
fn set<'a>(
    table: &mut DeTable<'a>,
    path: &[Step<'_>],
    val: &Spanned<DeValue<'a>>,
    mut walked: String,
) -> Result<(), String> {
    let span = val.span();
    let (step, rest) = path.split_first().ok_or("empty key")?;
    let (name, index) = step.parts();
    if !walked.is_empty() {
        walked.push('.');
    }
    walked.push_str(name);
    if let (true, Step::Key(n)) = (rest.is_empty(), step) {
        table.insert(Spanned::new(span, Cow::Owned(n.to_string())), val.clone());
        return Ok(());
    }
    if table.get(name).is_none() {
        if !matches!(step, Step::Key(_)) {
            return Err(format!("`{walked}` is not in the scenario"));
        }
        let k = Spanned::new(span.clone(), Cow::Owned(name.to_string()));
        let empty = Spanned::new(span, DeValue::Table(DeTable::new()));
        table.insert(k, empty);
    }
    let entry = table.get_mut(name).ok_or("the table was just made")?;
    match (entry.get_mut(), step) {
        (DeValue::Table(t), Step::Key(_)) => set(t, rest, val, walked),
        (DeValue::Array(a), Step::Index(..) | Step::Each(_)) => {
            let n = a.len();
            let chosen: Vec<usize> = match index {
                Some(i) if i < n => vec![i],
                Some(_) => {
                    return Err(format!(
                        "`{walked}` has {n} entries: indices are 0 to {}",
                        n.saturating_sub(1)
                    ));
                }
                None if n == 0 => {
                    return Err(format!(
                        "`{walked}[*]` matches nothing: `{walked}` is empty here"
                    ));
                }
                None => (0..n).collect(),
            };
            for i in chosen {
                let elem = a.get_mut(i).ok_or("the index was just checked")?;
                let here = format!("{walked}[{i}]");
                if rest.is_empty() {
                    *elem = val.clone();
                    continue;
                }
                match elem.get_mut() {
                    DeValue::Table(t) => set(t, rest, val, here)?,
                    _ => return Err(format!("`{here}` is not a table")),
                }
            }
            Ok(())
        }
        (DeValue::Array(_), Step::Key(_)) => Err(format!(
            "`{walked}` is an array: name an element, e.g. `{walked}[0]`, or every one, `{walked}[*]`"
        )),
        (DeValue::Table(_), _) => Err(format!(
            "`{walked}` is a table, not an array: name its keys without an index"
        )),
        _ if rest.is_empty() => Err(format!("`{name}` is not an array")),
        _ => Err(format!("`{walked}` is not a table")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_overlap_where_one_sets_what_the_other_does() {
        assert!(keys_overlap("workload[*].size", "workload[0].size"));
        assert!(keys_overlap("switch.aqm", "switch.aqm.k"));
        assert!(keys_overlap("workload", "workload[2].load"));
        assert!(!keys_overlap("workload[0].size", "workload[1].size"));
        assert!(!keys_overlap("switch.aqm.k", "switch.aqm.p_max"));
        assert!(!keys_overlap("a.b", "not a key"));
    }

    #[test]
    fn keys_split_into_steps() {
        assert_eq!(
            steps("workload[2].size"),
            Some(vec![Step::Index("workload", 2), Step::Key("size")])
        );
        assert_eq!(
            steps("workload[*].load"),
            Some(vec![Step::Each("workload"), Step::Key("load")])
        );
        assert_eq!(steps("a..b"), None);
        assert_eq!(steps("a[x]"), None);
        assert_eq!(steps("a b"), None);
    }

    #[test]
    fn values_are_toml_or_strings() {
        let v = value("8", 0);
        assert!(matches!(v.get_ref(), DeValue::Integer(_)));
        let v = value("10Gbps", 0);
        assert!(matches!(v.get_ref(), DeValue::String(s) if s == "10Gbps"));
        let v = value("[1, 2]", OVERRIDE_SPAN);
        assert!(matches!(v.get_ref(), DeValue::Array(a) if a.len() == 2));
        assert!(v.span().start >= OVERRIDE_SPAN);
    }
}
