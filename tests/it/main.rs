//! The end-to-end tests: one binary (one link step) with a module per topic.

mod abq;
mod bad_input;
mod common;
mod dctcp_steady_state;
mod determinism;
mod fairq;
mod golden;
mod incast_collapse;
mod limits;
mod outputs;
mod overrides;
mod ports_csv;
mod queue_md1;
mod queue_sampling;
mod r_aqm;
mod red_ecn;
mod run_folder;
mod scenario_files;
mod shared_buffer;
mod sweeps;
mod switch_classes;
mod switch_invariants;
mod tcp_throughput;
mod topologies;
mod viq_invariants;
mod workloads;
