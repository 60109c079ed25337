//! The vocabulary every family's configuration shares: a key of a
//! `[transport]` table that failed validation. Neutral ground, so that no
//! family imports another's module for it.

/// A key that failed validation, with why.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyError {
    /// The key (relative to the transport table).
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

impl KeyError {
    /// Key `key` is invalid: `message` says why.
    pub fn new(key: &'static str, message: impl Into<String>) -> KeyError {
        KeyError {
            key,
            message: message.into(),
        }
    }
}
