//! Reading a result folder's files back for figures: CSV tables by column
//! name, and values of `summary.json` by dotted path.

use super::PlotError;
use super::spec::PlotSpec;
use crate::sweep::Run;
use crate::sweep::table::split;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most rows a figure reads from one CSV file. A sampled run can write
/// gigabytes of `queues.csv`; reading it whole would exhaust memory, and
/// no figure shows more points than its pixels anyway.
pub const MAX_PLOT_ROWS: u64 = 400_000;

/// A CSV file: its header and rows of fields, thinned to at most about
/// [`MAX_PLOT_ROWS`] rows as it is read.
pub struct Csv {
    /// The file, for errors.
    pub file: PathBuf,
    header: Vec<String>,
    /// The rows, split into fields.
    pub rows: Vec<Vec<String>>,
    /// 1, or N when only every Nth group of rows was kept: every Nth
    /// sampling instant for a file whose first column is `time_us` (so a
    /// kept instant keeps all its ports), else every Nth row.
    pub stride: u64,
    /// The file's rows, kept or not.
    pub lines: u64,
}

/// Why row `row` (line `n`) does not fit under `header`, if it does not:
/// a field count other than the header's, or a number dcnsim never writes.
fn check_row(header: &[String], row: &[String], n: usize) -> Result<(), String> {
    if row.len() != header.len() {
        return Err(format!(
            "line {n} has {} fields where the header has {}",
            row.len(),
            header.len()
        ));
    }
    if let Some((i, f)) = row
        .iter()
        .enumerate()
        .find(|(_, f)| f.parse::<f64>().is_ok_and(|x| !x.is_finite()))
    {
        return Err(format!(
            "line {n}, column {} ({}): '{f}' is not a number dcnsim writes",
            i + 1,
            header.get(i).map_or("?", String::as_str)
        ));
    }
    Ok(())
}

impl Csv {
    /// Reads `file`; `None` if it does not exist.
    pub fn read_if_present(file: &Path) -> Result<Option<Csv>, PlotError> {
        match std::fs::File::open(file) {
            Ok(f) => Csv::parse(file, std::io::BufReader::new(f)).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(PlotError::read(file, e.to_string())),
        }
    }

    /// Reads `file`, which must exist.
    pub fn read(file: &Path) -> Result<Csv, PlotError> {
        Csv::read_if_present(file)?.ok_or_else(|| PlotError::read(file, "no such file".into()))
    }

    /// Reads `text` line by line; every row must have the header's number
    /// of fields. The stride comes from the file's size and its first
    /// lines' length, so the rows kept do not depend on reading order.
    fn parse(file: &Path, mut text: impl std::io::BufRead) -> Result<Csv, PlotError> {
        let io = |e: std::io::Error| PlotError::read(file, e.to_string());
        let size = std::fs::metadata(file).map_or(0, |m| m.len());
        let mut line = String::new();
        text.read_line(&mut line).map_err(io)?;
        if !line.ends_with('\n') {
            let why = if line.is_empty() {
                "the file is empty: dcnsim writes a header line at least".to_string()
            } else {
                "line 1 (the header) ends without a line break: the file is truncated".to_string()
            };
            return Err(PlotError::read(file, why));
        }
        let header = split(line.trim_end_matches(['\n', '\r']));
        let by_time = header.first().is_some_and(|h| h == "time_us");
        let (mut stride, mut seen_bytes) = (1u64, 0u64);
        let (mut group, mut last_key) = (0u64, None::<String>);
        let mut rows = Vec::new();
        let mut lines = 0u64;
        for n in 2.. {
            line.clear();
            if text.read_line(&mut line).map_err(io)? == 0 {
                break;
            }
            seen_bytes += line.len() as u64;
            if !line.ends_with('\n') {
                let why = format!("line {n} ends without a line break: the file is truncated");
                return Err(PlotError::read(file, why));
            }
            if n == 1001 {
                // Rows in the file / rows allowed, from the mean line length.
                let rows_est = size / (seen_bytes / 1000).max(1);
                stride = rows_est.div_ceil(MAX_PLOT_ROWS).max(1);
            }
            let trimmed = line.trim_end_matches(['\n', '\r']);
            if trimmed.is_empty() {
                continue;
            }
            lines += 1;
            let key = if by_time {
                trimmed.split(',').next()
            } else {
                None
            };
            if key.is_none() || key != last_key.as_deref() {
                group += 1;
                last_key = key.map(str::to_string);
            }
            if n > 1001 && (group - 1) % stride != 0 {
                continue;
            }
            let row = split(trimmed);
            check_row(&header, &row, n).map_err(|why| PlotError::read(file, why))?;
            rows.push(row);
        }
        Ok(Csv {
            file: file.to_path_buf(),
            header,
            rows,
            stride,
            lines,
        })
    }

