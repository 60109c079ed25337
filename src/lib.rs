//! dcnsim: a discrete-event, packet-level simulator of datacenter networks.
//!
//! This crate is the top of the workspace: it reads scenarios
//! ([`scenario`]), builds and runs the simulated world ([`world`]) from the
//! `net`, `aqm` and `transport` crates, and writes results ([`report`]).
//! Only this crate knows every plugin.

/// The max-min fair allocation of a run's flows over their exact paths.
pub mod max_min;
/// The memory estimate of a run and its limit.
pub mod memory;
/// What the ports saw: pcap captures and the packet event log.
pub mod observe;
/// A flow's paths over the empty fabric: base RTT and ideal FCT.
pub mod paths;
/// Figures (PNG and SVG) of runs and sweeps.
pub mod plot;
/// Progress bars and lines on the terminal.
pub mod progress;
/// The plugin registries: one table per family, a row per kind.
pub mod registry;
/// Run summaries, per-flow tables and atomic output files.
pub mod report;
/// Paper reproductions: experiments, claims and their report.
pub mod reproduce;
/// One run, from a loaded scenario to its result folder.
pub mod runner;
/// Scenario files.
pub mod scenario;
/// Sweeps: many runs in parallel, resumable, sharded and merged.
pub mod sweep;
/// The simulated world and its event loop.
pub mod world;

#[cfg(test)]
mod doc_claims;
