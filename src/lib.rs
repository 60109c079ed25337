//! dcnsim: a discrete-event, packet-level simulator of datacenter networks.
//!
//! This crate is the top of the workspace: it reads scenarios
//! ([`scenario`]), builds and runs the simulated world ([`world`]) from the
//! `net`, `aqm` and `transport` crates, and writes results ([`report`]).
//! Only this crate knows every plugin.

pub mod launch;
pub mod max_min;
pub mod memory;
pub mod observe;
pub mod paths;
pub mod plot;
pub mod progress;
#[cfg(feature = "mpi")]
pub mod ranks;
pub mod registry;
pub mod report;
pub mod reproduce;
pub mod runner;
pub mod scenario;
pub mod sweep;
pub mod world;

#[cfg(test)]
mod doc_claims;
