//! A run's output folder: files written atomically into a staging folder
//! that moves into place whole, under a lock that keeps two runs apart.
//! Only what [`super::claim`] allows is ever replaced.
//!
//! Durability: a finished run is on disk before it is reported, with one
//! `fsync` a file and three more a run. Files staged for a run are written
//! without a sync (a kill leaves the staging folder, which the next run
//! clears); [`RunFolder::commit`] syncs each file once, the sealed marker,
//! the staging folder (its entries) and, after the rename, the folder it
//! moved into (the rename itself). What is written into a run folder after
//! its commit (figures, the marker's staging flag dropped) is written
//! atomically but not synced: figures are redrawn by `dcnsim plot`, and a
//! power cut that loses one leaves a folder dcnsim refuses to replace,
//! naming the file, rather than one it may replace wrongly.

use super::claim::{FolderKind, MARKER, check_target, staging_marker_bytes};
use super::marker::{self, Found};
use std::io::Write as _;
use std::path::Path;

/// Writes `bytes` to `path` atomically and durably: a temporary file in the
/// same folder, flushed to disk, then renamed over the target.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_via_temp(path, bytes, true)
}

/// Writes `bytes` to `path` atomically (a temporary file renamed over the
/// target: a kill leaves the old content or the new, never a mix) without
/// waiting for the disk: for what a run's commit syncs later, or what can
/// be drawn again.
pub fn write_replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_via_temp(path, bytes, false)
}

fn write_via_temp(path: &Path, bytes: &[u8], sync: bool) -> std::io::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let named = naming(path.display());
    std::fs::create_dir_all(dir).map_err(&named)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        if sync {
            sync_file(&f)?;
        }
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written.map_err(named)
}

/// Flushes a file (or, on Unix, a folder's entries) to disk: every sync
/// dcnsim makes goes through here, so that a test can count them.
fn sync_file(f: &std::fs::File) -> std::io::Result<()> {
    #[cfg(test)]
    SYNCS.with(|n| n.set(n.get() + 1));
    f.sync_all()
}

#[cfg(test)]
thread_local! {
    static SYNCS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Flushes a folder's entries (the files made or renamed in it) to disk.
#[cfg(unix)]
fn sync_dir(dir: &Path) -> std::io::Result<()> {
    sync_file(&std::fs::File::open(dir)?)
}

/// Windows cannot open a folder as a file; its renames are journaled.
#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

/// An I/O error that names what it concerns (`cc.csv: No space left on
/// device`): the OS's message names no path.
pub(crate) fn naming(what: impl std::fmt::Display) -> impl Fn(std::io::Error) -> std::io::Error {
    move |e| std::io::Error::new(e.kind(), format!("{what}: {e}"))
}

/// A lock held on a file: the file is removed when the lock is dropped
/// (while still held, so no lock file is left behind), and the operating
/// system releases the lock however the process ends.
#[derive(Debug)]
pub struct Lock {
    path: std::path::PathBuf,
    _file: std::fs::File,
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed before the file closes (which releases the lock): a
        // process that opened it meanwhile finds it gone once it holds it,
        // and tries again on a new file (try_lock).
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Opens (creating) and locks the file at `path` for as long as the
/// returned lock lives; `None` if another process holds it. A lock whose
/// file was removed by its previous holder while this process waited is
/// not a lock on `path`: it is taken again on the new file.
pub fn try_lock(path: &Path) -> std::io::Result<Option<Lock>> {
    try_lock_at(path).map_err(naming(path.display()))
}

fn try_lock_at(path: &Path) -> std::io::Result<Option<Lock>> {
    loop {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
            Err(std::fs::TryLockError::Error(e)) => return Err(e),
        }
        let still_there = match std::fs::metadata(path) {
            Ok(now) => same_file(&file.metadata()?, &now),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
            Err(e) => return Err(e),
        };
        if still_there {
            return Ok(Some(Lock {
                path: path.to_path_buf(),
                _file: file,
            }));
        }
    }
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    true
}

/// The last part of `path`'s name and the folder it is in (`.` for a bare
/// name): where dcnsim stages, claims and locks beside it.
pub fn name_and_parent(path: &Path) -> std::io::Result<(String, &Path)> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the output folder has no name"))?
        .to_string_lossy()
        .into_owned();
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    Ok((name, parent))
}

