//! Scenario files: the TOML a user writes, parsed into validated types.
//!
//! ```toml
//! [simulation]      # seed, stop_time (absent: run to completion), max_events
//! [topology]        # kind = "star" | "dumbbell" | ... (registry::topology)
//! [switch]          # buffer; [switch.scheduler], [switch.aqm], [switch.ingress], [switch.pfc], [switch.trim]
//! [transport]       # the TCP family: cc = "newreno" | "ecn" | "dctcp", RTO, windows...
//! [[workload]]      # kind = "incast" | "long-flows" | "poisson-packets"
//! [routing]         # path choice per switch tier, host spraying
//! [[failure]]       # links that go down or degrade, and when routes react
//! [output]          # dir, queue sampling
//! ```
//!
//! [`load`] is the only way to make a [`Scenario`]: it parses the file,
//! applies `--set KEY=VALUE` overrides to the parsed document, then reads
//! and checks every table, the tagged ones through the plugin registries
//! ([`crate::registry`]). Quantities are strings with units (`"10Gbps"`,
//! `"1us"`, `"400KB"`, `"65pkt"`). Every error names the file, line,
//! column and key (or the override), and lists the valid choices; nothing
//! falls back to a silent default. The full key reference is
//! `docs/scenarios.md`, and `dcnsim list` prints the registries.

mod checks;
pub(crate) mod error;
pub mod extremes;
pub mod inputs;
mod load;
mod nodes;
mod overrides;
mod paths;
mod pfc;
mod racks;
mod read_switch;
mod read_transport;
mod sizes;
mod trim;
mod types;
mod warnings;
mod words;
pub use words::capitalised;

pub use checks::switch_index;
pub use error::ScenarioError;
pub use inputs::InputFile;
pub use load::{Table, load, load_str, parse_str};
pub use overrides::{is_override_key, keys_overlap};
pub use paths::Routing;
pub use types::*;
