//! Reading a result folder's files back for figures: CSV tables by column
//! name, and values of `summary.json` by dotted path.

use super::PlotError;
use crate::sweep::table::split;
use std::path::{Path, PathBuf};

/// A CSV file: its header and rows of fields.
pub struct Csv {
    /// The file, for errors.
    pub file: PathBuf,
    header: Vec<String>,
    /// The rows, split into fields.
    pub rows: Vec<Vec<String>>,
}

impl Csv {
    /// Reads `file`; `None` if it does not exist.
    pub fn read_if_present(file: &Path) -> Result<Option<Csv>, PlotError> {
        match std::fs::read_to_string(file) {
            Ok(text) => Csv::parse(file, &text).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(PlotError::read(file, e.to_string())),
        }
    }

    /// Reads `file`, which must exist.
    pub fn read(file: &Path) -> Result<Csv, PlotError> {
        Csv::read_if_present(file)?.ok_or_else(|| PlotError::read(file, "no such file".into()))
    }

    /// Splits `text`; every row must have the header's number of fields.
    fn parse(file: &Path, text: &str) -> Result<Csv, PlotError> {
        let mut lines = text.lines();
        let header = lines.next().map(split).unwrap_or_default();
        let mut rows = Vec::new();
        for (n, line) in (2..).zip(lines) {
            if line.is_empty() {
                continue;
            }
            let row = split(line);
            if row.len() != header.len() {
                let why = format!(
                    "line {n} has {} fields where the header has {}",
                    row.len(),
                    header.len()
                );
                return Err(PlotError::read(file, why));
            }
            rows.push(row);
        }
        Ok(Csv {
            file: file.to_path_buf(),
            header,
            rows,
        })
    }

    /// The position of column `name`.
    pub fn col(&self, name: &str) -> Result<usize, PlotError> {
        self.header.iter().position(|h| h == name).ok_or_else(|| {
            PlotError::read(
                &self.file,
                format!("no column '{name}' (is it from this version?)"),
            )
        })
    }

    /// Field `col` of `row` as a number; `None` when empty or not a number.
    pub fn num(row: &[String], col: usize) -> Option<f64> {
        row.get(col)?.parse::<f64>().ok().filter(|x| x.is_finite())
    }
}

/// The number at a dotted path in a JSON document (`flows.by_size.0.slowdown.p99`);
/// `None` where the path leads nowhere or to `null`.
pub fn json_number(doc: &serde_json::Value, path: &str) -> Option<f64> {
    let mut v = doc;
    for part in path.split('.') {
        v = match part.parse::<usize>() {
            Ok(i) => v.get(i)?,
            Err(_) => v.get(part)?,
        };
    }
    v.as_f64()
}

/// A run folder's `summary.json`.
pub fn read_summary(dir: &Path) -> Result<serde_json::Value, PlotError> {
    let file = dir.join("summary.json");
    let text = std::fs::read_to_string(&file).map_err(|e| PlotError::read(&file, e.to_string()))?;
    serde_json::from_str(&text).map_err(|e| PlotError::read(&file, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_row_is_an_error_naming_its_line() {
        let e = Csv::parse(Path::new("q.csv"), "a,b\n1,2\n3\n")
            .err()
            .expect("refused");
        assert_eq!(
            e.to_string(),
            "q.csv: line 3 has 1 fields where the header has 2"
        );
        let doc: serde_json::Value =
            serde_json::from_str(r#"{"a": [{"b": 2.5}, {"b": null}]}"#).unwrap();
        assert_eq!(json_number(&doc, "a.0.b"), Some(2.5));
        assert_eq!(json_number(&doc, "a.1.b"), None);
        assert_eq!(json_number(&doc, "a.7.b"), None);
    }
}
