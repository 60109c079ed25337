//! Figures drawn natively with plotters, as PNG and SVG, from a result
//! folder's files: so `dcnsim plot DIR` redraws any run or sweep after the
//! fact, and `run` and `sweep` draw theirs when they finish.
//!
//! [`chart`] renders one figure; [`run`] and [`sweep`] decide which figures
//! a folder gets; [`spec`] is the sweep file's `[[plot]]` table; [`data`]
//! reads the files back. Figures go to `DIR/plots/`, each written
//! atomically, with a sweep figure's numbers beside it as `NAME.csv`.

pub mod bins;
pub mod chart;
pub mod collective;
pub mod data;
pub mod over_time;
pub mod raster;
pub mod run;
pub mod spec;
pub mod sweep;
pub mod timeline;
pub mod trace;

pub use chart::{Chart, Formats};
pub use spec::PlotSpec;

use std::path::{Path, PathBuf};

/// A folder could not be plotted.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// A result file could not be read or is not what it should be.
    #[error("{file}: {why}")]
    Read {
        /// The file.
        file: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// A `[[plot]]` table cannot be drawn from these results.
    #[error("{0}")]
    Spec(String),
    /// Drawing or writing a figure failed.
    #[error(transparent)]
    Chart(#[from] chart::ChartError),
    /// The folder is neither a run's nor a sweep's.
    #[error(
        "{0} holds neither a run (summary.json) nor a sweep (sweep.json) that this dcnsim \
         wrote (with its .dcnsim marker): give a folder that `dcnsim run`, `sweep` or \
         `merge` wrote; nothing was written"
    )]
    NotResults(PathBuf),
}

impl PlotError {
    pub(crate) fn read(file: &Path, why: String) -> PlotError {
        PlotError::Read {
            file: file.to_path_buf(),
            why,
        }
    }
}

/// Draws every figure of the run or sweep folder `dir` into `dir/plots/`;
/// returns the files written.
pub fn plot_dir(dir: &Path, formats: Formats) -> Result<Vec<PathBuf>, PlotError> {
    let out = dir.join("plots");
    let io = |e: std::io::Error| PlotError::read(&out, e.to_string());
    let mut written = Vec::new();
    // Only a folder dcnsim made: plots/ is never created in anyone else's.
    let kind = crate::report::claim::folder_kind(dir);
    if kind == Some(crate::report::FolderKind::Sweep) && dir.join("sweep.json").exists() {
        let figures = sweep::figures(dir)?;
        // No figure, no folder: an empty plots/ would be nobody's on the
        // next run into the folder.
        if !figures.is_empty() {
            std::fs::create_dir_all(&out).map_err(io)?;
        }
        for f in figures {
            let data = out.join(format!("{}.csv", f.name));
            crate::report::write_replace(&data, f.data.as_bytes()).map_err(io)?;
            written.push(data);
            written.extend(f.chart.render(&out.join(&f.name), formats)?);
        }
    } else if kind == Some(crate::report::FolderKind::Run) && dir.join("summary.json").exists() {
        // Its summary must read, even where no figure needs it: a corrupt
        // run is reported, not half drawn.
        data::read_summary(dir)?;
        let figures = run::figures(dir)?;
        if !figures.is_empty() {
            std::fs::create_dir_all(&out).map_err(io)?;
        }
        for (name, chart) in figures {
            written.extend(chart.render(&out.join(name), formats)?);
        }
        // The figures are dcnsim's: listed in the run's manifest, so that
        // a later run into the folder may replace them.
        crate::report::marker::add(dir, &written).map_err(io)?;
    } else {
        return Err(PlotError::NotResults(dir.to_path_buf()));
    }
    Ok(written)
}
