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

/// SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
