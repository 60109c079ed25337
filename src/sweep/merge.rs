//! `dcnsim merge`: joins the folders of a sweep's slices (shards run on
//! different machines, or into one shared folder) into one folder whose
//! `sweep.csv` is byte-identical to an unsharded run's.

use super::exec::{finished_row, run_dir};
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
        if m != manifest {
            anyhow::bail!(
                "{} and {} hold different sweeps (their sweep.json differ): \
                 only slices of one sweep file can be merged",
                first.display(),
                d.display()
            );
        }
    }
    // Each run's finished folder, from the first slice that has it.
    let mut sources = Vec::with_capacity(manifest.runs.len());
    let mut missing = Vec::new();
    for run in &manifest.runs {
        match dirs.iter().find(|d| finished_row(d, run).is_some()) {
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
    std::fs::create_dir_all(out.join("runs"))?;
    let mut copied = 0;
    let mut text = table::header(manifest.axes.iter().map(String::as_str));
    for (run, src) in manifest.runs.iter().zip(sources) {
        let from = run_dir(src, run);
        let to = run_dir(out, run);
        if finished_row(out, run).is_none() {
            copy_run(&from, &to)?;
            copied += 1;
        }
        text.push_str(
            &finished_row(out, run)
                .ok_or_else(|| anyhow::anyhow!("{}: copied but not readable", to.display()))?,
        );
    }
    write_atomic(&out.join("sweep.json"), &bytes)?;
    write_atomic(&out.join("sweep.csv"), text.as_bytes())?;
    Ok(Merged {
        runs: manifest.runs.len(),
        copied,
    })
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
