//! Every scenario shipped in `scenarios/` loads.
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
