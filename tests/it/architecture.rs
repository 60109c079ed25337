//! What docs/architecture.md says of the code's shape, pinned: the world
//! names no transport family or controller, its loop file stays small,
//! functions stay short, and the doc lists every method of the seams the
//! world drives hosts and families through.

use super::common::{production_files, rust_files};
use std::path::{Path, PathBuf};

/// The most lines `src/world/mod.rs` (the event loop) may have.
const MAX_WORLD_MOD_LINES: usize = 620;
/// The most production functions over 70 lines in the workspace.
const MAX_LONG_FUNCTIONS: usize = 15;
/// A long function: more lines than this, from `fn` to its closing brace.
const LONG_FUNCTION_LINES: usize = 70;

/// Each function of `text` (before its `#[cfg(test)]` module) with more
/// than [`LONG_FUNCTION_LINES`] lines from its `fn` line to the closing
/// brace at the same indent: (name, lines).
fn long_functions(text: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .iter()
        .position(|l| l.starts_with("#[cfg(test)]"))
        .unwrap_or(lines.len());
    let mut out = Vec::new();
    for (i, line) in lines[..end].iter().enumerate() {
        let body = line.trim_start();
        let indent = &line[..line.len() - body.len()];
        let after_vis = body
            .strip_prefix("pub ")
            .or_else(|| body.strip_prefix("pub(crate) "))
            .or_else(|| body.strip_prefix("pub(super) "))
            .unwrap_or(body);
        let Some(rest) = after_vis.strip_prefix("fn ") else {
            continue;
        };
        if line.ends_with(';') || line.ends_with('}') {
            continue; // a declaration, or a body on one line
        }
        let closing = format!("{indent}}}");
        let Some(len) = lines[i..end].iter().position(|l| *l == closing) else {
            continue;
        };
        if len + 1 > LONG_FUNCTION_LINES {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push((name, len + 1));
        }
    }
    out
}

/// Whether `word` occurs in `text` (lower case) with no letter, digit or
/// underscore on either side.
fn names(text: &str, word: &str) -> bool {
    let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    text.match_indices(word).any(|(i, _)| {
        !part(text[..i].chars().next_back()) && !part(text[i + word.len()..].chars().next())
    })
}

#[test]
fn the_world_names_no_transport_family_or_controller() {
    let families = dcnsim::registry::transport::FAMILY.kinds.iter();
    let controllers = dcnsim::registry::cc::FAMILY.kinds.iter();
    let mut words: Vec<&str> = families
        .map(|k| k.doc.name)
        .chain(controllers.map(|k| k.doc.name))
        .filter(|n| *n != "none") // a plain word too
        .collect();
    // A family's own types, matched on or reached into.
    words.extend([
        "transportconfig::",
        "sender::",
        "receiver::",
        "roceconfig",
        "rocecc",
        "homaconfig",
        "transport::tcp",
        "transport::roce",
        "transport::homa",
        "transport::expresspass",
        "transport::cc",
    ]);
    let files = rust_files(Path::new("src/world"));
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable").to_lowercase();
        for w in &words {
            if names(&text, w) {
                found.push(format!("{}: {w}", f.display()));
            }
        }
    }
    assert!(found.is_empty(), "src/world names a family: {found:#?}");
}

#[test]
fn the_world_loop_is_small_and_its_functions_short() {
    let lines = std::fs::read_to_string("src/world/mod.rs")
        .expect("readable")
        .lines()
        .count();
    assert!(
        lines <= MAX_WORLD_MOD_LINES,
        "src/world/mod.rs has {lines} lines"
    );
    let files = rust_files(Path::new("src/world"));
    for f in files {
        let long = long_functions(&std::fs::read_to_string(&f).expect("readable"));
        assert!(long.is_empty(), "{}: {long:?}", f.display());
    }
}

#[test]
fn production_functions_over_70_lines_do_not_grow() {
    let mut long = Vec::new();
    for f in production_files() {
        for (name, n) in long_functions(&std::fs::read_to_string(&f).expect("readable")) {
            long.push(format!("{} {name}: {n}", f.display()));
        }
    }
    assert!(
        long.len() <= MAX_LONG_FUNCTIONS,
        "{} functions over {LONG_FUNCTION_LINES} lines (at most {MAX_LONG_FUNCTIONS}): {long:#?}",
        long.len()
    );
}

