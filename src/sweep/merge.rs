//! `dcnsim merge`: joins the folders of a sweep's slices (shards run on
//! different machines, or into one shared folder) into one folder whose
//! `sweep.csv` is byte-identical to an unsharded run's.
//!
//! Nothing is joined that does not belong together: every folder must hold
//! the same sweep (same runs, overrides and seeds) made from the same
//! inputs (each run's fingerprint), every run folder's row must be a
//! well-formed row of its run, and every row of a shard's table must be
//! the row its run folder holds.

use super::exec::{as_current, current_row, finished_row, run_dir};
use super::spec::Run;
use super::table;
use crate::report::write_atomic;
use std::path::{Path, PathBuf};

/// A slice's `sweep.json`, as far as merging needs it.
#[derive(serde::Deserialize, PartialEq)]
struct Manifest {
    name: String,
    axes: Vec<String>,
    runs: Vec<Run>,
}

/// What a merge did.
#[derive(Debug)]
pub struct Merged {
    /// Runs in the sweep.
    pub runs: usize,
    /// Run folders copied into the output folder.
    pub copied: usize,
}

fn read_manifest(dir: &Path) -> anyhow::Result<(Manifest, Vec<u8>)> {
    let path = dir.join("sweep.json");
    let bytes = std::fs::read(&path).map_err(|e| {
        anyhow::anyhow!(
            "{}: cannot read it ({e}): is {} a sweep's output folder?",
            path.display(),
            dir.display()
        )
    })?;
    let m = serde_json::from_slice(&bytes)
        .map_err(|e| anyhow::anyhow!("{}: not a sweep manifest: {e}", path.display()))?;
    Ok((m, bytes))
}

/// Joins `dirs` into `out` (which may be one of them): every run must be
/// finished in one of them, and all must be slices of the same sweep.
pub fn merge(dirs: &[PathBuf], out: &Path) -> anyhow::Result<Merged> {
    let Some(first) = dirs.first() else {
        anyhow::bail!("nothing to merge: name the sweep folders to join");
    };
    let (manifest, bytes) = read_manifest(first)?;
    for d in &dirs[1..] {
        let (m, _) = read_manifest(d)?;
        same_sweep(first, &manifest, d, &m)?;
    }
    crate::report::claim::check_target(out, crate::report::FolderKind::Sweep)?;
    if !dirs.iter().any(|d| same_place(d, out)) {
        crate::report::claim::check_not_inside(out, crate::report::FolderKind::Sweep)?;
    }
    for d in dirs {
        // Shards run by two dcnsim versions (or from edited inputs) into
        // one folder: the runs of one are not the manifest's.
        let conflicts = super::exec::runs_from_other_inputs(&manifest.runs, d);
        if !conflicts.is_empty() {
            return Err(super::fingerprint::disagreement(
                &d.display().to_string(),
                &conflicts,
            ));
        }
        check_rows(d, &manifest)?;
    }
    // Each run's finished folder, from the first slice that has it.
    let mut sources = Vec::with_capacity(manifest.runs.len());
    let mut missing = Vec::new();
    for run in &manifest.runs {
        match dirs.iter().find(|d| current_row(d, run).is_some()) {
            Some(d) => sources.push(d),
            None => missing.push(run.id.as_str()),
        }
    }
    if !missing.is_empty() {
        let shown: Vec<&str> = missing.iter().take(10).copied().collect();
        anyhow::bail!(
            "{} of {} runs of sweep '{}' are in none of the folders ({}{}): \
             rerun their shards (finished runs are kept) and merge again",
            missing.len(),
            manifest.runs.len(),
            manifest.name,
            shown.join(", "),
            if missing.len() > 10 { ", ..." } else { "" }
        );
    }
    crate::report::claim::claim_sweep_folder(out)?;
    let mut copied = 0;
    let mut text = table::header(manifest.axes.iter().map(String::as_str));
    for (run, src) in manifest.runs.iter().zip(sources) {
        let from = run_dir(src, run);
        let to = run_dir(out, run);
        let row = match current_row(out, run) {
            Some(row) => row,
            None => {
                copy_run(&from, &to)?;
                copied += 1;
                current_row(out, run)
                    .ok_or_else(|| anyhow::anyhow!("{}: copied but not readable", to.display()))?
            }
        };
        text.push_str(&row);
    }
    write_atomic(&out.join("sweep.json"), &bytes)?;
    write_atomic(&out.join("sweep.csv"), text.as_bytes())?;
    Ok(Merged {
        runs: manifest.runs.len(),
        copied,
    })
}

