//! dcnsim core: the pieces every other crate stands on.
//!
//! - [`time`]: [`SimTime`] and [`SimDuration`], integer picoseconds.
//! - [`units`]: [`Bandwidth`], [`Bytes`], [`QueueSize`] and the parser for the
//!   unit strings used in scenario files (`"10Gbps"`, `"2.5ms"`, `"400KB"`, `"65pkt"`).
//! - [`queue`]: the deterministic event queue (ties broken by the events
//!   themselves, [`queue::Tiebreak`], so that every cut of a run orders them alike).
//! - [`rng`]: per-component random streams derived from (seed, component, purpose).
//! - [`stats`]: percentiles, means, Jain's fairness index, time averages.
//!
//! Nothing here knows about networks; the crate is the engine's foundation.

pub mod queue;
pub mod rng;
pub mod stats;
pub mod time;
pub mod units;

pub use queue::{EventQueue, RunLimit, Tiebreak};
pub use rng::RngStream;
pub use time::{SimDuration, SimTime};
pub use units::{Bandwidth, Bytes, QueueSize, UnitError};