#[test]
fn the_scanner_finds_a_long_function_and_skips_one_line_bodies() {
    let mut text =
        String::from("impl X {\n    fn short(&self) -> u8 { 1 }\n    pub fn long(&self) {\n");
    text.push_str(&"        let _ = 1;\n".repeat(LONG_FUNCTION_LINES));
    text.push_str("    }\n}\n#[cfg(test)]\nfn in_tests() {\n");
    text.push_str(&"    let _ = 1;\n".repeat(LONG_FUNCTION_LINES));
    text.push_str("}\n");
    assert_eq!(
        long_functions(&text),
        [("long".to_string(), LONG_FUNCTION_LINES + 2)]
    );
}

/// The methods of trait `name` in `file`.
fn trait_methods(file: &str, name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(file).expect("readable");
    let start = text
        .find(&format!("pub trait {name}"))
        .unwrap_or_else(|| panic!("{file} defines {name}"));
    let body = &text[start..];
    let end = body.find("\n}\n").expect("the trait ends");
    body[..end]
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("fn "))
        .map(|r| {
            r.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn architecture_md_lists_every_method_of_the_seams_and_the_pinned_sizes() {
    let doc = std::fs::read_to_string("docs/architecture.md")
        .expect("readable")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for (file, name) in [
        ("crates/transport/src/host.rs", "HostIo"),
        ("crates/transport/src/family.rs", "Family"),
        ("crates/transport/src/family.rs", "Transport"),
        ("crates/transport/src/ends.rs", "SenderEnd"),
        ("crates/transport/src/ends.rs", "ReceiverEnd"),
        ("crates/transport/src/roce/control.rs", "ReceiverControl"),
    ] {
        let methods = trait_methods(file, name);
        assert!(methods.len() >= 2, "{name}: {methods:?}");
        // The trait's bullet: from "- `NAME` (" to the next bullet.
        let start = doc
            .find(&format!("- `{name}` ("))
            .unwrap_or_else(|| panic!("docs/architecture.md has a bullet for `{name}`"));
        let item = &doc[start + 2..];
        let item = &item[..item.find(" - `").unwrap_or(item.len())];
        for m in methods {
            assert!(
                item.contains(&format!("`{m}`")),
                "docs/architecture.md's `{name}` bullet misses `{m}`"
            );
        }
    }
    for phrase in [
        format!("at most {MAX_WORLD_MOD_LINES} lines"),
        format!("at most {MAX_LONG_FUNCTIONS} production functions"),
    ] {
        assert!(
            doc.contains(&phrase),
            "docs/architecture.md states '{phrase}'"
        );
    }
}

/// The methods called on a flow's endpoints in `text`: `sender.NAME(`,
/// `receiver.NAME(` (a field or a binding of that name) and the pump's
/// `sender(f).NAME(`, whitespace aside.
fn endpoint_calls(text: &str, out: &mut std::collections::BTreeSet<String>) {
    // A chain broken over lines (`.sender\n    .stop_app(`) joined; other
    // whitespace kept as one space.
    let mut flat = String::new();
    for word in text.split_whitespace() {
        if !word.starts_with('.') && !flat.is_empty() {
            flat.push(' ');
        }
        flat.push_str(word);
    }
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    for pat in ["sender.", "receiver.", "sender(f)."] {
        for (i, _) in flat.match_indices(pat) {
            if flat[..i].chars().next_back().is_some_and(ident) {
                continue; // another name ending so (`io_sender.`)
            }
            let name: String = flat[i + pat.len()..]
                .chars()
                .take_while(|&c| ident(c))
                .collect();
            if flat[i + pat.len() + name.len()..].starts_with('(') {
                out.insert(name);
            }
        }
    }
}

#[test]
fn architecture_md_names_every_endpoint_method_the_world_calls() {
    let mut files = vec![PathBuf::from("crates/transport/src/host.rs")];
    files.extend(rust_files(Path::new("src/world")));
    let mut calls = std::collections::BTreeSet::new();
    for f in &files {
        endpoint_calls(&std::fs::read_to_string(f).expect("readable"), &mut calls);
    }
    for known in [
        "start",
        "on_timer",
        "poll_transmit",
        "srpt_rank",
        "stop_app",
    ] {
        assert!(calls.contains(known), "the scan finds {known}: {calls:?}");
    }
    let doc = std::fs::read_to_string("docs/architecture.md").expect("readable");
    let start = doc.find("**The seam**").expect("the seam's paragraph");
    let para = &doc[start..];
    let para = &para[..para.find("\n\n").unwrap_or(para.len())];
    let missing: Vec<&String> = calls
        .iter()
        .filter(|m| !para.contains(&format!("`{m}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md's seam paragraph misses {missing:?}"
    );
}

/// The layout block of docs/architecture.md: each entry's root (a line
/// that starts at the margin) and the text that describes it.
fn layout_entries() -> Vec<(String, String)> {
    let doc = std::fs::read_to_string("docs/architecture.md").expect("readable");
    let start = doc.find("## Layout").expect("a layout section");
    let block = &doc[start..];
    let open = block.find("```\n").expect("the block opens") + 4;
    let close = open + block[open..].find("```").expect("the block closes");
    let mut entries: Vec<(String, String)> = Vec::new();
    for line in block[open..close].lines() {
        if line.starts_with(' ') {
            let last = entries
                .last_mut()
                .expect("an entry before its continuation");
            last.1.push(' ');
            last.1.push_str(line.trim());
        } else {
            let (root, text) = line.split_once(' ').unwrap_or((line, ""));
            entries.push((root.to_string(), text.trim().to_string()));
        }
    }
    entries
}

/// The file (`name.rs`) and folder (`name/`) names in `text`, but for
/// those in backticks: the names of files dcnsim reads or writes
/// (`summary.json`, `reproduce.toml`).
fn layout_names(text: &str) -> Vec<String> {
    let exts = [".rs", ".toml", ".sh", ".md", ".sbatch", ".py"];
    let text: String = text.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    text.split(|c: char| c.is_whitespace() || "(),;:`".contains(c))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| {
            let named = w.chars().all(|c| c.is_alphanumeric() || "_-./".contains(c));
            let file = exts.iter().any(|e| w.ends_with(e) && w.len() > e.len());
            let folder = w.ends_with('/') && w.len() > 1 && !w.starts_with('/');
            named && (file || folder)
        })
        .map(str::to_string)
        .collect()
}

/// Every file and folder name under `dir`, however deep.
fn names_under(dir: &Path, out: &mut std::collections::BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.expect("entry").path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if p.is_dir() {
            out.insert(format!("{name}/"));
            names_under(&p, out);
        } else {
            out.insert(name.to_string());
        }
    }
}

#[test]
fn the_layout_block_names_what_exists_and_every_top_module() {
    let entries = layout_entries();
    assert!(entries.len() >= 10, "{entries:?}");
    for (root, text) in &entries {
        let path = Path::new(root.trim_end_matches('/'));
        assert!(path.exists(), "docs/architecture.md's layout names {root}");
        let mut present = std::collections::BTreeSet::new();
        names_under(path, &mut present);
        for name in layout_names(text) {
            let found = if name.trim_end_matches('/').contains('/') {
                Path::new(&name).exists() || path.join(&name).exists()
            } else {
                present.contains(&name)
            };
            assert!(
                found,
                "the layout names {name} under {root}, which is not there"
            );
        }
        // A crate's (or the simulator's) top-level modules are each named.
        let src = if root == "src/" {
            Some(PathBuf::from("src"))
        } else if root.starts_with("crates/") {
            Some(path.join("src"))
        } else {
            None
        };
        let Some(src) = src else { continue };
        let named = layout_names(text);
        for e in std::fs::read_dir(&src).expect("a source folder") {
            let p = e.expect("entry").path();
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            let name = if p.is_dir() {
                format!("{name}/")
            } else {
                name.to_string()
            };
            if name.ends_with("_tests.rs") || name == "tests.rs" || name == "lib.rs" {
                continue; // every crate has a lib.rs
            }
            assert!(
                named.contains(&name),
                "docs/architecture.md's layout does not name {}",
                src.join(&name).display()
            );
        }
    }
    let crates: Vec<String> = entries.iter().map(|e| e.0.clone()).collect();
    for e in std::fs::read_dir("crates").expect("crates") {
        let name = e.expect("entry").file_name().to_string_lossy().to_string();
        let root = format!("crates/{name}/");
        assert!(crates.contains(&root), "the layout has no entry for {root}");
    }
}

#[test]
fn the_report_reads_the_run_record_only() {
    let files = rust_files(Path::new("src/report"));
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        // A report function that took the world, or read an endpoint.
        for word in ["&World", ".sender", ".receiver", "SenderEnd", "ReceiverEnd"] {
            if text.contains(word) {
                found.push(format!("{}: {word}", f.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "src/report reaches past the RunRecord: {found:#?}"
    );
}

/// docs/architecture.md: the prefetch is "the workspace's one `unsafe`
/// block".
#[test]
fn the_workspace_has_one_unsafe_block() {
    let mut blocks = Vec::new();
    for f in production_files() {
        let text = std::fs::read_to_string(&f).expect("readable");
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            if code.contains("unsafe {") || code.contains("unsafe fn") {
                blocks.push(format!("{}:{}", f.display(), i + 1));
            }
        }
    }
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    assert!(blocks[0].contains("fabric/prefetch.rs"), "{blocks:?}");
}
