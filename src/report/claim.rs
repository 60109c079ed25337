//! What dcnsim may write over. An output path is written only when it is
//! absent, an empty folder, or a folder dcnsim made itself: every run and
//! sweep folder holds a marker file, [`MARKER`], naming the tool, the
//! folder's kind and the format. Anything else at the path (a folder with
//! other content, a regular file, a symbolic link, a device, a folder that
//! holds one of the run's own input files) is refused before anything is
//! simulated, and nothing there is touched, renamed or hidden.

pub use super::marker::{FORMAT, MARKER};
use super::marker::{Found, Marker};
use std::path::{Path, PathBuf};

/// What a dcnsim folder holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FolderKind {
    /// One run's results (`dcnsim run`, or a sweep's `runs/r0007`).
    Run,
    /// A sweep's results (`dcnsim sweep` or `merge`).
    Sweep,
    /// A paper's reproduction (`dcnsim reproduce`): a sweep folder per
    /// experiment and `report.md`.
    Reproduction,
}

impl std::fmt::Display for FolderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FolderKind::Run => "run",
            FolderKind::Sweep => "sweep",
            FolderKind::Reproduction => "reproduction",
        })
    }
}

/// The marker file's bytes for a folder of `kind` that lists no file (a
/// sweep's or a reproduction's; a run's staging folder's is
/// [`staging_marker_bytes`]).
pub fn marker_bytes(kind: FolderKind) -> Vec<u8> {
    Marker::new(kind).to_bytes()
}

/// The marker of a run's staging folder, whose files are still being written.
pub fn staging_marker_bytes() -> Vec<u8> {
    let mut m = Marker::new(FolderKind::Run);
    m.staging = true;
    m.to_bytes()
}

/// The kind of dcnsim folder `dir` is, if it holds a marker this dcnsim
/// wrote (a staging folder's too).
pub fn folder_kind(dir: &Path) -> Option<FolderKind> {
    match super::marker::read(dir) {
        Found::Ours(m) => Some(m.kind),
        _ => None,
    }
}

/// The longest folder name dcnsim writes at: it stages a run beside its
/// folder as `.NAME.partial-PID.old` (PID up to 10 digits), and a file
/// name has at most 255 bytes on the usual file systems.
pub const MAX_NAME_BYTES: usize = 255 - ".".len() - ".partial-4294967295.old".len();

/// Why dcnsim will not write at a path. Nothing at the path was touched.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// Something that is not a folder dcnsim made.
    #[error(
        "{}: refusing to write there: it is {what}. dcnsim writes only where the path is \
         absent, an empty folder, or a folder it made itself; nothing there was touched \
         (choose another output path)",
        .path.display()
    )]
    NotOurs {
        /// The output path.
        path: PathBuf,
        /// What is there, in words.
        what: String,
    },
    /// A dcnsim folder of the other kind.
    #[error(
        "{}: refusing to write a {want} there: it holds a dcnsim {found}, which a {want} would \
         replace; nothing there was touched (choose another output path, or remove it yourself)",
        .path.display()
    )]
    OtherKind {
        /// The output path.
        path: PathBuf,
        /// The kind found.
        found: FolderKind,
        /// The kind to be written.
        want: FolderKind,
    },
    /// The path holds a file the run reads.
    #[error(
        "{}: refusing to write there: it holds {}, an input of this run, which replacing the \
         folder would delete; nothing there was touched (choose another output path)",
        .path.display(), .input.display()
    )]
    HoldsInput {
        /// The output path.
        path: PathBuf,
        /// The input inside it.
        input: PathBuf,
    },
    /// An output path inside a folder dcnsim made.
    #[error(
        "{}: refusing to write a {want} there: it is inside the dcnsim {found} folder {}, \
         which only the command that made it writes into (rerun that command to redo its \
         results); nothing there was touched",
        .path.display(), .folder.display()
    )]
    Inside {
        /// The output path.
        path: PathBuf,
        /// The kind to be written.
        want: FolderKind,
        /// The dcnsim folder around it.
        folder: PathBuf,
        /// Its kind.
        found: FolderKind,
    },
    /// The path could not be examined.
    #[error("{}: cannot examine the output path: {cause}", .path.display())]
    Io {
        /// The output path.
        path: PathBuf,
        /// The cause (not a `source`: the message already says it, once).
        cause: std::io::Error,
    },
}

