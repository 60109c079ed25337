//! The marker file, [`MARKER`], that every folder dcnsim makes holds: the
//! tool, the folder's kind, the format, and for a run's folder the
//! manifest of every file dcnsim wrote there (its size and SHA-256). The
//! manifest is what lets dcnsim prove that replacing a run folder loses
//! nothing of the user's: a file it does not list, a listed file whose
//! content changed, a folder no listed file lies in, a link or a device
//! makes the folder foreign ([`foreign_entries`]). A listed file that is
//! missing loses nothing and is allowed.
//!
//! A run's staging folder holds a marker with `staging: true` (its files are
//! still being written); `commit` seals it ([`seal`]) with the manifest of
//! what it holds before moving it into place, and figures drawn later into
//! the folder are added to it ([`add`]).

use super::claim::FolderKind;
use std::collections::BTreeMap;
use std::path::Path;

/// The marker file in every folder dcnsim makes.
pub const MARKER: &str = ".dcnsim";
/// The marker's format version: 2 added the manifest. A marker of another
/// version (an older dcnsim's, which listed no files) is not trusted.
pub const FORMAT: u32 = 2;
/// The largest marker read (a manifest of about 20,000 files).
const MAX_MARKER_BYTES: u64 = 4 << 20;

/// One file dcnsim wrote, as it wrote it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    /// Its size.
    pub bytes: u64,
    /// SHA-256 of its content, in hex.
    pub sha256: String,
}

/// The marker's content.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Marker {
    /// Always `dcnsim`.
    pub tool: String,
    /// What the folder holds.
    pub kind: FolderKind,
    /// [`FORMAT`] when this dcnsim wrote it.
    pub format: u32,
    /// A run's staging folder, whose files are still being written.
    #[serde(default, skip_serializing_if = "is_false")]
    pub staging: bool,
    /// A run folder's files (paths relative to it, `/`-separated), beside
    /// the marker itself.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, Entry>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Marker {
    /// A marker of this dcnsim for a folder of `kind`, listing no file.
    pub fn new(kind: FolderKind) -> Marker {
        Marker {
            tool: "dcnsim".into(),
            kind,
            format: FORMAT,
            staging: false,
            files: BTreeMap::new(),
        }
    }

    /// The marker's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = serde_json::to_vec(self).expect("plain data serialises");
        v.push(b'\n');
        v
    }
}

/// What the marker file of a folder says.
#[derive(Debug)]
pub enum Found {
    /// No marker file.
    Absent,
    /// A marker this dcnsim wrote (its format, tool and syntax).
    Ours(Marker),
    /// A marker file this dcnsim does not trust, and why, in words.
    Unknown(String),
}

/// Reads the marker of `dir`.
pub fn read(dir: &Path) -> Found {
    let path = dir.join(MARKER);
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return Found::Absent;
    };
    if !meta.is_file() {
        return Found::Unknown(format!("{MARKER} that is not a regular file"));
    }
    if meta.len() > MAX_MARKER_BYTES {
        return Found::Unknown(format!("a {MARKER} of {} bytes", meta.len()));
    }
    let Ok(bytes) = std::fs::read(&path) else {
        return Found::Unknown(format!("an unreadable {MARKER}"));
    };
    match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(v) if v.get("tool").and_then(|t| t.as_str()) != Some("dcnsim") => {
            Found::Unknown(format!("a {MARKER} that another tool wrote"))
        }
        Ok(v) if v.get("format").and_then(|f| f.as_u64()) != Some(FORMAT.into()) => {
            Found::Unknown(format!(
                "a {MARKER} of format {}, which this dcnsim (format {FORMAT}) does not know \
                 (an older dcnsim's markers list no files, so what it wrote cannot be told \
                 from what was added since)",
                v.get("format").map_or("(none)".into(), |f| f.to_string())
            ))
        }
        Ok(v) => match serde_json::from_value::<Marker>(v) {
            Ok(m) => Found::Ours(m),
            Err(e) => Found::Unknown(format!("a {MARKER} that is not a dcnsim marker ({e})")),
        },
        Err(_) => Found::Unknown(format!("a {MARKER} that is not a dcnsim marker")),
    }
}

/// The record of the file at `path` as it is now.
pub fn entry_of(path: &Path) -> std::io::Result<Entry> {
    use sha2::{Digest as _, Sha256};
    use std::io::Read as _;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = [0u8; 8192];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        hasher.update(&buf[..n]);
    }
    let sha256 = crate::scenario::inputs::hex(&hasher.finalize());
    Ok(Entry { bytes, sha256 })
}

