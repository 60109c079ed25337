//! A receiving host's pull pacer (NDP 3.2's; UE 1.0 RCCC's credit pacer):
//! one per receiving host and transport, across all its flows. A flow that
//! owes its sender a PULL (or credit) reserves the host's next free slot;
//! slots are as far apart as the data each one draws takes at the host's
//! line rate, so that data arrives at line rate, first owed first served.
//! Each flow fires its own reserved slots (its receiver's timer), so the
//! pacer is a clock and a queue in one number, and needs no timer of the
//! host's.

use sim_core::{SimDuration, SimTime};

/// A host's pull pacer: when its next PULL may go.
#[derive(Clone, Debug, Default)]
pub struct PullPacer {
    next_free: SimTime,
}

impl PullPacer {
    /// Reserves the first free slot at or after `now`; the next one is
    /// `gap` later.
    pub fn reserve(&mut self, now: SimTime, gap: SimDuration) -> SimTime {
        let slot = self.next_free.max(now);
        self.next_free = slot + gap;
        slot
    }
}
