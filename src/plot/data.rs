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
            Ok(text) => Ok(Some(Csv::parse(file, &text))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(PlotError::read(file, e.to_string())),
        }
    }

    /// Reads `file`, which must exist.
    pub fn read(file: &Path) -> Result<Csv, PlotError> {
        Csv::read_if_present(file)?.ok_or_else(|| PlotError::read(file, "no such file".into()))
    }

    fn parse(file: &Path, text: &str) -> Csv {
        let mut lines = text.lines();
        let header = lines.next().map(split).unwrap_or_default();
        Csv {
            file: file.to_path_buf(),
            header,
            rows: lines.filter(|l| !l.is_empty()).map(split).collect(),
        }
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
