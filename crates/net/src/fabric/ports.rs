//! The ports one copy of the fabric holds.
//!
//! A whole fabric holds every port. A logical process (LP) of a cut run
//! ([`crate::Partition`]) holds only its own nodes' ports: nothing else
//! ever runs there (docs/architecture.md, "Per-LP state"), so an LP's
//! memory for ports is its share of the fabric, not a copy of all of it.
//! A port is found from its global id through a slot map that every LP
//! shares, built once with the cut ([`crate::Partition::port_slot`]): one
//! 4-byte load beside the port itself, where a map per LP would cost each
//! LP 4 bytes for every port of the fabric.
//!
//! What anyone may read of any port, its facts as built (its node, the far
//! end, its rate and delay), sits in one table that the copies share too:
//! building a flow's path, naming ports and choosing sampled ones read
//! ports of other LPs.

use crate::ids::{NodeId, PortId};
use crate::port::Port;
use sim_core::{Bandwidth, SimDuration};
use std::ops::{Index, IndexMut};
use std::sync::Arc;

/// What a port is as built: where it sits and the link it drives. Read of
/// any port by any copy; a failure's later change of rate is the port's
/// own state ([`Port::rate`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortFacts {
    /// The node this port belongs to.
    pub node: NodeId,
    /// The node at the far end of the cable.
    pub peer_node: NodeId,
    /// The link's rate as built (a failure degraded from the start included).
    pub rate: Bandwidth,
    /// The link's propagation delay.
    pub delay: SimDuration,
    /// Whether the node is a switch (false: a host's NIC).
    pub at_switch: bool,
}

/// The ports a copy of the fabric holds, found by their global ids.
pub struct Ports {
    /// The held ports, in id order.
    own: Vec<Port>,
    /// The id of each held port.
    ids: Vec<PortId>,
    /// Each port's index in its holder's `own`, by id (shared by the LPs
    /// of one cut).
    /// Empty for a whole fabric as built, whose ports sit at their ids: an
    /// undivided run's hop pays a compare, not a dependent load.
    slot: Arc<[u32]>,
    /// Every port's facts, by id (shared).
    facts: Arc<[PortFacts]>,
}

impl Ports {
    /// The ports `own` (with their ids, in id order) of a fabric whose
    /// every port has `facts`, found through `slot`.
    pub(super) fn new(
        own: Vec<Port>,
        ids: Vec<PortId>,
        slot: Arc<[u32]>,
        facts: Arc<[PortFacts]>,
    ) -> Ports {
        assert_eq!(own.len(), ids.len(), "an id per held port");
        assert!(
            slot.is_empty() || slot.len() == facts.len(),
            "a slot per port"
        );
        debug_assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids in order");
        debug_assert!(
            (ids.iter().enumerate())
                .all(|(i, p)| { slot.get(p.idx()).map_or(p.idx(), |&s| s as usize) == i })
        );
        Ports {
            own,
            ids,
            slot,
            facts,
        }
    }

    /// The slot map of a whole fabric: none, each port at its id.
    pub(super) fn identity() -> Arc<[u32]> {
        Arc::new([])
    }

    /// Where port `p` sits in `own`, if this copy may hold it.
    #[inline(always)]
    fn slot_of(&self, p: PortId) -> usize {
        match self.slot.get(p.idx()) {
            Some(&i) => i as usize,
            None => p.idx(),
        }
    }

    /// How many ports the fabric has (held here or not).
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// Whether the fabric has no port.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// How many ports this copy holds.
    pub fn held(&self) -> usize {
        self.ids.len()
    }

    /// Whether this copy holds every port (an uncut run's).
    pub fn is_whole(&self) -> bool {
        self.ids.len() == self.facts.len()
    }

    /// Whether this copy holds port `p`.
    pub fn holds(&self, p: PortId) -> bool {
        p.idx() < self.len() && self.ids.get(self.slot_of(p)) == Some(&p)
    }

    /// Port `p` if this copy may hold it (for prefetching: another LP's
    /// port gives some held port or none, never a fault).
    #[inline(always)]
    pub fn get(&self, p: PortId) -> Option<&Port> {
        self.own.get(self.slot_of(p))
    }

    /// Where held port `p` sits in this copy, for a stage that touches it
    /// several times in one event ([`Ports::at`]): one slot-map load
    /// instead of one per touch.
    #[inline(always)]
    pub(crate) fn place(&self, p: PortId) -> Place {
        let i = self.slot_of(p);
        debug_assert_eq!(self.ids.get(i), Some(&p), "{p} is not held here");
        Place(i as u32)
    }

    /// The held port at `at` ([`Ports::place`]).
    #[inline(always)]
    pub(crate) fn at(&self, at: Place) -> &Port {
        &self.own[at.0 as usize]
    }

    /// The held port at `at`, to change.
    #[inline(always)]
    pub(crate) fn at_mut(&mut self, at: Place) -> &mut Port {
        &mut self.own[at.0 as usize]
    }

    /// Port `p`'s facts as built (any port).
    #[inline]
    pub fn facts(&self, p: PortId) -> &PortFacts {
        &self.facts[p.idx()]
    }

    /// The shared table of every port's facts.
    pub(super) fn facts_arc(&self) -> Arc<[PortFacts]> {
        Arc::clone(&self.facts)
    }

    /// Every port's facts, by id.
    pub fn all_facts(&self) -> impl ExactSizeIterator<Item = &PortFacts> + Clone {
        self.facts.iter()
    }

    /// The held ports with their ids, in id order.
    pub fn iter(&self) -> Iter<'_> {
        Iter { ports: self, k: 0 }
    }

    /// The held ports, in id order.
    pub fn values(&self) -> impl Iterator<Item = &Port> + Clone {
        self.iter().map(|(_, p)| p)
    }

    /// The held ports with their ids, in id order, to change.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (PortId, &mut Port)> {
        self.ids.iter().copied().zip(&mut self.own)
    }
}

/// Where a held port sits in its copy ([`Ports::place`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place(u32);

/// The held ports of a copy with their ids, in id order ([`Ports::iter`]).
#[derive(Clone)]
pub struct Iter<'a> {
    ports: &'a Ports,
    /// The next position in `own`.
    k: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (PortId, &'a Port);

    fn next(&mut self) -> Option<Self::Item> {
        let ports = self.ports;
        let p = *ports.ids.get(self.k)?;
        self.k += 1;
        Some((p, &ports.own[self.k - 1]))
    }
}

impl Index<PortId> for Ports {
    type Output = Port;

    /// A held port (asserted in debug builds: an event only ever touches
    /// its own LP's ports).
    #[inline(always)]
    fn index(&self, p: PortId) -> &Port {
        let i = self.slot_of(p);
        debug_assert_eq!(self.ids.get(i), Some(&p), "{p} is not held here");
        &self.own[i]
    }
}

impl IndexMut<PortId> for Ports {
    #[inline(always)]
    fn index_mut(&mut self, p: PortId) -> &mut Port {
        let i = self.slot_of(p);
        debug_assert_eq!(self.ids.get(i), Some(&p), "{p} is not held here");
        &mut self.own[i]
    }
}
