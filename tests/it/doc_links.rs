//! Every relative link in README.md and docs/ resolves to a file of the
//! repository.

#[test]
fn relative_links_in_the_docs_resolve() {
    let mut files = vec![std::path::PathBuf::from("README.md")];
    files.extend(super::common::files_under(
        std::path::Path::new("docs"),
        &|p| p.extension().is_some_and(|x| x == "md"),
    ));
    let mut broken = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let path = f.parent().unwrap_or(std::path::Path::new(".")).join(target);
            if !path.exists() {
                broken.push(format!("{}: {target}", f.display()));
            }
        }
    }
    assert!(broken.is_empty(), "links to nothing: {broken:?}");
}