/// The names of the entries of folder `dir`, sorted.
fn entry_names(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        names.push(entry?.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    Ok(names)
}

/// Checks that dcnsim may write a folder of `kind` at `target`: absent, an
/// empty folder, or a dcnsim folder of that kind.
pub fn check_target(target: &Path, kind: FolderKind) -> Result<(), Refused> {
    let not_ours = |what: String| Refused::NotOurs {
        path: target.to_path_buf(),
        what,
    };
    let io = |cause| Refused::Io {
        path: target.to_path_buf(),
        cause,
    };
    if let Some(name) = target.file_name()
        && name.len() > MAX_NAME_BYTES
    {
        return Err(not_ours(format!(
            "a name of {} bytes: dcnsim writes a folder whose name has at most {MAX_NAME_BYTES} \
             (it stages a run beside it as .NAME.partial-PID)",
            name.len()
        )));
    }
    let meta = match std::fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(io(e)),
    };
    let ft = meta.file_type();
    if ft.is_symlink() {
        return Err(not_ours("a symbolic link".into()));
    }
    if ft.is_file() {
        return Err(not_ours(format!("a file of {} bytes", meta.len())));
    }
    if !ft.is_dir() {
        return Err(not_ours("a device, pipe or socket, not a folder".into()));
    }
    match super::marker::read(target) {
        Found::Ours(m) if m.kind != kind => {
            return Err(Refused::OtherKind {
                path: target.to_path_buf(),
                found: m.kind,
                want: kind,
            });
        }
        // A sweep's or reproduction's folder is added to, never replaced
        // whole: what a user adds there is never touched.
        Found::Ours(_) if kind != FolderKind::Run => return Ok(()),
        Found::Ours(m) => {
            let foreign = super::marker::foreign_entries(target, &m).map_err(io)?;
            if foreign.is_empty() {
                return Ok(());
            }
            return Err(not_ours(format!(
                "a dcnsim run folder that also holds what dcnsim did not write there: {}",
                listing(&foreign)
            )));
        }
        Found::Unknown(why) => {
            return Err(not_ours(format!("a folder holding {why}")));
        }
        Found::Absent => {}
    }
    let names = entry_names(target).map_err(io)?;
    if names.is_empty() {
        return Ok(());
    }
    Err(not_ours(format!(
        "a folder that dcnsim did not make, holding {}",
        listing(&names)
    )))
}

/// `N entries (a, b, c, ...)`: the first entries of a list, for messages.
fn listing(names: &[String]) -> String {
    let count = names.len();
    let shown: Vec<&str> = names.iter().take(5).map(String::as_str).collect();
    format!(
        "{count} entr{} ({}{})",
        if count == 1 { "y" } else { "ies" },
        shown.join(", "),
        if count > 5 { ", ..." } else { "" }
    )
}

/// Checks that no file of `inputs` lies inside `target` (replacing the
/// folder would delete it).
pub fn check_holds_no_input(target: &Path, inputs: &[PathBuf]) -> Result<(), Refused> {
    let Ok(dir) = target.canonicalize() else {
        return Ok(()); // absent: it holds nothing
    };
    for input in inputs {
        if input.canonicalize().is_ok_and(|p| p.starts_with(&dir)) {
            return Err(Refused::HoldsInput {
                path: target.to_path_buf(),
                input: input.clone(),
            });
        }
    }
    Ok(())
}

/// Checks that `target` lies inside no folder dcnsim made (a sweep's run
/// folders, a reproduction's experiments, a run's files are written only
/// by the command that made that folder), at any depth.
pub fn check_not_inside(target: &Path, want: FolderKind) -> Result<(), Refused> {
    let abs = std::path::absolute(target).map_err(|cause| Refused::Io {
        path: target.to_path_buf(),
        cause,
    })?;
    for dir in abs.ancestors().skip(1) {
        if let Some(found) = folder_kind(dir) {
            return Err(Refused::Inside {
                path: target.to_path_buf(),
                want,
                folder: dir.to_path_buf(),
                found,
            });
        }
    }
    Ok(())
}

/// Makes (or reopens) a sweep's folder at `out`: refused unless
/// [`check_target`] allows a sweep there; then the marker is written.
pub fn claim_sweep_folder(out: &Path) -> anyhow::Result<()> {
    claim_folder(out, FolderKind::Sweep)?;
    std::fs::create_dir_all(out.join("runs"))
        .map_err(|e| anyhow::anyhow!("{}: cannot create the folder: {e}", out.display()))
}

