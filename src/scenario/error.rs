//! Scenario errors that name the file, the line and the key (or the
//! `--set` override that caused them).

use std::fmt;
use std::ops::Range;

/// A problem in a scenario, located at a line and column of its file, or
/// at the command-line override that caused it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file as given on the command line.
    pub file: String,
    /// 1-based line (0 when the problem has no single place in the file).
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// The override (`KEY=VALUE`, as given to `--set`) the problem comes
    /// from, if it comes from one.
    pub set_by: Option<String>,
    /// The dotted key the problem concerns (e.g. `workload[2].receiver`), if known.
    pub key: String,
    /// What is wrong, and what would be valid.
    pub message: String,
}

impl ScenarioError {
    /// An error about the file as a whole (unreadable, not a scenario...).
    /// An input file that could not be read as text (located when it is
    /// not UTF-8); `what` says which kind of file it is.
    pub fn unreadable(file: &str, what: &str, e: super::inputs::Unreadable) -> Self {
        let mut err = ScenarioError::whole_file(file, format!("cannot read the {what}: {}", e.why));
        if let Some((line, col)) = e.at {
            err.line = line;
            err.col = col;
        }
        err
    }

    /// An error about the whole file (no line).
    pub fn whole_file(file: &str, message: impl Into<String>) -> Self {
        ScenarioError {
            file: file.to_string(),
            line: 0,
            col: 0,
            set_by: None,
            key: String::new(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(o) = &self.set_by {
            write!(f, ": --set {o}")?;
        } else if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.col)?;
        }
        if !self.key.is_empty() {
            write!(f, ": key `{}`", self.key)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// Spans at or above this offset belong to overrides: override `i`'s value
/// is parsed on its own and its spans shifted by `(i + 1) x OVERRIDE_SPAN`,
/// so an error located in it names the override instead of a file line.
pub(crate) const OVERRIDE_SPAN: usize = 1 << 40;

/// The source text of a scenario and its overrides, for turning byte spans
/// into lines (or into the override they came from).
pub(crate) struct Source<'a> {
    pub file: &'a str,
    pub text: &'a str,
    /// The overrides as given (`KEY=VALUE`), in order.
    pub overrides: &'a [String],
    /// The files read while loading (beside the scenario's own text).
    pub inputs: std::cell::RefCell<Vec<super::InputFile>>,
}

/// Where an inline value's text up to an offset (`before`) ends: the
/// path inside the value, with list indices (`then[1].size` for `[{ op =
/// "x" }, { size = `; `then[1]` where a table's next key is not read
/// yet), or `None` at the value's top.
fn inline_key(before: &str) -> Option<String> {
    enum Seg {
        List(usize),
        Table(Option<String>),
    }
    let mut stack: Vec<Seg> = Vec::new();
    let mut token = 0; // where the current table key's text starts
    let mut chars = before.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' | '\'' => {
                // Skip the string (a backslash escapes in basic strings).
                while let Some((_, d)) = chars.next() {
                    if d == '\\' && c == '"' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            }
            '[' => stack.push(Seg::List(0)),
            '{' => {
                stack.push(Seg::Table(None));
                token = i + 1;
            }
            ']' | '}' => {
                stack.pop();
            }
            ',' => match stack.last_mut() {
                Some(Seg::List(n)) => *n += 1,
                Some(Seg::Table(k)) => {
                    *k = None;
                    token = i + 1;
                }
                None => {}
            },
            '=' => {
                if let Some(Seg::Table(k)) = stack.last_mut() {
                    *k = Some(before[token..i].trim().trim_matches('"').to_string());
                }
            }
            _ => {}
        }
    }
    let mut path = String::new();
    for seg in &stack {
        match seg {
            Seg::List(n) => path.push_str(&format!("[{n}]")),
            Seg::Table(Some(k)) => {
                path.push('.');
                path.push_str(k);
            }
            Seg::Table(None) => {}
        }
    }
    let path = path.trim_start_matches('.').to_string();
    (!path.is_empty()).then_some(path)
}

/// `key` joined to an inline path from [`inline_key`] (`then` and `[1].size`
/// make `then[1].size`; `cc` and `g` make `cc.g`).
fn join_inline(key: &str, inner: &str) -> String {
    if inner.starts_with('[') {
        format!("{key}{inner}")
    } else {
        format!("{key}.{inner}")
    }
}

/// An error message naming an unknown key (`unknown key `x`...`) names
/// the key itself: `path` is where its table stands (the key is not read
/// there yet), so the key is appended; other messages keep `path`.
fn with_unknown_key(path: String, msg: &str) -> String {
    match msg
        .strip_prefix("unknown key `")
        .and_then(|r| r.split('`').next())
    {
        Some(k) if !path.ends_with(&format!(".{k}")) => format!("{path}.{k}"),
        _ => path,
    }
}

impl Source<'_> {
    /// An error at `span` (or at no place) about `key`.
    pub fn error(
        &self,
        span: Option<Range<usize>>,
        key: &str,
        message: impl Into<String>,
    ) -> ScenarioError {
        let mut e = ScenarioError::whole_file(self.file, message);
        e.key = key.to_string();
        match span {
            Some(s) if s.start >= OVERRIDE_SPAN => {
                let i = s.start / OVERRIDE_SPAN - 1;
                e.set_by = self.overrides.get(i).cloned();
            }
            Some(s) => {
                let start = s.start.min(self.text.len());
                let before = &self.text[..start];
                e.line = before.matches('\n').count() + 1;
                e.col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            }
            None => {}
        }
        e
    }

