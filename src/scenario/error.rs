//! Scenario errors that name the file, the line and the key.

use std::fmt;
use std::ops::Range;

/// A problem in a scenario file, located at a line and column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file as given on the command line.
    pub file: String,
    /// 1-based line (0 when the problem has no single place).
    pub line: usize,
    /// 1-based column.
    pub col: usize,
    /// The dotted key the problem concerns (e.g. `workload[2].receiver`), if known.
    pub key: String,
    /// What is wrong, and what would be valid.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.col)?;
        }
        if !self.key.is_empty() {
            write!(f, ": key `{}`", self.key)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// The source text of a scenario, for turning byte spans into lines.
pub(crate) struct Source<'a> {
    pub file: &'a str,
    pub text: &'a str,
}

impl Source<'_> {
    /// An error at `span` (or at no place) about `key`.
    pub fn error(
        &self,
        span: Option<Range<usize>>,
        key: &str,
        message: impl Into<String>,
    ) -> ScenarioError {
        let (line, col) = match span {
            Some(s) => {
                let start = s.start.min(self.text.len());
                let before = &self.text[..start];
                let line = before.matches('\n').count() + 1;
                let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                (line, col)
            }
            None => (0, 0),
        };
        ScenarioError {
            file: self.file.to_string(),
            line,
            col,
            key: key.to_string(),
            message: message.into(),
        }
    }

    /// Converts a toml error; `prefix` is the dotted path of the table it came from.
    pub fn toml_error(&self, e: &toml::de::Error, prefix: &str) -> ScenarioError {
        let msg = e.message().trim().to_string();
        // toml names the offending key in "unknown field `x`" and similar messages;
        // otherwise the key is the one at the span, which we read back from the text.
        let key = e
            .span()
            .and_then(|s| self.key_at(s.start))
            .unwrap_or_default();
        let full = match (prefix.is_empty(), key.is_empty()) {
            (_, true) => prefix.to_string(),
            (true, false) => key,
            (false, false) => format!("{prefix}.{key}"),
        };
        self.error(e.span(), &full, msg)
    }

    /// The key on the line containing byte `offset`, for `key = value` lines.
    fn key_at(&self, offset: usize) -> Option<String> {
        let start = self.text[..offset.min(self.text.len())]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let line = self.text[start..].lines().next()?;
        let (k, _) = line.split_once('=')?;
        let k = k.trim();
        (!k.is_empty() && !k.starts_with('[')).then(|| k.trim_matches('"').to_string())
    }
}