/// A run's output folder, written whole or not at all. The target must be
/// absent, an empty folder or an earlier dcnsim run ([`check_target`]),
/// checked before anything is made and again just before `commit`. Files
/// go to a staging folder beside the target (made, with its marker
/// written, before the run, which proves the place writable before any
/// simulated work); `commit` then moves it into place, replacing the
/// earlier run's folder whole, so a run never sits beside another run's
/// files. A run that fails before `commit` removes its staging folder.
///
/// A run holds a lock on `.NAME.lock` beside the target from `create` to
/// drop (released by the operating system however the process ends), so a
/// second run into the same folder is refused at once. Whoever holds the
/// lock owns every `.NAME.partial-*` folder: those present when it is taken
/// are the remains of killed runs and are removed, or, if the kill fell
/// between `commit`'s two renames, the older run is moved back.
pub struct RunFolder {
    target: std::path::PathBuf,
    staging: std::path::PathBuf,
    committed: bool,
    /// Held for the folder's life; the OS releases it if the process dies.
    _lock: Lock,
}

/// A second run into a folder another run is writing.
#[derive(Debug, thiserror::Error)]
#[error("{} is being written by another dcnsim run (it holds {})", .target.display(), .lock.display())]
pub struct FolderBusy {
    /// The output folder.
    pub target: std::path::PathBuf,
    /// The lock file held.
    pub lock: std::path::PathBuf,
}

impl RunFolder {
    /// Checks that `target` may be written, locks it, clears what killed
    /// runs left, and makes the staging folder with its marker.
    pub fn create(target: &Path) -> std::io::Result<RunFolder> {
        check_target(target, FolderKind::Run).map_err(std::io::Error::other)?;
        let (name, parent) = name_and_parent(target)?;
        std::fs::create_dir_all(parent)?;
        let lock_path = parent.join(format!(".{name}.lock"));
        let Some(lock) = try_lock(&lock_path)? else {
            return Err(std::io::Error::other(FolderBusy {
                target: target.to_path_buf(),
                lock: lock_path,
            }));
        };
        clear_remains(parent, &name, target)?;
        let staging = parent.join(format!(".{name}.partial-{}", std::process::id()));
        std::fs::create_dir(&staging)?;
        let folder = RunFolder {
            target: target.to_path_buf(),
            staging,
            committed: false,
            _lock: lock,
        };
        // Atomically, so that a kill mid-write leaves a folder the next
        // run recognises as a staging folder and clears.
        write_replace(&folder.staging.join(MARKER), &staging_marker_bytes())?;
        Ok(folder)
    }

    /// The staging folder (for checking free space before the run).
    pub fn staging(&self) -> &Path {
        &self.staging
    }

    /// Writes one file of the run (synced by `commit`).
    pub fn write(&self, name: &str, bytes: &[u8]) -> std::io::Result<()> {
        let path = self.staging.join(name);
        std::fs::write(&path, bytes).map_err(naming(path.display()))
    }

    /// Creates one file of the run to stream into (synced by `commit`).
    pub fn create_file(&self, name: &str) -> std::io::Result<std::fs::File> {
        std::fs::File::create(self.staging.join(name))
    }

    /// Moves the complete run into place, replacing an earlier run there
    /// (or an empty folder); refused, with nothing touched, if something
    /// else has appeared at the target since `create`.
    pub fn commit(mut self) -> std::io::Result<()> {
        for entry in std::fs::read_dir(&self.staging)? {
            let entry = entry?;
            // The marker is rewritten, and synced, by seal_staging.
            if entry.file_type()?.is_file() && entry.file_name() != MARKER {
                sync_file(&std::fs::File::open(entry.path())?)?;
            }
        }
        // The manifest of what the run wrote: what lets a later run tell
        // them from a file a user adds (marker.rs). Still flagged staging
        // until it is in place, so that a kill before the move leaves a
        // folder the next run clears.
        marker::seal_staging(&self.staging)?;
        sync_dir(&self.staging)?;
        check_target(&self.target, FolderKind::Run).map_err(std::io::Error::other)?;
        if std::fs::symlink_metadata(&self.target).is_ok() {
            let mut old = self.staging.clone().into_os_string();
            old.push(".old");
            std::fs::rename(&self.target, &old)?;
            std::fs::rename(&self.staging, &self.target)?;
            std::fs::remove_dir_all(&old)?;
        } else {
            std::fs::rename(&self.staging, &self.target)?;
        }
        self.committed = true;
        let (_, parent) = name_and_parent(&self.target)?;
        sync_dir(parent)?;
        // The run is in place and on disk: a flagged manifest is as good.
        let _ = marker::unstage(&self.target);
        Ok(())
    }
}

