//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use dcnsim::report::RunSummary;
use dcnsim::scenario::{Scenario, parse_str};
use dcnsim::world::World;

/// Parses a scenario from text (panics with the error on bad input).
pub fn scenario(text: &str) -> Scenario {
    parse_str("test.toml", text).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds and runs a scenario to its end.
pub fn run(text: &str) -> (World, RunSummary) {
    let sc = scenario(text);
    let mut w = World::build(&sc, sc.simulation.seed).expect("world builds");
    let stop = w.run();
    let s = RunSummary::of(&w, "test", sc.simulation.seed, stop);
    (w, s)
}
