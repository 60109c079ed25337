//! A run's fingerprint: everything that defines its results beside its
//! overrides and seed (which [`Run`](super::spec::Run) holds): the dcnsim
//! version and the content of every input file (the base scenario and each
//! file it names, such as a flow-size CDF). A sweep records it in each
//! run's `run.json`; resuming, running a shard into a folder that other
//! shards wrote, and merging refuse to join runs whose fingerprints
//! disagree, and say what changed.
//!
//! Inputs are named by their path relative to the sweep file's folder, so
//! the same sweep gives the same fingerprint from any working directory
//! and whether its file is named by a relative or an absolute path.

use crate::scenario::{InputFile, Scenario};
use std::path::{Component, Path, PathBuf};

/// What, beside its overrides and seed, a run's results depend on.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fingerprint {
    /// The dcnsim version that ran it.
    pub dcnsim: String,
    /// Its input files, the base scenario first.
    pub inputs: Vec<InputFile>,
}

impl Fingerprint {
    /// The fingerprint of a loaded scenario, under this dcnsim, naming its
    /// inputs relative to the folder `root` (the sweep file's).
    pub fn of(sc: &Scenario, root: &Path) -> Fingerprint {
        Fingerprint {
            dcnsim: env!("CARGO_PKG_VERSION").to_string(),
            inputs: sc
                .inputs
                .iter()
                .map(|f| InputFile {
                    path: relative_to(Path::new(&f.path), root),
                    sha256: f.sha256.clone(),
                })
                .collect(),
        }
    }

    /// What differs from `now`, in words (empty when they agree).
    pub fn changes(&self, now: &Fingerprint) -> Vec<String> {
        let mut v = Vec::new();
        if self.dcnsim != now.dcnsim {
            let was = if self.dcnsim.is_empty() {
                "none recorded (an older dcnsim)"
            } else {
                &self.dcnsim
            };
            v.push(format!(
                "the dcnsim version ({was} then, {} now)",
                now.dcnsim
            ));
        }
        for f in &now.inputs {
            match self.inputs.iter().find(|g| g.path == f.path) {
                None => v.push(format!("{} is a new input", f.path)),
                Some(g) if g.sha256 != f.sha256 => v.push(format!(
                    "the content of {} (sha256 {}... then, {}... now)",
                    f.path,
                    &g.sha256[..g.sha256.len().min(12)],
                    &f.sha256[..12]
                )),
                Some(_) => {}
            }
        }
        for g in &self.inputs {
            if !now.inputs.iter().any(|f| f.path == g.path) {
                v.push(format!("{} is no longer an input", g.path));
            }
        }
        v
    }
}

/// `path` relative to the folder `root`, `/`-separated (`../cdf/ws.txt`),
/// the same whatever the working directory: both are resolved (links
/// included) when they exist, else made absolute and normalised.
pub fn relative_to(path: &Path, root: &Path) -> String {
    let resolve = |p: &Path| {
        let p = if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        };
        p.canonicalize()
            .unwrap_or_else(|_| normalise(&std::path::absolute(p).unwrap_or(p.to_path_buf())))
    };
    let (path, root) = (resolve(path), resolve(root));
    let p: Vec<Component> = path.components().collect();
    let r: Vec<Component> = root.components().collect();
    let common = p.iter().zip(&r).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".into(); r.len() - common];
    parts.extend(
        p[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// `p` with `.` and `..` folded away, lexically.
fn normalise(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// An error listing runs whose recorded fingerprints disagree with the
/// current ones: `conflicts` holds (run id, what changed).
pub fn disagreement(what: &str, conflicts: &[(String, Vec<String>)]) -> anyhow::Error {
    let ids: Vec<&str> = conflicts.iter().take(10).map(|c| c.0.as_str()).collect();
    let mut changes: Vec<&String> = conflicts.iter().flat_map(|c| &c.1).collect();
    changes.sort();
    changes.dedup();
    let changes: Vec<&str> = changes.iter().map(|s| s.as_str()).collect();
    anyhow::anyhow!(
        "{what}: {} finished run{} ({}{}) were made from other inputs than now: {}. \
         Their results would not be comparable with the others; restore the inputs, or \
         write this sweep into a new folder",
        conflicts.len(),
        if conflicts.len() == 1 { "" } else { "s" },
        ids.join(", "),
        if conflicts.len() > 10 { ", ..." } else { "" },
        changes.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(version: &str, files: &[(&str, &str)]) -> Fingerprint {
        Fingerprint {
            dcnsim: version.into(),
            inputs: files
                .iter()
                .map(|(p, d)| InputFile {
                    path: p.to_string(),
                    sha256: d.repeat(64 / d.len()),
                })
                .collect(),
        }
    }

    #[test]
    fn inputs_are_named_from_the_sweep_files_folder() {
        let d = std::env::temp_dir().join(format!("dcnsim-rel-{}", std::process::id()));
        std::fs::create_dir_all(d.join("sweeps")).unwrap();
        std::fs::create_dir_all(d.join("cdf")).unwrap();
        std::fs::write(d.join("cdf/ws.txt"), "x").unwrap();
        std::fs::write(d.join("sweeps/base.toml"), "x").unwrap();
        let root = d.join("sweeps");
        assert_eq!(relative_to(&root.join("base.toml"), &root), "base.toml");
        assert_eq!(
            relative_to(&root.join("../cdf/ws.txt"), &root),
            "../cdf/ws.txt"
        );
        assert_eq!(
            relative_to(&d.join("cdf/./ws.txt"), &d.join("sweeps/")),
            "../cdf/ws.txt"
        );
        assert_eq!(
            relative_to(Path::new("/nowhere/a/../b"), Path::new("/nowhere")),
            "b"
        );
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn changes_name_the_version_and_each_file() {
        let a = fp("0.1.0", &[("base.toml", "aa"), ("cdf.txt", "bb")]);
        assert!(a.changes(&a).is_empty());
        let b = fp("0.2.0", &[("base.toml", "cc"), ("other.txt", "bb")]);
        let c = a.changes(&b);
        assert_eq!(c.len(), 4, "{c:?}");
        assert!(c[0].contains("0.1.0 then, 0.2.0 now"));
        assert!(c[1].contains("content of base.toml"));
        assert!(c[2].contains("other.txt is a new input"));
        assert!(c[3].contains("cdf.txt is no longer an input"));
    }
}
