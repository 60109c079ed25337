//! Every scenario shipped in `scenarios/` loads.
use dcnsim::scenario::load_file;

fn toml_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).expect("scenarios/ exists") {
        let p = e.expect("dir entry").path();
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn every_shipped_scenario_loads() {
    let mut files = Vec::new();
    toml_files(std::path::Path::new("scenarios"), &mut files);
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        if let Err(e) = load_file(&f) {
            panic!("{}: {e}", f.display());
        }
    }
}
