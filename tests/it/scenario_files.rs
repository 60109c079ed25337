//! Every scenario shipped in `scenarios/` and `benches/scenarios/` loads.
use crate::common;
use dcnsim::scenario::load;

#[test]
fn every_shipped_scenario_loads() {
    let files = common::shipped_scenarios();
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        if let Err(e) = load(&f, &[]) {
            panic!("{}: {e}", f.display());
        }
    }
}

#[test]
fn every_benchmark_scenario_loads() {
    let files = common::files_under(std::path::Path::new("benches/scenarios"), &|p| {
        p.extension().is_some_and(|x| x == "toml")
    });
    assert!(files.len() >= 8, "{files:?}");
    for f in files {
        if let Err(e) = load(&f, &[]) {
            panic!("{}: {e}", f.display());
        }
    }
}
