//! The seam between the scenario loader and the plugins: a plugin's config
//! is checked once when the scenario loads, then builds one plugin per port.
//! The loader's registry is the only place that calls `check`, and it hands
//! the world configs only once they have passed it.

use crate::PortContext;
use net::{EgressAqm, IngressHook};
use sim_core::QueueSize;
use std::fmt::Debug;

/// A config problem: the key (relative to the plugin's table) and what is
/// wrong, with the valid range.
pub type Invalid = (&'static str, String);

/// What a plugin's checks may know when the scenario loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LoadContext {
    /// The most one queue of a port may hold (see [`PortContext::buffer`]).
    pub queue_limit: QueueSize,
}

/// An egress AQM's config (`[switch.aqm]`).
pub trait EgressPlugin: Debug + Send + Sync {
    /// Checks the keys together, beyond what their types say.
    fn check(&self, _ctx: &LoadContext) -> Result<(), Invalid> {
        Ok(())
    }
    /// The plugin of one switch port.
    fn build(&self, ctx: &PortContext) -> Box<dyn EgressAqm>;
    /// Whether it drops packets before the buffer is full (an AQM's
    /// early drop, not a marking): on a priority PFC keeps lossless such
    /// a drop is a loss the class exists to prevent (warned at load).
    fn drops_early(&self) -> bool {
        false
    }
}

/// An ingress plugin's config (`[switch.ingress]`).
pub trait IngressPlugin: Debug + Send + Sync {
    /// Checks the keys together, beyond what their types say.
    fn check(&self, _ctx: &LoadContext) -> Result<(), Invalid> {
        Ok(())
    }
    /// The hook of one switch port.
    fn build(&self, ctx: &PortContext) -> Box<dyn IngressHook>;
    /// Whether it rewrites rwnd (and so needs the hosts' window-scale shim).
    fn rewrites_rwnd(&self) -> bool {
        false
    }
    /// Whether it holds packets in a queue of its own that drops them
    /// (full, or held too long): a transport that never retransmits would
    /// wait forever for what it dropped.
    fn drops_held_packets(&self) -> bool {
        false
    }
}
