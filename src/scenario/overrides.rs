//! `--set KEY=VALUE` overrides, applied to the parsed document before any
//! check runs, so that an overridden scenario is validated exactly like a
//! file that says the same.
//!
//! `KEY` is a dotted path (`switch.aqm.k`, `workload[1].size`); a missing
//! table on the way is created, an array element must exist. `VALUE` is
//! read as a TOML value (`8`, `true`, `[1, 2]`, `"1MB"`, `{ a = 1 }`); text
//! that is not one is taken as a string, so `--set topology.link_rate=40Gbps`
//! needs no quotes.

use super::error::OVERRIDE_SPAN;
use std::borrow::Cow;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// One step of an override's key: a table key, or an element of an array of tables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step<'k> {
    Key(&'k str),
    Index(&'k str, usize),
}

impl<'k> Step<'k> {
    /// The key, and the array index if the step names an element.
    pub(crate) fn parts(&self) -> (&'k str, Option<usize>) {
        match *self {
            Step::Key(n) => (n, None),
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
                Some((name, rest)) => {
                    let idx = rest.strip_suffix(']')?.parse().ok()?;
                    Step::Index(name, idx)
                }
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
        format!("'{key}' is not a dotted key such as `switch.aqm.k` or `workload[0].size`")
    })?;
    let base = (i + 1) * OVERRIDE_SPAN;
    let val = value(val, base);
    let span = val.span();
    let mut table = root;
    let mut walked = String::new();
    let (last, ancestors) = path.split_last().ok_or("empty key")?;
    for step in ancestors {
        let (name, index) = step.parts();
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(name);
        if table.get(name).is_none() {
            if index.is_some() {
                return Err(format!("`{walked}` is not in the scenario"));
            }
            let k = Spanned::new(span.clone(), Cow::Owned(name.to_string()));
            table.insert(
                k,
                Spanned::new(span.clone(), DeValue::Table(DeTable::new())),
            );
        }
        let entry = table.get_mut(name).ok_or("the table was just made")?;
        let target = match (entry.get_mut(), index) {
            (DeValue::Table(t), None) => t,
            (DeValue::Array(a), Some(i)) => {
                let n = a.len();
                let elem = a.get_mut(i).ok_or_else(|| {
                    format!(
                        "`{walked}` has {n} entries: indices are 0 to {}",
                        n.saturating_sub(1)
                    )
                })?;
                walked.push_str(&format!("[{i}]"));
                match elem.get_mut() {
                    DeValue::Table(t) => t,
                    _ => return Err(format!("`{walked}` is not a table")),
                }
            }
            (DeValue::Array(_), None) => {
                return Err(format!(
                    "`{walked}` is an array: name an element, e.g. `{walked}[0]`"
                ));
            }
            _ => return Err(format!("`{walked}` is not a table")),
        };
        table = target;
    }
    match *last {
        Step::Key(n) => {
            table.insert(Spanned::new(span, Cow::Owned(n.to_string())), val);
        }
        Step::Index(n, i) => {
            let Some(DeValue::Array(a)) = table.get_mut(n).map(|e| e.get_mut()) else {
                return Err(format!("`{n}` is not an array"));
            };
            let len = a.len();
            *a.get_mut(i).ok_or_else(|| {
                format!(
                    "`{n}` has {len} entries: indices are 0 to {}",
                    len.saturating_sub(1)
                )
            })? = val;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_split_into_steps() {
        assert_eq!(
            steps("workload[2].size"),
            Some(vec![Step::Index("workload", 2), Step::Key("size")])
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