    /// `""`, or a note for a title that only every Nth sample is drawn.
    pub fn thinned_note(&self) -> String {
        if self.stride > 1 {
            format!(" (every {}th sample drawn)", self.stride)
        } else {
            String::new()
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

/// What is read of a sweep's `sweep.json`.
#[derive(serde::Deserialize)]
struct Manifest {
    axes: Vec<String>,
    #[serde(default)]
    plots: Vec<PlotSpec>,
    runs: Vec<Run>,
}

/// A sweep folder's finished runs and how to read their values: the
/// axes, `[[plot]]` tables and runs of `sweep.json`, each finished run's
/// `sweep.csv` row, and its `summary.json` on demand (read once).
pub struct SweepResults {
    /// The folder.
    pub dir: PathBuf,
    /// The grid axes' keys, in `sweep.csv` order.
    pub axes: Vec<String>,
    /// The sweep's `[[plot]]` tables.
    pub plots: Vec<PlotSpec>,
    /// Finished runs (in run order) with their `sweep.csv` rows.
    pub runs: Vec<(Run, Vec<String>)>,
    /// Runs of `sweep.json` with no row (not finished, or failed).
    pub unfinished: Vec<Run>,
    table: Csv,
    summaries: BTreeMap<String, serde_json::Value>,
}

impl SweepResults {
    /// Reads the sweep folder `dir`; unfinished runs are left out.
    pub fn read(dir: &Path) -> Result<SweepResults, PlotError> {
        let file = dir.join("sweep.json");
        let text =
            std::fs::read_to_string(&file).map_err(|e| PlotError::read(&file, e.to_string()))?;
        let m: Manifest =
            serde_json::from_str(&text).map_err(|e| PlotError::read(&file, e.to_string()))?;
        let table = Csv::read(&dir.join("sweep.csv"))?;
        let run_col = table.col("run")?;
        let rows: BTreeMap<&str, &Vec<String>> = table
            .rows
            .iter()
            .map(|r| (r[run_col].as_str(), r))
            .collect();
        let (done, unfinished): (Vec<&Run>, Vec<&Run>) = m
            .runs
            .iter()
            .partition(|r| rows.contains_key(r.id.as_str()));
        // A run whose folder holds its results has its row: a finished
        // run without one is a table cut short or edited, not a run to
        // leave out of the figures in silence.
        if let Some(r) = unfinished
            .iter()
            .find(|r| dir.join("runs").join(&r.id).join("summary.json").is_file())
        {
            let why = format!(
                "run {} finished (runs/{}/summary.json) but has no row: the table is truncated \
                 or edited; rerun the sweep command to rebuild it",
                r.id, r.id
            );
            return Err(PlotError::read(&dir.join("sweep.csv"), why));
        }
        let runs = done
            .into_iter()
            .filter_map(|r| {
                rows.get(r.id.as_str())
                    .map(|row| (r.clone(), (*row).clone()))
            })
            .collect();
        Ok(SweepResults {
            dir: dir.to_path_buf(),
            axes: m.axes,
            plots: m.plots,
            runs,
            unfinished: unfinished.into_iter().cloned().collect(),
            table,
            summaries: BTreeMap::new(),
        })
    }

    /// The value of `y` for run `i`: a `sweep.csv` column or a summary path.
    pub fn value(&mut self, i: usize, y: &str) -> Result<Option<f64>, PlotError> {
        if let Ok(col) = self.table.col(y) {
            return Ok(Csv::num(&self.runs[i].1, col));
        }
        Ok(json_number(self.summary(i)?, y))
    }

    /// Run `i`'s `summary.json`, read once.
    pub fn summary(&mut self, i: usize) -> Result<&serde_json::Value, PlotError> {
        let id = &self.runs[i].0.id;
        if !self.summaries.contains_key(id) {
            let doc = read_summary(&self.dir.join("runs").join(id))?;
            self.summaries.insert(id.clone(), doc);
        }
        Ok(&self.summaries[id])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_row_is_an_error_naming_its_line() {
        let e = Csv::parse(Path::new("q.csv"), "a,b\n1,2\n3\n".as_bytes())
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

    #[test]
    fn a_large_series_is_thinned_by_whole_sampling_instants() {
        let dir = std::env::temp_dir().join(format!("dcnsim-thin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("queues.csv");
        // 2 ports per instant, 600k instants: 1.2 M rows, three times the cap.
        let mut text = String::from("time_us,port,packets\n");
        for t in 0..600_000u64 {
            for p in 0..2 {
                text.push_str(&format!("{t},{p},{}\n", t % 7));
            }
        }
        std::fs::write(&file, &text).unwrap();
        let c = Csv::read(&file).unwrap();
        assert!(c.stride >= 3, "stride {}", c.stride);
        assert!(
            c.rows.len() as u64 <= MAX_PLOT_ROWS + 1000,
            "{}",
            c.rows.len()
        );
        // Every kept instant keeps both its ports.
        let late: Vec<&Vec<String>> = c.rows.iter().skip(2000).take(4).collect();
        assert_eq!(late[0][0], late[1][0]);
        assert_eq!((late[0][1].as_str(), late[1][1].as_str()), ("0", "1"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
