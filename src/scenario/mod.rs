//! Scenario files: the TOML a user writes, parsed into validated types.
//!
//! ```toml
//! [simulation]      # seed, stop_time (absent: run to completion), max_events
//! [topology]        # kind = "star" | "dumbbell", link rates and delays, framing, nic_buffer
//! [switch]          # buffer per port; [switch.aqm] kind = "droptail" | "step-ecn"
//! [transport]       # the TCP family: cc = "newreno" | "ecn" | "dctcp", RTO, windows...
//! [[workload]]      # kind = "incast" | "long-flows" | "poisson-packets"
//! [output]          # dir
//! ```
//!
//! Quantities are strings with units (`"10Gbps"`, `"1us"`, `"400KB"`, `"65pkt"`).
//! Every error names the file, line, column and key, and lists the valid
//! choices; nothing falls back to a silent default. The full key reference is
//! `docs/scenarios.md`.

mod error;
mod load;
mod types;

pub use error::ScenarioError;
pub(crate) use load::explicit_node;
pub use load::{load_file, parse_str};
pub use types::*;
