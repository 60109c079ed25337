//! Sweeps: many runs of one base scenario (named cases x a grid of keys x
//! seeds), run in parallel, resumable, sliced for clusters, joined again.
//! A sweep is a list of override sets handed to the scenario loader
//! ([`spec`]); [`exec`] runs it, [`merge`] joins slices, [`table`] is its
//! `sweep.csv`. docs/sweeps.md is the user's guide.

pub mod exec;
pub mod fingerprint;
pub mod merge;
pub mod spec;
pub mod table;

pub use exec::{Options, Report, Shard, execute};
pub use spec::{Run, Sweep};