/// Removes the staging folders of killed runs into `parent/name`; restores an
/// older run whose replacement was killed between the two renames of commit.
/// A folder of that name is only touched if dcnsim made it: a staging
/// folder holds a staging marker, or only the marker's temporary file or
/// nothing (a kill before the marker was in place); an older run moved
/// aside holds a run's marker and nothing it does not list. A user's folder
/// that merely shares the name (a finished run copied there) is left alone.
fn clear_remains(parent: &Path, name: &str, target: &Path) -> std::io::Result<()> {
    let prefix = format!(".{name}.partial-");
    let mut remains: Vec<std::path::PathBuf> = Vec::new();
    for entry in std::fs::read_dir(parent)? {
        let entry = entry?;
        let file_name = entry.file_name().to_string_lossy().into_owned();
        if file_name.starts_with(&prefix)
            && entry.file_type()?.is_dir()
            && ours(&entry.path(), file_name.ends_with(".old"))?
        {
            remains.push(entry.path());
        }
    }
    remains.sort();
    for path in remains {
        let older_run = path.to_string_lossy().ends_with(".old");
        if older_run && !target.exists() {
            std::fs::rename(&path, target)?;
        } else {
            std::fs::remove_dir_all(&path)?;
        }
    }
    Ok(())
}

/// Whether `dir`, named like a staging folder (or, `older`, like an older
/// run moved aside by commit), is dcnsim's to clear.
fn ours(dir: &Path, older: bool) -> std::io::Result<bool> {
    Ok(match marker::read(dir) {
        Found::Ours(m) if m.kind == FolderKind::Run && older => {
            marker::foreign_entries(dir, &m)?.is_empty()
        }
        Found::Ours(m) if m.kind == FolderKind::Run => m.staging,
        Found::Ours(_) | Found::Unknown(_) => false,
        // Killed before the marker was in place: empty, or only the
        // marker's temporary file.
        Found::Absent => std::fs::read_dir(dir)?
            .all(|e| e.is_ok_and(|e| marker::is_marker_tmp(&e.file_name().to_string_lossy()))),
    })
}

impl Drop for RunFolder {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_whole_files() {
        let dir = std::env::temp_dir().join(format!("dcnsim-atomic-{}", std::process::id()));
        let p = dir.join("x.txt");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        let leftovers = std::fs::read_dir(&dir).unwrap().count();
        assert_eq!(leftovers, 1);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_run_folder_replaces_an_older_run_whole() {
        let base = std::env::temp_dir().join(format!("dcnsim-runfolder-{}", std::process::id()));
        let target = base.join("run");
        let a = RunFolder::create(&target).unwrap();
        a.write("queues.csv", b"old").unwrap();
        a.write("summary.json", b"1").unwrap();
        assert!(!target.exists(), "nothing is visible before commit");
        a.commit().unwrap();
        let b = RunFolder::create(&target).unwrap();
        b.write("summary.json", b"2").unwrap();
        b.commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(target.join("summary.json")).unwrap(),
            "2"
        );
        assert!(
            !target.join("queues.csv").exists(),
            "no file of the older run remains"
        );
        let failed = RunFolder::create(&target).unwrap();
        failed.write("summary.json", b"3").unwrap();
        drop(failed);
        assert_eq!(names(&base), ["run"], "no staging folder nor lock left");
        // A user's folder that appears at the target during the run stops
        // the commit, and is left as it is.
        let late = RunFolder::create(&base.join("late")).unwrap();
        std::fs::create_dir(base.join("late")).unwrap();
        std::fs::write(base.join("late/data.csv"), "mine").unwrap();
        let e = late.commit().expect_err("refused");
        assert!(e.to_string().contains("did not make"), "{e}");
        assert_eq!(
            std::fs::read_to_string(base.join("late/data.csv")).unwrap(),
            "mine"
        );
        std::fs::remove_dir_all(base).unwrap();
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_run_is_synced_once_a_file_and_three_times_more() {
        let base = std::env::temp_dir().join(format!("dcnsim-syncs-{}", std::process::id()));
        let target = base.join("run");
        for round in 0..2 {
            let before = SYNCS.with(|n| n.get());
            let f = RunFolder::create(&target).unwrap();
            for name in ["summary.json", "flows.csv", "ports.csv"] {
                f.write(name, b"x").unwrap();
            }
            let mut streamed = f.create_file("queues.csv").unwrap();
            streamed.write_all(b"t,q").unwrap();
            assert_eq!(SYNCS.with(|n| n.get()), before, "staging writes wait");
            f.commit().unwrap();
            // Four files, the sealed marker, the staging folder, and the
            // folder the run moved into; the same when it replaces a run.
            assert_eq!(SYNCS.with(|n| n.get()) - before, 4 + 3, "round {round}");
            assert_eq!(std::fs::read(target.join("queues.csv")).unwrap(), b"t,q");
        }
        std::fs::remove_dir_all(base).unwrap();
    }

