//! NDP's pull pacer (NDP 3.2): one per receiving host, across all its
//! flows. A flow that owes its sender a PULL reserves the host's next free
//! slot; slots are one full data packet's time at the host's line rate
//! apart, so the packets the PULLs draw arrive at line rate, first owed
//! first served. Each flow fires its own reserved slots (its receiver's
//! timer), so the pacer is a clock and a queue in one number.

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
