//! Prefetching ahead in the event loop (issue 31): the sorted run of a
//! crowded slot shows the events a few pops ahead, and the loop asks the
//! fabric to prefetch what they will touch (net's `fabric/prefetch.rs`).

use super::{Event, World};

/// How many events ahead the loop prefetches the port a network event
/// will touch; at half the distance, it prefetches the packet and the far
/// port that the event reaches through that port. Only crowded slots (a
/// fabric's) read ahead ([`sim_core::EventQueue::upcoming`]): there every port is
/// cold, a miss costs as much as a few events' work, and fetching ahead
/// overlaps the misses of several events instead of waiting for each in
/// turn.
const PREFETCH_AHEAD: usize = 8;

impl World {
    /// Prefetches, in steps, what the network events a few pops ahead
    /// will touch (net's `fabric/prefetch.rs`); `egress` carries the
    /// egress port routed an event ago to the step that fetches its AQM.
    #[inline]
    pub(super) fn prefetch_ahead(&self, egress: &mut Option<net::PortId>) {
        if !self.q.is_crowded() {
            return; // a few events a slot: nothing to hide, one test spent
        }
        let [far, mid, near] =
            (self.q).upcoming_at([PREFETCH_AHEAD, PREFETCH_AHEAD / 2, PREFETCH_AHEAD / 4]);
        if let Some(Event::Net(ev)) = far {
            self.fabric.prefetch(ev);
        }
        if let Some(Event::Net(ev)) = mid {
            self.fabric.prefetch_packet(ev);
        }
        if let Some(out) = egress.take() {
            self.fabric.prefetch_aqm(out);
        }
        if let Some(Event::Net(ev)) = near {
            *egress = self.fabric.prefetch_egress(ev);
        }
    }
}