    /// Converts a toml error; `prefix` is the dotted path of the table it came from.
    pub fn toml_error(&self, e: &toml::de::Error, prefix: &str) -> ScenarioError {
        let msg = super::words::in_users_words(e.message());
        // toml names the offending key in "unknown field `x`" and similar messages;
        // otherwise the key is the one at the span, which we read back from the text.
        if let Some(o) = e.span().and_then(|s| self.override_at(s.start)) {
            // An override names its whole key, and the key inside an
            // inline table of its value.
            let (key, value) = o.split_once('=').unwrap_or((o, ""));
            let at = e.span().map_or(0, |s| s.start % OVERRIDE_SPAN);
            let before = value.get(..at.min(value.len())).unwrap_or(value);
            let key = match inline_key(before) {
                Some(inner) => join_inline(key.trim(), &inner),
                None => key.trim().to_string(),
            };
            let key = if before.contains(['{', '[']) {
                with_unknown_key(key, &msg)
            } else {
                key
            };
            return self.error(e.span(), &key, msg);
        }
        let key = e
            .span()
            .and_then(|s| self.key_at(s.start, &msg))
            .unwrap_or_default();
        // A key read without its table's prefix is named with the table
        // header it stands under.
        let header;
        let prefix = match (prefix.is_empty(), e.span()) {
            (true, Some(s)) => {
                header = self.header_at(s.start).unwrap_or_default();
                header.as_str()
            }
            _ => prefix,
        };
        // A missing key is named in full: `not_reproduced[0].why`.
        let key = match msg.strip_prefix("missing key `") {
            Some(rest) if key.is_empty() => rest.split('`').next().unwrap_or_default().to_string(),
            _ => key,
        };
        // An inline table read on its own (`cc = { ... }` with prefix
        // `transport.cc`): the line's key is the prefix's last part.
        let last = prefix.rsplit('.').next().unwrap_or_default();
        let key = match key.strip_prefix(last) {
            Some("") if !last.is_empty() => String::new(),
            Some(rest) if !last.is_empty() && rest.starts_with('.') => rest[1..].to_string(),
            _ => key,
        };
        let is_table = key.is_empty();
        let full = match (prefix.is_empty(), key.is_empty()) {
            (_, true) => prefix.to_string(),
            (true, false) => key,
            (false, false) => format!("{prefix}.{key}"),
        };
        let msg = match (msg.as_str(), is_table) {
            ("duplicate key", false) => format!("`{full}` is given twice: keep one"),
            ("duplicate key", true) if !full.is_empty() => format!(
                "the table [{full}] is written twice: write it once (several tables of one \
                 name are [[{full}]])"
            ),
            _ => msg,
        };
        self.error(e.span(), &full, msg)
    }

    /// The override whose value holds byte `offset`, if any.
    fn override_at(&self, offset: usize) -> Option<&str> {
        if offset < OVERRIDE_SPAN {
            return None;
        }
        self.overrides
            .get(offset / OVERRIDE_SPAN - 1)
            .map(String::as_str)
    }

    /// The dotted name of the table whose header stands last before byte
    /// `offset` (`switch.aqm`, or `workload[2]` for the third `[[workload]]`).
    fn header_at(&self, offset: usize) -> Option<String> {
        // The line holding `offset` counts: an error may point at a header.
        let offset = offset.min(self.text.len());
        let line_end = self.text[offset..]
            .find('\n')
            .map_or(self.text.len(), |i| offset + i);
        let before = &self.text[..line_end];
        let header = before
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| l.starts_with('['))?;
        if let Some(name) = header.strip_prefix("[[") {
            let name = name.split("]]").next()?.trim();
            let marker = format!("[[{name}]]");
            let n = before
                .lines()
                .filter(|l| l.trim().replace(' ', "") == marker)
                .count();
            return Some(format!("{name}[{}]", n.checked_sub(1)?));
        }
        Some(
            header
                .strip_prefix('[')?
                .split(']')
                .next()?
                .trim()
                .to_string(),
        )
    }

    /// The key on the line containing byte `offset`, for `key = value`
    /// lines, with the key inside an inline table the offset falls in
    /// (`cc.g` for `cc = { kind = "dctcp", g = "x" }`).
    fn key_at(&self, offset: usize, msg: &str) -> Option<String> {
        let offset = offset.min(self.text.len());
        let start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line = self.text[start..].lines().next()?;
        let eq = line.find('=')?;
        let k = line[..eq].trim();
        if k.is_empty() || k.starts_with('[') {
            return None;
        }
        let k = k.trim_matches('"').to_string();
        // The value's text up to the offset.
        let rest = &line[eq + 1..];
        let before = rest.get(..(offset - start).saturating_sub(eq + 1).min(rest.len()));
        let key = match before.and_then(inline_key) {
            Some(inner) => join_inline(&k, &inner),
            None => k,
        };
        // Inside an inline table or list, an unknown key is named itself.
        Some(match before {
            Some(b) if b.contains(['{', '[']) => with_unknown_key(key, msg),
            _ => key,
        })
    }
}