/// Whether `a` and `b` name the same folder (both may not exist yet).
fn same_place(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Refuses two manifests that are not slices of one sweep made from the
/// same inputs, saying which.
fn same_sweep(a_dir: &Path, a: &Manifest, b_dir: &Path, b: &Manifest) -> anyhow::Result<()> {
    if a == b {
        return Ok(());
    }
    // The same runs (ids, overrides, seeds) under the same name and axes.
    let same_runs = a.name == b.name
        && a.axes == b.axes
        && a.runs.len() == b.runs.len()
        && a.runs
            .iter()
            .zip(&b.runs)
            .all(|(x, y)| x.id == y.id && x.overrides == y.overrides && x.seed == y.seed);
    if !same_runs {
        anyhow::bail!(
            "{} and {} hold different sweeps (their sweep.json list other runs): \
             only slices of one sweep file can be merged",
            a_dir.display(),
            b_dir.display()
        );
    }
    let conflicts: Vec<(String, Vec<String>)> = a
        .runs
        .iter()
        .zip(&b.runs)
        .filter(|(x, y)| x.fingerprint != y.fingerprint)
        .map(|(x, y)| (x.id.clone(), x.fingerprint.changes(&y.fingerprint)))
        .collect();
    Err(super::fingerprint::disagreement(
        &format!(
            "{} against {} (\"then\" is the first)",
            b_dir.display(),
            a_dir.display()
        ),
        &conflicts,
    ))
}

/// Checks a slice's rows: each finished run folder's `row.csv` is a row of
/// its run, and each row of the folder's tables (`sweep.csv`,
/// `sweep.shard-*.csv`) is the row its run folder holds.
fn check_rows(dir: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    let header = table::header(manifest.axes.iter().map(String::as_str));
    let mut rows = std::collections::BTreeMap::new();
    for run in &manifest.runs {
        if let Some(row) = finished_row(dir, run) {
            // A row written before the newest columns is completed from
            // its run's summary, as a resumed sweep completes it.
            let row = match table::check_row(run, &row) {
                Ok(()) => row,
                Err(why) => as_current(dir, run, row).ok_or_else(|| {
                    anyhow::anyhow!(
                        "{}: not a row of run {}: {why}",
                        run_dir(dir, run).join("row.csv").display(),
                        run.id
                    )
                })?,
            };
            rows.insert(run.id.as_str(), row);
        }
    }
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if !(name == "sweep.csv" || name.starts_with("sweep.shard-") && name.ends_with(".csv")) {
            continue;
        }
        let path = dir.join(&name);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| anyhow::anyhow!("{}: cannot read it: {e}", path.display()))?;
        let body = text
            .strip_prefix(header.as_str())
            .ok_or_else(|| anyhow::anyhow!("{}: its header is not this sweep's", path.display()))?;
        for (i, line) in body.split_inclusive('\n').enumerate() {
            let id = line.split(',').next().unwrap_or_default();
            if rows.get(id).is_none_or(|r| r != line) {
                anyhow::bail!(
                    "{}: row {} (run '{id}') is not the row its run folder holds: the table \
                     was edited or belongs to another sweep; rerun the shard to rewrite it",
                    path.display(),
                    i + 2
                );
            }
        }
    }
    Ok(())
}

/// Copies a run's folder whole: into a staging folder, then renamed.
fn copy_run(from: &Path, to: &Path) -> anyhow::Result<()> {
    let folder = crate::report::RunFolder::create(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            folder.write(
                &entry.file_name().to_string_lossy(),
                &std::fs::read(entry.path())?,
            )?;
        }
    }
    folder.commit()?;
    Ok(())
}
