//! The flows one copy of the world holds.
//!
//! An undivided run holds every flow. A logical process (LP) of a cut run
//! holds only the flows with an end at one of its hosts: a flow's sender
//! half runs in its source host's LP and its receiver half in its
//! destination's, so no other LP ever touches it (docs/architecture.md,
//! "Per-LP state"). A flow keeps its run-wide id everywhere; a copy finds
//! the flows it holds through a slot map of its own (4 bytes a flow, where
//! a flow is over a kilobyte); a copy that holds every flow needs none.

use super::Flow;
use std::ops::{Index, IndexMut};
use transport::SenderEnd;

/// Marks a flow id this copy does not hold.
const NOT_HELD: u32 = u32::MAX;

/// The flows a copy of the world holds, found by their run-wide ids.
#[derive(Default)]
pub(crate) struct Flows {
    /// The held flows, in id order.
    own: Vec<Flow>,
    /// Each flow's index in `own`, by id ([`NOT_HELD`]: another LP's),
    /// once `by_slot`.
    slot: Vec<u32>,
    /// Whether flows are found through `slot`: not while the copy holds
    /// every flow it was given, each at its id (an undivided run's event
    /// then pays a compare, not a dependent load).
    by_slot: bool,
}

impl Flows {
    /// Room for `ids` flows of which this copy holds `held`.
    pub(super) fn reserve_exact(&mut self, ids: usize, held: usize) {
        if held < ids {
            self.slot.reserve_exact(ids);
        }
        self.own.reserve_exact(held);
    }

    /// Gives the next id to a flow, held here if `flow` is `Some`.
    pub(super) fn push(&mut self, flow: Option<Flow>) {
        let id = self.len();
        if !self.by_slot && flow.is_none() {
            // The first flow not held: every one so far sits at its id.
            self.by_slot = true;
            self.slot.extend(0..id as u32);
        }
        if let Some(f) = &flow {
            debug_assert_eq!(f.sender.addr().flow.0 as usize, id);
        }
        let held = flow.is_some();
        self.own.extend(flow);
        if self.by_slot {
            self.slot.push(if held {
                self.own.len() as u32 - 1
            } else {
                NOT_HELD
            });
        }
    }

    /// How many flows the run has (held here or not): the next flow's id.
    pub(crate) fn len(&self) -> usize {
        if self.by_slot {
            self.slot.len()
        } else {
            self.own.len()
        }
    }

    /// Where flow `id` sits in `own` (if this copy holds it).
    #[inline(always)]
    fn slot_of(&self, id: u32) -> usize {
        match self.slot.get(id as usize) {
            Some(&i) => i as usize,
            None => id as usize,
        }
    }

    /// Whether this copy holds every flow (an undivided run's).
    pub(crate) fn is_whole(&self) -> bool {
        self.own.len() == self.len()
    }

    /// Flow `id`, if this copy holds it.
    pub(crate) fn get(&self, id: u32) -> Option<&Flow> {
        self.own.get(self.slot_of(id))
    }

    /// Flow `id` to change, if this copy holds it.
    pub(super) fn get_mut(&mut self, id: u32) -> Option<&mut Flow> {
        let i = self.slot_of(id);
        self.own.get_mut(i)
    }

    /// The held flows, in id order (every flow of a whole world).
    pub(crate) fn as_slice(&self) -> &[Flow] {
        &self.own
    }

    /// The held flows with their ids, in id order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &Flow)> {
        self.own.iter().map(|f| (f.sender.addr().flow.0, f))
    }
}

impl Index<u32> for Flows {
    type Output = Flow;

    /// A held flow (an event only ever touches its own LP's flows; another
    /// LP's id is out of bounds).
    #[inline(always)]
    fn index(&self, id: u32) -> &Flow {
        &self.own[self.slot_of(id)]
    }
}

impl IndexMut<u32> for Flows {
    #[inline(always)]
    fn index_mut(&mut self, id: u32) -> &mut Flow {
        let i = self.slot_of(id);
        &mut self.own[i]
    }
}
