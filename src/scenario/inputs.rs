//! The files a scenario is made of (the scenario file, and every file it
//! names, such as a flow-size CDF), each with a digest of its content, so
//! that a sweep can tell whether two runs were made from the same inputs.

use sha2::{Digest as _, Sha256};

/// One file a scenario was read from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct InputFile {
    /// The path as the scenario (or the command line) names it.
    pub path: String,
    /// SHA-256 of its bytes, in hex.
    pub sha256: String,
}

impl InputFile {
    /// The record of a file read as `bytes`.
    pub fn of(path: &std::path::Path, bytes: &[u8]) -> InputFile {
        InputFile {
            path: path.display().to_string(),
            sha256: sha256_hex(bytes),
        }
    }
}

/// The largest input file read (a scenario, a sweep or reproduction file,
/// a flow-size CDF): far above any real one, far below what a device
/// such as `/dev/zero` would feed.
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// Why an input file could not be read as text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// Where, when the text is not UTF-8: line and column (from 1).
    pub at: Option<(usize, usize)>,
    /// Why, in words.
    pub why: String,
}

/// Reads the input file at `path` as UTF-8 text: refused, before reading,
/// when it is not a regular file (a FIFO would block, a device never end)
/// or is larger than [`MAX_INPUT_BYTES`]; bytes that are not UTF-8 are
/// located by line and column.
pub fn read_text(path: &std::path::Path) -> Result<String, Unreadable> {
    let whole = |why: String| Unreadable { at: None, why };
    let bytes = read_bytes(path).map_err(whole)?;
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = good.iter().filter(|&&b| b == b'\n').count() + 1;
        let col = good.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        Unreadable {
            at: Some((line, col)),
            why: "it is not UTF-8 text (a byte there is not a character)".into(),
        }
    })
}

/// Reads the input file at `path` as bytes: refused, before reading, when
/// it is not a regular file (a FIFO would block, a device never end) or
/// is larger than [`MAX_INPUT_BYTES`].
pub fn read_bytes(path: &std::path::Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err(
            "it is not a regular file (a folder, FIFO, socket or device): give a file".into(),
        );
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(format!(
            "it is {} bytes, above the {MAX_INPUT_BYTES} an input file may have",
            meta.len()
        ));
    }
    std::fs::read(path).map_err(|e| e.to_string())
}

/// SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// A digest's bytes in lower-case hex.
pub fn hex(digest: &[u8]) -> String {
    use std::fmt::Write as _;
    digest.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_regular_utf8_files_of_bounded_size() {
        let d = std::env::temp_dir().join(format!("dcnsim-inputs-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("bad.toml"), b"a = 1\nb = \"\xff\"\n").unwrap();
        let e = read_text(&d.join("bad.toml")).unwrap_err();
        assert_eq!(e.at, Some((2, 6)));
        assert!(
            read_text(&d)
                .unwrap_err()
                .why
                .contains("not a regular file")
        );
        #[cfg(unix)]
        assert!(
            read_text(std::path::Path::new("/dev/zero"))
                .unwrap_err()
                .why
                .contains("not a regular file")
        );
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn digests_are_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
