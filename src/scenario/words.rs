//! serde's and toml's messages in the words of a scenario file.
//!
//! serde speaks of Rust types ("expected u32", "expected struct TcpConfig",
//! "unknown field"); a user wrote a TOML file and knows keys, tables, lists
//! and whole numbers. This rewrites the messages serde and toml produce
//! into those words, and leaves every other message as it is.

/// `message` (from serde or toml) in the words of a scenario file.
pub fn in_users_words(message: &str) -> String {
    let m = message.trim();
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = m.strip_prefix(prefix)
            && let Some((found, expected)) = rest.split_once(", expected ")
        {
            return format!(
                "expected {}, found {}",
                expected_words(expected),
                found_words(found)
            );
        }
    }
    if let Some(rest) = m.strip_prefix("unknown field ") {
        return match rest.split_once(", ") {
            Some((key, "there are no fields")) => {
                format!("unknown key {key}: this table takes no keys")
            }
            Some((key, valid)) => format!("unknown key {key}: {}", choices(valid, "keys")),
            None => format!("unknown key {rest}"),
        };
    }
    if let Some(rest) = m.strip_prefix("unknown variant ") {
        return match rest.split_once(", ") {
            Some((value, valid)) => format!("unknown value {value}: {}", choices(valid, "values")),
            None => format!("unknown value {rest}"),
        };
    }
    if let Some(key) = m.strip_prefix("missing field ") {
        return format!("missing key {key}");
    }
    if let Some(rest) = m.strip_prefix("invalid length ")
        && let Some((n, expected)) = rest.split_once(", expected ")
    {
        return format!("has {n} entries, expected {}", expected_words(expected));
    }
    match m {
        "wanted string or table" => "expected a string or a table".into(),
        _ => m.to_string(),
    }
}

/// serde's "expected one of `a`, `b`" or "expected `a`" as a list of choices.
fn choices(valid: &str, what: &str) -> String {
    match valid.strip_prefix("expected one of ") {
        Some(list) => format!("valid {what} are {list}"),
        None => match valid.strip_prefix("expected ") {
            Some(two) if two.contains(" or ") => format!("valid {what} are {two}"),
            Some(one) => format!("the only valid {} is {one}", what.trim_end_matches('s')),
            None => valid.to_string(),
        },
    }
}

/// What serde expected, in TOML's terms.
fn expected_words(expected: &str) -> String {
    let range = |max: &str| format!("a whole number from 0 to {max}");
    match expected {
        "u8" => range("255"),
        "u16" => range("65535"),
        "u32" => range("4294967295"),
        "u64" | "usize" => range("18446744073709551615"),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".into(),
        "f32" | "f64" => "a number".into(),
        "a sequence" => "a list".into(),
        "a map" | "map" => "a table".into(),
        "a borrowed string" => "a string".into(),
        "a boolean" | "bool" => "true or false".into(),
        e if e.starts_with("struct ") => "a table".into(),
        e if e.starts_with("tuple struct ") || e.starts_with("tuple of ") => "a list".into(),
        e if e.starts_with("enum ") => "one of its values".into(),
        e => e.to_string(),
    }
}

/// What serde found, as it appeared in the file.
fn found_words(found: &str) -> String {
    let quoted = |s: &str| s.trim_start_matches('`').trim_end_matches('`').to_string();
    if let Some(v) = found.strip_prefix("floating point ") {
        // serde prints 1e300 as its 301 digits: the number as written is
        // what the reader recognises.
        let v = quoted(v);
        return match v.parse::<f64>() {
            Ok(x) if x.is_finite() && x != 0.0 && !(1e-6..1e15).contains(&x.abs()) => {
                format!("{x:e}")
            }
            _ => v,
        };
    }
    for prefix in ["integer ", "boolean "] {
        if let Some(v) = found.strip_prefix(prefix) {
            return quoted(v);
        }
    }
    match found {
        "sequence" => "a list".into(),
        "map" => "a table".into(),
        "unit value" => "nothing".into(),
        f => match f.strip_prefix("string ") {
            Some(s) => format!("the string {s}"),
            None => f.to_string(),
        },
    }
}

/// `text` with its first letter in capitals (a family's name as a
/// sentence's subject, `Homa`; a figure's default title).
pub fn capitalised(text: &str) -> String {
    let mut c = text.chars();
    c.next()
        .map_or_else(String::new, |f| f.to_uppercase().chain(c).collect())
}

#[cfg(test)]
mod tests {
    use super::in_users_words as w;

    #[test]
    fn rust_types_become_toml_words() {
        assert_eq!(
            w("invalid type: integer `5`, expected struct TcpConfig"),
            "expected a table, found 5"
        );
        assert_eq!(
            w("invalid value: integer `-1`, expected u64"),
            "expected a whole number from 0 to 18446744073709551615, found -1"
        );
        assert_eq!(
            w("invalid type: floating point `1.5`, expected u32"),
            "expected a whole number from 0 to 4294967295, found 1.5"
        );
        assert_eq!(
            w("invalid type: floating point `1e300`, expected a string"),
            "expected a string, found 1e300"
        );
        assert_eq!(
            w("invalid type: string \"abc\", expected u64"),
            "expected a whole number from 0 to 18446744073709551615, found the string \"abc\""
        );
        assert_eq!(
            w("invalid type: integer `3`, expected a sequence"),
            "expected a list, found 3"
        );
        assert_eq!(
            w("invalid type: sequence, expected f64"),
            "expected a number, found a list"
        );
        assert_eq!(w("wanted string or table"), "expected a string or a table");
    }

    #[test]
    fn fields_are_keys_and_variants_are_values() {
        assert_eq!(
            w("unknown field `foo`, expected one of `cc`, `mss`"),
            "unknown key `foo`: valid keys are `cc`, `mss`"
        );
        assert_eq!(
            w("unknown field `k`, expected `dir`"),
            "unknown key `k`: the only valid key is `dir`"
        );
        assert_eq!(
            w("unknown field `quanta`, there are no fields"),
            "unknown key `quanta`: this table takes no keys"
        );
        assert_eq!(w("missing field `size`"), "missing key `size`");
        assert_eq!(
            w("unknown variant `fast`, expected one of `none`, `ethernet`"),
            "unknown value `fast`: valid values are `none`, `ethernet`"
        );
        assert_eq!(
            w("invalid length 3, expected 2 elements"),
            "has 3 entries, expected 2 elements"
        );
    }

    #[test]
    fn other_messages_are_left_alone() {
        let own = "'1 fortnight' has unknown unit 'fortnight' for a duration: valid units are ps";
        assert_eq!(w(own), own);
    }
}
