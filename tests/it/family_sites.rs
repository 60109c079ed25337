//! Families share nothing, and a family is named in few places: no
//! production file outside a family's folder, the list of families, the
//! crate root's module line, its registry rows and its wire format names
//! the family (docs/extending.md, "A transport family"). The scan reads
//! code only: comments, string literals and `#[cfg(test)]` modules are
//! stripped first, so prose that speaks of TCP is free.

use super::common::production_files;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Files that may name any family, each for one reason.
const SITES: &[(&str, &str)] = &[
    ("crates/transport/src/families.rs", "the list"),
    ("crates/transport/src/lib.rs", "its module line"),
    ("src/registry/transport.rs", "its registry row"),
    ("src/registry/cc.rs", "its controllers' registry rows"),
    (
        "crates/net/src/packet.rs",
        "its wire format (its `Protocol` variant, its header bits)",
    ),
    ("crates/net/src/lib.rs", "its wire format's re-export"),
    (
        "src/observe/pcap.rs",
        "its wire format's encoding in captures",
    ),
];

/// The most sites a family may take, its folder counted once.
const MAX_SITES: usize = 9;

/// `text` with comments, string and character literals blanked.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if let Some((open, hashes)) =
            raw_string_open(rest).filter(|_| i == 0 || !ident(b[i - 1] as char))
        {
            let close = format!("\"{}", "#".repeat(hashes));
            i += open
                + rest[open..]
                    .find(&close)
                    .map_or(rest.len(), |e| e + close.len());
            out.push_str("\"\"");
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            i += j + 1;
            out.push_str("\"\"");
        } else if let Some(n) = char_literal(rest) {
            i += n;
            out.push_str("' '");
        } else {
            let c = rest.chars().next().expect("a character");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

fn ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The length of a raw string literal's opening at the start of `rest`
/// (`r"`, `r#"`, `br"`) and its count of hashes.
fn raw_string_open(rest: &str) -> Option<(usize, usize)> {
    let r = rest.strip_prefix("br").or_else(|| rest.strip_prefix('r'))?;
    let hashes = r.len() - r.trim_start_matches('#').len();
    r[hashes..]
        .starts_with('"')
        .then(|| (rest.len() - r.len() + hashes + 1, hashes))
}

/// The length of a character literal opening `rest` (`'a'`, `'\n'`), not a lifetime.
fn char_literal(rest: &str) -> Option<usize> {
    let mut c = rest.char_indices().skip(1);
    let (_, first) = c.next()?;
    let end = if first == '\\' {
        rest[2..].find('\'')? + 2
    } else {
        first.len_utf8() + 1
    };
    (rest[end..].starts_with('\'')).then_some(end + 1)
}

/// `code` without its `#[cfg(test)] mod NAME { ... }` blocks.
fn without_test_modules(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = rest[at + "#[cfg(test)]".len()..].trim_start();
        let Some(open) = after.strip_prefix("mod ").and_then(|m| m.find(['{', ';'])) else {
            rest = &rest[at + 1..];
            continue;
        };
        let body = &after["mod ".len() + open..];
        if let Some(after_decl) = body.strip_prefix(';') {
            rest = after_decl;
            continue;
        }
        let mut depth = 0;
        let mut end = body.len();
        for (k, ch) in body.char_indices() {
            depth += match ch {
                '{' => 1,
                '}' => -1,
                _ => 0,
            };
            if depth == 0 {
                end = k + 1;
                break;
            }
        }
        rest = &body[end..];
    }
    out.push_str(rest);
    out
}

/// Each family's (variant, module), from the list itself.
fn families() -> Vec<(&'static str, &'static str)> {
    transport::family_names()
}

/// The names of family `(variant, module)` in `code`: an identifier that
/// is the variant or starts with it (`TcpSender`, `RoceBits`), or a
/// snake_case one with the module as a word (`tcp`, `roce_cc`), other
/// than its `Protocol` variant (the wire format any packet reader may name).
fn names_of(code: &str, (variant, module): (&str, &str)) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (start, c) in code.char_indices() {
        if !(c.is_alphabetic() || c == '_') || code[..start].ends_with(|p: char| ident(p)) {
            continue;
        }
        let len = code[start..]
            .find(|p: char| !ident(p))
            .unwrap_or(code.len() - start);
        let w = &code[start..start + len];
        let camel = w.strip_prefix(variant).is_some_and(|r| {
            r.is_empty() || r.starts_with(|c: char| c.is_uppercase() || c.is_numeric())
        });
        let snake = w.chars().all(|c| !c.is_uppercase()) && w.split('_').any(|p| p == module);
        if (camel && !code[..start].ends_with("Protocol::")) || snake {
            found.insert(w.to_string());
        }
    }
    found
}

fn scanned(f: &Path) -> String {
    without_test_modules(&code_only(&std::fs::read_to_string(f).expect("readable")))
}

#[test]
fn no_file_outside_a_familys_places_names_it() {
    let mut stray = Vec::new();
    let mut sites: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for f in production_files() {
        let path = f.to_string_lossy().replace('\\', "/");
        let code = scanned(&f);
        for fam in families() {
            let names = names_of(&code, fam);
            if names.is_empty() {
                continue;
            }
            let folder = format!("crates/transport/src/{}/", fam.1);
            if path.starts_with(&folder) {
                sites.entry(fam.0).or_default().insert(folder);
            } else if SITES.iter().any(|(s, _)| *s == path) {
                sites.entry(fam.0).or_default().insert(path.clone());
            } else {
                stray.push(format!("{path} names {}: {names:?}", fam.0));
            }
        }
    }
    assert!(
        stray.is_empty(),
        "a family named outside its places: {stray:#?}"
    );
    assert_eq!(
        sites.len(),
        families().len(),
        "every family is found: {sites:#?}"
    );
    for (family, s) in &sites {
        assert!(
            s.len() <= MAX_SITES,
            "{family} takes {} sites (at most {MAX_SITES}): {s:#?}",
            s.len()
        );
    }
}

#[test]
fn the_scan_reads_code_not_prose() {
    let text = "// TcpSender in a comment\nfn f() { let s = \"tcp\"; let c = 'x'; \
                let p = Protocol::Tcp; }\n#[cfg(test)]\nmod tests { use crate::tcp::TcpSender; }\n\
                fn g<'a>(x: &'a u8) { roce_cc(x); let t: TcpConfig; }";
    let code = without_test_modules(&code_only(text));
    assert!(names_of(&code, ("Tcp", "tcp")) == BTreeSet::from(["TcpConfig".to_string()]));
    assert_eq!(
        names_of(&code, ("Roce", "roce")),
        BTreeSet::from(["roce_cc".to_string()])
    );
    assert!(names_of(&code, ("Ndp", "ndp")).is_empty());
    assert!(
        !code.contains("TcpSender"),
        "comments and test modules are gone"
    );
}

#[test]
fn every_family_of_the_list_has_its_registry_row() {
    let rows: Vec<&str> = dcnsim::registry::transport::FAMILY
        .kinds
        .iter()
        .map(|k| k.doc.name)
        .collect();
    let listed: Vec<&str> = families().iter().map(|f| f.1).collect();
    assert_eq!(
        rows, listed,
        "one registry row per family, in the list's order"
    );
}