/// Every entry under `dir` (not the marker), as `/`-separated paths
/// relative to it, with its file type; folders before what they hold.
fn walk(dir: &Path) -> std::io::Result<Vec<(String, std::fs::FileType)>> {
    let mut out = Vec::new();
    let mut stack = vec![String::new()];
    while let Some(rel) = stack.pop() {
        let here = if rel.is_empty() {
            dir.to_path_buf()
        } else {
            dir.join(&rel)
        };
        for e in std::fs::read_dir(&here)? {
            let e = e?;
            let (name, ft) = (e.file_name().to_string_lossy().into_owned(), e.file_type()?);
            if rel.is_empty() && name == MARKER {
                continue;
            }
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if ft.is_dir() {
                stack.push(path.clone());
            }
            out.push((path, ft));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// Whether `name` is the temporary file `write_atomic` writes the marker
/// through (`.` + the marker's name + `.PID.tmp`): left by a kill while
/// the marker was written, it is dcnsim's and nothing of anyone's.
pub fn is_marker_tmp(name: &str) -> bool {
    name.strip_prefix('.')
        .and_then(|n| n.strip_prefix(MARKER))
        .is_some_and(|n| n.starts_with('.') && n.ends_with(".tmp"))
}

/// The entries of `dir` that its manifest does not vouch for, each with
/// why (empty when replacing the folder loses nothing of anyone's).
pub fn foreign_entries(dir: &Path, marker: &Marker) -> std::io::Result<Vec<String>> {
    let mut foreign = Vec::new();
    for (rel, ft) in walk(dir)? {
        if ft.is_file() && is_marker_tmp(&rel) {
            continue;
        }
        if ft.is_dir() {
            let prefix = format!("{rel}/");
            if !marker.files.keys().any(|k| k.starts_with(&prefix)) {
                foreign.push(format!("{rel}/ (a folder dcnsim did not write)"));
            }
        } else if !ft.is_file() {
            foreign.push(format!("{rel} (a link or device dcnsim did not make)"));
        } else {
            match marker.files.get(&rel) {
                None => foreign.push(format!("{rel} (not written by dcnsim)")),
                Some(e) => {
                    if entry_of(&dir.join(&rel))? != *e {
                        foreign.push(format!("{rel} (changed since dcnsim wrote it)"));
                    }
                }
            }
        }
    }
    Ok(foreign)
}

/// Writes the marker of a finished run into `dir`: every file it holds
/// now, with its size and digest.
pub fn seal(dir: &Path) -> std::io::Result<()> {
    seal_as(dir, false)
}

/// [`seal`], keeping the staging flag: what commit writes into a staging
/// folder before moving it into place, so that a kill before the move
/// leaves a folder the next run clears; [`unstage`] drops the flag after.
pub fn seal_staging(dir: &Path) -> std::io::Result<()> {
    seal_as(dir, true)
}

/// Drops the staging flag of the sealed run folder `dir` (a kill before
/// this leaves a flagged, complete manifest, which is as good).
pub fn unstage(dir: &Path) -> std::io::Result<()> {
    let Found::Ours(mut m) = read(dir) else {
        return Ok(());
    };
    m.staging = false;
    super::write_replace(&dir.join(MARKER), &m.to_bytes())
}

fn seal_as(dir: &Path, staging: bool) -> std::io::Result<()> {
    let mut m = Marker::new(FolderKind::Run);
    m.staging = staging;
    for (rel, ft) in walk(dir)? {
        if ft.is_file() {
            let e = entry_of(&dir.join(&rel))?;
            m.files.insert(rel, e);
        }
    }
    super::write_atomic(&dir.join(MARKER), &m.to_bytes())
}

/// Adds `files` (under `dir`) to the manifest of the run folder `dir`, as
/// they are now; nothing is done to a folder whose marker is not a run's
/// of this dcnsim.
pub fn add(dir: &Path, files: &[std::path::PathBuf]) -> std::io::Result<()> {
    let Found::Ours(mut m) = read(dir) else {
        return Ok(());
    };
    if m.kind != FolderKind::Run {
        return Ok(());
    }
    for f in files {
        let Ok(rel) = f.strip_prefix(dir) else {
            continue;
        };
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        m.files.insert(rel.join("/"), entry_of(f)?);
    }
    super::write_replace(&dir.join(MARKER), &m.to_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("dcnsim-marker-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_sealed_folder_is_foreign_once_anything_is_added_or_changed() {
        let d = temp("seal");
        std::fs::write(d.join("summary.json"), "{}").unwrap();
        std::fs::create_dir(d.join("plots")).unwrap();
        std::fs::write(d.join("plots/fct.png"), "png").unwrap();
        seal(&d).unwrap();
        let Found::Ours(m) = read(&d) else {
            panic!("sealed")
        };
        assert_eq!(m.files.len(), 2);
        assert!(foreign_entries(&d, &m).unwrap().is_empty());
        std::fs::remove_file(d.join("plots/fct.png")).unwrap();
        assert!(
            foreign_entries(&d, &m).unwrap().is_empty(),
            "a missing file is no loss"
        );
        std::fs::write(d.join(format!(".{MARKER}.77.tmp")), "{").unwrap();
        assert!(
            foreign_entries(&d, &m).unwrap().is_empty(),
            "the marker's own temporary file is dcnsim's"
        );
        std::fs::remove_file(d.join(format!(".{MARKER}.77.tmp"))).unwrap();
        std::fs::write(d.join("notes.md"), "mine").unwrap();
        std::fs::create_dir(d.join("mine")).unwrap();
        std::fs::write(d.join("summary.json"), "{\"edited\":1}").unwrap();
        assert_eq!(
            foreign_entries(&d, &m).unwrap(),
            [
                "mine/ (a folder dcnsim did not write)",
                "notes.md (not written by dcnsim)",
                "summary.json (changed since dcnsim wrote it)"
            ]
        );
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn old_formats_and_other_tools_are_not_trusted() {
        let d = temp("formats");
        for (text, says) in [
            (
                "{\"tool\":\"dcnsim\",\"kind\":\"run\",\"format\":1}",
                "format 1",
            ),
            (
                "{\"tool\":\"other\",\"kind\":\"run\",\"format\":2}",
                "another tool",
            ),
            ("not json", "not a dcnsim marker"),
        ] {
            std::fs::write(d.join(MARKER), text).unwrap();
            match read(&d) {
                Found::Unknown(why) => assert!(why.contains(says), "{why}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        std::fs::remove_dir_all(d).unwrap();
    }

    /// What happens to one entry between the run that wrote the folder
    /// and the next run into it.
    #[derive(Debug, Clone, Copy)]
    enum Fate {
        /// dcnsim wrote it and it is as written.
        Kept,
        /// dcnsim wrote it and the user removed it (no loss).
        Removed,
        /// dcnsim wrote it and the user changed it.
        Changed,
        /// The user added it.
        Added,
    }

    proptest::proptest! {
        /// The rule of the manifest: a run folder may be replaced exactly
        /// when nothing in it is the user's (added or changed); and when
        /// it may not, the refusal touches nothing.
        #[test]
        fn a_folder_is_replaced_only_when_nothing_in_it_is_the_users(
            entries in proptest::collection::vec(
                (0usize..6, proptest::bool::ANY, proptest::sample::select(vec![
                    Fate::Kept, Fate::Removed, Fate::Changed, Fate::Added,
                ])),
                0..8,
            ),
        ) {
            use std::sync::atomic::{AtomicU64, Ordering};
            static N: AtomicU64 = AtomicU64::new(0);
            let base = std::env::temp_dir().join(format!(
                "dcnsim-manifest-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            let dir = base.join("run");
            std::fs::create_dir_all(&dir).unwrap();
            let path = |i: usize, sub: bool, fate: Fate| {
                let name = format!("f{i}-{fate:?}.csv");
                if sub {
                    std::fs::create_dir_all(dir.join("plots")).unwrap();
                    dir.join("plots").join(name)
                } else {
                    dir.join(name)
                }
            };
            // What dcnsim wrote, sealed; then what the user did.
            std::fs::write(dir.join("summary.json"), "{}").unwrap();
            for &(i, sub, fate) in &entries {
                if !matches!(fate, Fate::Added) {
                    std::fs::write(path(i, sub, fate), format!("dcnsim {i}")).unwrap();
                }
            }
            seal(&dir).unwrap();
            let mut users = false;
            for &(i, sub, fate) in &entries {
                let p = path(i, sub, fate);
                match fate {
                    Fate::Kept => {}
                    Fate::Removed => { let _ = std::fs::remove_file(&p); }
                    Fate::Changed => { std::fs::write(&p, "the user's edit").unwrap(); users = true; }
                    Fate::Added => { std::fs::write(&p, "the user's").unwrap(); users = true; }
                }
            }
            let before = snapshot(&dir);
            let allowed = crate::report::claim::check_target(&dir, FolderKind::Run).is_ok();
            proptest::prop_assert_eq!(allowed, !users);
            match crate::report::RunFolder::create(&dir) {
                Ok(f) => {
                    proptest::prop_assert!(!users);
                    f.write("summary.json", b"new").unwrap();
                    f.commit().unwrap();
                    proptest::prop_assert_eq!(snapshot(&dir).len(), 2, "replaced whole");
                }
                Err(_) => {
                    proptest::prop_assert!(users);
                    proptest::prop_assert_eq!(snapshot(&dir), before, "nothing touched");
                }
            }
            std::fs::remove_dir_all(base).unwrap();
        }
    }

    /// Every path under `dir` with its content (folders empty).
    fn snapshot(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = walk(dir)
            .unwrap()
            .into_iter()
            .map(|(rel, ft)| {
                let bytes = if ft.is_file() {
                    std::fs::read(dir.join(&rel)).unwrap()
                } else {
                    Vec::new()
                };
                (rel, bytes)
            })
            .collect();
        v.push((
            MARKER.into(),
            std::fs::read(dir.join(MARKER)).unwrap_or_default(),
        ));
        v
    }
}