/// Makes (or reopens) a folder of `kind` at `out`: refused unless
/// [`check_target`] allows one there. Safe under any number of commands
/// claiming the same fresh folder at once (the shards of a Slurm array):
/// the folder is made beside `out` with its marker already inside and
/// renamed into place in one step, so no command ever sees it without its
/// marker; a command that loses the race finds the winner's marker.
pub fn claim_folder(out: &Path, kind: FolderKind) -> anyhow::Result<()> {
    check_target(out, kind)?;
    if folder_kind(out) == Some(kind) {
        return Ok(());
    }
    let io = |what: &str, e: std::io::Error| anyhow::anyhow!("{}: {what}: {e}", out.display());
    let (name, parent) =
        super::folder::name_and_parent(out).map_err(|e| io("cannot claim it", e))?;
    std::fs::create_dir_all(parent).map_err(|e| io("cannot create the folder", e))?;
    // Unique to this process and call (threads of one process may claim too).
    static CLAIMS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CLAIMS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let claim = parent.join(format!(".{name}.claim-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&claim); // a killed claim of an earlier process of this id
    std::fs::create_dir(&claim).map_err(|e| io("cannot create the folder", e))?;
    let placed = super::write_atomic(&claim.join(MARKER), &marker_bytes(kind))
        .and_then(|()| std::fs::rename(&claim, out));
    let _ = std::fs::remove_dir_all(&claim);
    match placed {
        Ok(()) => Ok(()),
        // Another command's claim landed first (or something else did:
        // check_target says which).
        Err(e) => {
            check_target(out, kind)?;
            if folder_kind(out) == Some(kind) {
                Ok(())
            } else {
                Err(io("cannot create the folder", e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("dcnsim-claim-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn only_absent_empty_or_own_folders_may_be_written() {
        let d = temp("kinds");
        assert!(check_target(&d.join("absent"), FolderKind::Run).is_ok());
        std::fs::create_dir(d.join("empty")).unwrap();
        assert!(check_target(&d.join("empty"), FolderKind::Run).is_ok());
        std::fs::create_dir(d.join("mine")).unwrap();
        std::fs::write(d.join("mine/thesis.tex"), "x").unwrap();
        let e = check_target(&d.join("mine"), FolderKind::Run).unwrap_err();
        assert!(
            e.to_string().contains("holding 1 entry (thesis.tex)"),
            "{e}"
        );
        std::fs::write(d.join("notes.txt"), "x").unwrap();
        let e = check_target(&d.join("notes.txt"), FolderKind::Run).unwrap_err();
        assert!(e.to_string().contains("a file of 1 bytes"), "{e}");
        std::fs::create_dir(d.join("run")).unwrap();
        std::fs::write(d.join("run").join(MARKER), marker_bytes(FolderKind::Run)).unwrap();
        assert!(check_target(&d.join("run"), FolderKind::Run).is_ok());
        let e = check_target(&d.join("run"), FolderKind::Sweep).unwrap_err();
        assert!(matches!(e, Refused::OtherKind { .. }), "{e}");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.join("run"), d.join("link")).unwrap();
            let e = check_target(&d.join("link"), FolderKind::Run).unwrap_err();
            assert!(e.to_string().contains("symbolic link"), "{e}");
            let e = check_target(Path::new("/dev/null"), FolderKind::Run).unwrap_err();
            assert!(e.to_string().contains("device"), "{e}");
        }
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_forged_or_foreign_marker_is_not_ours() {
        let d = temp("forged");
        std::fs::write(
            d.join(MARKER),
            "{\"tool\":\"other\",\"kind\":\"run\",\"format\":1}",
        )
        .unwrap();
        assert_eq!(folder_kind(&d), None);
        assert!(check_target(&d, FolderKind::Run).is_err());
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_folder_holding_an_input_or_inside_a_sweep_is_refused() {
        let d = temp("inputs");
        let input = d.join("scenario.toml");
        std::fs::write(&input, "x").unwrap();
        assert!(check_holds_no_input(&d, std::slice::from_ref(&input)).is_err());
        assert!(check_holds_no_input(&d.join("sub"), std::slice::from_ref(&input)).is_ok());
        claim_sweep_folder(&d.join("sw")).unwrap();
        let run = FolderKind::Run;
        assert!(check_not_inside(&d.join("sw/runs/r0001"), run).is_err());
        assert!(check_not_inside(&d.join("sw/runs/r0001/deeper"), run).is_err());
        assert!(check_not_inside(&d.join("sw/x"), run).is_err());
        assert!(check_not_inside(&d.join("other"), run).is_ok());
        std::fs::remove_dir_all(d).unwrap();
    }
}