    #[test]
    fn a_second_run_into_a_busy_folder_is_refused() {
        let base = std::env::temp_dir().join(format!("dcnsim-busy-{}", std::process::id()));
        let target = base.join("run");
        let first = RunFolder::create(&target).unwrap();
        let err = RunFolder::create(&target).err().expect("refused");
        assert!(
            err.to_string()
                .contains("being written by another dcnsim run"),
            "{err}"
        );
        first.commit().unwrap();
        RunFolder::create(&target).unwrap().commit().unwrap();
        std::fs::remove_dir_all(base).unwrap();
    }

    #[test]
    fn what_killed_runs_left_is_cleared() {
        let base = std::env::temp_dir().join(format!("dcnsim-remains-{}", std::process::id()));
        let target = base.join("run");
        // A run killed while writing, and one killed between commit's renames
        // (the older run moved aside, the new one not yet in place).
        let marker = staging_marker_bytes();
        std::fs::create_dir_all(base.join(".run.partial-1")).unwrap();
        std::fs::write(base.join(".run.partial-1").join(MARKER), &marker).unwrap();
        std::fs::write(base.join(".run.partial-1/queues.csv"), "half").unwrap();
        std::fs::create_dir_all(base.join(".run.partial-2.old")).unwrap();
        std::fs::write(base.join(".run.partial-2.old/summary.json"), "older").unwrap();
        marker::seal(&base.join(".run.partial-2.old")).unwrap();
        std::fs::create_dir_all(base.join(".run.partial-2")).unwrap();
        // Killed after commit sealed it, before it moved into place.
        std::fs::create_dir_all(base.join(".run.partial-4")).unwrap();
        std::fs::write(base.join(".run.partial-4/summary.json"), "sealed").unwrap();
        marker::seal_staging(&base.join(".run.partial-4")).unwrap();
        // Killed while the marker was being written.
        std::fs::create_dir_all(base.join(".run.partial-3")).unwrap();
        std::fs::write(base.join(".run.partial-3/..dcnsim.3.tmp"), "{").unwrap();
        // A user's folder that happens to share the name is not ours.
        std::fs::create_dir_all(base.join(".run.partial-user")).unwrap();
        std::fs::write(base.join(".run.partial-user/notes.txt"), "mine").unwrap();
        // Nor is a finished run a user copied under a staging folder's name.
        std::fs::create_dir_all(base.join(".run.partial-9")).unwrap();
        std::fs::write(base.join(".run.partial-9/summary.json"), "kept").unwrap();
        marker::seal(&base.join(".run.partial-9")).unwrap();
        let f = RunFolder::create(&target).unwrap();
        assert_eq!(
            std::fs::read_to_string(target.join("summary.json")).unwrap(),
            "older",
            "the older run is back in place"
        );
        drop(f);
        assert_eq!(names(&base), [".run.partial-9", ".run.partial-user", "run"]);
        std::fs::remove_dir_all(base).unwrap();
    }
}
