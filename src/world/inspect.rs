//! A finished (or running) world's parts for the tools that inspect it:
//! tests, the max-min allocation over the fabric, the captures that watch
//! its ports. The report reads [`World::run_record`] instead.

use super::{Flow, JobCollective, Source, World};
use net::Fabric;

impl World {
    /// The network, to inspect a run (tests, the max-min allocation); the
    /// report reads [`World::run_record`] instead.
    pub fn fabric(&self) -> &Fabric {
        &self.fabric
    }

    /// Every flow, by flow id, to inspect a run (tests, the max-min
    /// allocation); the report reads [`World::run_record`] instead.
    pub fn flows(&self) -> &[Flow] {
        debug_assert!(self.flows.is_whole(), "a whole or merged world");
        self.flows.as_slice()
    }

    /// The scenario's transports, by index.
    pub fn transports(&self) -> &[crate::scenario::NamedTransport] {
        &self.transports
    }

    /// Every packet source's record.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// The collectives the run's jobs carry out.
    pub fn collectives(&self) -> &[JobCollective] {
        &self.collectives
    }

    /// Attaches what watches the ports (captures, the event log) to `ports`.
    pub fn observe(&mut self, observer: Box<dyn net::Observer>, ports: &[net::PortId]) {
        self.fabric.observe(observer, ports);
    }

    /// The attached observer, to finish its files.
    pub fn observer_mut(&mut self) -> Option<&mut (dyn net::Observer + 'static)> {
        self.fabric.observer_mut()
    }
}
