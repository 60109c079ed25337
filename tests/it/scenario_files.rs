//! Every scenario shipped in `scenarios/` loads.
use crate::common;
use dcnsim::scenario::load_file;

#[test]
fn every_shipped_scenario_loads() {
    let files = common::shipped_scenarios();
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        if let Err(e) = load_file(&f) {
            panic!("{}: {e}", f.display());
        }
    }
}
